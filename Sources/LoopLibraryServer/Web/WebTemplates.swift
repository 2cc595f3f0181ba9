import Crypto
import Foundation
import Hummingbird
import LoopFoundation
import LoopLibraryAPI
import Synchronization

/// The web pages' templates and static files, read once from a folder (`Resources/web`).
///
/// Every `{{value}}` is escaped by ``MarkupEscaping``, in every template and partial
/// (``PageTemplate`` reads the templates: Mustache without lambdas or inheritance).
public struct WebTemplates: Sendable {
    /// The templates a server renders; a folder without one of them is refused at start.
    static let required = [
        "header", "footer", "card", "pager", "front", "author", "loop", "loop-picture", "loop-groups", "missing",
        "feed",
    ]

    let library: PageTemplateLibrary
    /// The version of the templates a loop's page part is rendered by (a hash of their text,
    /// all of them: the part holds the whole page rendered ahead): a part kept in the catalog
    /// by a server with other templates is rendered again.
    let partVersion: String
    /// `style.css`: written into every page's head (a page paints on its first response, one
    /// round trip on a slow network), and served as it is at `/style.css`.
    let stylesheet: WebAsset
    /// The stylesheet deflated once, joined into each gzipped page as it is sent.
    let deflatedStylesheet: DeflatedPart
    /// The stylesheet's CRC-32.
    let stylesheetCRC: UInt32
    /// The openings of pages up to their stylesheet, deflated once, with the CRC-32 of the
    /// page through its stylesheet.
    let sharedOpenings = SharedParts<(part: DeflatedPart, crc: UInt32)>()
    /// The ends of loops' pages after their phrases, deflated once.
    let sharedEndings = SharedParts<DeflatedPart>()
    /// `copy.js`, served as it is.
    let script: WebAsset
    /// `study.js` (the study engine) and `player.js` (the loop page's player), served as one.
    let player: WebAsset
    /// `compare.js`: "Model, then mine" drawn, loaded by the player when first used.
    let compare: WebAsset
    /// `sw.js`: the service worker that keeps pages and clips for studying offline.
    let serviceWorker: WebAsset
    /// `icon.svg`: the site's icon.
    let icon: WebAsset
    /// What every HTML page's scripts, styles and media may come from: this server, and the
    /// one inline stylesheet (by its hash); no inline script at all.
    let contentSecurityPolicy: String

