internal import CDeflate
import Foundation

/// A failure of zlib's: the stream is not deflate data, ends early, or zlib ran out of memory.
struct DeflateError: Error, CustomStringConvertible {
    var description: String
}

/// A raw deflate stream being inflated (zlib, every call here): bytes in as they come, what they
/// inflate to out in pieces of at most `pieceBytes`. Its z_stream lives at one address (zlib
/// keeps a pointer back to it) and is freed with the inflater.
struct RawInflater: ~Copyable {
    static let pieceBytes = 1 << 18
    private let stream: UnsafeMutablePointer<z_stream>
    private var output: [UInt8]
    /// Whether the deflate stream's last block has been read.
    private(set) var ended = false

    init() throws(DeflateError) {
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        output = [UInt8](repeating: 0, count: Self.pieceBytes)
        guard loop_inflate_init_raw(stream) == Z_OK else {
            stream.deallocate()
            throw DeflateError(description: "zlib could not start inflating (out of memory)")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
    }

    /// Inflates `input`, the stream's next bytes, handing each piece it makes to `body`. Bytes
    /// after the stream's end are left unread; returns how many of `input` were read.
    @discardableResult
    mutating func inflate(_ input: UnsafeRawBufferPointer, _ body: (Data) throws -> Void) throws -> Int {
        guard !ended, let base = input.baseAddress, !input.isEmpty else { return 0 }
        stream.pointee.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: UInt8.self))
        stream.pointee.avail_in = UInt32(input.count)
        defer {
            stream.pointee.next_in = nil
            stream.pointee.avail_in = 0
        }
        let outputCount = output.count
        repeat {
            let (result, made) = output.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(outputCount)
                let result = zlibInflate(stream, Z_NO_FLUSH)
                return (result, outputCount - Int(stream.pointee.avail_out))
            }
            switch result {
            case Z_OK, Z_BUF_ERROR: break
            case Z_STREAM_END: ended = true
            case Z_MEM_ERROR: throw DeflateError(description: "zlib ran out of memory")
            default: throw DeflateError(description: "its deflated data is damaged")
            }
            if made > 0 { try body(Data(output[0..<made])) }
            // zlib stops when its output is full or its input is read (or the stream ends).
            if made < outputCount { break }
        } while !ended
        return input.count - Int(stream.pointee.avail_in)
    }
}

/// zlib's `inflate`, named apart from the Swift method above.
private func zlibInflate(_ stream: UnsafeMutablePointer<z_stream>, _ flush: Int32) -> Int32 {
    inflate(stream, flush)
}

/// `data` as one raw deflate stream (zlib's default level: a manifest, a few kilobytes).
func rawDeflated(_ data: Data) throws(DeflateError) -> Data {
    let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    stream.initialize(to: z_stream())
    defer { stream.deallocate() }
    guard loop_deflate_init_raw(stream, Z_DEFAULT_COMPRESSION) == Z_OK else {
        throw DeflateError(description: "zlib could not start deflating (out of memory)")
    }
    defer { deflateEnd(stream) }
    let bound = Int(deflateBound(stream, uLong(data.count)))
    var output = [UInt8](repeating: 0, count: bound)
    let result = data.withUnsafeBytes { input -> Int32 in
        output.withUnsafeMutableBufferPointer { buffer in
            stream.pointee.next_in = UnsafeMutablePointer(
                mutating: input.baseAddress?.assumingMemoryBound(to: UInt8.self))
            stream.pointee.avail_in = UInt32(input.count)
            stream.pointee.next_out = buffer.baseAddress
            stream.pointee.avail_out = UInt32(bound)
            return deflate(stream, Z_FINISH)
        }
    }
    guard result == Z_STREAM_END else { throw DeflateError(description: "zlib could not deflate (\(result))") }
    return Data(output[0..<(bound - Int(stream.pointee.avail_out))])
}
