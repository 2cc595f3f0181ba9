import Hummingbird

/// A response body writer that counts the bytes written through it into `count`.
struct CountingWriter: ResponseBodyWriter {
    var base: any ResponseBodyWriter
    let count: ByteCount

    mutating func write(_ buffer: ByteBuffer) async throws {
        count.bytes += FileRegions.bytesSent(by: buffer)
        try await base.write(buffer)
    }

    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {
        try await base.finish(trailingHeaders)
    }
}

/// Bytes counted by a ``CountingWriter``.
final class ByteCount {
    var bytes = 0
}
