import Crypto
import Foundation
import LoopAudioFiles
import LoopLibraryAPI
import LoopModel
import LoopStore
import LoopTestSupport
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The Loop Library's web pages as `loop-server` serves them: what they show, that user text
/// stays text, that they follow every change to the catalog, and the clips they play. (The
/// same pages in a real browser: Scripts/check-pages.)
@Suite(.serialized)
struct WebPagesTests {
    static let hostileText = Fixture.folder + "/../Pages/hostile.txt"

    func page(_ server: TestServer, _ path: String, headers: [String: String] = [:]) async throws -> (
        status: Int, headers: [String: String], html: String
    ) {
        let answer = try await http("GET", server.address + path, headers: headers)
        return (answer.status, answer.headers, String(decoding: answer.body, as: UTF8.self))
    }

    /// A take that reads the hostile text (its phrases spoken by the synthesizer in its language,
    /// with pauses): loop refuses a take of another text, as the fixture take would be.
    func hostileTake() throws -> String {
        let split = try LoopProcess.run(["split", Self.hostileText, "--json"])
        struct Text: Decodable {
            struct Group: Decodable {
                struct Phrase: Decodable { var text: String }
                var phrases: [Phrase]
            }
            var groups: [Group]
            var language: String
        }
        let text = try JSONDecoder().decode(Text.self, from: Data(split.output.utf8))
        return try SpokenTake.withPauses(text.groups.flatMap(\.phrases).map(\.text), voice: text.language).path
    }

    /// Publishes `text` (with the fixture take, or with a take of the hostile text) from
    /// `author`; returns the preview link's path.
    func publish(_ author: TestLibrary, text: String, title: String, to server: TestServer) throws -> String {
        let take = text == Self.hostileText ? try hostileTake() : "clean.flac"
        let created = try author.run(["new", "--text", text, "--audio", take, "--title", title])
        #expect(created.status == 0, "\(created.error)")
        let published = try author.run(["publish", title, "--to", server.address])
        #expect(published.status == 0, "\(published.error)")
        return String(published.output.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(server.address.count))
    }

