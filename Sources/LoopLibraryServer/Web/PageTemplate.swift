import Foundation

/// What a page template reads: text, a number, a yes or no, a list, or named values.
///
/// Typed, so that rendering looks a key up in a dictionary and switches on a case: the
/// generic template library it replaced cast every value it met (`Any`) to several protocols,
/// and reflected on the page models: most of a preview page's first render (docs/speed.md).
enum TemplateValue: Sendable, Equatable {
    case text(String)
    case number(Int)
    case flag(Bool)
    case list([TemplateValue])
    case object([String: TemplateValue])

    /// The value named `key`, if this is an object that has one.
    subscript(key: String) -> TemplateValue? {
        if case .object(let values) = self { values[key] } else { nil }
    }
}

/// A Mustache template, parsed once (https://mustache.github.io/mustache.5.html): `{{name}}`
/// (escaped), `{{{name}}}` and `{{&name}}` (not), `{{#name}}…{{/name}}`, `{{^name}}…{{/name}}`,
/// `{{> partial}}`, `{{! comment}}`, dotted names and `{{.}}`; a tag alone on its line takes the
/// line with it, as the specification says. Lambdas, inheritance and changed delimiters are
/// refused when the template is read.
struct PageTemplate: Sendable {
    indirect enum Node: Sendable {
        case text(String)
        case value(name: Name, escaped: Bool)
        case section(name: Name, nodes: [Node], inverted: Bool)
        case partial(name: String, indentation: String)
    }

    /// A tag's name: `.` (the current value) or dotted parts.
    struct Name: Sendable {
        var parts: [String]
        var isCurrent: Bool { parts.isEmpty }
    }

    struct ParseError: Error, CustomStringConvertible {
        var message: String
        var line: Int
        var description: String { "line \(line): \(message)" }
    }

    let nodes: [Node]

    /// The partials this template names, at any depth.
    var partials: Set<String> {
        var names: Set<String> = []
        func visit(_ nodes: [Node]) {
            for node in nodes {
                switch node {
                case .partial(let name, _): names.insert(name)
                case .section(_, let inner, _): visit(inner)
                case .text, .value: break
                }
            }
        }
        visit(nodes)
        return names
    }

    init(_ source: String) throws(ParseError) {
        var parser = Parser(Self.standaloneTrimmed(try Self.tokens(of: source)))
        nodes = try parser.parse()
    }

    // MARK: Reading

    enum TagKind: Equatable {
        case value(escaped: Bool)
        case open, inverted, close, partial, comment

        /// Whether the tag takes its line with it when it stands alone on it.
        var isStandaloneKind: Bool { self != .value(escaped: true) && self != .value(escaped: false) }
    }

    enum Token {
        case text(String)
        case tag(TagKind, String, line: Int, indentation: String = "")
    }

    /// The template as text and tags, in order.
    static func tokens(of source: String) throws(ParseError) -> [Token] {
        var tokens: [Token] = []
        var rest = Substring(source)
        var line = 1
        while let open = rest.range(of: "{{") {
            let text = rest[..<open.lowerBound]
            if !text.isEmpty { tokens.append(.text(String(text))) }
            line += text.count { $0 == "\n" }
            var body = rest[open.upperBound...]
            let triple = body.first == "{"
            if triple { body = body.dropFirst() }
            guard let close = body.range(of: triple ? "}}}" : "}}") else {
                throw ParseError(message: "a tag opened with {{ is not closed", line: line)
            }
            let inside = body[..<close.lowerBound]
            rest = body[close.upperBound...]
            let (kind, name) = try tag(inside, triple: triple, line: line)
            tokens.append(.tag(kind, name, line: line)) // the line the tag starts on
            line += inside.count { $0 == "\n" }
        }
        if !rest.isEmpty { tokens.append(.text(String(rest))) }
        return tokens
    }

