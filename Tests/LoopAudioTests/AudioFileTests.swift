import Foundation
import LoopAudioFiles
import LoopFoundation
import LoopTestSupport
import Testing

/// Reads a whole file as interleaved samples.
func readAll(_ path: String) throws -> (info: AudioFileInfo, samples: [Float]) {
    var reader = try AudioFileReader(path: path)
    var samples: [Float] = []
    try reader.forEachBlock(blockFrames: 4096) { block, _ in samples.append(contentsOf: block) }
    return (reader.info, samples)
}

func temporaryFolder() throws -> String {
    let path = Scratch.path("tests")
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

struct AudioFileReaderTests {
    /// A 32-bit float WAV file of `samples` (16 kHz, mono), written byte by byte.
    func floatWAV(_ samples: [Float], named name: String) throws -> String {
        var data = Data("RIFF".utf8)
        func append<T: FixedWidthInteger>(_ value: T) {
            withUnsafeBytes(of: value.littleEndian) { data.append(contentsOf: $0) }
        }
        append(UInt32(36 + samples.count * 4))
        data.append(contentsOf: Array("WAVEfmt ".utf8))
        append(UInt32(16))
        append(UInt16(3))
        append(UInt16(1))
        append(UInt32(16_000))
        append(UInt32(64_000))
        append(UInt16(4))
        append(UInt16(32))
        data.append(contentsOf: Array("data".utf8))
        append(UInt32(samples.count * 4))
        for sample in samples { append(sample.bitPattern) }
        let path = Scratch.path(name, extension: "wav")
        try data.write(to: URL(fileURLWithPath: path))
        return path
    }

    /// Floating-point samples can hold values no audio has; such a take is refused as not
    /// audio (not called silent), naming where, and a hot but real recording is read.
    @Test func floatSamplesThatAreNotAudioAreRefusedAsSuch() throws {
        for (name, value, said) in [
            ("nan", Float.nan, "is NaN"), ("infinite", Float.infinity, "is infinite"),
            ("huge", Float(3.4e38), "is 3.4e+38"),
        ] {
            let path = try floatWAV(
                [Float](repeating: 0.1, count: 16_000) + [value] + [Float](repeating: 0, count: 100), named: name)
            var reader = try AudioFileReader(path: path)
            #expect {
                try reader.forEachBlock { _, _ in }
            } throws: { error in
                let message = (error as? AudioError)?.message ?? ""
                return message.contains("its samples are not valid audio: one at 1.00 s \(said)")
            }
        }
        var hot = try AudioFileReader(path: try floatWAV([Float](repeating: 1.5, count: 16_000), named: "hot"))
        var frames = 0
        try hot.forEachBlock { _, count in frames += count }
        #expect(frames == 16_000)
    }

    @Test func readsFlacWithItsRateChannelsAndLength() throws {
        let (info, samples) = try readAll(Fixture.path("clean.flac"))
        #expect(info.sampleRate == 16_000)
        #expect(info.channelCount == 1)
        #expect(info.format == .flac)
        #expect(samples.count == info.frameCount)
        #expect(abs(info.duration - 9.68) < 0.05)
        #expect(samples.contains { abs($0) > 0.3 }, "speech is there at a normal level")
    }

    @Test func readsStereoAt48kInterleaved() throws {
        let (info, samples) = try readAll(Fixture.path("stereo-48k.flac"))
        #expect(info.sampleRate == 48_000)
        #expect(info.channelCount == 2)
        #expect(samples.count == info.frameCount * 2)
    }

    @Test func monoBlocksAreTheMeanOfTheChannels() throws {
        let (_, interleaved) = try readAll(Fixture.path("stereo-48k.flac"))
        var reader = try AudioFileReader(path: Fixture.path("stereo-48k.flac"))
        var mono: [Float] = []
        try reader.forEachMonoBlock(blockFrames: 1000) { mono.append(contentsOf: $0) }
        #expect(mono.count * 2 == interleaved.count)
        for frame in stride(from: 0, to: mono.count, by: 997) {
            #expect(abs(mono[frame] - (interleaved[2 * frame] + interleaved[2 * frame + 1]) / 2) < 1e-6)
        }
    }

    @Test func readsEveryFrameWhateverTheBlockSize() throws {
        var total = 0
        var reader = try AudioFileReader(path: Fixture.path("rate-8k.flac"))
        try reader.forEachBlock(blockFrames: 333) { _, frames in total += frames }
        #expect(total == reader.info.frameCount)
        #expect(reader.position == total)
    }

    @Test(arguments: [
        ("missing.flac", AudioFailure.fileNotFound),
        ("empty.wav", .emptyFile),
        ("not-audio.flac", .unsupportedFormat),
        ("unsupported.m4a", .unsupportedFormat),
    ])
    func refusesBadFilesWithACodeAndTheFileName(name: String, code: AudioFailure) {
        let path = Fixture.path(name)
        #expect {
            _ = try AudioFileReader(path: path)
        } throws: { error in
            guard let error = error as? AudioError else { return false }
            return error.kind == code && error.description.hasPrefix(path) && !error.description.contains("\n")
        }
    }

    @Test func aTruncatedFileFailsWhileReadingAndSaysWhere() throws {
        #expect {
            _ = try readAll(Fixture.path("truncated.flac"))
        } throws: { error in
            guard let error = error as? AudioError else { return false }
            return (error.kind == .decodeFailed || error.kind == .truncated)
                && error.description.contains("truncated.flac")
        }
    }

    @Test func aTruncatedWavIsReportedAsTruncated() throws {
        let folder = try temporaryFolder()
        let (_, samples) = try readAll(Fixture.path("clean.flac"))
        var writer = try AudioFileWriter(path: folder + "/whole.wav", format: .wav, sampleRate: 16_000, channelCount: 1)
        try writer.write(samples)
        try writer.commit()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: folder + "/whole.wav"))
        try bytes.prefix(bytes.count / 2).write(to: URL(fileURLWithPath: folder + "/cut.wav"))
        #expect {
            _ = try AudioFileReader(path: folder + "/cut.wav")
        } throws: { error in
            (error as? AudioError)?.kind == .truncated && "\(error)".contains("cut.wav: the file is truncated")
        }
    }
}

