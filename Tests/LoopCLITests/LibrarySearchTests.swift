import Foundation
import LoopLibraryAPI
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A search's answer, as the tests compare it.
private struct SearchAnswer: Equatable, CustomStringConvertible {
    var total: Int
    var totalIsLowerBound: Bool
    var titles: [String]
    /// Each loop's downloads in the last seven days.
    var recent: [Int] = []

    var description: String { "\(total)\(totalIsLowerBound ? "+" : ""): \(titles.joined(separator: " | "))" }
}

extension LibraryServerTests {
    /// `count` copies of loop `id` in `server`'s catalog (the benchmark's seed).
    fileprivate static func seed(_ server: TestServer, from id: String, count: Int, downloads: Int = 0) throws {
        let seed = Process()
        seed.executableURL = TestServer.executable
        seed.arguments =
            ["seed-benchmark", "--data", server.data, "--from", id, "--count", String(count)]
            + ["--downloads", String(downloads)] + (server.database.map { ["--database", $0] } ?? [])
        try seed.run()
        seed.waitUntilExit()
        #expect(seed.terminationStatus == 0)
    }

    /// `server`'s answers to `searches` (query strings of `/api/loops`).
    fileprivate static func ask(_ searches: [String], of server: TestServer) async throws -> [SearchAnswer] {
        var found: [SearchAnswer] = []
        for search in searches {
            let query = try #require(search.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed))
            let answer = try await http("GET", server.address + "/api/loops?" + query)
            #expect(answer.status == 200, "\(search): \(String(decoding: answer.body, as: UTF8.self))")
            let page = try #require(answer.json)
            found.append(
                SearchAnswer(
                    total: page["total"] as? Int ?? -1,
                    totalIsLowerBound: page["totalIsLowerBound"] as? Bool ?? false,
                    titles: (page["loops"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String },
                    recent: (page["loops"] as? [[String: Any]] ?? []).compactMap { $0["recentDownloads"] as? Int }))
        }
        return found
    }
}

extension LibraryServerTests {
    /// The searches the catalogs are compared on: accents and case, the starts of words, two
    /// words, a script without spaces, a title's number, a word of every loop's phrases, pages
    /// across the two ranks and at the end, the filters, Hot, and words found nowhere.
    private static let searches = [
        "q=gare&limit=100", "q=GARE&limit=100", "q=hotel&limit=50", "q=HÔTEL&limit=50", "q=bahn", "q=estacion+mercado",
        "q=Estación&language=es", "q=駅&limit=30", "q=市場+hotel", "q=hotel+5&limit=40", "q=bonjour&offset=290&limit=30",
        "q=gare&offset=20&limit=20", "q=gare&tag=level 3&limit=100", "q=cafe&language=de&limit=100",
        "q=elodie&limit=5", "q=otel", "q=zzzz", "q=gare&sort=hot&limit=10", "offset=100&limit=5",
        "q=merci+gare&limit=3", "q=Bahnhof", "q=bahnhofs", "q=BONJOU+bonjour&limit=5", "q=Bérangè&limit=5",
        "q=berangerex", "q=stazione", "q=stazion&limit=100",
    ]

    /// Searches of a title in Devanagari and Arabic: a word's start, a part after its virama,
    /// its second word, and the Arabic word written without its vowel marks.
    private static let markedSearches = ["q=नमस्", "q=ते", "q=दोस", "q=كتب"]

