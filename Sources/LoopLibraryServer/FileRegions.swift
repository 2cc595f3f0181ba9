import Foundation
import NIOCore

/// Files sent by the kernel (`sendfile`): a download's bytes go from the page cache to the
/// socket without being read into the server, as nginx sends them. Hummingbird writes a
/// response's body as byte buffers only, so a download writes small notes instead
/// (``FileRegions/note(path:offset:count:)``), each naming a range of a file, and
/// ``FileRegionSender``, next to the socket, writes each note it meets as that range of the
/// file. A note starts with a random key of this process, which no client knows and no file's
/// bytes will hold by chance (2^-128): anything else goes out as it is.
enum FileRegions {
    /// The most bytes one note sends; the next waits until the connection has taken most of it.
    static let regionLength = 4 << 20

    private static let key: [UInt8] = {
        var generator = SystemRandomNumberGenerator()
        return (0..<16).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }()

    /// A note: `count` bytes of the file at `path` from `offset`.
    static func note(path: String, offset: Int, count: Int) -> ByteBuffer {
        var note = ByteBuffer()
        note.reserveCapacity(key.count + 16 + path.utf8.count)
        note.writeBytes(key)
        note.writeInteger(UInt64(offset))
        note.writeInteger(UInt64(count))
        note.writeString(path)
        return note
    }

    /// The range a note names; nil if `buffer` is not a note.
    static func read(_ buffer: ByteBuffer) -> (path: String, offset: Int, count: Int)? {
        guard buffer.readableBytes > key.count + 16,
            buffer.readableBytesView.prefix(key.count).elementsEqual(key),
            let offset = buffer.getInteger(at: buffer.readerIndex + key.count, as: UInt64.self),
            let count = buffer.getInteger(at: buffer.readerIndex + key.count + 8, as: UInt64.self),
            let path = buffer.getString(
                at: buffer.readerIndex + key.count + 16, length: buffer.readableBytes - key.count - 16),
            offset <= UInt64(Int.max), count <= UInt64(Int.max)
        else { return nil }
        return (path, Int(offset), Int(count))
    }

    /// The bytes `buffer` puts on the wire: those of the range it names, if it is a note.
    static func bytesSent(by buffer: ByteBuffer) -> Int {
        read(buffer)?.count ?? buffer.readableBytes
    }
}

/// Writes each note (``FileRegions``) as the range of the file it names, handed to the
/// kernel, and everything else as it is. It sits next to the socket, where a response's body
/// passes as it was written (HTTP/1.1 with a length: no chunk framing). A file that cannot be
/// opened, or is shorter than the range, closes the connection: the client sees a response
/// shorter than its length, never other bytes.
final class FileRegionSender: ChannelOutboundHandler, RemovableChannelHandler, Sendable {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let buffer) = unwrapOutboundIn(data), let note = FileRegions.read(buffer) else {
            context.write(data, promise: promise)
            return
        }
        let descriptor = open(note.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            refuse(IOError(errnoCode: errno, reason: "open \(note.path)"), context: context, promise: promise)
            return
        }
        let handle = NIOFileHandle(_deprecatedTakingOwnershipOfDescriptor: descriptor)
        var status = stat()
        // A file shorter than the range (a blob never shrinks: a broken disk) would have the
        // kernel send nothing, again and again: refused like a file that does not open.
        guard fstat(descriptor, &status) == 0, Int(status.st_size) >= note.offset + note.count else {
            try? handle.close()
            refuse(
                IOError(errnoCode: EIO, reason: "\(note.path) is shorter than a download"), context: context,
                promise: promise)
            return
        }
        let region = FileRegion(fileHandle: handle, readerIndex: note.offset, endIndex: note.offset + note.count)
        let written = context.eventLoop.makePromise(of: Void.self)
        written.futureResult.whenComplete { _ in try? handle.close() }
        if let promise { written.futureResult.cascade(to: promise) }
        context.write(wrapOutboundOut(.fileRegion(region)), promise: written)
    }

    private func refuse(_ error: IOError, context: ChannelHandlerContext, promise: EventLoopPromise<Void>?) {
        promise?.fail(error)
        context.close(promise: nil)
    }
}

/// Puts a ``FileRegionSender`` next to the socket when a connection's pipeline is set up
/// (Hummingbird adds its extra handlers after the HTTP codecs, where a body is not yet bytes
/// for the socket). A connection it cannot be put on is closed: its notes would go out as bytes.
final class FileRegionInstaller: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    func handlerAdded(context: ChannelHandlerContext) {
        do {
            try context.pipeline.syncOperations.addHandler(FileRegionSender(), position: .first)
        } catch {
            context.close(promise: nil)
        }
    }
}
