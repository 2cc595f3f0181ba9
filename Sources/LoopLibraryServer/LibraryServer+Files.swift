import Crypto
import Foundation
import Hummingbird
import Logging
import LoopFoundation
import LoopLibraryAPI
import NIOCore
import Prometheus

// Files: served with their ETag, byte ranges and cache headers, streamed in bounded memory.
extension LibraryServer {
    /// A file, with its ETag, Range support and the cache headers given.
    func serveFile(
        _ request: Request, context: LibraryRequestContext, path: String, eTag: String, contentType: String,
        cacheControl: String,
        downloadName: String? = nil
    ) async throws -> Response {
        guard let size = Self.fileSize(path) else { throw APIError.notFound("no such file") }
        var headers = HTTPFields()
        headers[.eTag] = eTag
        headers[.cacheControl] = cacheControl
        headers[.acceptRanges] = "bytes"
        headers[.contentType] = contentType
        if let downloadName { headers[.contentDisposition] = "attachment; filename=\"\(downloadName)\"" }
        if Self.matches(request.headers[.ifNoneMatch], eTag) { return Response(status: .notModified, headers: headers) }
        var status = HTTPResponse.Status.ok
        var range = 0...(size - 1)
        if let header = request.headers[.range] {
            switch ByteRange.parse(header, size: size) {
            case .whole: break
            case .part(let part):
                range = part
                status = .partialContent
                headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound)/\(size)"
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(size)"
                return Response(status: .rangeNotSatisfiable, headers: headers)
            }
        }
        headers[.contentLength] = String(range.count)
        if request.method == .head { return Response(status: status, headers: headers) }
        return Response(
            status: status, headers: headers, body: Self.fileBody(path: path, range: range, connection: context.channel)
        )
    }

    /// The bytes `range` of the file, sent by the kernel from the page cache (``FileRegions``:
    /// never read into the server, as nginx sends a file), 4 MiB at a time, each once
    /// `connection` has taken most of the last (its pending bytes below NIO's high-water mark):
    /// however slow its reader, a download holds an open file and a note, never the file's bytes.
    /// (Read into buffers and written, as before, the server sent half of nginx's bytes a second,
    /// its time in the two copies.)
    static func fileBody(path: String, range: ClosedRange<Int>, connection: any Channel) -> ResponseBody {
        ResponseBody(contentLength: range.count) { writer in
            var offset = range.lowerBound
            while offset <= range.upperBound {
                let count = min(FileRegions.regionLength, range.upperBound + 1 - offset)
                try await writer.write(FileRegions.note(path: path, offset: offset, count: count))
                offset += count
                try await waitUntilWritable(connection)
            }
            try await writer.finish(nil)
        }
    }

    /// Waits until the chunk written has reached the connection (a write goes to the
    /// connection's event loop as a task: a round trip through that loop comes after it), then
    /// while the connection holds as much as NIO lets it buffer (its reader is slow), looking
    /// again every few milliseconds (at most 50); stops when the connection closes.
    static func waitUntilWritable(_ connection: any Channel) async throws {
        try await connection.eventLoop.submit {}.get()
        var pause = 2
        while !connection.isWritable {
            guard connection.isActive else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(pause))
            pause = min(pause * 2, 50)
        }
    }

    static func matches(_ ifNoneMatch: String?, _ tag: String) -> Bool {
        guard let ifNoneMatch else { return false }
        return ifNoneMatch == "*"
            || ifNoneMatch.split(separator: ",").contains {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") == tag
            }
    }

    static func fileSize(_ path: String) -> Int? {
        var status = stat()
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size > 0 else { return nil }
        return Int(status.st_size)
    }
}
