import Foundation
import LoopFoundation

/// `manifest.json` of a loop bundle (docs/bundle-format.md). Decoding is strict: a field this
/// version does not know is an error, naming the bundle's format version.
public struct BundleManifest: Codable, Equatable, Sendable {
    /// The `format` every bundle's manifest names.
    public static let formatName = "looplearn-bundle"
    /// The newest version this reader knows. Version 2 added `recordedText` to phrases, version
    /// 3 pictures, version 4 the author's name; a writer gives a bundle the oldest version that
    /// holds what it carries, so older readers take it.
    public static let currentVersion = 4

    /// Always ``formatName``.
    public var format: String
    /// The version this bundle is written in (1 to ``currentVersion``).
    public var version: Int
    /// When the bundle was written (ISO 8601, UTC).
    public var created: String
    /// The author's Ed25519 public key, base64.
    public var authorKey: String
    /// Version 4: the name the author gave their identity (`loop identity --name`), signed with
    /// the rest; a claim of the key's holder, shown beside its fingerprint.
    public var authorName: String? = nil
    /// The loops the bundle carries.
    public var loops: [Loop]
    /// The takes their clips are cut from.
    public var audio: [Audio]
    /// Version 3: the pictures the loops show (absent when none).
    public var pictures: [Picture]?

    /// A loop as a bundle carries it.
    public struct Loop: Codable, Equatable, Sendable {
        /// The loop's id (a UUID), the same in every library.
        public var id: String
        /// Its revision: one more each time its author publishes a change.
        public var revision: Int
        /// Its title.
        public var title: String
        /// The language of its phrases (a BCP 47 code).
        public var language: String?
        /// The language of its translations.
        public var translationLanguage: String?
        /// Its tags.
        public var tags: [String]
        /// The text it was made from, as written.
        public var sourceText: String
        /// Its groups, in order.
        public var groups: [Group]
        /// Version 3: the file of the loop's picture (one of `pictures`).
        public var picture: String?
    }

    /// A group: phrases looped as a block.
    public struct Group: Codable, Equatable, Sendable {
        /// Its phrases, in order.
        public var phrases: [Phrase]
        /// Version 3: the file of the group's picture.
        public var picture: String?
    }

    /// A phrase, with its clip.
    public struct Phrase: Codable, Equatable, Sendable {
        /// The phrase's text.
        public var text: String
        /// Its translation, when the loop has them.
        public var translation: String?
        /// Where its clip lies in one of the bundle's takes (nil: no audio yet).
        public var clip: Clip?
        /// Version 2: the text the clip was recorded for, when the phrase's text changed since.
        public var recordedText: String?
        /// Version 3: the file of the phrase's picture.
        public var picture: String?
    }

    /// The oldest version that holds these loops (and the author's name): 4 with a name, 3 with
    /// pictures, 2 when a phrase carries `recordedText`, else 1.
    public static func version(for loops: [Loop], authorName: String? = nil) -> Int {
        if authorName != nil { return 4 }
        let pictures = loops.contains {
            $0.picture != nil || $0.groups.contains { $0.picture != nil || $0.phrases.contains { $0.picture != nil } }
        }
        if pictures { return 3 }
        return loops.contains { $0.groups.contains { $0.phrases.contains { $0.recordedText != nil } } } ? 2 : 1
    }

    /// A picture in the bundle: `pictures/<sha256>.<png|jpg|webp|gif>`.
    public struct Picture: Codable, Equatable, Sendable {
        /// Its name in the bundle.
        public var file: String
        /// Its SHA-256 (hex), checked on reading.
        public var sha256: String
        /// Its size in bytes.
        public var bytes: Int
        /// `png`, `jpeg`, `webp` or `gif`.
        public var format: String
        /// Its width in pixels.
        public var width: Int
        /// Its height in pixels.
        public var height: Int
    }

    /// A frame range of one of the bundle's audio files.
    public struct Clip: Codable, Equatable, Sendable {
        /// The take's file in the bundle (one of `audio`).
        public var audio: String
        /// The first frame.
        public var start: Int
        /// The frame after the last.
        public var end: Int
    }

    /// A take in the bundle: `audio/<sha256>.flac`.
    public struct Audio: Codable, Equatable, Sendable {
        /// Its name in the bundle.
        public var file: String
        /// Its SHA-256 (hex), checked on reading.
        public var sha256: String
        /// Its size in bytes.
        public var bytes: Int
        /// Its sample rate in hertz.
        public var sampleRate: Int
        /// Its channel count.
        public var channels: Int
        /// Its length in frames, checked against its decoding.
        public var frames: Int
    }