    /// Search (#49): each term finds the words it starts, case and accents aside, a term longer
    /// than the indexes' prefixes too (a word of an author's new name among them); loops whose
    /// title holds every term come first, newest first, then the others; the total counts
    /// both; and SQLite and PostgreSQL give the same answers to the same searches.
    @Test func searchFindsWordStartsRanksTitlesFirstAndBothCatalogsAnswerAlike() async throws {
        var answers: [[SearchAnswer]] = []
        for backend in CatalogBackend.all {
            let server = try TestServer(backend)
            let (author, _) = try publishedFixture(server)
            let id = try resolveID(author)
            // Scripts whose words hold marks (a virama, vowel signs, harakat): a mark neither parts
            // its word nor counts.
            let hindi = ["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", "नमस्ते दोस्त كَتَبَ"]
            #expect(try author.run(hindi).status == 0)
            let hindiID = try #require(
                (try author.json(["list"]) as? [[String: Any]])?.first { $0["title"] as? String == "नमस्ते दोस्त كَتَبَ" }?[
                    "id"] as? String)
            let published = try author.run(["publish", hindiID, "--to", server.address])
            #expect(published.status == 0, "\(published.error)")
            // 300 copies of the fixture under other titles, tags and languages (the benchmark's
            // catalog): "<word> <word> <n>", tagged "level <n % 6 + 1>" and a word.
            try Self.seed(server, from: id, count: 300)
            // The author takes a longer name, bound when they next publish: every loop of theirs
            // is found by its words.
            #expect(try author.run(["identity", "--name", "Élodie Bérangère"]).status == 0)
            #expect(try author.run(["edit", hindiID, "--tag", "stazionale"]).status == 0)
            let renamed = try author.run(["publish", hindiID, "--to", server.address])
            #expect(renamed.status == 0, "\(renamed.error) \(renamed.output)")
            answers.append(try await Self.ask(Self.searches + Self.markedSearches, of: server))
            server.stop()
        }
        let answer = Dictionary(uniqueKeysWithValues: zip(Self.searches + Self.markedSearches, answers[0]))
        func numbers(_ titles: [String]) -> [Int] {
            titles.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        }

        // "gare": in every loop's phrases ("Où est la gare"), so all 302 match; the 47 seeded
        // titles holding it come first, newest (the highest number) first.
        let gare = try #require(answer["q=gare&limit=100"])
        #expect(gare.total == 302)
        let titled = gare.titles.prefix { $0.lowercased().split(separator: " ").contains("gare") }
        #expect(titled.count == 47 && numbers(Array(titled)) == numbers(Array(titled)).sorted(by: >), "\(gare)")
        #expect(!gare.titles.dropFirst(titled.count).contains { $0.lowercased().contains("gare") })
        #expect(answer["q=GARE&limit=100"] == gare, "case aside")
        #expect(answer["q=gare&offset=20&limit=20"]?.titles == Array(gare.titles[20..<40]), "a page across the ranks")
        #expect(answer["q=HÔTEL&limit=50"] == answer["q=hotel&limit=50"], "accents aside")
        let hotel = try #require(answer["q=hotel&limit=50"])
        #expect(
            hotel.titles.first?.contains("hotel") == true && hotel.total == 65, "title first, then the tag: \(hotel)")
        // The start of a word, not its middle.
        #expect(answer["q=bahn"]?.titles.allSatisfy { $0.contains("Bahnhof") } == true)
        #expect(answer["q=otel"]?.total == 0 && answer["q=zzzz"]?.total == 0)
        #expect(
            answer["q=estacion+mercado"]?.titles.first.map { $0.contains("estación") && $0.contains("mercado") } == true
        )
        #expect(answer["q=Estación&language=es"]?.titles.isEmpty == false)
        #expect(answer["q=駅&limit=30"]?.titles.first?.contains("駅") == true, "a Han character is a word")
        let five = try #require(answer["q=hotel+5&limit=40"]?.titles)
        // "hotel 5": the 8 titles "... hotel 5x" first, then loops tagged "level 5" with hotel.
        let titledFive = five.prefix { $0.contains("hotel") && $0.split(separator: " ").last?.hasPrefix("5") == true }
        #expect(titledFive.count == 8 && five.count > 8, "\(five)")
        #expect(answer["q=bonjour&offset=290&limit=30"].map { $0.total == 302 && $0.titles.count == 12 } == true)
        #expect(answer["q=elodie&limit=5"]?.total == 302, "the author's name is searched")
        #expect(answer["q=gare&tag=level 3&limit=100"]?.total == 50)
        #expect(answer["offset=100&limit=5"]?.total == 302)
        for search in ["q=नमस्", "q=दोस", "q=كتب"] {
            #expect(answer[search]?.titles == ["नमस्ते दोस्त كَتَبَ"], "\(search)")
        }
        #expect(answer["q=ते"]?.total == 0, "a vowel sign and a virama are no word breaks")
        // Terms of 7 letters or more (longer than the starts the indexes keep) are read as the
        // words they start.
        let bahn = try #require(answer["q=bahn"])
        #expect(bahn.total > 0 && answer["q=Bahnhof"] == bahn, "\(String(describing: answer["q=Bahnhof"]))")
        #expect(answer["q=bahnhofs"]?.total == 0 && answer["q=berangerex"]?.total == 0)
        #expect(answer["q=BONJOU+bonjour&limit=5"]?.total == 302)
        #expect(answer["q=Bérangè&limit=5"]?.total == 302, "a word of the author's new name")
        // "stazion" starts "stazione" (seeded titles) and "stazionale" (a tag): both found.
        let stazione = try #require(answer["q=stazione"])
        let stazion = try #require(answer["q=stazion&limit=100"])
        #expect(stazione.total > 0 && stazion.total == stazione.total + 1, "\(stazion)")
        #expect(stazion.titles.contains("नमस्ते दोस्त كَتَبَ"))

        guard answers.count == 2 else { return }
        for (index, search) in (Self.searches + Self.markedSearches).enumerated() {
            #expect(
                answers[0][index] == answers[1][index],
                "\(search): SQLite \(answers[0][index]), PostgreSQL \(answers[1][index])")
        }
    }
}

