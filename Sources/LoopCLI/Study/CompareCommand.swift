import ArgumentParser
import Foundation
import LoopReports
import LoopWorkflows

struct CompareCommand: ReportingCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Score a recording of yourself saying a phrase against the model recording.",
        discussion: """
            The attempt is aligned with the model frame by frame (as a take is with its text): \
            how much of the phrase was said and which words were missed, the attempt's pace \
            against the model's and the word said furthest from it, and how closely its melody \
            (pitch in semitones from each speaker's middle, by aubio's YIN) follows the model's, \
            from 0 to 1. An attempt whose words are not the model's says so. `loop study \
            --shadow` scores each attempt as you study.
            """
    )

    @Argument(help: "Your recording (WAV, FLAC, Ogg, MP3...).") var attempt: String
    @Option(parsing: .unconditional, help: "The model recording of the phrase.") var model: String
    @Option(parsing: .unconditional, help: "The phrase's text (its words are named in the score).") var text: String
    @Option(parsing: .unconditional, help: "The text's language (e.g. fr; default: guessed from the text).")
    var language: String?
    @Flag(help: "Print the score as JSON.") var json = false

    func execute() async throws {
        let score = try ShadowingWorkflow.compare(attempt: attempt, model: model, text: text, language: language)
        let report = AttemptReport(score)
        if json {
            try JSONOutput.print(report)
        } else {
            print(report.text)
        }
    }
}
