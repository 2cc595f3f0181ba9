/// What is wrong with a request, before anything is done: its words, with each field of the
/// request it names in braces (`{count} takes 1 to 10000 phrases, not 0`), for an interface to
/// name as it names that field (the command line: `--count`; a form: its label). Every interface
/// makes the same checks, through the request's `check()`.
public struct RequestProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The words, fields in braces.
    public var template: String

    /// A problem worded by `template` (`{field}` names an option).
    public init(_ template: String) { self.template = template }

    /// The words, each field named by `name` (given the field's name, as in `{field}`).
    public func worded(naming name: (String) -> String) -> String {
        var words = ""
        var rest = template[...]
        while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
            words += rest[..<open]
            words += name(String(rest[rest.index(after: open)..<close]))
            rest = rest[rest.index(after: close)...]
        }
        return words + rest
    }

    /// The words with each field named as the command line names it (`{minPause}` is
    /// `--min-pause`).
    public var description: String { worded(naming: Self.optionName) }

    /// A field's name as a command-line option: `--` and the name in lower case, words
    /// parted by `-` (`captureDevice` is `--capture-device`).
    public static func optionName(_ field: String) -> String {
        "--"
            + field.reduce(into: "") { name, character in
                if character.isUppercase {
                    name += "-" + character.lowercased()
                } else {
                    name.append(character)
                }
            }
    }

    /// `{a}` and `{b}` cannot be given together.
    public static func exclusive(_ a: String, _ b: String) -> RequestProblem {
        RequestProblem("give {\(a)} or {\(b)}, not both")
    }

    /// Throws `problem` when `condition` holds.
    static func check(_ condition: Bool, _ problem: @autoclosure () -> RequestProblem) throws(RequestProblem) {
        if condition { throw problem() }
    }
}