extension LibraryServerTests {
    /// A word found in more loops than a search counts (1,000): each page is read newest first
    /// (on PostgreSQL in whichever way its planner chooses), the total says "1000+", and both
    /// catalogs give the same pages, the first and one near the end, in either rank.
    @Test func aWordInMoreLoopsThanASearchCountsIsPagedNewestFirstAlike() async throws {
        let searches = [
            "q=bonjour&limit=20", "q=bonjour&offset=980&limit=20", "q=gare&offset=400&limit=30", "q=gare&limit=10",
            "q=bonjour&author=Élodie B&offset=500&limit=20",
        ]
        var answers: [[SearchAnswer]] = []
        for backend in CatalogBackend.all {
            let server = try TestServer(backend)
            let (author, _) = try publishedFixture(server)
            let id = try resolveID(author)
            try Self.seed(server, from: id, count: 1100)
            answers.append(try await Self.ask(searches, of: server))
            // Searches and a loop's details, one after another, on the connections they share
            // (each kind of statement is prepared once a connection on PostgreSQL).
            for round in 0..<12 {
                let search = try await http("GET", server.address + "/api/loops?q=bonjour&offset=\(round)")
                let detail = try await http("GET", server.address + LoopLibraryPaths.loop(id))
                #expect(
                    search.status == 200 && detail.status == 200, "round \(round): \(search.status), \(detail.status)")
            }
            server.stop()
        }
        func numbers(_ answer: SearchAnswer) -> [Int] {
            answer.titles.compactMap { $0.split(separator: " ").last.flatMap { Int($0) } }
        }
        // "bonjour" is in every loop's phrases and no title: the seeded loops, newest (the
        // highest number) first, 20 to a page.
        let first = answers[0][0]
        let late = answers[0][1]
        #expect(first.total == 1000 && first.totalIsLowerBound, "\(first)")
        #expect(numbers(first) == Array((1080..<1100).reversed()), "\(first)")
        #expect(numbers(late) == Array((100..<120).reversed()), "\(late)")
        #expect(numbers(answers[0][4]) == Array((580..<600).reversed()), "with a filter: \(answers[0][4])")
        // "gare": the titles holding it first (about one in six), then the rest, newest first.
        let titled = answers[0][3]
        #expect(titled.titles.count == 10 && titled.titles.allSatisfy { $0.lowercased().contains("gare") })
        #expect(answers[0][2].titles.count == 30 && !answers[0][2].titles.contains { $0.lowercased().contains("gare") })
        guard answers.count == 2 else { return }
        for (index, search) in searches.enumerated() {
            #expect(
                answers[0][index] == answers[1][index],
                "\(search): SQLite \(answers[0][index]), PostgreSQL \(answers[1][index])")
        }
    }
}

