import Crypto
import Foundation
import LoopFoundation

/// The library's author identity: an Ed25519 key pair. Its private key lives in the library
/// folder (`identity/ed25519.key`, owner-only permissions), created on first use.
public struct AuthorIdentity: Sendable {
    /// The private key's 32 bytes (Crypto's key type does not declare Sendable; its bytes are).
    private let privateKeyBytes: Data
    /// The public key's 32 bytes, as bundles and signed requests carry it.
    public let publicKey: Data

    init(privateKey: Curve25519.Signing.PrivateKey) {
        privateKeyBytes = privateKey.rawRepresentation
        publicKey = privateKey.publicKey.rawRepresentation
    }

    private var privateKey: Curve25519.Signing.PrivateKey {
        get throws { try Curve25519.Signing.PrivateKey(rawRepresentation: privateKeyBytes) }
    }

    /// The public key's fingerprint: the first 16 bytes of its SHA-256, in groups of four hex digits.
    public var fingerprint: String { Self.fingerprint(of: publicKey) }

    /// The fingerprint of any Ed25519 public key (see ``fingerprint``).
    public static func fingerprint(of publicKey: Data) -> String {
        let hex = SHA256.hash(data: publicKey).prefix(16).map { String(format: "%02x", $0) }.joined()
        return stride(from: 0, to: hex.count, by: 4).map { start in
            String(hex[hex.index(hex.startIndex, offsetBy: start)..<hex.index(hex.startIndex, offsetBy: start + 4)])
        }.joined(separator: ":")
    }

    /// The identity kept in `keyFile` (a library's `LibraryLayout.identityKey`), if there is one yet.
    public static func load(from keyFile: String) throws(ShareError) -> AuthorIdentity? {
        guard let data = FileManager.default.contents(atPath: keyFile) else { return nil }
        return try parse(data, path: keyFile)
    }

    /// The identity kept in `keyFile`, created (and saved, owner-only) on first use.
    public static func loadOrCreate(at keyFile: String) throws(ShareError) -> AuthorIdentity {
        if let existing = try load(from: keyFile) { return existing }
        let identity = AuthorIdentity(privateKey: Curve25519.Signing.PrivateKey())
        try identity.save(to: keyFile)
        return identity
    }

    /// The key's backup form: one line of base64, to keep somewhere safe.
    public var exported: String { privateKeyBytes.base64EncodedString() + "\n" }

    /// Restores an identity from its backup form into `keyFile`, replacing the one there.
    public static func restore(_ backup: Data, into keyFile: String, source: String) throws(ShareError)
        -> AuthorIdentity
    {
        let identity = try parse(backup, path: source)
        try identity.save(to: keyFile)
        return identity
    }

    private static func parse(_ data: Data, path: String) throws(ShareError) -> AuthorIdentity {
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let raw = Data(base64Encoded: text), let key = try? Curve25519.Signing.PrivateKey(rawRepresentation: raw)
        else {
            throw ShareError(
                .identity, "not a loop identity key (one line of base64 holding an Ed25519 private key)", path: path)
        }
        return AuthorIdentity(privateKey: key)
    }

    private func save(to path: String) throws(ShareError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(
                atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try DurableFile.write(Data(exported.utf8), to: path, permissions: 0o600)
        } catch  where DiskSpace.isOutOfSpace(error) {
            throw ShareError(
                .identity,
                "cannot save the identity key that signs what you share: "
                    + DiskSpace.message(at: folder, needing: nil) + "; free some space and try again",
                path: path)
        } catch {
            throw ShareError(
                .identity,
                "cannot save the identity key (\(FileSystemError.reason(error))): check that its folder can be written",
                path: path)
        }
    }

    /// Signs bytes (a manifest).
    public func sign(_ data: Data) throws -> Data { try privateKey.signature(for: data) }

    /// Whether `signature` is the holder of `publicKey`'s signature of `data`.
    public static func verify(_ signature: Data, of data: Data, publicKey: Data) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: data)
    }
}
