import Crypto
import Foundation
import Hummingbird
import Logging
import LoopFoundation
import LoopLibraryAPI
import Metrics
import NIOCore
import Prometheus

// Changing: publishing and unpublishing, judged on their signed headers before a body is read.
extension LibraryServer {

    /// A publish is judged on its signed headers before a byte of its body is read: its
    /// signature (naming this Loop Library, the body's length and hash, the loop and revision),
    /// its clock, its nonce, the key's allowance, and the catalog's ownership and revision
    /// rules. Only then is the body received, into `incoming`, up to the length signed, and
    /// kept only if it hashes to the hash signed and passes every check `loop import` makes.
    func publish(_ request: Request, context: LibraryRequestContext) async throws -> Response {
        let signed = try RequestSignature { Self.header(request, $0) }
        guard let loopID = signed.loopID, let revision = signed.revision else {
            throw PublishError(
                .badRequest,
                "a publish names its loop and revision (\(SignedRequest.loopIDHeader), \(SignedRequest.revisionHeader))"
            )
        }
        guard let length = request.headers[.contentLength].flatMap(Int.init), length > 0 else {
            throw PublishError(.lengthRequired, "a publish gives its body's length (Content-Length)")
        }
        guard length <= limits.maxUploadBytes else {
            throw PublishError(
                .tooLarge,
                "the bundle is \(length >> 20) MiB; this server takes at most \(limits.maxUploadBytes >> 20) MiB")
        }
        let now = Date()
        try signed.verify(
            method: "POST", authority: authority(of: request), path: LoopLibraryPaths.loops, bodyLength: length,
            now: now)
        await TestStop.reachedWithoutBlocking("publish.verified")
        let address = Self.clientKey(context.clientAddress)
        try allowChange(by: signed, from: address)
        guard
            try await catalog.useNonce(
                signed.nonce, expires: now.addingTimeInterval(SignedRequest.allowedSkew * 2), now: now)
        else {
            throw PublishError(.unauthorized, "this request was sent before (a replay)")
        }
        try await catalog.judge(publishOf: loopID, revision: revision, authorKey: signed.keyBase64)
        try limits.keyQuota.check(
            try await catalog.usage(ofKey: signed.keyBase64, loop: loopID, now: now), bytes: length, now: now)
        guard addressBudget.take(length, from: address, now: now) else {
            LibraryMetrics.quotaHit("addressBytes")
            throw PublishError(
                .quota,
                "this address may upload at most \(KeyQuota.mebibytes(limits.addressBytesPerDay)) a day here: try again tomorrow (UTC)"
            )
        }
        var kept = false
        defer { if !kept { addressBudget.giveBack(length, to: address) } }
        guard uploads.take() else {
            LibraryMetrics.quotaHit("uploads")
            throw PublishError(
                .busy,
                "the server is receiving as many uploads as it takes at once (\(limits.concurrentUploads)): try again in a few seconds"
            )
        }
        defer { uploads.giveBack() }

        let scratch = try ScratchFolder(in: blobs.layout.incoming, prefix: "upload-")
        let file = scratch.path + "/bundle.loop"
        let sha256 = try await receive(request.body, into: file, length: length, connection: context.channel)
        guard sha256 == signed.bodySHA256 else {
            throw PublishError(.badRequest, "the body is not the one signed (its SHA-256 differs): changed on the way")
        }
        let intake = BundleIntake(blobs: blobs)
        let folder = scratch.path
        let entry = try await BlockingWork.run("loop-server publish") {
            let entry = try intake.take(
                file, sha256: sha256, in: folder, signedBy: signed.key, expected: (loopID, revision))
            TestStop.reached("publish.stored")
            return entry
        }
        let result = try await catalog.publish(entry, authorName: signed.authorName, now: Date())
        kept = true
        await keepPagePart(of: entry)
        LibraryMetrics.published.increment()
        pages.forgetStamp()
        details.forgetStamp()
        searches.forgetStamp()
        _ = consume scratch
        logger.info("published \(entry.id) revision \(entry.revision) '\(entry.title)' by \(entry.authorFingerprint)")
        return try Self.json(result, status: result.previousRevision == nil ? .created : .ok)
    }

