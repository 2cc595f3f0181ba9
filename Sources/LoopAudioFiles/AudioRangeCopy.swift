import Foundation

extension AudioFileWriter {
    /// Appends the frames `range` of the file at `source` (which must have this writer's
    /// channel count); returns the frames copied (fewer when the file ends first).
    @discardableResult
    public mutating func append(frames range: Range<Int>, of source: String) throws -> Int {
        var reader = try AudioFileReader(path: source)
        let channels = reader.info.channelCount
        try reader.seek(toFrame: range.lowerBound)
        var left = range.count
        var copied = 0
        var block = [Float](repeating: 0, count: 8192 * channels)
        while left > 0 {
            let wanted = min(left, 8192)
            let read = try block.withUnsafeMutableBufferPointer { (buffer) throws(AudioError) -> Int in
                try reader.read(into: UnsafeMutableBufferPointer(rebasing: buffer[0..<(wanted * channels)]))
            }
            guard read > 0 else { break }
            try block.withUnsafeBufferPointer { (buffer) throws(AudioError) in
                try write(UnsafeBufferPointer(rebasing: buffer[0..<(read * channels)]))
            }
            left -= read
            copied += read
        }
        return copied
    }
}