    /// Reads the templates in `folder`, refusing a folder that lacks one or holds one that does
    /// not parse.
    public init(folder: String) throws(CatalogError) {
        var library = PageTemplateLibrary()
        var partHash = SHA256()
        for name in Self.required {
            let path = folder + "/" + name + ".mustache"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw CatalogError(.templates, path: path, message: "cannot read the template")
            }
            partHash.update(data: Data((name + "\0" + text + "\0").utf8))
            do {
                library.register(try PageTemplate(text), named: name)
            } catch {
                throw CatalogError(.templates, path: path, message: "the template does not parse (\(error))")
            }
        }
        partVersion = Hex.string(partHash.finalize().prefix(8))
        if let (template, partial) = library.missingPartials.first {
            throw CatalogError(
                .templates, path: folder + "/" + template + ".mustache",
                message:
                    "the template names a partial {{> \(partial)}} that is not one of \(Self.required.joined(separator: ", "))"
            )
        }
        guard let stylesheet = FileManager.default.contents(atPath: folder + "/style.css"),
            let script = FileManager.default.contents(atPath: folder + "/copy.js"),
            let engine = FileManager.default.contents(atPath: folder + "/study.js"),
            let player = FileManager.default.contents(atPath: folder + "/player.js"),
            let compare = FileManager.default.contents(atPath: folder + "/compare.js"),
            let serviceWorker = FileManager.default.contents(atPath: folder + "/sw.js"),
            let icon = FileManager.default.contents(atPath: folder + "/icon.svg")
        else {
            throw CatalogError(
                .templates, path: folder,
                message: "style.css, copy.js, study.js, player.js, compare.js, sw.js or icon.svg is missing")
        }
        guard String(data: stylesheet, encoding: .utf8)?.contains("</") == false else {
            throw CatalogError(
                .templates, path: folder + "/style.css",
                message: "the stylesheet is not UTF-8 or holds \"</\" (it is written into each page's <style>)")
        }
        self.serviceWorker = WebAsset(serviceWorker)
        self.icon = WebAsset(icon)
        self.contentSecurityPolicy = Self.contentSecurityPolicy(inlineStyle: stylesheet)
        self.player = WebAsset(Self.withoutCommentLines(engine + Data("\n".utf8) + player))
        self.compare = WebAsset(Self.withoutCommentLines(compare))
        self.library = library
        self.stylesheet = WebAsset(stylesheet)
        guard let deflatedStylesheet = DeflatedPart(stylesheet, level: .best) else {
            throw CatalogError(
                .templates, path: folder + "/style.css", message: "zlib could not deflate it (out of memory)")
        }
        self.deflatedStylesheet = deflatedStylesheet
        stylesheetCRC = Gzip.crc32(stylesheet)
        self.script = WebAsset(script)
    }

    /// A script without its lines of comment (those whose text starts with `//`): what a phone
    /// downloads is the code, the comments stay in the sources.
    static func withoutCommentLines(_ script: Data) -> Data {
        let lines = String(decoding: script, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
        return Data(lines.filter { !$0.drop { $0 == " " }.hasPrefix("//") }.joined(separator: "\n").utf8)
    }

    /// `Resources/web` beside the executable (an installed `share/loop/web`) or in the
    /// repository it was built in.
    public static func locate(executable: String = "/proc/self/exe") -> String? {
        let start = URL(fileURLWithPath: executable).resolvingSymlinksInPath().deletingLastPathComponent()
        let installed = start.deletingLastPathComponent().appendingPathComponent("share/loop/web").path
        if FileManager.default.fileExists(atPath: installed + "/front.mustache") { return installed }
        var folder = start
        for _ in 0..<6 {
            let candidate = folder.appendingPathComponent("Resources/web").path
            if FileManager.default.fileExists(atPath: candidate + "/front.mustache") { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return nil
    }

    /// The policy allowing exactly `inlineStyle` as an inline stylesheet (CSP's `'sha256-…'`
    /// of its bytes), and scripts, workers, media and pictures from the server only.
    static func contentSecurityPolicy(inlineStyle: Data) -> String {
        let hash = Data(SHA256.hash(data: inlineStyle)).base64EncodedString()
        return
            "default-src 'none'; style-src 'self' 'sha256-\(hash)'; script-src 'self'; worker-src 'self'; connect-src 'self'; "
            + "media-src 'self' blob:; img-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
    }

    /// The page `name` made from `model` (a page model of PageModels.swift), its `<style>`
    /// left empty: ``withStylesheet(_:at:)`` writes the stylesheet in as the page is sent, so
    /// the pages a server keeps do not each hold a copy of it.
    func render(_ name: String, _ model: some Encodable) -> String {
        var value = TemplateValueEncoder.value(of: model)
        if let inline = type(of: model) as? any TemplateModelWithInlineChild.Type,
            case .object(var values) = value, case .object(let child)? = values[inline.inlineChild]
        {
            values.merge(child) { own, _ in own }
            value = .object(values)
        }
        return library.render(name, value, escape: MarkupEscaping.escape(_:into:))
    }

    /// Where the stylesheet goes in a rendered page: after its first `<style>`, if it has one.
    /// (Read over the bytes: `Data.firstRange(of:)` took a tenth of a first visit's time.)
    static func styleOffset(in page: Data) -> Int? {
        page.withUnsafeBytes { bytes -> Int? in
            guard bytes.count >= emptyStyle.count else { return nil }
            for start in 0...(bytes.count - emptyStyle.count) where bytes[start] == emptyStyle[0] {
                if bytes[start..<(start + emptyStyle.count)].elementsEqual(emptyStyle) {
                    return start + "<style>".utf8.count
                }
            }
            return nil
        }
    }

    private static let emptyStyle = Array("<style></style>".utf8)

    /// `page` as sent: the stylesheet written in at `offset`.
    func withStylesheet(_ page: Data, at offset: Int?) -> ByteBuffer {
        guard let offset else { return ByteBuffer(bytes: page) }
        var buffer = ByteBuffer()
        buffer.reserveCapacity(page.count + stylesheet.bytes.count)
        buffer.writeBytes(page.prefix(offset))
        buffer.writeBytes(stylesheet.bytes)
        buffer.writeBytes(page.dropFirst(offset))
        return buffer
    }

    /// `page` (as ``render(_:_:)`` made it) deflated: its own text, without the stylesheet
    /// (joined in as it is sent); nil if zlib failed. `keeping`, a run of the page after its
    /// stylesheet deflated already (a loop's phrases, rendered ahead), is joined in as it is.
    func deflate(_ page: Data, at offset: Int?, keeping run: (range: Range<Int>, part: DeflatedPart)? = nil)
        -> DeflatedPage?
    {
        guard let offset else {
            return DeflatedPart(page, level: .fast).map { DeflatedPage(beforeStyle: $0, crc: Gzip.crc32(page)) }
        }
        let before = page.prefix(offset)
        let after = page.dropFirst(offset)
        // Every page opens alike up to its stylesheet, and every loop's page ends alike after
        // its phrases: those parts are deflated once. (zlib makes each part's codes apart: the
        // sample page's 736-byte opening took 10 µs alone, its 6 KB of text 27 µs in one part.)
        let opening = sharedOpenings.part(before) { before in
            DeflatedPart(before, level: .fast).map {
                (part: $0, crc: Gzip.crc32(stylesheet.bytes, continuing: Gzip.crc32(before)))
            }
        }
        guard let opening else { return nil }
        let deflatedAfter: [DeflatedPart]
        if let run, run.range.lowerBound >= page.startIndex + offset, run.range.upperBound <= page.endIndex {
            guard let head = DeflatedPart(page[(page.startIndex + offset)..<run.range.lowerBound], level: .fast),
                let tail = sharedEndings.part(page[run.range.upperBound...], { DeflatedPart($0, level: .fast) })
            else { return nil }
            deflatedAfter = [head, run.part, tail]
        } else {
            guard let whole = DeflatedPart(after, level: .fast) else { return nil }
            deflatedAfter = [whole]
        }
        return DeflatedPage(
            beforeStyle: opening.part, afterStyle: deflatedAfter, crc: Gzip.crc32(after, continuing: opening.crc))
    }

    /// Where `run` is in `page`: just before its last `</main>`; nil if it is not there.
    static func range(of run: Data, beforeMainEnd page: Data) -> Range<Int>? {
        let end = Array("</main>".utf8)
        guard page.count >= end.count + run.count else { return nil }
        var index = page.endIndex - end.count
        while index - run.count >= page.startIndex {
            if page[index] == end[0], page[index..<(index + end.count)].elementsEqual(end) {
                let range = (index - run.count)..<index
                return page[range] == run ? range : nil
            }
            index -= 1
        }
        return nil
    }

    /// The page as sent, gzipped: its parts and the stylesheet joined (a copy).
    func gzipped(_ page: DeflatedPage) -> ByteBuffer {
        Gzip.join(
            page.afterStyle.map { [page.beforeStyle, deflatedStylesheet] + $0 } ?? [page.beforeStyle], crc: page.crc)
    }
}

/// What many pages hold alike, made once for each text (a page's opening, a loop page's
/// end), told apart by their bytes. Up to 16 are kept, of 1 KB at most; once those places
/// are taken (templates that write a loop's own words there), any other text is made each
/// time, as before.
final class SharedParts<Value: Sendable>: Sendable {
    private let kept = Mutex<[Data: Value]>([:])
    static var most: Int { 16 }
    static var longest: Int { 1_024 }

    /// How many are kept.
    var count: Int { kept.withLock { $0.count } }

    /// The value kept for `bytes`, else `make`'s (kept when there is room).
    func part(_ bytes: Data, _ make: (Data) -> Value?) -> Value? {
        if let value = kept.withLock({ $0[bytes] }) { return value }
        guard let value = make(bytes) else { return nil }
        if bytes.count <= Self.longest {
            // (A copy of its own: `bytes` may be a slice of a whole page.)
            kept.withLock { if $0.count < Self.most { $0[Data(bytes)] = value } }
        }
        return value
    }
}

/// A rendered page deflated without its stylesheet (``WebTemplates/deflate(_:at:keeping:)``):
/// about a third of its size.
struct DeflatedPage: Sendable {
    /// The page up to its stylesheet (the whole page when it has no `<style>`).
    var beforeStyle: DeflatedPart
    /// The page after its stylesheet, in parts; nil when it has no `<style>`.
    var afterStyle: [DeflatedPart]?
    /// The CRC-32 of the page as sent, its stylesheet in.
    var crc: UInt32

    /// What keeping it costs.
    var bytes: Int { beforeStyle.deflated.count + (afterStyle?.reduce(0) { $0 + $1.deflated.count } ?? 0) }
}

/// HTML and XML escaping, scalar by scalar.
///
/// A generic template library's escaping compared whole Characters, so a quote or `<` followed
/// by a combining mark (one Character) went out unescaped: a title could close an attribute.
/// Characters that HTML and XML forbid (controls, noncharacters) become U+FFFD.
///
/// The text's UTF-8 is read as it is: runs that need nothing (nearly all of a page's text,
/// accented or not) are copied whole, and only a markup character, a control or a noncharacter
/// is replaced. (Read scalar by scalar, escaping was three quarters of a page's rendering.)
enum MarkupEscaping {
    static func escape(_ text: String) -> String {
        var escaped = ""
        escape(text, into: &escaped)
        return escaped
    }

    /// Appends `text` escaped to `output`.
    static func escape(_ text: String, into output: inout String) {
        var text = text
        let replaced = text.withUTF8 { bytes in
            // Bytes from `start` to `index` need nothing; each replacement appends them first.
            var start = 0
            var index = 0
            func flush() {
                if index > start {
                    output += String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
            }
            func replace(_ length: Int, with replacement: String) {
                flush()
                output += replacement
                index += length
                start = index
            }
            while index < bytes.count {
                let byte = bytes[index]
                switch byte {
                case UInt8(ascii: "<"): replace(1, with: "&lt;")
                case UInt8(ascii: ">"): replace(1, with: "&gt;")
                case UInt8(ascii: "&"): replace(1, with: "&amp;")
                case UInt8(ascii: "\""): replace(1, with: "&quot;")
                case UInt8(ascii: "'"): replace(1, with: "&#39;")
                case UInt8(ascii: "\t"), UInt8(ascii: "\n"), 0x20..<0x7F: index += 1
                case UInt8(ascii: "\r"): replace(1, with: "\n")
                case 0..<0x80: replace(1, with: "\u{FFFD}") // the other controls and DEL
                case 0xC2 where bytes[index + 1] <= 0x9F: replace(2, with: "\u{FFFD}") // U+0080-U+009F
                case 0xC0..<0xE0: index += 2
                case 0xEF:
                    // U+FDD0-U+FDEF and U+FFFE-U+FFFF.
                    let second = bytes[index + 1]
                    let third = bytes[index + 2]
                    if (second == 0xB7 && (0x90...0xAF).contains(third)) || (second == 0xBF && third >= 0xBE) {
                        replace(3, with: "\u{FFFD}")
                    } else {
                        index += 3
                    }
                case 0xE0..<0xF0: index += 3
                default:
                    // Four bytes: U+nFFFE and U+nFFFF of the other planes.
                    let scalar =
                        UInt32(byte & 0x07) << 18 | UInt32(bytes[index + 1] & 0x3F) << 12
                        | UInt32(bytes[index + 2] & 0x3F) << 6 | UInt32(bytes[index + 3] & 0x3F)
                    if scalar & 0xFFFE == 0xFFFE { replace(4, with: "\u{FFFD}") } else { index += 4 }
                }
            }
            if start > 0 { flush() }
            return start > 0
        }
        // Nothing replaced: the text as it is.
        if !replaced { output += text }
    }
}

/// A model whose template also reads the keys of one of its properties at its top level.
protocol TemplateModelWithInlineChild {
    /// The property whose keys are read at the top level too (the model's own win).
    static var inlineChild: String { get }
}
