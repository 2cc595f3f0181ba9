import Foundation

/// A FLAC file whose header says what the test wants it to, whatever the audio holds.
public enum LyingFLAC {
    /// Rewrites the STREAMINFO of the FLAC file at `path` to declare `frames` frames (36 bits)
    /// and, when given, `sampleRate` (20 bits), leaving its audio as it is.
    public static func rewrite(_ path: String, frames: UInt64, sampleRate: UInt64? = nil) throws {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard bytes.count > 26, Array(bytes[0..<4]) == Array("fLaC".utf8) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: path])
        }
        // STREAMINFO follows "fLaC" and its block header; bytes 18-25 hold the sample rate (20
        // bits), channels - 1 (3), bits per sample - 1 (5) and the frames (36).
        var fields = bytes[18..<26].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        fields = fields & ~((1 << 36) - 1) | frames
        if let sampleRate { fields = (sampleRate << 44) | (fields & ((1 << 44) - 1)) }
        for index in 0..<8 { bytes[18 + index] = UInt8(truncatingIfNeeded: fields >> (56 - 8 * index)) }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
