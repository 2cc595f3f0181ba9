import Foundation
import LoopAudioFiles
import LoopSpeech

/// Takes made by the synthesizer for tests.
public enum SpokenTake {
    /// A take read by `voice` (another voice than the one that renders a text for alignment)
    /// with no pause between its phrases, half a second of silence before and `after` seconds
    /// after; where each phrase starts and ends, in seconds.
    public static func continuous(
        _ phrases: [String], voice: String = "en-us+m3", wordsPerMinute: Int = 150, after: Double = 0.5
    )
        throws -> (path: String, phrases: [Range<Double>])
    {
        try read(phrases, voice: voice, wordsPerMinute: wordsPerMinute, pause: 0, after: after)
    }

    /// The same, read with `pause` seconds of silence after each phrase but the last.
    public static func withPauses(
        _ phrases: [String], pause: Double = 0.6, voice: String = "en-us+m3", wordsPerMinute: Int = 150
    )
        throws -> (path: String, phrases: [Range<Double>])
    {
        try read(phrases, voice: voice, wordsPerMinute: wordsPerMinute, pause: pause, after: 0.5)
    }

    private static func read(_ phrases: [String], voice: String, wordsPerMinute: Int, pause: Double, after: Double)
        throws -> (path: String, phrases: [Range<Double>])
    {
        let clips = try SpeechSynthesizer.shared.render(phrases, voice: voice, wordsPerMinute: wordsPerMinute)
        let rate = clips[0].sampleRate
        var samples = [Float](repeating: 0, count: rate / 2)
        var spans: [Range<Double>] = []
        for (index, clip) in clips.enumerated() {
            if index > 0 { samples += [Float](repeating: 0, count: Int(pause * Double(rate))) }
            // Trimmed to the speech, so without a pause the phrases run into each other.
            let first = clip.samples.firstIndex { abs($0) > 0.001 } ?? 0
            let last = clip.samples.lastIndex { abs($0) > 0.001 } ?? clip.samples.count - 1
            let start = Double(samples.count) / Double(rate)
            samples += clip.samples[first...last]
            spans.append(start..<Double(samples.count) / Double(rate))
        }
        samples += [Float](repeating: 0, count: Int(after * Double(rate)))
        let path = Scratch.path("take", extension: "wav")
        var writer = try AudioFileWriter(path: path, format: .wav, sampleRate: rate, channelCount: 1)
        try writer.write(samples)
        try writer.commit()
        return (path, spans)
    }
}
