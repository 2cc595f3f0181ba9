import Foundation
import LoopFoundation
import Mustache

/// The web pages' templates and static files, read once from a folder (`Resources/web`).
///
/// Every `{{value}}` is escaped by ``MarkupEscaping``, in every template and partial: the
/// folder's templates are registered with that content type set at their top.
public struct WebTemplates: Sendable {
    /// The templates a server renders; a folder without one of them is refused at start.
    static let required = ["header", "footer", "card", "pager", "front", "author", "loop", "missing", "feed"]

    let library: MustacheLibrary
    /// `style.css` and `copy.js`, served as they are.
    let stylesheet: Data
    let script: Data

    /// Reads the templates in `folder`, refusing a folder that lacks one or holds one that does
    /// not parse.
    public init(folder: String) throws(CatalogError) {
        MustacheContentTypes.register(MarkupEscaping(), named: "MARKUP")
        var library = MustacheLibrary()
        for name in Self.required {
            let path = folder + "/" + name + ".mustache"
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw CatalogError(.templates, path: path, message: "cannot read the template")
            }
            do {
                try library.register("{{%CONTENT_TYPE:MARKUP}}" + text, named: name)
            } catch {
                throw CatalogError(.templates, path: path, message: "the template does not parse (\(error))")
            }
        }
        guard let stylesheet = FileManager.default.contents(atPath: folder + "/style.css"),
              let script = FileManager.default.contents(atPath: folder + "/copy.js") else {
            throw CatalogError(.templates, path: folder, message: "style.css or copy.js is missing")
        }
        self.library = library
        self.stylesheet = stylesheet
        self.script = script
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

    /// The page `name` made from `model`.
    func render(_ name: String, _ model: Any) -> String {
        library.render(model, withTemplate: name) ?? ""
    }
}


/// HTML and XML escaping, scalar by scalar.
///
/// The template library's own escaping compares whole Characters, so a quote or `<` followed
/// by a combining mark (one Character) went out unescaped: a title could close an attribute.
/// Characters that HTML and XML forbid (controls, noncharacters) become U+FFFD.
struct MarkupEscaping: MustacheContentType {
    func escapeText(_ text: String) -> String {
        Self.escape(text)
    }

    static func escape(_ text: String) -> String {
        var escaped = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": escaped.append(contentsOf: "&lt;".unicodeScalars)
            case ">": escaped.append(contentsOf: "&gt;".unicodeScalars)
            case "&": escaped.append(contentsOf: "&amp;".unicodeScalars)
            case "\"": escaped.append(contentsOf: "&quot;".unicodeScalars)
            case "'": escaped.append(contentsOf: "&#39;".unicodeScalars)
            case "\t", "\n": escaped.append(scalar)
            case "\r": escaped.append("\n")
            default:
                let value = scalar.value
                let forbidden = value < 0x20 || (0x7F...0x9F).contains(value) || (0xFDD0...0xFDEF).contains(value) || value & 0xFFFE == 0xFFFE
                escaped.append(forbidden ? "\u{FFFD}" : scalar)
            }
        }
        return String(escaped)
    }
}