struct AudioFileWriterTests {
    @Test(arguments: [AudioFileFormat.flac, .wav])
    func writesAndReadsBackTheSameAudio(format: AudioFileFormat) throws {
        let folder = try temporaryFolder()
        let (info, samples) = try readAll(Fixture.path("stereo-48k.flac"))
        let path = folder + "/copy." + format.fileExtension
        var writer = try AudioFileWriter(
            path: path, format: format, sampleRate: info.sampleRate, channelCount: info.channelCount)
        try writer.write(samples)
        try writer.commit()
        let (copyInfo, copy) = try readAll(path)
        #expect(copyInfo.format == format)
        #expect(copyInfo.sampleRate == 48_000 && copyInfo.channelCount == 2)
        #expect(copy.count == samples.count)
        let worst = zip(copy, samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1.0 / 16_000, "16-bit round trip")
    }

    @Test func nothingAppearsUntilCommitAndAnAbandonedWriterLeavesNoFile() throws {
        let folder = try temporaryFolder()
        let path = folder + "/clip.flac"
        do {
            var writer = try AudioFileWriter(path: path, format: .flac, sampleRate: 16_000, channelCount: 1)
            try writer.write([Float](repeating: 0.1, count: 16_000))
            #expect(!FileManager.default.fileExists(atPath: path))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder).isEmpty)
    }

    @Test func clipsSamplesBeyondFullScaleInsteadOfWrapping() throws {
        let folder = try temporaryFolder()
        var writer = try AudioFileWriter(path: folder + "/loud.wav", format: .wav, sampleRate: 8_000, channelCount: 1)
        try writer.write([1.5, -1.5, 0.5])
        try writer.commit()
        let (_, back) = try readAll(folder + "/loud.wav")
        #expect(back[0] > 0.99 && back[1] < -0.99 && abs(back[2] - 0.5) < 0.001)
    }

    @Test func refusesFormatsItCannotWrite() {
        #expect(throws: AudioError.self) {
            _ = try AudioFileWriter(
                path: Scratch.path("x", extension: "audio"), format: .other, sampleRate: 16_000, channelCount: 1)
        }
    }
}