    /// Renders the loop's page ahead (its whole page, and the part its revision alone decides)
    /// and keeps it in the catalog, so that no visit renders it while the loop is listed as
    /// now, nor its phrases after; a page renders itself where this fails (logged, the publish
    /// stands).
    func keepPagePart(of entry: CatalogEntry) async {
        do {
            // (As listed: the page is rendered from what a visit reads.)
            guard let stored = try await catalog.loop(entry.id, now: Date()), stored.summary.revision == entry.revision
            else { return }
            // (A fraction of a millisecond, as a page's render: on this thread.)
            guard let part = web.storedPagePart(for: stored) else { return }
            try await catalog.keepPagePart(part, id: entry.id, revision: entry.revision)
        } catch {
            logger.warning("the page of \(entry.id) revision \(entry.revision) is not rendered ahead: \(error)")
        }
    }

    func unpublish(_ request: Request, context: LibraryRequestContext, id: String) async throws -> Response {
        let signed = try RequestSignature { Self.header(request, $0) }
        let now = Date()
        try signed.verify(
            method: "DELETE", authority: authority(of: request), path: LoopLibraryPaths.loop(id), bodyLength: 0,
            now: now)
        try allowChange(by: signed, from: Self.clientKey(context.clientAddress))
        guard
            try await catalog.useNonce(
                signed.nonce, expires: now.addingTimeInterval(SignedRequest.allowedSkew * 2), now: now)
        else {
            throw PublishError(.unauthorized, "this request was sent before (a replay)")
        }
        try await catalog.unpublish(id: id, authorKey: signed.keyBase64, now: now)
        pages.forgetStamp()
        details.forgetStamp()
        searches.forgetStamp()
        return Response(status: .noContent)
    }

    /// Takes a change from the key's allowance and the address's, or refuses it (429).
    func allowChange(by signed: RequestSignature, from address: String) throws(PublishError) {
        guard limiter.allow(signed.keyBase64) else {
            LibraryMetrics.quotaHit("keyRate")
            throw PublishError(
                .rateLimited, "too many changes from this key: at most \(limits.changesPerMinute) a minute")
        }
        guard addressLimiter.allow(address) else {
            LibraryMetrics.quotaHit("addressRate")
            throw PublishError(
                .rateLimited,
                "too many changes from this address: at most \(limits.changesPerAddressPerMinute) a minute")
        }
    }

    /// The name signed requests must give this Loop Library: its public URL's host and port
    /// when it has one (`--public-url`), else the Host the request was sent to.
    func authority(of request: Request) -> String {
        if let publicURL, let url = URL(string: publicURL), let authority = SignedRequest.authority(of: url) {
            return authority
        }
        let host = request.head.authority ?? Self.header(request, "Host") ?? ""
        return URL(string: "http://" + host).flatMap(SignedRequest.authority(of:)) ?? host.lowercased()
    }

    /// Streams the request body into `file` (never the whole bundle in memory), exactly the
    /// `length` bytes signed, and returns its SHA-256. A body that comes slower than
    /// ``BodyRate/minimumBytesPerSecond`` over a window of ``Limits/idleSeconds`` spent waiting
    /// for it has its connection closed: an upload slot is never held by a trickle.
    func receive(_ body: RequestBody, into file: String, length: Int, connection: any Channel) async throws -> String {
        let output = try DurableFile.NewFile(creating: file)
        var hasher = SHA256()
        var received = 0
        var chunks = 0
        let rate = BodyRate(window: Double(limits.idleSeconds))
        let watchdog = Task {
            while !Task.isCancelled {
                try await Task.sleep(for: .milliseconds(500))
                if rate.isTooSlow() {
                    LibraryMetrics.refused(cause: "slowBody")
                    connection.close(promise: nil)
                    return
                }
            }
        }
        defer { watchdog.cancel() }
        var chunk = body.makeAsyncIterator()
        while true {
            rate.startWaiting()
            let next = try await chunk.next()
            rate.stopWaiting(received: next?.readableBytes ?? 0)
            guard let buffer = next else { break }
            chunks += 1
            // Part of the body is on disk, the rest still to come.
            if chunks == 2 { await TestStop.reachedWithoutBlocking("publish.receiving") }
            received += buffer.readableBytes
            LibraryMetrics.receivedBytes.increment(by: buffer.readableBytes)
            guard received <= length, received <= limits.maxUploadBytes else {
                throw PublishError(.tooLarge, "the body is longer than the \(length) bytes signed")
            }
            try buffer.withUnsafeReadableBytes { bytes in
                hasher.update(bufferPointer: bytes)
                try output.write(bytes)
            }
        }
        guard received == length else {
            if rate.stopped {
                throw PublishError(
                    .badRequest,
                    "the body came slower than \(BodyRate.minimumBytesPerSecond) bytes a second: the connection was closed"
                )
            }
            throw PublishError(.badRequest, "the body ended after \(received) of the \(length) bytes signed")
        }
        return Hex.string(hasher.finalize())
    }
}