    private static func tag(_ inside: Substring, triple: Bool, line: Int) throws(ParseError) -> (TagKind, String) {
        func trimmed(_ text: Substring) -> String {
            String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
        }
        if triple { return (.value(escaped: false), trimmed(inside)) }
        guard let sigil = inside.first else { throw ParseError(message: "an empty tag {{}}", line: line) }
        let name = trimmed(inside.dropFirst())
        switch sigil {
        case "#": return (.open, name)
        case "^": return (.inverted, name)
        case "/": return (.close, name)
        case ">": return (.partial, name)
        case "!": return (.comment, "")
        case "&": return (.value(escaped: false), name)
        case "=", "$", "<", "%":
            throw ParseError(
                message: "{{\(sigil)…}} (changed delimiters, inheritance or a pragma) is not supported", line: line)
        default: return (.value(escaped: true), trimmed(inside))
        }
    }

    /// The tokens with every standalone tag's line taken out: a section, inverted section,
    /// closing, partial or comment tag with only spaces or tabs beside it on its line leaves
    /// neither those nor the line's end (a standalone partial is indented by those spaces).
    static func standaloneTrimmed(_ tokens: [Token]) -> [Token] {
        func isBlank(_ text: Substring) -> Bool { text.allSatisfy { $0 == " " || $0 == "\t" } }
        // Decided on the tokens as read, then cut: two standalone tags on lines of their own
        // share the text between them.
        var keptFrom = [String.Index?](repeating: nil, count: tokens.count) // a text's head cut
        var keptTo = [String.Index?](repeating: nil, count: tokens.count) // a text's tail cut
        var result = tokens
        for index in tokens.indices {
            guard case .tag(let kind, let name, let line, _) = tokens[index], kind.isStandaloneKind else { continue }
            // What precedes the tag on its line: the text since the last line end (or the start).
            var before: Substring = ""
            if index > 0 {
                guard case .text(let text) = tokens[index - 1] else { continue }
                let lineStart = text.lastIndex(of: "\n").map { text.index(after: $0) }
                guard lineStart != nil || index == 1 else { continue }
                before = text[(lineStart ?? text.startIndex)...]
                guard isBlank(before) else { continue }
            }
            // What follows it: blanks to the line's end (or the end of the template).
            var after: String.Index?
            if index + 1 < tokens.count {
                guard case .text(let text) = tokens[index + 1] else { continue }
                let end = text.firstIndex(of: "\n")
                guard end != nil || index + 2 == tokens.count else { continue }
                var blanks = text[..<(end ?? text.endIndex)]
                if blanks.last == "\r" { blanks = blanks.dropLast() }
                guard isBlank(blanks) else { continue }
                after = end.map { text.index(after: $0) } ?? text.endIndex
            }
            if index > 0 { keptTo[index - 1] = before.startIndex }
            if index + 1 < tokens.count { keptFrom[index + 1] = after }
            result[index] = .tag(kind, name, line: line, indentation: String(before))
        }
        for index in tokens.indices {
            guard case .text(let text) = tokens[index], keptFrom[index] != nil || keptTo[index] != nil else { continue }
            let from = keptFrom[index] ?? text.startIndex
            let to = keptTo[index] ?? text.endIndex
            result[index] = .text(from < to ? String(text[from..<to]) : "")
        }
        return result
    }

    /// Nests the tokens into sections.
    struct Parser {
        var tokens: [Token]
        var position = 0

        init(_ tokens: [Token]) { self.tokens = tokens }

        mutating func parse() throws(ParseError) -> [Node] {
            try parse(closing: nil)
        }

        private mutating func parse(closing: (name: String, line: Int)?) throws(ParseError) -> [Node] {
            var nodes: [Node] = []
            while position < tokens.count {
                let token = tokens[position]
                position += 1
                switch token {
                case .text(let text):
                    if !text.isEmpty { nodes.append(.text(text)) }
                case .tag(let kind, let name, let line, let indentation):
                    // Every name checked as it is read (a message quoting it stays on one line).
                    let checked = kind == .comment ? Name(parts: []) : try Self.name(name, line: line)
                    switch kind {
                    case .comment: break
                    case .value(let escaped):
                        nodes.append(.value(name: checked, escaped: escaped))
                    case .partial:
                        nodes.append(.partial(name: name, indentation: indentation))
                    case .open, .inverted:
                        let inner = try parse(closing: (name, line))
                        nodes.append(.section(name: checked, nodes: inner, inverted: kind == .inverted))
                    case .close:
                        guard let closing else {
                            throw ParseError(message: "{{/\(name)}} closes no section", line: line)
                        }
                        guard closing.name == name else {
                            throw ParseError(
                                message: "{{/\(name)}} does not close {{#\(closing.name)}} of line \(closing.line)",
                                line: line)
                        }
                        return nodes
                    }
                }
            }
            if let closing {
                throw ParseError(message: "{{#\(closing.name)}} is not closed", line: closing.line)
            }
            return nodes
        }