    @Test(arguments: CatalogBackend.all)
    func frontAndPreviewPagesShowTheLoopAndFollowEveryChange(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        #expect(try author.run(["identity", "--name", "Élodie B"]).status == 0)
        let path = try publish(author, text: "phrases.txt", title: "Fixture", to: server)

        let preview = try await page(server, path)
        #expect(preview.status == 200 && preview.headers["content-type"] == "text/html; charset=utf-8")
        for phrase in [
            "Bonjour, madame.", "Un café, s&#39;il vous plaît.", "Merci.", "Où est la gare, s&#39;il vous plaît ?",
            "À droite, puis tout droit.",
        ] {
            #expect(preview.html.contains(#"lang="fr">"# + phrase + "</p>"), "the phrase \(phrase) with its language")
        }
        #expect(
            (1...5).allSatisfy { preview.html.contains(#"<audio controls preload="none" src="\#(path)/\#($0).flac""#) },
            "a player per phrase")
        #expect(
            preview.html.contains("<title>Fixture · Loop Library</title>")
                && preview.html.contains(#"<meta property="og:title" content="Fixture">"#))
        // The stylesheet is in the page (it paints from its first response), allowed by its hash.
        let stylesheet = try String(contentsOfFile: Fixture.folder + "/../../Resources/web/style.css", encoding: .utf8)
        let hash = Data(SHA256.hash(data: Data(stylesheet.utf8))).base64EncodedString()
        #expect(
            preview.html.contains("<style>" + stylesheet + "</style>") && !preview.html.contains(#"rel="stylesheet""#))
        // (So is it for a client that does not take gzip, the page rendered for it: asked
        // under another name, not the page kept.)
        let plainPreview = try await page(
            server, path, headers: ["Accept-Encoding": "identity", "Host": "plain.example"])
        #expect(
            plainPreview.headers["content-encoding"] == nil
                && plainPreview.html.contains("<style>" + stylesheet + "</style>"))
        #expect(
            preview.headers["content-security-policy"]?.contains(
                "style-src 'self' 'sha256-\(hash)'; script-src 'self';") == true,
            "\(preview.headers["content-security-policy"] ?? "no policy")")
        #expect(preview.html.contains(#"<code id="install-line">loop import \#(server.address)\#(path)</code>"#))
        #expect(
            preview.html.contains("Revision 1,") && preview.html.contains(#"<a href="/@%C3%89lodie%20B">Élodie B</a>"#))
        let policy = try #require(preview.headers["content-security-policy"])
        #expect(
            policy.contains("script-src 'self'") && policy.contains("default-src 'none'")
                && !policy.contains("unsafe-inline"))

        // The browser's copy is revalidated: 304 while nothing changed.
        let eTag = try #require(preview.headers["etag"])
        #expect(try await page(server, path, headers: ["If-None-Match": eTag]).status == 304)

        let front = try await page(server, "/")
        #expect(
            front.status == 200 && front.html.contains(#"<a href="\#(path)" dir="auto">Fixture</a>"#)
                && !front.html.contains(#"id="featured""#))

        // An update: the cached pages show it at once.
        #expect(try author.run(["edit", "Fixture", "--tag", "gare"]).status == 0)
        #expect(try author.run(["publish", "Fixture", "--to", server.address]).status == 0)
        let updated = try await page(server, path, headers: ["If-None-Match": eTag])
        #expect(
            updated.status == 200 && updated.html.contains("Revision 2,")
                && updated.html.contains(#"<a class="tag" href="/?tag=gare">gare</a>"#))
        #expect(try await page(server, "/?tag=GARE").html.contains("1 loop tagged GARE"))

        // Featured by the operator, from another process: the front page shows it at once.
        let operatorOptions = ["--data", server.data] + (server.database.map { ["--database", $0] } ?? [])
        #expect(try LoopProcess.run(["serve", "feature", String(path.dropFirst())] + operatorOptions).status == 0)
        #expect(try await page(server, "/").html.contains(#"<h2 id="featured">Featured</h2>"#))
        // Its page too, as a browser asks (rendered ahead when it was published, as it was
        // listed then: rendered again).
        let featured = try await page(server, path, headers: ["Accept-Encoding": "gzip"])
        #expect(featured.headers["content-encoding"] == "gzip" && featured.html.contains("</time> · Featured</p>"))

        // Search from the form: case and accents aside, with "+" for spaces.
        #expect(try await page(server, "/?q=OU+EST+la+GARE").html.contains("1 loop “OU EST la GARE”"))
        #expect(try await page(server, "/?q=nothing-like-this").html.contains("No loops match"))

        // The author's page, and a missing loop.
        let authorPage = try await page(server, "/@%C3%A9lodie%20b")
        #expect(
            authorPage.status == 200 && authorPage.html.contains("<h1>Élodie B</h1>") && authorPage.html.contains(path))
        #expect(try await page(server, "/@nobody").status == 404)

        // Unpublished: the page goes at once.
        let id = try #require((try author.json(["list"]) as? [[String: Any]])?.first?["id"] as? String)
        #expect(try author.run(["unpublish", id, "--from", server.address]).status == 0)
        let gone = try await page(server, path)
        #expect(gone.status == 404 && gone.html.contains("No loop"))

        // The API's routes are still theirs.
        #expect(try await page(server, "/healthz").html == "ok\n")
        #expect(try await page(server, "/api/front").headers["content-type"] == "application/json")
    }

    @Test(arguments: CatalogBackend.all)
    func thePreviewPageShowsTheLoopsGroupsAndPhrasesPictures(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        #expect(try author.run(["new", "--text", "phrases.txt", "--audio", "clean.flac"]).status == 0)
        for (place, file) in [
            ([String](), "picture-red.png"), (["--group", "2"], "picture-green.jpg"),
            (["--phrase", "3"], "picture-blue.webp"),
        ] {
            #expect(try author.run(["image", "fixture"] + place + [file]).status == 0)
        }
        let published = try author.run(["publish", "fixture", "--to", server.address])
        #expect(published.status == 0, "\(published.error)")
        let path = String(
            published.output.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst(server.address.count))
        let preview = try await page(server, path)
        let images = preview.html.matches(of: /<img class="picture" src="([^"]+)" width="96" height="64" alt=""/).map {
            String($0.1)
        }
        #expect(images.count == 3, "the loop's, group 2's and phrase 3's: \(preview.html)")
        // In the page's order: the loop's first, then group 2's, then phrase 3's (in group 1).
        let hashes = try ["picture-red.png", "picture-blue.webp", "picture-green.jpg"].map {
            try #require(try ContentAddress.sha256(ofFileAt: Fixture.path($0)))
        }
        #expect(images == ["/blobs/\(hashes[0]).png", "/blobs/\(hashes[1]).webp", "/blobs/\(hashes[2]).jpg"])
        for (image, (file, type)) in zip(
            images,
            [
                ("picture-red.png", "image/png"), ("picture-blue.webp", "image/webp"),
                ("picture-green.jpg", "image/jpeg"),
            ])
        {
            let served = try await http("GET", server.address + image)
            #expect(served.status == 200 && served.headers["content-type"] == type)
            #expect(
                served.body == FileManager.default.contents(atPath: Fixture.path(file)),
                "\(file) as published, byte for byte")
        }
    }