extension LibraryServerTests {
    /// A catalog made before search by words (SQLite's "v6", PostgreSQL's version 7: a trigram
    /// index), with "Fixture" and "Übung macht" listed by "Élodie B" and "Zweite" unpublished,
    /// is upgraded when the server starts: its listed loops found by their words and their
    /// author's name, newest first, the unpublished one by none.
    @Test(arguments: CatalogBackend.all)
    func aCatalogFromBeforeWordSearchIsSearchedOnceUpgraded(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend) { data, database in
            try FileManager.default.createDirectory(atPath: data, withIntermediateDirectories: true)
            guard let database else {
                try FileManager.default.copyItem(
                    atPath: LoopProcess.fixtures + "/catalog-before-word-search.sqlite",
                    toPath: data + "/catalog.sqlite")
                return
            }
            let psql = Process()
            psql.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
            psql.arguments = [
                database, "-q", "-v", "ON_ERROR_STOP=1", "-f", LoopProcess.fixtures + "/catalog-before-word-search.sql",
            ]
            psql.standardOutput = FileHandle.nullDevice
            try psql.run()
            psql.waitUntilExit()
            #expect(psql.terminationStatus == 0)
        }
        func titles(_ query: String) async throws -> [String] {
            let answer = try await http("GET", server.address + "/api/loops?" + query)
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            return (answer.json?["loops"] as? [[String: Any]] ?? []).compactMap { $0["title"] as? String }
        }
        #expect(try await titles("") == ["Übung macht", "Fixture"])
        #expect(try await titles("q=UBUNG") == ["Übung macht"])
        #expect(try await titles("q=elod") == ["Übung macht", "Fixture"], "the author's name")
        #expect(try await titles("q=gare") == ["Übung macht", "Fixture"], "a phrase, and a tag")
        #expect(try await titles("q=zweite").isEmpty, "unpublished before the upgrade")
        #expect(try await titles("q=fixture+bonjour") == ["Fixture"])
    }
}

