import Hummingbird
import NIOCore

/// The context of the Loop Library's requests: Hummingbird's, and the address the request
/// came from (a download counts toward Hot once per address a day).
public struct LibraryRequestContext: RequestContext {
    /// Hummingbird's own part of the context.
    public var coreContext: CoreRequestContextStorage
    /// The client's IP address, as the connection gives it.
    public let clientAddress: String?
    /// The connection: a download waits while it is full (``LibraryServer/fileBody(path:range:connection:)``).
    let channel: any Channel

    /// The context of a request on `source`'s connection.
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        clientAddress = source.channel.remoteAddress?.ipAddress
        channel = source.channel
    }
}

/// Errors of the API itself (a missing loop or blob).
enum APIError: Error {
    case notFound(String)

    static func noSuchLoop(_ ref: String) -> APIError { .notFound("no loop '\(ref.prefix(80))' is published here") }
}