    /// A loop's phrases, pictures and clips are rendered into its page when it is published and
    /// kept in the catalog, so a first visit renders only the rest: the page is the one its
    /// content renders, byte for byte, before and after an update; a server whose templates
    /// changed (an upgrade) renders the page from the content with them, not the part kept.
    @Test(arguments: CatalogBackend.all)
    func aLoopsPageIsRenderedAheadWhenPublishedAsItsContentRendersIt(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        let text = Scratch.path("translated", extension: "txt")
        try String(contentsOfFile: Fixture.path("phrases.txt"), encoding: .utf8)
            .replacingOccurrences(
                of: "Un café, s'il vous plaît.", with: "Un café, s'il vous plaît. | A coffee, please."
            )
            .write(toFile: text, atomically: true, encoding: .utf8)
        #expect(try author.run(["new", "--text", text, "--audio", "clean.flac", "--title", "fixture"]).status == 0)
        for (place, file) in [([String](), "picture-red.png"), (["--phrase", "3"], "picture-blue.webp")] {
            #expect(try author.run(["image", "fixture"] + place + [file]).status == 0)
        }
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        let path = try #require(
            (try author.json(["list"]) as? [[String: Any]])?.first?["id"] as? String
        ).replacingOccurrences(of: "-", with: "").prefix(6)
        /// What `sqlite` or `postgres` answers of the server's catalog.
        func catalog(sqlite: String, postgres: String) throws -> String {
            try server.database.map { try psql($0, postgres) } ?? sqlite3(server.data + "/catalog.sqlite", sqlite)
        }
        // Templates that render the same page under another version (a comment), and others
        // that render another (a mark in each group).
        func templates(_ name: String, groups: (String) -> String) throws -> String {
            let web = Scratch.path(name)
            try FileManager.default.copyItem(atPath: Fixture.folder + "/../../Resources/web", toPath: web)
            let file = web + "/loop-groups.mustache"
            try groups(try String(contentsOfFile: file, encoding: .utf8)).write(
                toFile: file, atomically: true, encoding: .utf8)
            return web
        }
        let commented = try TestServer(
            sharingWith: server,
            arguments: ["--web", try templates("web-commented") { "{{! rendered again }}\n" + $0 }])
        let markedWeb = try templates("web-marked") {
            $0.replacingOccurrences(of: "<h2 id=\"group", with: "<h2 class=\"upgraded\" id=\"group")
        }
        let marked = try TestServer(sharingWith: server, arguments: ["--web", markedWeb])
        // Asked under one name, so that the pages differ by how they were rendered alone.
        let host = ["Host": "loops.example"]
        let editor = Scratch.path("greeting-editor", extension: "sh")
        try "#!/bin/sh\nsed -i 's/Bonjour, madame./Bonsoir, madame./' \"$1\"\n".write(
            toFile: editor, atomically: true, encoding: .utf8)
        chmod(editor, 0o755)
        for (update, greeting) in [(false, "Bonjour, madame."), (true, "Bonsoir, madame.")] {
            #expect(
                try catalog(
                    sqlite: "SELECT count(pagePart) FROM loopText", postgres: "SELECT count(*) FROM loop_page_part")
                    == "1", "the part kept at its publish (an update: \(update))")
            let ahead = try await page(server, "/" + path, headers: host)
            let rendered = try await page(commented, "/" + path, headers: host)
            #expect(ahead.status == 200)
            #expect(ahead.html == rendered.html, "the page kept as its content renders it")
            // Gzipped on its first visit, sent as rendered ahead (nothing rendered for it: the
            // pages made, counted in `/metrics`): the same page.
            func sentAhead() async throws -> Double? {
                let metrics = String(decoding: try await http("GET", server.address + "/metrics").body, as: UTF8.self)
                return metrics.split(separator: "\n").first {
                    $0.hasPrefix(#"loop_library_loop_pages_total{made="ahead"}"#)
                }?.split(separator: " ").last.flatMap { Double($0) }
            }
            let sentBefore = try await sentAhead() ?? 0
            let gzipped = try await page(
                server, "/" + path, headers: ["Host": "gzip.example", "Accept-Encoding": "gzip"])
            #expect(
                gzipped.headers["content-encoding"] == "gzip"
                    && gzipped.html == ahead.html.replacingOccurrences(of: "loops.example", with: "gzip.example"),
                "the page gzipped with its phrases deflated ahead")
            #expect(try await sentAhead() == sentBefore + 1, "the page sent as rendered ahead")