extension LibraryServerTests {
    /// Hot (#49): the loops downloaded in the last seven days come first, the most downloaded
    /// first (newest first among equals), then the rest newest first; with words, so within
    /// each rank. Pages across the hot loops and the rest, and across the ranks, are cut as
    /// any list is, and both catalogs give the same pages.
    @Test func hotListsTheLoopsDownloadedLatelyFirstAlikeInBothCatalogs() async throws {
        var answers: [[SearchAnswer]] = []
        for backend in CatalogBackend.all {
            let server = try TestServer(backend)
            let (author, _) = try publishedFixture(server)
            // 400 downloads of the copies, by as many clients, over the last ten days.
            try Self.seed(server, from: try resolveID(author), count: 300, downloads: 400)
            /// Every loop of a list, 100 at a time.
            func whole(_ search: String) async throws -> SearchAnswer {
                var pages = try await Self.ask((0..<4).map { "\(search)&offset=\($0 * 100)&limit=100" }, of: server)
                var answer = pages.removeFirst()
                for page in pages {
                    answer.titles += page.titles
                    answer.recent += page.recent
                }
                return answer
            }
            // The lists newest first, and in Hot's order.
            let lists = [
                "sort=latest", "q=gare", "q=gare&language=fr", "sort=hot", "q=gare&sort=hot",
                "q=gare&language=fr&sort=hot",
            ]
            var asked: [SearchAnswer] = []
            for list in lists { asked.append(try await whole(list)) }
            let (latest, gare, gareInFrench) = (asked[0], asked[1], asked[2])
            /// `list` in Hot's order: its ranks (the first `titled` loops, then the rest) each
            /// sorted by downloads, newest first among equals.
            func hotOrder(_ list: SearchAnswer, titled: Int) -> [String] {
                let entries = Array(zip(list.titles, list.recent).enumerated())
                return [entries.prefix(titled), entries.dropFirst(titled)].flatMap { rank in
                    rank.sorted { ($0.element.1, -$0.offset) > ($1.element.1, -$1.offset) }.map(\.element.0)
                }
            }
            func titled(_ list: SearchAnswer) -> Int {
                list.titles.prefix { $0.lowercased().split(separator: " ").contains("gare") }.count
            }
            // The fixture and its 300 copies, every one holding "gare" in its phrases.
            #expect(latest.titles.count == 301 && gare.titles.count == 301, "\(latest.titles.count)")
            let hot = latest.recent.filter { $0 > 0 }.count
            #expect(hot > 20 && hot < 200 && latest.recent.max() ?? 0 > 2, "downloads spread: \(latest.recent)")
            #expect(asked[3].titles == hotOrder(latest, titled: 0), "\(asked[3])")
            #expect(asked[3].titles != latest.titles)
            #expect(asked[4].titles == hotOrder(gare, titled: titled(gare)), "\(asked[4])")
            #expect(asked[5].titles == hotOrder(gareInFrench, titled: titled(gareInFrench)), "\(asked[5])")
            #expect(asked[3].total == 301 && asked[4].total == 301, "Hot changes the order, not the total")
            // Pages across the hot loops' end, and across the titles' end.
            let across = try await Self.ask(
                ["sort=hot&offset=\(hot - 3)&limit=10", "q=gare&sort=hot&offset=\(titled(gare) - 5)&limit=10"],
                of: server)
            #expect(across[0].titles == Array(asked[3].titles[(hot - 3)..<(hot + 7)]), "\(across[0])")
            let boundary = titled(gare) - 5
            #expect(across[1].titles == Array(asked[4].titles[boundary..<(boundary + 10)]), "\(across[1])")
            // The front page's Hot: the most downloaded, and kept until the catalog changes.
            let front = try await http("GET", server.address + LoopLibraryPaths.front + "?limit=5")
            #expect(
                (front.json?["hot"] as? [[String: Any]])?.compactMap { $0["title"] as? String }
                    == Array(asked[3].titles.prefix(5)))
            // Browsing by a language, a translation, a tag or the featured: the totals count the
            // listed loops alone (the fixture, in French, unpublished, is in none) and the pages
            // hold every one of them.
            #expect(try author.run(["unpublish", "fixture", "--from", server.address]).status == 0)
            var browsed: [SearchAnswer] = []
            for list in [
                "language=fr", "language=FR&translation=en", "tag=LEVEL 3", "language=xx", "featured=1",
                "translation=EN&sort=hot",
            ] {
                let answer = try await whole(list)
                #expect(answer.total == answer.titles.count && !answer.titles.contains("Fixture"), "\(list): \(answer)")
                browsed.append(answer)
            }
            #expect(browsed[0].total == 100 && browsed[1].total == 50 && browsed[3].total == 0, "\(browsed)")
            answers.append(asked + across + browsed)
            server.stop()
        }
        guard answers.count == 2 else { return }
        for (index, answer) in answers[0].enumerated() {
            #expect(answer == answers[1][index], "list \(index): SQLite \(answer), PostgreSQL \(answers[1][index])")
        }
    }
}

