import Foundation

extension LoopSource {
    /// The source in the documented text format: parsing it gives this source back.
    public var text: String {
        var lines: [String] = []
        if let title { lines.append("# title: " + title) }
        if let language { lines.append("# language: " + language) }
        if let translationLanguage { lines.append("# translation: " + translationLanguage) }
        if !tags.isEmpty { lines.append("# tags: " + tags.joined(separator: ", ")) }
        if let picture { lines.append("# image: " + picture) }
        for group in groups {
            if !lines.isEmpty { lines.append("") }
            if let picture = group.picture { lines.append("# group-image: " + picture) }
            for phrase in group.phrases {
                var line = Self.escape(phrase.text, leading: true)
                if let translation = phrase.translation { line += " | " + Self.escape(translation, leading: false) }
                lines.append(line)
                if let picture = phrase.picture { lines.append("# phrase-image: " + picture) }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func escape(_ text: String, leading: Bool) -> String {
        // Scalar by scalar, as the parser reads a line.
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "|" { scalars.append("\\") }
            scalars.append(scalar)
        }
        var escaped = String(scalars)
        if leading && escaped.hasPrefix("#") { escaped = "\\" + escaped }
        return escaped
    }
}
