import Foundation
import LoopFoundation
import LoopModel
import LoopPlayback
import LoopStudy
import LoopTerminal
import LoopWorkflows

/// `loop review`'s sessions: each group of the queue studied in turn, on the study view where
/// it loops until rated, or (no terminal) played once and rated as told.
public enum ReviewSession {
    /// Reviews `queue`'s groups in order, with `settings` (rounds aside), to `destination`;
    /// `onReviewed` hears of each as its rating is kept. Stops early when the learner quits.
    public static func run(
        _ queue: ReviewQueue, library: Library, settings: StudySettings, destination: StudyWorkflow.SoundDestination,
        interactive: Bool, images: Bool, ratingWithoutTerminal: ReviewRating,
        onReviewed: (ReviewWorkflow.Reviewed) -> Void
    ) async throws {
        let reviews = ReviewWorkflow(library: library)
        let studying = StudyWorkflow(library: library)
        var prepared: [String: PreparedStudy] = [:]
        for (index, item) in queue.items.enumerated() {
            if prepared[item.loopId] == nil {
                let progress = ProgressBar("loading audio")
                defer { progress.finish() }
                do {
                    prepared[item.loopId] = try await studying.prepare(loop: item.loopId, progress: progress.callback)
                } catch let error as StudyError where error.kind == .noAudio {
                    continue
                }
            }
            guard let loop = prepared[item.loopId] else { continue }
            // (A group whose clips were all taken away since it was begun cannot be studied.)
            guard loop.groups.indices.contains(item.group),
                loop.groups[item.group].contains(where: { $0.duration != nil })
            else { continue }
            var session = settings
            session.rounds = interactive ? nil : 1
            let player = try studying.player(
                for: loop, settings: session, selection: [item.group], destination: destination,
                realTime: interactive)
            let started = Date()
            let outcome = try await StudySessionRunner.run(
                player: player, prepared: loop, fullScreen: interactive, images: images, printing: false,
                rating: .reviewing(group: item.group),
                title: "\(loop.loop.summary.title) · review \(index + 1) of \(queue.items.count)")
            var rated = outcome.ratings
            if !interactive { rated[item.group] = ratingWithoutTerminal }
            // Rated before it ended, a group counts as studied.
            var studied = outcome.studiedGroups
            if rated[item.group] != nil && !studied.contains(item.group) { studied.append(item.group) }
            let ratings = ReviewWorkflow.ratings(studied: studied, rated: rated, at: Date())
            try await studying.save(outcome.study, of: loop, startedAt: started, reviews: ratings)
            if let rating = ratings.first(where: { $0.group == item.group })?.rating {
                onReviewed(
                    ReviewWorkflow.Reviewed(
                        title: loop.loop.summary.title, group: item.group, rating: rating,
                        next: try reviews.cards(ofLoop: item.loopId)[item.group]?.due))
            }
            if outcome.quit { break }
        }
    }
}
