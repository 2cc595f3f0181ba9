import Foundation
import LoopFoundation

/// A loop's text: its metadata and its phrases in groups, as read from a plain text file.
///
/// The format (documented in README.md):
/// - one phrase per line; a blank line (or several) ends a group;
/// - `text | translation` gives a phrase a translation or note (`\|` is a literal bar);
/// - `# key: value` lines before the first phrase set `title`, `language`, `translation`
///   (the translation language) and `tags` (comma separated); other `#` lines are comments
///   (`\#` starts a phrase with a literal `#`);
/// - `# image: FILE` before the first phrase gives the loop a picture, `# group-image: FILE`
///   the group it stands in (or, after a blank line, the group that follows), and
///   `# phrase-image: FILE` the phrase on the line above it. A relative path is relative to
///   the text file's folder.
public struct LoopSource: Equatable, Sendable, Codable {
    /// The loop's title (`# title:`), when the text gives one.
    public var title: String?
    /// The language of its phrases (`# language:`).
    public var language: String?
    /// The language of its translations (`# translation-language:`).
    public var translationLanguage: String?
    /// Its tags (`# tags:`).
    public var tags: [String]
    /// Its groups, in order.
    public var groups: [PhraseGroup]
    /// The loop's picture file, when the text names one (`# image: FILE`).
    public var picture: String?

    /// A loop's text from its parts.
    public init(
        title: String? = nil, language: String? = nil, translationLanguage: String? = nil, tags: [String] = [],
        groups: [PhraseGroup], picture: String? = nil
    ) {
        self.picture = picture
        self.title = title
        self.language = language
        self.translationLanguage = translationLanguage
        self.tags = tags
        self.groups = groups
    }

    /// Every phrase in reading order.
    public var phrases: [Phrase] { groups.flatMap(\.phrases) }
}

/// A paragraph of phrases, studied together.
public struct PhraseGroup: Equatable, Sendable, Codable {
    /// Its phrases, in order.
    public var phrases: [Phrase]
    /// The group's picture file, when the text names one (`# group-image: FILE`).
    public var picture: String?

    /// A group of `phrases`.
    public init(phrases: [Phrase], picture: String? = nil) {
        self.picture = picture
        self.phrases = phrases
    }
}

/// One line to hear and repeat.
public struct Phrase: Equatable, Sendable, Codable {
    /// The phrase's text.
    public var text: String
    /// Its translation (after ` | ` on its line), when it has one.
    public var translation: String?
    /// The phrase's picture file, when the text names one (`# phrase-image: FILE`).
    public var picture: String?
    /// The 1-based line of the source it came from.
    public var line: Int

    /// A phrase from its text and the line it came from.
    public init(text: String, translation: String? = nil, line: Int) {
        self.text = text
        self.translation = translation
        self.line = line
    }
}

/// The ways a loop's source text can be refused.
public enum TextFailure: String, LoopErrorKind {
    /// The text cannot be made into phrases (the message says where and why).
    case invalid

    /// Where these errors come from: a loop's text.
    public static let domain = ErrorDomain.text
}

/// A problem in a loop's source text, with the line it is on.
public typealias LoopSourceError = LoopError<TextFailure>

extension LoopSource {
    /// How the source text is cut into phrases.
    public struct ParseOptions: Sendable {
        /// Also split lines into sentences (see ``SentenceSplitter``).
        public var splitSentences: Bool

        /// Options; sentences are split only when asked.
        public init(splitSentences: Bool = false) {
            self.splitSentences = splitSentences
        }
    }

    /// Reads the source at `path` (UTF-8): a file, a pipe, or `-` for standard input.
    public init(contentsOf path: String, options: ParseOptions = ParseOptions()) throws(LoopSourceError) {
        try self.init(parsing: try Self.readText(at: path), from: path, options: options)
    }

    /// Parses source text read from `path`, naming it in errors.
    public init(parsing text: String, from path: String, options: ParseOptions = ParseOptions()) throws(LoopSourceError)
    {
        do {
            try self.init(parsing: text, options: options)
            if path != "-" {
                self = resolvingPictures(
                    relativeTo: (path as NSString).deletingLastPathComponent.isEmpty
                        ? "." : (path as NSString).deletingLastPathComponent)
            }
        } catch {
            throw LoopSourceError(.invalid, path: Self.displayName(path), line: error.line, message: error.message)
        }
    }