    /// Reads a manifest, refusing unknown fields and newer versions with a clear message.
    public static func decode(_ data: Data) throws(ShareError) -> BundleManifest {
        // Every phrase has one "text" key: counted on the bytes, a manifest of too many phrases
        // is refused before parsing builds an object for each (the parsed count is checked too).
        try ManifestCheck.checkCounts(loops: 0, phrases: occurrences(of: #""text""#, in: data))
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: data)
        } catch {
            throw ShareError(.badManifest, "manifest.json is not valid JSON")
        }
        guard let top = object as? [String: Any] else {
            throw ShareError(.badManifest, "manifest.json is not a JSON object")
        }
        guard top["format"] as? String == formatName else {
            throw ShareError(.badManifest, "not a loop bundle (manifest.json has no format \"\(formatName)\")")
        }
        guard let version = top["version"] as? Int else {
            throw ShareError(.badManifest, "manifest.json has no format version")
        }
        if version > currentVersion {
            throw ShareError(
                .newerFormat,
                "the bundle uses format version \(version); this loop reads up to version \(currentVersion): update loop to import it"
            )
        }
        // Counted on the parsed JSON, before the work of checking and decoding every phrase.
        if let loops = top["loops"] as? [[String: Any]] {
            try ManifestCheck.checkCounts(
                loops: loops.count,
                phrases: loops.reduce(0) { total, loop in
                    total
                        + ((loop["groups"] as? [[String: Any]]) ?? []).reduce(0) {
                            $0 + (($1["phrases"] as? [Any])?.count ?? 0)
                        }
                })
        }
        if let unknown = unknownKey(in: top, known: knownKeys(version: version)) {
            throw ShareError(
                .badManifest,
                "manifest.json (format version \(version)) has a field this version does not define: \(unknown)")
        }
        let manifest: BundleManifest
        do {
            manifest = try JSONDecoder().decode(BundleManifest.self, from: data)
        } catch {
            throw ShareError(
                .badManifest, "manifest.json does not follow format version \(version) (\(describe(error)))")
        }
        // A key given twice may be read differently by two parsers; what was checked above must
        // be what was decoded.
        guard manifest.format == formatName, manifest.version == version else {
            throw ShareError(.badManifest, "manifest.json gives its format or version twice, differently")
        }
        return manifest
    }

    /// The manifest as the bundle stores it: JSON with sorted keys, which the signature covers.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Every key allowed at each level of a version, by path.
    private static func knownKeys(version: Int) -> [String: Set<String>] {
        var keys: [String: Set<String>] = [
            "": ["format", "version", "created", "authorKey", "loops", "audio"],
            "loops": ["id", "revision", "title", "language", "translationLanguage", "tags", "sourceText", "groups"],
            "loops.groups": ["phrases"],
            "loops.groups.phrases": ["text", "translation", "clip"],
            "loops.groups.phrases.clip": ["audio", "start", "end"],
            "audio": ["file", "sha256", "bytes", "sampleRate", "channels", "frames"],
        ]
        if version >= 2 { keys["loops.groups.phrases", default: []].insert("recordedText") }
        if version >= 3 {
            keys[""]?.insert("pictures")
            for path in ["loops", "loops.groups", "loops.groups.phrases"] { keys[path]?.insert("picture") }
            keys["pictures"] = ["file", "sha256", "bytes", "format", "width", "height"]
        }
        if version >= 4 { keys[""]?.insert("authorName") }
        return keys
    }

    private static func unknownKey(in value: Any, known: [String: Set<String>], path: String = "") -> String? {
        if let array = value as? [Any] {
            for element in array { if let found = unknownKey(in: element, known: known, path: path) { return found } }
            return nil
        }
        guard let object = value as? [String: Any] else { return nil }
        let allowed = known[path] ?? []
        for (key, child) in object.sorted(by: { $0.key < $1.key }) {
            let childPath = path.isEmpty ? key : path + "." + key
            guard allowed.contains(key) else { return childPath }
            if let found = unknownKey(in: child, known: known, path: childPath) { return found }
        }
        return nil
    }

    /// How many times `needle` appears in `data`, without copying it.
    static func occurrences(of needle: String, in data: Data) -> Int {
        let pattern = Array(needle.utf8)
        return data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
            guard bytes.count >= pattern.count else { return 0 }
            var count = 0
            var index = 0
            let last = bytes.count - pattern.count
            while index <= last {
                if bytes[index] == pattern[0] && (1..<pattern.count).allSatisfy({ bytes[index + $0] == pattern[$0] }) {
                    count += 1
                    index += pattern.count
                } else {
                    index += 1
                }
            }
            return count
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.keyNotFound(let key, let context):
            "missing \((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            "wrong value at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)"
        }
    }
}

/// Where a bundle keeps its files: the one place that spells the bundle's own layout
/// (docs/bundle-format.md).
public enum BundleLayout {
    /// The manifest's name in the bundle.
    public static let manifest = "manifest.json"
    /// The folder of the bundle's takes.
    public static let audioFolder = "audio/"
    /// The folder of the bundle's pictures.
    public static let picturesFolder = "pictures/"

    /// A take's name in a bundle: `audio/<sha256>.flac`.
    public static func audioFile(sha256: String) -> String { audioFolder + sha256 + ".flac" }
    /// A picture's name in a bundle: `pictures/<sha256>.<ext>`.
    public static func pictureFile(sha256: String, fileExtension: String) -> String {
        picturesFolder + sha256 + "." + fileExtension
    }
    /// The SHA-256 that names a take's file.
    public static func sha256(ofAudioFile file: String) -> String {
        String(file.dropFirst(audioFolder.count).dropLast(".flac".count))
    }
    /// A picture's file without its folder (`<sha256>.<ext>`).
    public static func pictureBlob(_ file: String) -> String { String(file.dropFirst(picturesFolder.count)) }
    /// The SHA-256 that names a picture's file.
    public static func sha256(ofPictureFile file: String) -> String { String(pictureBlob(file).prefix(64)) }
}