            #expect(
                ahead.html.contains(#"<img class="picture" src="/blobs/"#)
                    && ahead.html.contains(#"src="/\#(path)/5.flac""#) && ahead.html.contains("A coffee, please.")
                    && ahead.html.contains(#"lang="fr">\#(greeting)</p>"#))
            let upgraded = try await page(marked, "/" + path, headers: host)
            #expect(
                upgraded.html.components(separatedBy: #"<h2 class="upgraded""#).count == 3,
                "both groups rendered by the new templates")
            // The page comes from the part: its content spoilt (it no longer reads), the page
            // is rendered as before.
            _ = try catalog(
                sqlite: "UPDATE loopText SET content = CAST('{}' AS BLOB)",
                postgres: "UPDATE loop SET content = convert_to('{}', 'UTF8')")
            // (Asked under another name: a page of its own, not the one kept; by a client that
            // does not take gzip: rendered around the part, not sent as rendered ahead.)
            let spoilt = try await page(
                server, "/" + path, headers: ["Host": "spoilt.example", "Accept-Encoding": "identity"])
            #expect(
                spoilt.status == 200
                    && spoilt.html == ahead.html.replacingOccurrences(of: "loops.example", with: "spoilt.example"),
                "the page rendered from its part alone")
            // An update, its first phrase's text changed: its part is rendered again.
            if !update {
                #expect(
                    try author.run(["edit", "fixture"], environment: ["EDITOR": editor, "VISUAL": ""]).status == 0)
                #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
            }
        }