        static func name(_ text: String, line: Int) throws(ParseError) -> Name {
            if text == "." { return Name(parts: []) }
            let parts = text.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !text.isEmpty, parts.allSatisfy({ !$0.isEmpty && !$0.contains(where: \.isWhitespace) }) else {
                throw ParseError(message: "\(text.debugDescription) is not a name", line: line)
            }
            return Name(parts: parts)
        }
    }
}

/// Templates by name, rendered with their partials.
struct PageTemplateLibrary: Sendable {
    private(set) var templates: [String: PageTemplate] = [:]

    mutating func register(_ template: PageTemplate, named name: String) {
        templates[name] = template
    }

    /// Partials named by a template but not registered.
    var missingPartials: [(template: String, partial: String)] {
        templates.sorted { $0.key < $1.key }.flatMap { name, template in
            template.partials.sorted().filter { templates[$0] == nil }.map { (name, $0) }
        }
    }

    /// `name` rendered with `value`, each `{{value}}` escaped by `escape`.
    func render(_ name: String, _ value: TemplateValue, escape: (String, inout String) -> Void) -> String {
        var output = ""
        output.reserveCapacity(16 * 1024)
        var stack = [value]
        if let template = templates[name] {
            render(template.nodes, stack: &stack, into: &output, escape: escape, depth: 0)
        }
        return output
    }

    /// Partials nest at most this deep (a partial that names itself stops there).
    static let maximumDepth = 32

    private func render(
        _ nodes: [PageTemplate.Node], stack: inout [TemplateValue], into output: inout String,
        escape: (String, inout String) -> Void, depth: Int
    ) {
        for node in nodes {
            switch node {
            case .text(let text):
                output += text
            case .value(let name, let escaped):
                switch lookUp(name, in: stack) {
                case .text(let text): if escaped { escape(text, &output) } else { output += text }
                case .number(let number): output += String(number)
                case .flag(let flag): output += flag ? "true" : "false"
                case .list, .object, nil: break
                }
            case .section(let name, let inner, let inverted):
                let value = lookUp(name, in: stack)
                if inverted {
                    switch value {
                    case nil, .flag(false): break
                    case .list(let items) where items.isEmpty: break
                    default: continue
                    }
                    render(inner, stack: &stack, into: &output, escape: escape, depth: depth)
                    continue
                }
                switch value {
                case nil, .flag(false): break
                case .flag(true): render(inner, stack: &stack, into: &output, escape: escape, depth: depth)
                case .list(let items):
                    for item in items {
                        stack.append(item)
                        render(inner, stack: &stack, into: &output, escape: escape, depth: depth)
                        stack.removeLast()
                    }
                case .some(let value):
                    stack.append(value)
                    render(inner, stack: &stack, into: &output, escape: escape, depth: depth)
                    stack.removeLast()
                }
            case .partial(let name, let indentation):
                guard depth < Self.maximumDepth, let template = templates[name] else { continue }
                if indentation.isEmpty {
                    render(template.nodes, stack: &stack, into: &output, escape: escape, depth: depth + 1)
                } else {
                    var partial = ""
                    render(template.nodes, stack: &stack, into: &partial, escape: escape, depth: depth + 1)
                    output += Self.indented(partial, by: indentation)
                }
            }
        }
    }

    /// Each line of `text` that has something on it, after `indentation`.
    static func indented(_ text: String, by indentation: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().map { index, line in
            line.isEmpty && index > 0 ? "" : indentation + line
        }
        .joined(separator: "\n")
    }

    /// The value `name` names: its first part looked for from the innermost value out, the
    /// rest inside what that found.
    private func lookUp(_ name: PageTemplate.Name, in stack: [TemplateValue]) -> TemplateValue? {
        guard let first = name.parts.first else { return stack.last }
        var found: TemplateValue?
        for value in stack.reversed() {
            if let child = value[first] {
                found = child
                break
            }
        }
        for part in name.parts.dropFirst() {
            found = found?[part]
        }
        return found
    }
}
