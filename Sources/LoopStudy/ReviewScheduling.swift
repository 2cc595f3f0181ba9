import Foundation
import LoopModel

/// Gives a group its next review date from a rating: FSRS, or a fixed ladder of intervals.
public enum ReviewScheduler: Sendable, Equatable {
    case fsrs(FSRS)
    case ladder(ReviewLadder)

    /// FSRS with its published parameters and a desired retention of 0.9.
    public static let standard = ReviewScheduler.fsrs(FSRS())

    /// The card after a review rated `rating` at `date`.
    public func review(_ card: ReviewCard, _ rating: ReviewRating, at date: Date) -> ReviewCard {
        switch self {
        case .fsrs(let fsrs): fsrs.review(card, rating, at: date)
        case .ladder(let ladder): ladder.review(card, rating, at: date)
        }
    }

    /// The card a group's reviews give, replayed in time order from a new card.
    public func replay(_ reviews: [(rating: ReviewRating, date: Date)]) -> ReviewCard? {
        guard let first = reviews.first else { return nil }
        return reviews.sorted { $0.date < $1.date }.reduce(ReviewCard.new(at: first.date)) {
            review($0, $1.rating, at: $1.date)
        }
    }
}

/// FSRS 6 (the Free Spaced Repetition Scheduler), as the reference implementation (the `fsrs`
/// package, 6.3.2) computes it without fuzz: a group's stability (days until its recall falls to
/// 90%) and difficulty (1-10) move with each rating, and its next interval is the one at which
/// its predicted recall falls to the desired retention.
public struct FSRS: Sendable, Equatable {
    /// FSRS 6's published default parameters (w0 to w20).
    public static let defaultParameters: [Double] = [
        0.212, 1.2931, 2.3065, 8.2956, 6.4133, 0.8334, 3.0194, 0.001, 1.8722, 0.1666, 0.796, 1.4835, 0.0614,
        0.2629, 1.6483, 0.6014, 1.8729, 0.5425, 0.0912, 0.0658, 0.1542,
    ]
    static let minimumStability = 0.001
    static let day: TimeInterval = 86_400

    /// FSRS's 21 weights (FSRS-6), as the reference implementation orders them.
    public var parameters: [Double]
    /// The recall probability a review is scheduled at: 0.7 to 0.99.
    public var desiredRetention: Double
    /// The steps of a new group before it is reviewed by days: a group studied for a few minutes
    /// comes back once in the same sitting when rated again or hard, and moves to days when good.
    public var learningSteps: [TimeInterval]
    /// The steps of a forgotten group before it goes back to days.
    public var relearningSteps: [TimeInterval]
    /// The longest interval, in days.
    public var maximumInterval: Int

    /// The desired retentions it takes.
    public static let retentions = ReviewSettings.retentions

    /// A scheduler; its retention and steps as the library's review settings give them.
    public init(
        parameters: [Double] = FSRS.defaultParameters, desiredRetention: Double = 0.9,
        learningSteps: [TimeInterval] = [600], relearningSteps: [TimeInterval] = [600],
        maximumInterval: Int = ReviewCard.longestInterval
    ) {
        self.parameters = parameters
        self.desiredRetention = desiredRetention
        self.learningSteps = learningSteps
        self.relearningSteps = relearningSteps
        self.maximumInterval = maximumInterval
    }

    private var decay: Double { -parameters[20] }
    private var factor: Double { pow(0.9, 1 / decay) - 1 }

    /// Whole days from `earlier` to `later`, rounded down (as Python's `timedelta.days`).
    static func days(from earlier: Date, to later: Date) -> Int {
        Int((later.timeIntervalSince(earlier) / day).rounded(.down))
    }

    func retrievability(of card: ReviewCard, at date: Date) -> Double {
        guard let last = card.lastReview, let stability = card.stability else { return 0 }
        let elapsed = Double(max(0, Self.days(from: last, to: date)))
        return pow(1 + factor * elapsed / stability, decay)
    }

    /// The card after a review rated `rating` at `date`.
    public func review(_ card: ReviewCard, _ rating: ReviewRating, at date: Date) -> ReviewCard {
        var card = card
        let sinceLast = card.lastReview.map { Self.days(from: $0, to: date) }
        let interval: TimeInterval
        let sameDay = sinceLast.map { $0 < 1 } ?? false
        switch card.state {
        case .learning, .relearning:
            let steps = card.state == .learning ? learningSteps : relearningSteps
            let step = card.step ?? 0
            if let stability = card.stability, let difficulty = card.difficulty {
                card.stability =
                    sameDay
                    ? shortTermStability(stability, rating)
                    : nextStability(stability, difficulty, rating, recall: retrievability(of: card, at: date))
                card.difficulty = nextDifficulty(difficulty, rating)
            } else {
                card.stability = initialStability(rating)
                card.difficulty = clampDifficulty(initialDifficulty(rating))
            }
            if steps.isEmpty || (step >= steps.count && rating != .again) {
                interval = graduate(&card)
            } else {
                switch rating {
                case .again:
                    card.step = 0
                    interval = steps[0]
                case .hard:
                    if step == 0 && steps.count == 1 {
                        interval = steps[0] * 1.5
                    } else if step == 0 {
                        interval = (steps[0] + steps[1]) / 2
                    } else {
                        interval = steps[step]
                    }
                case .good:
                    if step + 1 == steps.count {
                        interval = graduate(&card)
                    } else {
                        card.step = step + 1
                        interval = steps[step + 1]
                    }
                case .easy:
                    interval = graduate(&card)
                }
            }
        case .review:
            let stability = card.stability ?? initialStability(rating)
            let difficulty = card.difficulty ?? clampDifficulty(initialDifficulty(rating))
            let next =
                sameDay
                ? shortTermStability(stability, rating)
                : nextStability(stability, difficulty, rating, recall: retrievability(of: card, at: date))
            card.stability = next
            card.difficulty = nextDifficulty(difficulty, rating)
            if rating == .again && !relearningSteps.isEmpty {
                card.state = .relearning
                card.step = 0
                interval = relearningSteps[0]
            } else {
                interval = TimeInterval(nextInterval(next)) * Self.day
            }
        }
        card.due = date.addingTimeInterval(interval)
        card.lastReview = date
        return card
    }

