import Foundation
import Testing

@testable import LoopLibraryServer

/// The pages' template reader and renderer: Mustache as the specification reads it, for what
/// an operator's own templates (`loop serve --web FOLDER`) may hold.
struct PageTemplateTests {
    /// Renders `main` with `value`, beside `partials`.
    static func render(
        _ main: String, _ value: TemplateValue, partials: [String: String] = [:]
    ) throws -> String {
        var library = PageTemplateLibrary()
        library.register(try PageTemplate(main), named: "main")
        for (name, text) in partials { library.register(try PageTemplate(text), named: name) }
        return library.render("main", value, escape: MarkupEscaping.escape(_:into:))
    }

    @Test func aTagAloneOnItsLineTakesTheLineWithIt() throws {
        let template = """
            <ul>
              {{#items}}
              <li>{{name}}</li>
              {{/items}}
              {{! a comment }}
            </ul>
            {{^items}}none{{/items}}
            {{> footer}}
            end
            """
        let rendered = try Self.render(
            template, .object(["items": .list([.object(["name": .text("a")]), .object(["name": .text("b")])])]),
            partials: ["footer": "<footer>\n"])
        #expect(rendered == "<ul>\n  <li>a</li>\n  <li>b</li>\n</ul>\n\n<footer>\nend")
        // Beside text on its line a tag keeps the line; two standalone tags share the text between them.
        #expect(try Self.render("a {{#x}}b{{/x}}\n", .object(["x": .flag(true)])) == "a b\n")
        #expect(
            try Self.render("{{#x}}\n{{#y}}\nin\n{{/y}}\n{{/x}}\nout", .object(["x": .flag(true), "y": .flag(true)]))
                == "in\nout")
        // An indented standalone partial is indented line by line.
        #expect(try Self.render("  {{> p}}\n", .object([:]), partials: ["p": "one\ntwo\n"]) == "  one\n  two\n")
    }

    @Test func sectionsRepeatShowOrInvertAsMustacheSays() throws {
        let value = TemplateValue.object([
            "yes": .flag(true), "no": .flag(false), "none": .list([]), "text": .text(""), "zero": .number(0),
            "list": .list([.text("x"), .text("y")]), "page": .object(["title": .text("T"), "script": .flag(true)]),
        ])
        let template =
            "{{#yes}}Y{{/yes}}{{#no}}N{{/no}}{{#none}}E{{/none}}{{#missing}}M{{/missing}}{{#text}}S{{/text}}"
            + "{{#zero}}0{{/zero}}|{{^yes}}y{{/yes}}{{^no}}n{{/no}}{{^none}}e{{/none}}{{^missing}}m{{/missing}}"
            + "{{^list}}l{{/list}}|{{#list}}[{{.}}]{{/list}}|{{page.title}}{{#page.script}}+{{/page.script}}"
        #expect(try Self.render(template, value) == "YS0|nem|[x][y]|T+")
    }

    @Test func aNameIsLookedForFromTheInnermostValueOutButADottedNamesRestIsNot() throws {
        let value = TemplateValue.object([
            "lang": .text("fr"), "title": .text("outer"),
            "rows": .list([
                .object(["title": .text("one")]), .object(["title": .text("two"), "lang": .text("de")]),
            ]),
            "card": .object(["link": .text("/a")]), "link": .text("/outer"),
        ])
        #expect(
            try Self.render("{{#rows}}{{title}}:{{lang}} {{/rows}}{{title}}", value) == "one:fr two:de outer")
        #expect(try Self.render("{{card.link}} {{card.title}}|", value) == "/a |")
    }

    @Test func valuesAreEscapedUnlessAskedNotTo() throws {
        let value = TemplateValue.object(["t": .text("<b>\"Tom\" & 'Jo'</b>\u{301}"), "n": .number(42)])
        #expect(
            try Self.render("{{t}}|{{{t}}}|{{& t}}|{{n}}", value)
                == "&lt;b&gt;&quot;Tom&quot; &amp; &#39;Jo&#39;&lt;/b&gt;\u{301}|<b>\"Tom\" & 'Jo'</b>\u{301}"
                + "|<b>\"Tom\" & 'Jo'</b>\u{301}|42")
        // A quote followed by a combining mark is one Character, and still escaped.
        #expect(MarkupEscaping.escape("\"\u{301}<\u{301}") == "&quot;\u{301}&lt;\u{301}")
        #expect(MarkupEscaping.escape("a\u{0}b\u{FFFF}") == "a\u{FFFD}b\u{FFFD}")
        #expect(MarkupEscaping.escape("<i>'&'</i> ok") == "&lt;i&gt;&#39;&amp;&#39;&lt;/i&gt; ok")
        // Each character on its own too (plain ASCII text is appended as it is when it has none).
        for (plain, escaped) in [
            ("1 < 2", "1 &lt; 2"), ("a & b", "a &amp; b"), ("\"q\"", "&quot;q&quot;"), ("it's", "it&#39;s"),
        ] {
            #expect(MarkupEscaping.escape(plain) == escaped)
        }
    }

    /// The escaping as the HTML and XML rules say it, scalar by scalar: what the server's
    /// byte-level escaping must give.
    private static func escapedScalarByScalar(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "&": escaped += "&amp;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            case "\t", "\n": escaped.unicodeScalars.append(scalar)
            case "\r": escaped += "\n"
            default:
                let value = scalar.value
                let forbidden =
                    value < 0x20 || (0x7F...0x9F).contains(value) || (0xFDD0...0xFDEF).contains(value)
                    || value & 0xFFFE == 0xFFFE
                escaped.unicodeScalars.append(forbidden ? "\u{FFFD}" : scalar)
            }
        }
        return escaped
    }

    /// Text of every kind (ASCII, accents, CJK, emoji, combining marks, markup, controls, C1
    /// controls, noncharacters of every plane, the scalars either side of each) is escaped as
    /// the rules say, scalar by scalar.
    @Test func escapingReadsTheTextsBytesAsItsScalarsSay() {
        let edges: [UInt32] = [
            0x0, 0x8, 0x9, 0xA, 0xD, 0x1F, 0x20, 0x22, 0x26, 0x27, 0x3C, 0x3E, 0x7E, 0x7F, 0x80, 0x9F, 0xA0, 0xE9,
            0x301, 0x7FF, 0x800, 0x3042, 0xFDCF, 0xFDD0, 0xFDEF, 0xFDF0, 0xFFFD, 0xFFFE, 0xFFFF, 0x10000, 0x1F600,
            0x1FFFD, 0x1FFFE, 0x1FFFF, 0x20000, 0xEFFFF, 0xFFFFE, 0x10FFFD, 0x10FFFE, 0x10FFFF,
        ]
        let scalars = edges.compactMap(Unicode.Scalar.init)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                text.append(
                    Bool.random(using: &generator)
                        ? scalars.randomElement(using: &generator)!
                        : Unicode.Scalar(UInt8.random(in: 0x20...0x7E, using: &generator)))
            }
            let string = String(text)
            #expect(
                MarkupEscaping.escape(string) == Self.escapedScalarByScalar(string), "\(Array(string.unicodeScalars))")
        }
        for scalar in scalars {
            let string = "a" + String(scalar) + "b"
            #expect(
                MarkupEscaping.escape(string) == Self.escapedScalarByScalar(string),
                "U+\(String(scalar.value, radix: 16))")
        }
        // Appended to what is there.
        var output = "<kept>"
        MarkupEscaping.escape("l'été", into: &output)
        MarkupEscaping.escape("plain", into: &output)
        #expect(output == "<kept>l&#39;étéplain")
    }

    @Test func whatTheRendererCannotReadIsRefusedWithItsLine() {
        for (template, message) in [
            ("a\n{{#x}}b", "line 2: {{#x}} is not closed"),
            ("{{#x}}\n{{/y}}", "line 2: {{/y}} does not close {{#x}} of line 1"),
            ("{{/x}}", "line 1: {{/x}} closes no section"),
            ("{{=<% %>=}}", "line 1: {{=…}} (changed delimiters, inheritance or a pragma) is not supported"),
            ("{{$block}}{{/block}}", "line 1: {{$…}} (changed delimiters, inheritance or a pragma) is not supported"),
            ("one\ntwo {{name", "line 2: a tag opened with {{ is not closed"),
            ("{{a..b}}", "line 1: \"a..b\" is not a name"),
            // A tag over two lines: named by the line it starts on, its name's line end shown escaped (one line).
            ("one\n{{#x\n}}{{/x}}", "line 2: \"x\\n\" is not a name"),
        ] {
            #expect(throws: PageTemplate.ParseError.self, "\(template.debugDescription)") { try PageTemplate(template) }
            do {
                _ = try PageTemplate(template)
            } catch {
                #expect(error.description == message)
            }
        }
    }

    @Test func aPartialNotThereIsNamedAndOneThatNamesItselfStops() throws {
        var library = PageTemplateLibrary()
        library.register(try PageTemplate("{{> header}}{{> nowhere}}"), named: "page")
        library.register(try PageTemplate("h"), named: "header")
        #expect(library.missingPartials.map { "\($0.template) > \($0.partial)" } == ["page > nowhere"])
        // A partial that includes itself renders to its depth limit, and returns.
        #expect(
            try Self.render("{{> loop}}", .object([:]), partials: ["loop": "x{{> loop}}"]).count
                == PageTemplateLibrary.maximumDepth)
    }

    @Test func aPageModelBecomesTheValuesItsTemplateReads() {
        let model = PagerModel(page: 2, pages: 3, previous: "/?page=1", next: nil)
        #expect(
            TemplateValueEncoder.value(of: model)
                == .object(["page": .number(2), "pages": .number(3), "previous": .text("/?page=1")]))
        let tags = [TagModel(name: "a", link: nil), TagModel(name: "b", link: "/?tag=b")]
        #expect(
            TemplateValueEncoder.value(of: tags)
                == .list([.object(["name": .text("a")]), .object(["name": .text("b"), "link": .text("/?tag=b")])]))
        let head = PageHead(title: "T", cardTitle: "C", url: "u", description: "d", query: "", script: true)
        #expect(TemplateValueEncoder.value(of: head)["script"] == .flag(true))
        // Numbers of every width, and fractions as text (a template shows what it is given).
        struct Sizes: Encodable {
            var count: Int64 = 3
            var ratio = 0.5
        }
        #expect(TemplateValueEncoder.value(of: Sizes()) == .object(["count": .number(3), "ratio": .text("0.5")]))
        // A model that writes its own encoding, with containers nested in its own and a
        // superclass's encoder: each value lands where it was put.
        struct Nested: Encodable {
            enum Keys: String, CodingKey { case head, items, base, tail }
            func encode(to encoder: any Encoder) throws {
                var top = encoder.container(keyedBy: Keys.self)
                try top.encode("t", forKey: .tail)
                var head = top.nestedContainer(keyedBy: Keys.self, forKey: .head)
                try head.encode(1, forKey: .tail)
                var items = top.nestedUnkeyedContainer(forKey: .items)
                try items.encode("first")
                var inner = items.nestedContainer(keyedBy: Keys.self)
                try inner.encode(true, forKey: .tail)
                try items.encode("last")
                var base = top.superEncoder(forKey: .base).singleValueContainer()
                try base.encode("b")
            }
        }
        #expect(
            TemplateValueEncoder.value(of: Nested())
                == .object([
                    "tail": .text("t"), "head": .object(["tail": .number(1)]),
                    "items": .list([.text("first"), .object(["tail": .flag(true)]), .text("last")]), "base": .text("b"),
                ]))
    }

    /// A tag or a name in a link: every byte but the unreserved ones percent-encoded, as
    /// Foundation encodes it.
    @Test func aTextInALinkHasAllButUnreservedCharactersPercentEncoded() {
        var unreserved = CharacterSet.alphanumerics.intersection(
            CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(127)))
        unreserved.insert(charactersIn: "-._~")
        for text in ["level 1", "café", "駅", "a&b=c?d#e/f+g%h", "Élodie B.", "~x_y-z.", "emoji 👩‍👩‍👧", "", "\u{0}\n"] {
            #expect(LibraryServer.queryValue(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved))
        }
        #expect(LibraryServer.queryValue("a b/é") == "a%20b%2F%C3%A9")
    }

    /// The site's address written into cached pages is the Host a request names only when it
    /// is a plain name or address.
    @Test func aSiteAddressTakesAPlainHostOnly() {
        for host in ["example.org", "Loops.example.org:8080", "127.0.0.1:41000", "[::1]:80"] {
            #expect(LibraryServer.siteAddress(host: host) == "http://" + host)
        }
        for host in [
            nil, "", "a b", "évil.example", "x\"><script>", "example.org/path", "user@example.org",
            String(repeating: "a", count: 256), "١٢٣",
        ] {
            #expect(LibraryServer.siteAddress(host: host) == "http://localhost", "\(host ?? "nil")")
        }
    }
}