extension LibraryServerTests {
    /// Hot with words, as a learner sees it: a loop downloaded moves up at once (the hot loops
    /// a server keeps between searches are read again after a download), and a hot loop is
    /// listed only where it holds every word asked.
    @Test(arguments: CatalogBackend.all)
    func aHotSearchFollowsADownloadAndHoldsEveryWordAsked(_ backend: CatalogBackend) async throws {
        let server = try TestServer(backend)
        let author = TestLibrary()
        for title in ["Marché Alphabet", "Marché Bet"] {
            #expect(
                try author.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", title]).status == 0)
        }
        #expect(try author.run(["identity", "--name", "Ana"]).status == 0)
        for title in ["Marché Alphabet", "Marché Bet"] {
            #expect(try author.run(["publish", title, "--to", server.address]).status == 0)
        }
        func titles(_ search: String) async throws -> [String] {
            try await Self.ask([search + "&sort=hot"], of: server)[0].titles
        }
        #expect(try await titles("q=MARCHE") == ["Marché Bet", "Marché Alphabet"], "no downloads: newest first")
        #expect(try await titles("q=") == ["Marché Bet", "Marché Alphabet"])

        let found = try await http("GET", server.address + "/api/loops?q=alpha")
        let alpha = try #require((found.json?["loops"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try await http("GET", server.address + LoopLibraryPaths.bundle(alpha)).status == 200)
        // The download counts once its last byte is sent.
        for _ in 0..<500 where try await titles("q=marche").first != "Marché Alphabet" {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await titles("q=marche") == ["Marché Alphabet", "Marché Bet"], "downloaded: first")
        #expect(try await titles("q=") == ["Marché Alphabet", "Marché Bet"])
        // Every word, each the start of one of the loop's words: "Alphabet" is hot and holds
        // "marche" and the phrases' "bonjour", and "bet" only inside a word.
        #expect(try await titles("q=bet+marche") == ["Marché Bet"])
        #expect(try await titles("q=bet") == ["Marché Bet"], "a word's middle starts no word")
        #expect(try await titles("q=alph+bonjour") == ["Marché Alphabet"])
        #expect(try await titles("q=bonjour") == ["Marché Alphabet", "Marché Bet"], "the phrases' rank")
    }
}

extension LibraryServerTests {
    /// Two servers on one PostgreSQL database: a loop first downloaded through one is still
    /// listed by a search in Hot's order on the other, which kept its hot loops before the
    /// download (it shows the download within the minute it keeps them, and never loses it).
    @Test(arguments: CatalogBackend.all.filter { if case .postgres = $0 { true } else { false } })
    func aHotSearchOnOneServerListsALoopDownloadedThroughAnother(_ backend: CatalogBackend) async throws {
        let first = try TestServer(backend)
        let second = try TestServer(sharingWith: first)
        let author = TestLibrary()
        for title in ["Marché Alphabet", "Marché Bet"] {
            #expect(
                try author.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", title]).status == 0)
            #expect(try author.run(["publish", title, "--to", first.address]).status == 0)
        }
        func titles(_ search: String, of server: TestServer) async throws -> [String] {
            try await Self.ask([search], of: server)[0].titles
        }
        #expect(try await titles("q=marche&sort=hot", of: second) == ["Marché Bet", "Marché Alphabet"])
        let found = try await http("GET", first.address + "/api/loops?q=alphabet")
        let alphabet = try #require((found.json?["loops"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try await http("GET", first.address + LoopLibraryPaths.bundle(alphabet)).status == 200)
        for _ in 0..<500 where try await titles("q=marche&sort=hot", of: first).first != "Marché Alphabet" {
            try await Task.sleep(for: .milliseconds(10))
        }
        // Asked anew (another page size: not an answer the second server keeps), on both.
        for server in [first, second] {
            let listed = try await titles("q=marche&sort=hot&limit=19", of: server)
            #expect(listed.sorted() == ["Marché Alphabet", "Marché Bet"], "\(listed)")
        }
    }
}

