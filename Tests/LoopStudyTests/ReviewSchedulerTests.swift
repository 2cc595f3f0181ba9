import Foundation
import LoopModel
import LoopStudy
import LoopTestSupport
import Testing

/// The review scheduler against the reference FSRS implementation (`fsrs` 6.3.2 on PyPI), from
/// the vectors `Scripts/make-review-vectors` wrote: every review of 240 rating histories gives
/// the same state, step, due date (to the minute), stability and difficulty (to 1e-6).
struct ReviewSchedulerTests {
    struct Vectors: Decodable {
        struct History: Decodable {
            var desiredRetention: Double
            var learningSteps: [Double]
            var relearningSteps: [Double]
            var reviews: [Review]
        }
        struct Review: Decodable {
            var rating: Int
            var at: Double
            var state: Int
            var step: Int?
            var stability: Double
            var difficulty: Double
            var due: Double
        }
        var histories: [History]
    }

    static let vectors: Vectors = {
        let data = FileManager.default.contents(atPath: Fixture.path("review-vectors.json"))!
        return try! JSONDecoder().decode(Vectors.self, from: data)
    }()

    @Test func fsrsAgreesWithTheReferenceImplementationOnEveryReview() throws {
        #expect(Self.vectors.histories.count >= 200)
        var checked = 0
        for (index, history) in Self.vectors.histories.enumerated() {
            let scheduler = ReviewScheduler.fsrs(
                FSRS(
                    desiredRetention: history.desiredRetention, learningSteps: history.learningSteps,
                    relearningSteps: history.relearningSteps))
            var card = ReviewCard.new(at: Date(timeIntervalSince1970: history.reviews[0].at))
            for (number, expected) in history.reviews.enumerated() {
                let rating = try #require(ReviewRating(rawValue: expected.rating))
                card = scheduler.review(card, rating, at: Date(timeIntervalSince1970: expected.at))
                let place = "history \(index + 1), review \(number + 1)"
                #expect(card.state.rawValue == expected.state, "\(place): state")
                #expect(card.step == expected.step, "\(place): step")
                #expect(abs(card.due.timeIntervalSince1970 - expected.due) < 60, "\(place): due")
                #expect(abs((card.stability ?? .nan) - expected.stability) < 1e-6, "\(place): stability")
                #expect(abs((card.difficulty ?? .nan) - expected.difficulty) < 1e-6, "\(place): difficulty")
                checked += 1
            }
        }
        #expect(checked > 1_500)
    }

    @Test func replayingAGroupsReviewsInAnyOrderGivesTheSameCard() throws {
        let history = Self.vectors.histories[7].reviews
        let reviews = history.map {
            (rating: ReviewRating(rawValue: $0.rating)!, date: Date(timeIntervalSince1970: $0.at))
        }
        let card = try #require(ReviewScheduler.standard.replay(reviews.reversed()))
        #expect(abs(card.due.timeIntervalSince1970 - history.last!.due) < 60)
    }

    @Test func theLadderClimbsOnGoodAndStartsOverOnAgain() {
        let ladder = ReviewScheduler.ladder(ReviewLadder())
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        var card = ladder.review(.new(at: start), .good, at: start)
        #expect(card.due.timeIntervalSince(start) == 6 * 3600)
        var now = card.due
        var intervals: [Double] = []
        for _ in 0..<8 {
            card = ladder.review(card, .good, at: now)
            intervals.append(card.due.timeIntervalSince(now) / 86_400)
            now = card.due
        }
        #expect(intervals == [1, 2, 4, 7, 14, 28, 28, 28])
        card = ladder.review(card, .again, at: now)
        #expect(card.due.timeIntervalSince(now) == 6 * 3600)
        card = ladder.review(card, .easy, at: card.due)
        #expect(card.step == 2)
    }
}