        // Published again (its content as it was), then the server upgraded: the operator
        // renders the pages ahead again with the new templates.
        #expect(try author.run(["edit", "fixture", "--title", "Fixture again"]).status == 0)
        #expect(try author.run(["publish", "fixture", "--to", server.address]).status == 0)
        let operatorOptions = ["--data", server.data] + (server.database.map { ["--database", $0] } ?? [])
        // (Its whole page was rendered ahead as it is published: nothing for the same templates to do.)
        let same = try LoopProcess.run(
            ["serve", "render-pages", "--web", Fixture.folder + "/../../Resources/web", "--json"] + operatorOptions)
        #expect(same.output.contains(#""current":1"#) && same.output.contains(#""rendered":0"#), "\(same.output)")
        for expected in [#"{"current":0,"rendered":1,"unrendered":0}"#, #"{"current":1,"rendered":0,"unrendered":0}"#] {
            let rendered = try LoopProcess.run(
                ["serve", "render-pages", "--web", markedWeb, "--json"] + operatorOptions)
            #expect(rendered.status == 0, "\(rendered.error)")
            let figures = try JSONSerialization.jsonObject(with: Data(rendered.output.utf8)) as? [String: Int]
            let wanted = try JSONSerialization.jsonObject(with: Data(expected.utf8)) as? [String: Int]
            #expect(figures == wanted, "\(rendered.output)")
        }
        _ = try catalog(
            sqlite: "UPDATE loopText SET content = CAST('{}' AS BLOB)",
            postgres: "UPDATE loop SET content = convert_to('{}', 'UTF8')")
        let upgraded = try await page(marked, "/" + path, headers: ["Host": "upgraded.example"])
        #expect(
            upgraded.status == 200 && upgraded.html.components(separatedBy: #"<h2 class="upgraded""#).count == 3,
            "the upgraded page from the part rendered ahead again")
        #expect(
            try LoopProcess.run(["serve", "render-pages", "--web", Scratch.path("no-such-web")] + operatorOptions)
                .status != 0)
    }

    @Test(arguments: CatalogBackend.all)
    func userTextIsShownAsTextEverywhere(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        let path = try publish(
            author, text: Self.hostileText, title: "<script>window.__xss=1</script> \"\u{301} onmouseover=x", to: server
        )
        let raw = [
            "<script>window", "\"\u{301} on", "<img", "<b>", "href=\"javascript:", "<a href=\"javascript",
            "<h1>injected", "<\u{301}script>", "</li></ol><h1>",
        ]
        for pagePath in [path, "/", "/?q=script", "/?tag=%3Cb%3Ebold%3C%2Fb%3E", "/feed.atom"] {
            let shown = try await page(server, pagePath)
            #expect(shown.status == 200, "\(pagePath)")
            for text in raw {
                #expect(!shown.html.contains(text), "\(pagePath) holds \(text.debugDescription) unescaped")
            }
        }
        let preview = try await page(server, path)
        #expect(
            preview.html.contains("&lt;script&gt;window.__xss = &quot;phrase&quot;&lt;/script&gt;"),
            "the phrase, escaped")
        #expect(
            preview.html.contains("&quot;\u{301} onclick=window.__xss=1 x=&quot;"),
            "a quote followed by a combining mark, escaped")
        #expect(
            preview.html.contains(#"<p class="text" dir="auto" lang="ar">مرحبا بالعالم"#),
            "right-to-left text, with its language")
        #expect(
            preview.html.contains("<script src=\"/copy.js\" defer></script>")
                && preview.html.contains("<script src=\"/player.js\" defer></script>")
                && preview.html.components(separatedBy: "<script").count == 3, "the only scripts are the server's own")
    }

    @Test(arguments: CatalogBackend.all)
    func theFeedIsAtomAndClipsPlayTheirPhrase(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        let first = try publish(author, text: "phrases.txt", title: "First", to: server)
        let second = try publish(author, text: Self.hostileText, title: "Second <&>", to: server)

        let feed = try await http("GET", server.address + "/feed.atom")
        #expect(feed.headers["content-type"] == "application/atom+xml; charset=utf-8")
        let atom = AtomReader(feed.body)
        #expect(atom.error == nil, "the feed is well-formed XML: \(atom.error ?? "")")
        #expect(atom.root == "feed" && atom.namespace == "http://www.w3.org/2005/Atom")
        #expect(atom.entryTitles == ["Second <&>", "First"], "newest first, titles as text")
        #expect(atom.entryLinks == [server.address + second, server.address + first])
        #expect(atom.entryIDs.allSatisfy { $0.hasPrefix("urn:uuid:") } && atom.entryIDs.count == 2)

        // The clips: each phrase's own, as long as the API says, with ranges.
        let detail = try await http("GET", server.address + "/api/loops" + first)
        let groups = try #require((detail.json?["groups"] as? [[[String: Any]]]))
        let phrases = groups.flatMap { $0 }
        for (index, phrase) in phrases.enumerated() {
            let clip = try #require(phrase["clip"] as? [String: Any])
            let answer = try await http("GET", server.address + first + "/\(index + 1).flac")
            #expect(
                answer.status == 200 && answer.headers["content-type"] == "audio/flac"
                    && answer.headers["accept-ranges"] == "bytes")
            let file = Scratch.path("clip", extension: "flac")
            try answer.body.write(to: URL(fileURLWithPath: file))
            let reader = try AudioFileReader(path: file)
            let expected =
                ((clip["end"] as? Double ?? 0) - (clip["start"] as? Double ?? 0)) * Double(reader.info.sampleRate)
            #expect(
                abs(Double(reader.info.frameCount) - expected) <= 1,
                "phrase \(index + 1): \(reader.info.frameCount) frames, the clip has \(expected)")
        }
        let part = try await http("GET", server.address + first + "/1.flac", headers: ["Range": "bytes=0-99"])
        #expect(part.status == 206 && part.body.count == 100)
        for missing in ["/0.flac", "/6.flac", "/1.mp3", "/x.flac"] {
            #expect(try await http("GET", server.address + first + missing).status == 404, "\(missing)")
        }
    }

    @Test func serveHelpShowsTheServersOptions() throws {
        let help = try LoopProcess.run(["serve", "--help"])
        #expect(help.status == 0 && help.output.hasPrefix("OVERVIEW: Serve the Loop Library"), "\(help.output)")
        #expect(
            help.output.contains("--public-url <url>") && help.output.contains("--listen <host:port>")
                && help.output.contains("loop serve feature LOOP"))
    }

    /// An option the server does not take, or a value it refuses, is named on one line with the
    /// usage as it is typed (`loop serve <options>`, serving being the default command), a
    /// non-zero exit and no server started.
    @Test func aRefusedServerOptionShowsTheUsageAsTyped() throws {
        for arguments in [["--bogus"], ["--database-connections", "5"]] {
            let refused = try LoopProcess.run(["serve", "--data", Scratch.path("unused")] + arguments)
            #expect(refused.status != 0 && refused.output.isEmpty, "\(arguments): \(refused.status)")
            #expect(
                refused.error.hasPrefix("Error: " + arguments[0])
                    || refused.error.hasPrefix("Error: Unknown option '\(arguments[0])'"), "\(refused.error)")
            #expect(
                refused.error.contains("Usage: loop serve <options>") && !refused.error.contains("serve serve"),
                "\(refused.error)")
        }
        #expect(!FileManager.default.fileExists(atPath: Scratch.path("unused")))
    }

    @Test func aServerWithoutItsTemplatesSaysWhereToFindThem() throws {
        let process = try LoopProcess.run([
            "serve", "--data", Scratch.path("data"), "--web", Scratch.path("no-templates"),
        ])
        #expect(
            process.status != 0 && process.error.contains("/header.mustache: cannot read the template")
                && !process.error.contains("Usage"), "\(process.error)")
    }

    /// A browser that takes gzip gets the pages and their scripts gzipped (a third of the bytes
    /// on a phone's network), as a representation of their own (ETag, Vary); one that does not
    /// gets them as they are, before and after a browser asked.
    @Test func pagesAndScriptsAreGzippedForABrowserThatTakesIt() async throws {
        let server = try TestServer(.sqlite)
        let author = TestLibrary()
        let path = try publish(author, text: "phrases.txt", title: "Fixture", to: server)
        for route in [path, "/", LoopLibraryPaths.player, LoopLibraryPaths.stylesheet] {
            let plain = try await page(server, route, headers: ["Accept-Encoding": "identity"])
            let gzipped = try await page(server, route, headers: ["Accept-Encoding": "gzip, deflate"])
            #expect(
                plain.status == 200 && plain.headers["content-encoding"] == nil
                    && plain.headers["vary"] == "Accept-Encoding", "\(route): \(plain.headers)")
            #expect(
                gzipped.headers["content-encoding"] == "gzip" && gzipped.headers["vary"] == "Accept-Encoding",
                "\(route): \(gzipped.headers)")
            // (The client decodes what it asked for: the same page.)
            #expect(gzipped.html == plain.html, "\(route): the gzipped answer is another page")
            let sizes = [plain, gzipped].map { Int($0.headers["content-length"] ?? "") ?? 0 }
            #expect(sizes[1] > 0 && sizes[1] * 2 < sizes[0], "\(route): \(sizes[1]) bytes gzipped of \(sizes[0])")
            #expect(gzipped.headers["etag"] != plain.headers["etag"], "\(route): one ETag for two representations")
            let again = try await page(
                server, route, headers: ["Accept-Encoding": "gzip", "If-None-Match": gzipped.headers["etag"] ?? ""])
            #expect(again.status == 304, "\(route): \(again.status)")
            // Kept gzipped now: a client that does not take gzip still gets the same page, as it is.
            let plainAgain = try await page(server, route, headers: ["Accept-Encoding": "identity"])
            #expect(
                plainAgain.html == plain.html && plainAgain.headers["content-encoding"] == nil
                    && plainAgain.headers["etag"] == plain.headers["etag"], "\(route): \(plainAgain.headers)")
        }
        // A page first asked for gzipped is kept so; a client that does not take gzip gets it inflated.
        let gzippedFirst = try await page(server, "/?q=fixture", headers: ["Accept-Encoding": "gzip"])
        let plainAfter = try await page(server, "/?q=fixture", headers: ["Accept-Encoding": "identity"])
        #expect(gzippedFirst.headers["content-encoding"] == "gzip" && plainAfter.headers["content-encoding"] == nil)
        #expect(
            plainAfter.html == gzippedFirst.html && plainAfter.html.contains("Fixture")
                && plainAfter.html.hasSuffix("</html>\n"),
            "\(plainAfter.html.suffix(200))")
        let refused = try await page(server, path, headers: ["Accept-Encoding": "gzip;q=0, identity"])
        #expect(refused.headers["content-encoding"] == nil, "gzip;q=0 says no gzip")
    }

    /// A HEAD of a page or a file answers as its GET does, without the body; the site's icon is
    /// there, and `/favicon.ico` (which browsers ask for) leads to it.
    @Test func pagesAnswerHeadAndTheSiteHasAnIcon() async throws {
        let server = try TestServer(.sqlite)
        let path = try publish(TestLibrary(), text: "phrases.txt", title: "Fixture", to: server)
        for route in [path, "/", LoopLibraryPaths.player, LoopLibraryPaths.stylesheet, LoopLibraryPaths.icon] {
            let get = try await http("GET", server.address + route, headers: ["Accept-Encoding": "identity"])
            let head = try await http("HEAD", server.address + route, headers: ["Accept-Encoding": "identity"])
            #expect(head.status == 200 && head.body.isEmpty, "\(route): HEAD \(head.status)")
            #expect(
                head.headers["content-length"] == String(get.body.count)
                    && head.headers["content-type"] == get.headers["content-type"],
                "\(route): \(head.headers) against \(get.headers)")
        }
        let icon = try await page(server, LoopLibraryPaths.icon)
        #expect(icon.headers["content-type"] == "image/svg+xml" && icon.html.hasPrefix("<svg"))
        // (URLSession follows the redirect, as a browser does.)
        let fallback = try await page(server, "/favicon.ico")
        #expect(fallback.status == 200 && fallback.headers["content-type"] == "image/svg+xml")
        #expect(try await page(server, path).html.contains(#"<link rel="icon" href="/icon.svg""#))
    }

    /// The stylesheet is written into every page's `<style>`: one that would close it is refused.
    /// An operator's own templates (`--web`) that the server cannot read are refused at start,
    /// on one line naming the file and the line, never served half-rendered.
    @Test func aTemplateThatDoesNotParseOrNamesAMissingPartialIsRefused() throws {
        for (name, template, message) in [
            (
                "loop", "{{> header}}\n<main>\n{{#groups}}\n{{/group}}\n",
                "line 4: {{/group}} does not close {{#groups}} of line 3"
            ),
            ("card", "<li>{{> badge}}</li>\n", "the template names a partial {{> badge}}"),
        ] {
            let web = Scratch.path("web-broken-\(name)")
            try FileManager.default.copyItem(atPath: Fixture.folder + "/../../Resources/web", toPath: web)
            try Data(template.utf8).write(to: URL(fileURLWithPath: web + "/\(name).mustache"))
            let process = try LoopProcess.run(["serve", "--data", Scratch.path("data-broken-\(name)"), "--web", web])
            #expect(
                process.status != 0 && process.error.contains(web + "/\(name).mustache: ")
                    && process.error.contains(message) && process.error.split(separator: "\n").count == 1,
                "\(process.error)")
        }
    }

    /// A page's ETag names the stylesheet written into it: a server restarted with another
    /// stylesheet answers a browser holding the page as it was with the new page, not 304.
    @Test func aPagesETagChangesWithTheStylesheet() async throws {
        let server = try TestServer(.sqlite)
        let path = try publish(TestLibrary(), text: "phrases.txt", title: "Fixture", to: server)
        let web = Scratch.path("web-another-style")
        try FileManager.default.copyItem(atPath: Fixture.folder + "/../../Resources/web", toPath: web)
        let style = try Data(contentsOf: URL(fileURLWithPath: web + "/style.css"))
        try (style + Data("\nmain { margin-top: 1px; }\n".utf8)).write(to: URL(fileURLWithPath: web + "/style.css"))
        let restyled = try TestServer(sharingWith: server, arguments: ["--web", web])
        // Both servers asked under one name, so that their pages differ by the stylesheet alone;
        // as a page rendered for a client that does not take gzip, and as the page rendered
        // ahead a browser gets.
        for (name, encoding) in [("plain.example", "identity"), ("gzip.example", "gzip")] {
            let asked = ["Host": name, "Accept-Encoding": encoding]
            let before = try await page(server, path, headers: asked)
            let eTag = try #require(before.headers["etag"])
            #expect(try await page(server, path, headers: asked.merging(["If-None-Match": eTag]) { $1 }).status == 304)
            let after = try await page(restyled, path, headers: asked.merging(["If-None-Match": eTag]) { $1 })
            #expect(
                after.status == 200 && after.headers["etag"] != eTag, "\(encoding): \(after.status) \(after.headers)")
            #expect(after.html.replacingOccurrences(of: "\nmain { margin-top: 1px; }\n", with: "") == before.html)
        }
    }

    @Test func aStylesheetThatWouldCloseItsStyleElementIsRefused() throws {
        let web = Scratch.path("web-closing-style")
        try FileManager.default.copyItem(atPath: Fixture.folder + "/../../Resources/web", toPath: web)
        try Data("p { color: red; }</style><script>alert(1)</script>".utf8).write(
            to: URL(fileURLWithPath: web + "/style.css"))
        let process = try LoopProcess.run(["serve", "--data", Scratch.path("data-closing-style"), "--web", web])
        #expect(
            process.status != 0 && process.error.contains(web + "/style.css: the stylesheet")
                && process.error.split(separator: "\n").count == 1,
            "\(process.error)")
    }
}

/// What the tests read of an Atom feed (Foundation's XML parser: well-formedness included).
final class AtomReader: NSObject, XMLParserDelegate {
    var root: String?
    var namespace: String?
    var entryTitles: [String] = []
    var entryLinks: [String] = []
    var entryIDs: [String] = []
    var error: String?
    private var inEntry = false
    private var text = ""

    init(_ data: Data) {
        super.init()
        let parser = XMLParser(data: data)
        parser.shouldProcessNamespaces = true
        parser.delegate = self
        if !parser.parse() { error = parser.parserError.map { "\($0)" } ?? "does not parse" }
    }

    func parser(
        _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
        attributes: [String: String] = [:]
    ) {
        if root == nil {
            root = name
            namespace = namespaceURI
        }
        if name == "entry" { inEntry = true }
        if inEntry, name == "link", attributes["rel"] == "alternate" { entryLinks.append(attributes["href"] ?? "") }
        text = ""
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }

    func parser(_ parser: XMLParser, didEndElement name: String, namespaceURI: String?, qualifiedName: String?) {
        guard inEntry else { return }
        switch name {
        case "title": entryTitles.append(text)
        case "id": entryIDs.append(text)
        case "entry": inEntry = false
        default: break
        }
    }
}