    /// Moves the card (its stability set) to reviews by days; the interval.
    private func graduate(_ card: inout ReviewCard) -> TimeInterval {
        card.state = .review
        card.step = nil
        return TimeInterval(nextInterval(card.stability ?? Self.minimumStability)) * Self.day
    }

    private func initialStability(_ rating: ReviewRating) -> Double {
        max(parameters[rating.rawValue - 1], Self.minimumStability)
    }

    private func initialDifficulty(_ rating: ReviewRating) -> Double {
        parameters[4] - exp(parameters[5] * Double(rating.rawValue - 1)) + 1
    }

    private func clampDifficulty(_ difficulty: Double) -> Double { min(max(difficulty, 1), 10) }

    /// Whole days, rounded half to even as the reference does, between 1 and the maximum.
    func nextInterval(_ stability: Double) -> Int {
        let days = (stability / factor * (pow(desiredRetention, 1 / decay) - 1)).rounded(.toNearestOrEven)
        return min(max(Int(days), 1), maximumInterval)
    }

    private func shortTermStability(_ stability: Double, _ rating: ReviewRating) -> Double {
        var increase =
            exp(parameters[17] * (Double(rating.rawValue) - 3 + parameters[18])) * pow(stability, -parameters[19])
        if rating != .again { increase = max(increase, 1) }
        return max(stability * increase, Self.minimumStability)
    }

    private func nextDifficulty(_ difficulty: Double, _ rating: ReviewRating) -> Double {
        let delta = -(parameters[6] * (Double(rating.rawValue) - 3))
        let damped = difficulty + (10 - difficulty) * delta / 9
        let reverted = parameters[7] * initialDifficulty(.easy) + (1 - parameters[7]) * damped
        return clampDifficulty(reverted)
    }

    /// The stability after a review on another day than the last, `recall` the card's
    /// retrievability then.
    private func nextStability(
        _ stability: Double, _ difficulty: Double, _ rating: ReviewRating, recall: Double
    ) -> Double {
        let next: Double
        if rating == .again {
            let longTerm =
                parameters[11] * pow(difficulty, -parameters[12]) * (pow(stability + 1, parameters[13]) - 1)
                * exp((1 - recall) * parameters[14])
            let shortTerm = stability / exp(parameters[17] * parameters[18])
            next = min(longTerm, shortTerm)
        } else {
            let hardPenalty = rating == .hard ? parameters[15] : 1
            let easyBonus = rating == .easy ? parameters[16] : 1
            next =
                stability
                * (1 + exp(parameters[8]) * (11 - difficulty) * pow(stability, -parameters[9])
                    * (exp((1 - recall) * parameters[10]) - 1) * hardPenalty * easyBonus)
        }
        return max(next, Self.minimumStability)
    }
}

/// A fixed ladder of intervals, as Echo Loop gives a text: one pass, then reviews after 6 hours,
/// 1, 2, 4, 7, 14 and 28 days. Good climbs a rung, easy two, hard stays, again starts over; past
/// the top rung the last interval repeats.
public struct ReviewLadder: Sendable, Equatable {
    /// The rungs' intervals, in seconds.
    public var intervals: [TimeInterval]

    /// Echo Loop's ladder: 6 hours, then 1, 2, 4, 7, 14 and 28 days.
    public static let echoLoop: [TimeInterval] = [0.25, 1, 2, 4, 7, 14, 28].map { $0 * 86_400 }

    /// A ladder of `intervals`.
    public init(intervals: [TimeInterval] = ReviewLadder.echoLoop) { self.intervals = intervals }

    /// The card after a review rated `rating` at `date`: a rung up, two, none or back to the first.
    public func review(_ card: ReviewCard, _ rating: ReviewRating, at date: Date) -> ReviewCard {
        var card = card
        let rung: Int
        if card.lastReview == nil {
            rung = rating == .easy ? 1 : 0
        } else {
            let current = card.step ?? 0
            switch rating {
            case .again: rung = 0
            case .hard: rung = current
            case .good: rung = current + 1
            case .easy: rung = current + 2
            }
        }
        let step = min(rung, intervals.count - 1)
        card.step = step
        card.state = rating == .again && card.lastReview != nil ? .relearning : .review
        card.due = date.addingTimeInterval(intervals[step])
        card.lastReview = date
        return card
    }
}

extension ReviewSettings {
    /// The scheduler these settings choose.
    public var scheduler: ReviewScheduler {
        switch kind {
        case .fsrs: .fsrs(FSRS(desiredRetention: desiredRetention))
        case .ladder: .ladder(ReviewLadder())
        }
    }

    /// A group's card from its reviews, as these settings' scheduler gives it: what the library
    /// asks the store to keep (``ReviewReplay``).
    public static let replay: ReviewReplay = { settings, reviews in settings.scheduler.replay(reviews) }
}