extension LibraryServerTests {
    /// Each server on PostgreSQL answers searches from a mirror of the catalog's search on its
    /// own machine (#49), which follows what happens elsewhere as PostgreSQL announces it: a
    /// loop published, unpublished, republished under its author's new name, featured or taken
    /// down through another server or by the operator is found, or not, as in PostgreSQL.
    @Test(arguments: CatalogBackend.all.filter { if case .postgres = $0 { true } else { false } })
    func eachServerSearchesItsMirrorOfPostgreSQLWhichFollowsChangesMadeElsewhere(_ backend: CatalogBackend)
        async throws
    {
        let first = try TestServer(backend)
        let second = try TestServer(sharingWith: first)
        let author = TestLibrary()
        #expect(try author.run(["identity", "--name", "Odalys Brume"]).status == 0)
        for title in ["Marché Alphabet", "Marché Bet"] {
            #expect(
                try author.run(["new", "--text", "phrases.txt", "--audio", "clean.flac", "--title", title]).status == 0)
            #expect(try author.run(["publish", title, "--to", first.address]).status == 0)
        }
        /// The searches the second server answered, by what answered them (`/metrics`), and
        /// whether its mirror is read.
        func counted() async throws -> (mirror: Double, postgres: Double, ready: Bool) {
            let metrics = String(decoding: try await http("GET", second.address + "/metrics").body, as: UTF8.self)
            func value(_ prefix: String) -> Double {
                metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap {
                    $0.split(separator: " ").last.flatMap { Double($0) }
                } ?? 0
            }
            return (
                value("loop_library_postgres_searches_total{answered_by=\"mirror\"}"),
                value("loop_library_postgres_searches_total{answered_by=\"postgres\"}"),
                value("loop_library_search_mirror_ready") == 1
            )
        }
        // The server reads the catalog into its mirror as it starts (PostgreSQL answers until then).
        for _ in 0..<500 where try await !counted().ready { try await Task.sleep(for: .milliseconds(10)) }
        let before = try await counted()
        #expect(before.ready, "the mirror is read")

        /// The second server's answer to `search`, asked until it is `expected` (a change
        /// reaches it once PostgreSQL announces it: milliseconds) or for five seconds.
        func listed(_ search: String, _ expected: [String]) async throws -> [String] {
            var titles: [String] = []
            for _ in 0..<500 {
                titles = try await Self.ask([search], of: second)[0].titles
                if titles == expected { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            return titles
        }
        #expect(try await listed("q=marche", ["Marché Bet", "Marché Alphabet"]) == ["Marché Bet", "Marché Alphabet"])
        #expect(try await listed("q=odalys&author=Odalys Brume", ["Marché Bet", "Marché Alphabet"]).count == 2)

        #expect(try author.run(["unpublish", "Marché Bet", "--from", first.address]).status == 0)
        #expect(try await listed("q=marche", ["Marché Alphabet"]) == ["Marché Alphabet"], "unpublished")

        // A new name, bound when the author next publishes: their loops are found by it, and
        // no longer by the old one.
        #expect(try author.run(["identity", "--name", "Zoë Quill"]).status == 0)
        #expect(try author.run(["edit", "Marché Alphabet", "--tag", "quillwort"]).status == 0)
        #expect(try author.run(["publish", "Marché Alphabet", "--to", first.address]).status == 0)
        #expect(try await listed("q=zoe+quill", ["Marché Alphabet"]) == ["Marché Alphabet"], "the new name")
        #expect(try await listed("q=quillwort", ["Marché Alphabet"]) == ["Marché Alphabet"], "the new tag")
        #expect(try await listed("q=odalys", []).isEmpty, "the old name")
        #expect(try await listed("author=Zoe Quill", ["Marché Alphabet"]) == ["Marché Alphabet"])

        let found = try await http("GET", first.address + "/api/loops?q=alphabet")
        let alphabet = try #require((found.json?["loops"] as? [[String: Any]])?.first?["id"] as? String)
        let operatorCommand = ["--data", first.data] + (first.database.map { ["--database", $0] } ?? [])
        #expect(try LoopProcess.run(["serve", "feature", alphabet] + operatorCommand).status == 0)
        #expect(try await listed("featured=1", ["Marché Alphabet"]) == ["Marché Alphabet"], "featured")
        #expect(
            try LoopProcess.run(["serve", "takedown", alphabet, "--reason", "test"] + operatorCommand).status == 0)
        #expect(try await listed("q=marche", []).isEmpty, "taken down")

        // Every search the second server answered since came from its mirror.
        let after = try await counted()
        #expect(after.mirror > before.mirror && after.postgres == before.postgres, "\(before) \(after)")
    }
}