    /// The UTF-8 text at `path`: a file, a pipe, or `-` for standard input (for pasted text).
    public static func readText(at path: String) throws(LoopSourceError) -> String {
        let name = displayName(path)
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            if let problem = RegularFile.problem(at: path) {
                throw LoopSourceError(
                    .invalid, path: name, line: nil,
                    message: problem == "is a folder, not a file" ? "is a folder, not a text file" : problem)
            }
            guard let opened = FileHandle(forReadingAtPath: path) else {
                throw LoopSourceError(
                    .invalid, path: name, line: nil, message: "cannot read the file (permission denied?)")
            }
            handle = opened
        }
        defer { if path != "-" { try? handle.close() } }
        // Bounded: a pipe (or standard input) could pour forever.
        var data = Data()
        do {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                data.append(chunk)
                guard data.count <= TextCheck.maxTextBytes else {
                    throw LoopSourceError(
                        .invalid, path: name, line: nil,
                        message:
                            "the text is longer than \(TextCheck.maxTextBytes >> 20) MiB, more than a loop holds; split it into several loops"
                    )
                }
            }
        } catch let error as LoopSourceError {
            throw error
        } catch {
            throw LoopSourceError(
                .invalid, path: name, line: nil, message: "cannot read the file (\(error.localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw LoopSourceError(
                .invalid, path: name, line: nil, message: "the text is not UTF-8; save it as UTF-8 and try again")
        }
        return text
    }

    private static func displayName(_ path: String) -> String { path == "-" ? "standard input" : path }

    /// Parses source text. A NUL or another control character is refused, naming its line
    /// (``TextCheck``).
    public init(parsing text: String, options: ParseOptions = ParseOptions()) throws(LoopSourceError) {
        if let (line, message) = TextCheck.problem(inText: text) {
            throw LoopSourceError(.invalid, path: nil, line: line, message: "the text " + message)
        }
        var normalized = text.precomposedStringWithCanonicalMapping
        if normalized.hasPrefix("\u{FEFF}") { normalized.removeFirst() }
        let lines = Self.lines(normalized)

        var title: String?
        var language: String?
        var translationLanguage: String?
        var tags: [String] = []
        var groups: [PhraseGroup] = []
        var current: [Phrase] = []
        var loopPicture: String?
        var groupPicture: String?
        var seenPhrase = false
        var phraseCount = 0
        let splitter = SentenceSplitter()

        for (index, rawLine) in lines.enumerated() {
            let lineNumber = index + 1
            let line = Self.collapseWhitespace(Substring(rawLine))
            if line.isEmpty {
                if !current.isEmpty {
                    groups.append(PhraseGroup(phrases: current, picture: groupPicture))
                    groupPicture = nil
                }
                current = []
                continue
            }
            if line.hasPrefix("#"), let (key, file) = Self.pictureLine(line) {
                guard !file.isEmpty else {
                    throw LoopSourceError(
                        .invalid, path: nil, line: lineNumber,
                        message: "'# \(key):' needs a picture file after the colon")
                }
                switch key {
                case "image":
                    guard !seenPhrase else {
                        throw LoopSourceError(
                            .invalid, path: nil, line: lineNumber,
                            message:
                                "'# image:' (the loop's picture) goes before the first phrase; use '# group-image:' or '# phrase-image:' here"
                        )
                    }
                    loopPicture = file
                case "group-image":
                    guard groupPicture == nil else {
                        throw LoopSourceError(
                            .invalid, path: nil, line: lineNumber,
                            message: "the group has a picture already (one '# group-image:' a group)")
                    }
                    groupPicture = file
                default:
                    guard !current.isEmpty else {
                        throw LoopSourceError(
                            .invalid, path: nil, line: lineNumber,
                            message: "'# phrase-image:' goes on the line after its phrase")
                    }
                    guard current[current.count - 1].picture == nil else {
                        throw LoopSourceError(
                            .invalid, path: nil, line: lineNumber, message: "the phrase above has a picture already")
                    }
                    current[current.count - 1].picture = file
                }
                continue
            }
            if line.hasPrefix("#") {
                if !seenPhrase, let (key, value) = Self.metadata(line) {
                    switch key {
                    case "title": title = value.isEmpty ? nil : value
                    case "language", "lang", "translation", "translation-language":
                        if !value.isEmpty, let problem = LanguageCode.problem(value) {
                            throw LoopSourceError(
                                .invalid, path: nil, line: lineNumber, message: "'# \(key):' \(problem)")
                        }
                        if key.hasPrefix("lang") {
                            language = value.isEmpty ? nil : value
                        } else {
                            translationLanguage = value.isEmpty ? nil : value
                        }
                    case "tags", "tag":
                        tags = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                            !$0.isEmpty
                        }
                    default: break
                    }
                }
                continue
            }
            let (text, translation) = Self.splitTranslation(line)
            guard !text.isEmpty else {
                throw LoopSourceError(
                    .invalid, path: nil, line: lineNumber,
                    message: "a phrase needs text before the '|' that starts its translation")
            }
            for (field, value) in [("phrase", text), ("translation", translation ?? "")]
            where value.unicodeScalars.count > TextCheck.maxFieldCharacters {
                throw LoopSourceError(
                    .invalid, path: nil, line: lineNumber,
                    message:
                        "the \(field) is longer than \(TextCheck.maxFieldCharacters) characters, more than a phrase holds: split it into several lines"
                )
            }
            // Counted before the phrases are made, sentences split included.
            func count(_ phrases: Int) throws(LoopSourceError) {
                phraseCount += phrases
                guard phraseCount <= TextCheck.maxPhrases else {
                    throw LoopSourceError(
                        .invalid, path: nil, line: lineNumber,
                        message:
                            "the text holds more than \(TextCheck.maxPhrases) phrases, more than a loop holds: split it into several loops"
                    )
                }
            }
            seenPhrase = true
            if options.splitSentences {
                let sentences = splitter.split(text, language: language)
                let translated = translation.map { splitter.split($0, language: translationLanguage) }
                if sentences.count > 1, translated == nil || translated?.count == sentences.count {
                    try count(sentences.count)
                    for (k, sentence) in sentences.enumerated() {
                        current.append(Phrase(text: sentence, translation: translated?[k], line: lineNumber))
                    }
                    continue
                }
            }
            try count(1)
            current.append(Phrase(text: text, translation: translation, line: lineNumber))
        }
        if !current.isEmpty { groups.append(PhraseGroup(phrases: current, picture: groupPicture)) }
        guard !groups.isEmpty else {
            throw LoopSourceError(
                .invalid, path: nil, line: nil,
                message: "no phrases: write one phrase per line, with a blank line between groups")
        }
        self.init(
            title: title, language: language, translationLanguage: translationLanguage, tags: tags, groups: groups,
            picture: loopPicture)
    }

    /// `# image: FILE`, `# group-image: FILE` or `# phrase-image: FILE`: the key and the file.
    private static func pictureLine(_ line: String) -> (String, String)? {
        let body = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
        guard let colon = body.firstIndex(of: ":") else { return nil }
        let key = body[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        guard ["image", "group-image", "phrase-image"].contains(key) else { return nil }
        return (key, body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// The source with every relative picture path made relative to `folder` instead.
    public func resolvingPictures(relativeTo folder: String) -> LoopSource {
        func resolve(_ file: String?) -> String? {
            guard let file, !file.hasPrefix("/") else { return file }
            return (folder.hasSuffix("/") ? folder : folder + "/") + file
        }
        var source = self
        source.picture = resolve(picture)
        for g in source.groups.indices {
            source.groups[g].picture = resolve(source.groups[g].picture)
            for p in source.groups[g].phrases.indices {
                source.groups[g].phrases[p].picture = resolve(source.groups[g].phrases[p].picture)
            }
        }
        return source
    }

    /// Every picture file the text names.
    public var pictureFiles: [String] {
        [picture].compactMap { $0 }
            + groups.flatMap { group in [group.picture].compactMap { $0 } + group.phrases.compactMap(\.picture) }
    }

    /// The text's lines, split at LF, CRLF or CR scalar by scalar: a line break followed by a
    /// combining mark is one Character, and must still end its line (found by the fuzzer).
    private static func lines(_ text: String) -> [String] {
        var lines: [String] = []
        var line = String.UnicodeScalarView()
        var afterCR = false
        for scalar in text.unicodeScalars {
            defer { afterCR = scalar == "\r" }
            if scalar == "\n" && afterCR { continue }
            if scalar == "\n" || scalar == "\r" {
                lines.append(String(line))
                line = String.UnicodeScalarView()
            } else {
                line.append(scalar)
            }
        }
        lines.append(String(line))
        return lines
    }

    /// Tabs and runs of white space become one space; ends are trimmed.
    private static func collapseWhitespace(_ line: Substring) -> String {
        line.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }

    /// `# key: value` with a known key, else nil.
    private static func metadata(_ line: String) -> (String, String)? {
        let body = line.drop(while: { $0 == "#" }).trimmingCharacters(in: .whitespaces)
        guard let colon = body.firstIndex(of: ":") else { return nil }
        let key = body[..<colon].trimmingCharacters(in: .whitespaces).lowercased()
        let known: Set = ["title", "language", "lang", "translation", "translation-language", "tags", "tag"]
        guard known.contains(key) else { return nil }
        return (key, body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces))
    }

    /// Splits at the first unescaped `|`; `\|`, `\#` and `\\` stand for the character itself.
    /// Read scalar by scalar, as the text writer escapes: a `|` followed by a combining mark is
    /// one Character, which would hide the bar from a Character comparison (found by the fuzzer).
    private static func splitTranslation(_ line: String) -> (String, String?) {
        var parts = [String.UnicodeScalarView(), String.UnicodeScalarView()]
        var part = 0
        var escaped = false
        for scalar in line.unicodeScalars {
            if escaped {
                if !"|#\\".unicodeScalars.contains(scalar) { parts[part].append("\\") }
                parts[part].append(scalar)
                escaped = false
            } else if scalar == "\\" {
                escaped = true
            } else if scalar == "|" && part == 0 {
                part = 1
            } else {
                parts[part].append(scalar)
            }
        }
        if escaped { parts[part].append("\\") }
        // Trimmed scalar by scalar too: a space before a combining mark is one Character.
        func trimmed(_ scalars: String.UnicodeScalarView) -> String {
            guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
                let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
            else { return "" }
            return String(scalars[first...last])
        }
        let text = trimmed(parts[0])
        let translation = trimmed(parts[1])
        return (text, translation.isEmpty ? nil : translation)
    }
}

extension ErrorDomain {
    /// A loop's text.
    public static let text = ErrorDomain(rawValue: "text")
}
