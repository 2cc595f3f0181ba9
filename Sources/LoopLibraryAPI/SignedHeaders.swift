import Foundation

extension SignedRequest {
    /// A signed request's headers as a server receives them: each checked for its form and range
    /// before any use (a number a request carries is never trusted with arithmetic before).
    public struct Received: Sendable, Equatable {
        /// The author's Ed25519 public key (32 bytes).
        public var key: Data
        /// Seconds since 1970, within `0...latestTimestamp`.
        public var timestamp: Int
        /// 16 to 64 hex digits, lowercased.
        public var nonce: String
        /// The body's SHA-256 as signed (64 hex digits, lowercased).
        public var bodySHA256: String
        /// The loop a publish carries, and its revision (1 or more).
        public var loopID: String?
        /// See ``loopID``.
        public var revision: Int?
        /// The author's display name, when the request carries one (decoded and validated).
        public var authorName: String?
        /// The Ed25519 signature of the request's canonical text.
        public var signature: Data

        /// Why the headers cannot be a signed request: not signed (or signed in a form that cannot
        /// be checked), or signed but naming a loop, a revision or a name that cannot be.
        public struct Refusal: Error, Sendable, Equatable {
            /// True when the request is not signed at all (a 401); false when it is but says what cannot be (a 400).
            public var isUnsigned: Bool
            /// What is wrong, in one line.
            public var message: String
        }

        /// Reads the headers (by name), refusing any that is missing or malformed.
        public init(header: (String) -> String?) throws(Refusal) {
            func unsigned(_ message: String) -> Refusal { Refusal(isUnsigned: true, message: message) }
            guard let keyText = header(keyHeader), keyText.utf8.count <= 64, let key = Data(base64Encoded: keyText),
                key.count == 32
            else {
                throw unsigned("the request is not signed (\(keyHeader) is missing or not an Ed25519 key)")
            }
            // Seconds since 1970, read as a number of at most 12 digits: a value no clock gives (a
            // negative one, or one past the year 9999) is refused before any arithmetic is done with it.
            guard let text = header(timestampHeader), (1...12).contains(text.utf8.count),
                text.utf8.allSatisfy({ (48...57).contains($0) }), let timestamp = Int(text),
                timestamp <= latestTimestamp
            else {
                throw unsigned("the request has no \(timestampHeader) (seconds since 1970, a whole number)")
            }
            guard let nonce = header(nonceHeader), (16...64).contains(nonce.utf8.count),
                nonce.utf8.allSatisfy(Self.isHexDigit)
            else {
                throw unsigned("the request has no \(nonceHeader) (16 to 64 hex digits)")
            }
            guard let bodySHA256 = header(contentSHA256Header)?.lowercased(), bodySHA256.utf8.count == 64,
                bodySHA256.utf8.allSatisfy(Self.isHexDigit)
            else {
                throw unsigned("the request has no \(contentSHA256Header) (the body's SHA-256, 64 hex digits)")
            }
            guard let signatureText = header(signatureHeader), signatureText.utf8.count <= 128,
                let signature = Data(base64Encoded: signatureText)
            else {
                throw unsigned("the request has no \(signatureHeader)")
            }
            var loopID: String?
            if let value = header(loopIDHeader) {
                guard (1...64).contains(value.utf8.count),
                    value.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) || $0 == 45 })
                else {
                    throw Refusal(isUnsigned: false, message: "\(loopIDHeader) is not a loop id")
                }
                loopID = value
            }
            var revision: Int?
            if let value = header(revisionHeader) {
                guard (1...18).contains(value.utf8.count), value.utf8.allSatisfy({ (48...57).contains($0) }),
                    let number = Int(value), number >= 1
                else {
                    throw Refusal(isUnsigned: false, message: "\(revisionHeader) is not a revision (1 or more)")
                }
                revision = number
            }
            var name: String?
            if let encoded = header(authorNameHeader) {
                guard encoded.utf8.count <= 512, let decoded = decodeName(encoded),
                    let valid = AuthorName.validated(decoded)
                else {
                    throw Refusal(
                        isUnsigned: false,
                        message: "the author name is not valid: 1 to 40 letters, digits, spaces, '.', '-' or '_'")
                }
                name = valid
            }
            self.key = key
            self.timestamp = timestamp
            self.nonce = nonce.lowercased()
            self.bodySHA256 = bodySHA256
            self.loopID = loopID
            self.revision = revision
            self.authorName = name
            self.signature = signature
        }

        /// What the author signed, for the request as received (`method` to `authority` at
        /// `path`, with a body of `bodyLength` bytes).
        public func content(method: String, authority: String, path: String, bodyLength: Int) -> Content {
            Content(
                method: method, authority: authority, path: path, timestamp: timestamp, nonce: nonce,
                bodyLength: bodyLength, bodySHA256: bodySHA256, loopID: loopID, revision: revision,
                authorName: authorName)
        }

        /// How many seconds the request's time is from `now` (any date, even one no clock gives:
        /// both are held within `0...latestTimestamp`, so the difference cannot overflow).
        public func skew(from now: Date) -> Int {
            let seconds = now.timeIntervalSince1970
            let clock = seconds.isNaN ? 0 : Int(min(max(seconds.rounded(.down), 0), Double(latestTimestamp)))
            return abs(clock - timestamp)
        }

        private static func isHexDigit(_ byte: UInt8) -> Bool {
            (48...57).contains(byte) || (65...70).contains(byte) || (97...102).contains(byte)
        }
    }
}
