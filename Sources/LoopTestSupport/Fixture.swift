import Foundation

/// The committed test fixtures in `Tests/Fixtures` (see its README for how each was made).
public enum Fixture {
    /// The fixtures folder, found from this source file's place in the repository.
    public static let folder = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures").path

    /// The path of the fixture `name`.
    public static func path(_ name: String) -> String { folder + "/" + name }

    /// The five phrases every fixture take reads, with the exact times (seconds) they were placed at.
    public static let truth: [(text: String, start: Double, end: Double)] = {
        struct Truth: Decodable {
            struct Phrase: Decodable {
                var text: String
                var start: Double
                var end: Double
            }
            var phrases: [Phrase]
        }
        guard let data = FileManager.default.contents(atPath: path("truth.json")),
            let truth = try? JSONDecoder().decode(Truth.self, from: data)
        else { fatalError("cannot read \(path("truth.json"))") }
        return truth.phrases.map { ($0.text, $0.start, $0.end) }
    }()
}
