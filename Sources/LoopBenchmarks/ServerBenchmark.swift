import ArgumentParser
import Foundation
import LoopCLI
import LoopStore

#if canImport(FoundationNetworking)
    import FoundationNetworking
    import LoopFoundation
    import LoopModel
    import LoopReports
#endif

struct ServerBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "server",
        abstract:
            "Measure a Loop Library server: requests/s and latency, downloads next to nginx, publish next to import, memory.",
        discussion: """
            Starts `loop-server` (built beside this benchmark) on loopback with a catalog of \
            --loops loops (--catalog: SQLite, or PostgreSQL on a throwaway server), and measures with wrk (--connections connections, 2 threads, \
            --seconds each): a loop's metadata (GET /api/loops/ID); its preview page (GET /ID), \
            twice (`preview`: most pages rendered on first request; `again`: kept), then as a \
            browser asks for it (`gzip`: gzipped on first request, then kept); the front \
            page; and catalog searches \
            (GET /api/loops?q=...: ten asked again and again, then ones asked about once each, then \
            the same in Hot's order with Hot's pages: the catalog holds a tenth as many downloads as \
            loops), requests per second with p50 and p99 latency and the server's \
            processor time a request (steadier than the rate where wrk shares the cores); the download \
            of a --minutes-minute loop's bundle next to nginx serving the same file, with the \
            server's peak memory; --slow-readers readers taking it at 100 KB/s each, with the \
            server's peak memory; an honest client's requests while --slowloris-connections \
            connections trickle their heads; `loop \
            publish` of that loop (a new revision each run) next to `loop import` of its bundle, in turn, \
            into a new library; and the server's peak memory (VmHWM) over it all. Goals on a \
            2-core machine: >= 5,000 metadata, preview and front page requests/s with p99 < 25 ms; downloads >= 80% of \
            nginx with <= 100 MiB; <= 100 MiB with 256 slow readers; honest requests < 100 ms \
            under 300 slowloris connections; >= 3,000 searches/s with p99 < 25 ms; publish within 1.5x of a local import; < 150 MiB. Needs wrk and nginx \
            (Scripts/setup --dev).
            """
    )

    @Option(help: "Loops in the catalog.")
    var loops = 10_000

    @Option(help: "The catalog: sqlite, or postgres (a throwaway PostgreSQL server, as Scripts/postgres starts).")
    var catalog: CatalogKind = .sqlite

    enum CatalogKind: String, ExpressibleByArgument, CaseIterable {
        case sqlite, postgres

        var name: String { self == .sqlite ? "SQLite" : "PostgreSQL" }
    }

    @Option(help: "wrk connections.")
    var connections = 64

    @Option(help: "Seconds of each wrk run.")
    var seconds = 10

    @Option(help: "Minutes of audio of the loop published and downloaded.")
    var minutes: Double = 30

    @Option(help: "Runs of publish and of import; the median is shown.")
    var runs = 3

    @Option(help: "Readers taking the bundle at 100 KB/s each, for --seconds.")
    var slowReaders = 256

    @Option(help: "Slowloris connections (a header byte every 5 s) while an honest client's requests are timed.")
    var slowlorisConnections = 300

    func validate() throws {
        guard (1...1_000_000).contains(loops) else { throw ValidationError("--loops takes 1 to 1000000") }
        guard (1...10_000).contains(connections) else { throw ValidationError("--connections takes 1 to 10000") }
        guard (1...600).contains(seconds) else { throw ValidationError("--seconds takes 1 to 600") }
        guard minutes > 0, minutes <= 600 else { throw ValidationError("--minutes takes 0 to 600") }
        guard (1...100).contains(runs) else { throw ValidationError("--runs takes 1 to 100") }
        guard (1...5_000).contains(slowReaders) else { throw ValidationError("--slow-readers takes 1 to 5000") }
        guard (1...5_000).contains(slowlorisConnections) else {
            throw ValidationError("--slowloris-connections takes 1 to 5000")
        }
    }

    func run() async throws {
        try await runReportingErrors {
            guard ChildProcess.exists("wrk"), FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx") else {
                throw CommandRefusal(
                    "wrk and nginx are needed: `apt-get install wrk nginx-light` (Scripts/setup --dev)")
            }
            let serverProgram = URL(fileURLWithPath: LoopProgram.path).deletingLastPathComponent()
                .appendingPathComponent("loop-server").path
            guard FileManager.default.isExecutableFile(atPath: serverProgram) else {
                throw CommandRefusal(
                    "\(serverProgram): not built; run `swift build -c release --static-swift-stdlib --product loop-server` first"
                )
            }
            let folder = NSTemporaryDirectory() + "loop-benchmark-server-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let (loop, _) = try await LongLoop.make(minutes: minutes, in: folder)
            let library = folder + "/library"
            let data = folder + "/server"
            let loopID = String(loop.summary.id.prefix(8))
            let postgres = catalog == .postgres ? try BenchmarkPostgres(folder: folder + "/postgres") : nil
            defer { postgres?.stop() }
            let database = postgres?.url

            // The sample loop (two minutes, 18 phrases) published and copied into a large
            // catalog of loops like it; the long loop published beside them.
            guard let sampleText = RepositoryFiles.locate("loops/au-cafe/text.txt"),
                let sampleTake = RepositoryFiles.locate("loops/au-cafe/take.flac")
            else {
                throw CommandRefusal("the bundled sample loop was not found; run from the repository")
            }
            try ShareBenchmark.run(
                LoopProgram.path,
                ["new", "--text", sampleText, "--audio", sampleTake, "--title", "Sample", "--library", library])
            var server = try RunningServer(program: serverProgram, data: data, database: database)
            try ShareBenchmark.run(
                LoopProgram.path, ["publish", "Sample", "--to", server.address, "--library", library])
            try ShareBenchmark.run(LoopProgram.path, ["publish", loopID, "--to", server.address, "--library", library])
            let sampleID = try await Self.catalogIDs(server.address, count: 2).first { $0 != loop.summary.id } ?? ""
            server.stop()
            try ShareBenchmark.run(
                serverProgram,
                [
                    "seed-benchmark", "--data", data, "--from", sampleID, "--count", String(loops - 2), "--ids-file",
                    folder + "/ids", "--downloads", String(loops / 10),
                ]
                    + (database.map { ["--database", $0] } ?? []))
            server = try RunningServer(program: serverProgram, data: data, database: database)
            defer { server.stop() }
            // On PostgreSQL, the server reads the catalog's search into its mirror as it starts:
            // measured once it has.
            let mirrorSeconds = database == nil ? nil : try await Self.searchMirrorRead(server.address)

            // Each request names a loop or a search at random, so no cache is hit twice in a row.
            let seeded = try String(contentsOfFile: folder + "/ids", encoding: .utf8)
            let ids = [sampleID, loop.summary.id] + seeded.split(separator: "\n").map(String.init)
            let metadataScript = try Wrk.randomPathScript(
                folder + "/metadata.lua", paths: ids.map { "/api/loops/" + $0 })
            // Title and tag words (each in about one loop in seven; every seeded loop has the
            // same phrases, so a phrase word would match all 10,000).
            let searches = [
                "bahnhof", "estacion", "stazione", "hotel", "mercado", "piazza", "bahnhof+markt", "estacion+mercado",
                "marche", "train",
            ]
            let searchScript = try Wrk.randomPathScript(
                folder + "/search.lua", paths: searches.map { "/api/loops?q=\($0)&limit=20" })
            let metadata = try server.wrk(script: metadataScript, connections: connections, seconds: seconds)
            let search = try server.wrk(script: searchScript, connections: connections, seconds: seconds)
            // Searches no one asked before (as a crawler's): the starts of one or two words of
            // the titles, tags and phrases, some with a title's number, on one of the first pages.
            let newSearchScript = try Wrk.randomPathScript(
                folder + "/new-search.lua", paths: Self.newSearches(count: 200_000, loops: loops))
            let newSearch = try server.wrk(script: newSearchScript, connections: connections, seconds: seconds)
            // The same in Hot's order (the catalog holds a tenth as many downloads as loops, over
            // the last ten days), and Hot's pages without words.
            let hotSearchScript = try Wrk.randomPathScript(
                folder + "/hot-search.lua",
                paths: Self.newSearches(count: 100_000, loops: loops).map { $0 + "&sort=hot" }
                    + (0..<50).flatMap { page in
                        ["", "&language=fr", "&language=de", "&language=ja"].map {
                            "/api/loops?sort=hot&limit=20&offset=\(20 * page)" + $0
                        }
                    })
            let hotSearch = try server.wrk(script: hotSearchScript, connections: connections, seconds: seconds)
            // The web pages: a preview page of any loop, twice: in the first run most pages are
            // rendered on their first request; in the second they are kept (until the catalog
            // changes). Then the front page.
            let previewScript = try Wrk.randomPathScript(folder + "/preview.lua", paths: ids.map { "/" + $0 })
            let previewFirst = try server.wrk(script: previewScript, connections: connections, seconds: seconds)
            let previewKept = try server.wrk(script: previewScript, connections: connections, seconds: seconds)
            // As a browser asks: gzipped (each kept page gzipped on its first such request, then kept).
            let previewGzipped = try server.wrk(
                script: previewScript, headers: ["Accept-Encoding: gzip"], connections: connections, seconds: seconds)
            let front = try server.wrk("/", connections: connections, seconds: seconds)
            let bundleSHA = try await Self.bundleSHA(server.address, loop.summary.id)
            // The downloads on a server started again, so that their memory is not the pages
            // kept (up to 40 MiB) of the runs above.
            var peak = server.peakMemory
            server.stop()
            server = try RunningServer(program: serverProgram, data: data, database: database)
            if database != nil { _ = try await Self.searchMirrorRead(server.address) }
            let idleMemory = server.memory
            server.resetPeakMemory()
            let download = try Wrk.run(
                server.address + "/blobs/\(bundleSHA).loop", connections: connections, seconds: seconds)
            let downloadPeak = server.peakMemory
            peak = max(peak, downloadPeak)

            // 256 readers taking the bundle at 100 KB/s each: the server's memory meanwhile.
            server.resetPeakMemory()
            let readers = try SlowClients.readers(
                port: server.port, path: "/blobs/\(bundleSHA).loop", count: slowReaders, bytesPerSecond: 100_000)
            try await Task.sleep(for: .seconds(seconds))
            let slowPeak = server.peakMemory
            peak = max(peak, slowPeak)
            readers.stop()

            // 300 slowloris connections (a header byte every 5 s), and an honest client's
            // requests meanwhile, one after another.
            let slowloris = try SlowClients.slowloris(port: server.port, count: slowlorisConnections, interval: 5)
            try await Task.sleep(for: .seconds(1))
            var honest: [Double] = []
            let honestEnd = Date().addingTimeInterval(Double(seconds))
            while Date() < honestEnd {
                let started = Date()
                _ = try await Self.get(server.address + "/api/loops/" + ids[honest.count % ids.count])
                honest.append(Date().timeIntervalSince(started))
                try await Task.sleep(for: .milliseconds(50))
            }
            slowloris.stop()
            honest.sort()
            let nginx = try Nginx(
                folder: folder + "/nginx", serving: data + "/blobs/" + bundleSHA.prefix(2) + "/" + bundleSHA + ".loop")
            let nginxDownload = try Wrk.run(nginx.address + "/bundle.loop", connections: connections, seconds: seconds)
            nginx.stop()

            // Publish: a new revision each run (the edit untimed), next to a local import of the
            // loop's bundle, the two taken in turn so that whatever else the machine does then
            // (PostgreSQL's own upkeep after the runs above) weighs on both alike.
            var publishTimes: [Double] = []
            var importTimes: [Double] = []
            let bundle = folder + "/loop.loop"
            try ShareBenchmark.run(LoopProgram.path, ["export", loopID, "-o", bundle, "--library", library])
            for run in 0..<runs {
                try ShareBenchmark.run(LoopProgram.path, ["edit", loopID, "--tag", "run\(run)", "--library", library])
                var started = Date()
                try ShareBenchmark.run(
                    LoopProgram.path, ["publish", loopID, "--to", server.address, "--library", library])
                publishTimes.append(Date().timeIntervalSince(started))
                let target = folder + "/import-\(run)"
                started = Date()
                try ShareBenchmark.run(LoopProgram.path, ["import", bundle, "--library", target])
                importTimes.append(Date().timeIntervalSince(started))
                try? FileManager.default.removeItem(atPath: target)
            }
            peak = max(peak, server.peakMemory)

            let publish = publishTimes.sorted()[runs / 2]
            let importTime = importTimes.sorted()[runs / 2]
            let bundleBytes = (try FileManager.default.attributesOfItem(atPath: bundle)[.size] as? Int) ?? 0
            print(
                String(
                    format:
                        "Loop Library server, %d loops like the sample loop (%@), wrk with %d connections for %d s; a %.0f-minute loop (bundle %.1f MB)",
                    loops, catalog.name, connections, seconds, minutes, Double(bundleBytes) / 1e6))
            func goal(_ met: Bool) -> String { met ? "met" : "missed" }
            print(
                String(
                    format:
                        "  metadata  %8.0f req/s   p50 %6.2f ms   p99 %6.2f ms   server %5.2f ms/req   (goal >= 5000 req/s, p99 < 25 ms: %@)",
                    metadata.requestsPerSecond, metadata.p50 * 1000, metadata.p99 * 1000,
                    (metadata.serverTimePerRequest ?? 0) * 1000,
                    goal(metadata.requestsPerSecond >= 5000 && metadata.p99 < 0.025)))
            for (name, figures) in [
                ("preview ", previewFirst), ("  again ", previewKept), ("  gzip  ", previewGzipped),
                ("front   ", front),
            ] {
                print(
                    String(
                        format:
                            "  %@  %8.0f req/s   p50 %6.2f ms   p99 %6.2f ms   server %5.2f ms/req   (goal >= 5000 req/s, p99 < 25 ms: %@)",
                        name,
                        figures.requestsPerSecond, figures.p50 * 1000, figures.p99 * 1000,
                        (figures.serverTimePerRequest ?? 0) * 1000,
                        goal(figures.requestsPerSecond >= 5000 && figures.p99 < 0.025)))
            }
            for (name, figures, what) in [
                ("search  ", search, "10 searches asked again and again"),
                ("  new   ", newSearch, "searches asked about once each"),
                ("  hot   ", hotSearch, "the same and Hot's pages, in Hot's order"),
            ] {
                print(
                    String(
                        format:
                            "  %@  %8.0f req/s   p50 %6.2f ms   p99 %6.2f ms   server %5.2f ms/req   (%@; goal >= 3000 req/s, p99 < 25 ms: %@)",
                        name, figures.requestsPerSecond, figures.p50 * 1000, figures.p99 * 1000,
                        (figures.serverTimePerRequest ?? 0) * 1000, what,
                        goal(figures.requestsPerSecond >= 3000 && figures.p99 < 0.025)))
            }
            if let mirrorSeconds {
                print(
                    String(
                        format:
                            "  mirror    %8.1f s to read the catalog into the server's search mirror, as it started",
                        mirrorSeconds))
            }
            let ratio = download.bytesPerSecond / max(1, nginxDownload.bytesPerSecond)
            print(
                String(
                    format: "  download  %8.0f MB/s    nginx %8.0f MB/s      %.0f%% of nginx (goal >= 80%%: %@)",
                    download.bytesPerSecond / 1e6, nginxDownload.bytesPerSecond / 1e6, ratio * 100, goal(ratio >= 0.8)))
            print(
                String(
                    format: "  publish   %8.2f s       loop import %6.2f s     %.2fx (goal 1.5x: %@)  median of %d",
                    publish, importTime, publish / importTime, goal(publish / importTime <= 1.5), runs))
            print(
                String(
                    format:
                        "  memory    %8.0f MiB peak over it all (goal < 150 MiB: %@); %.0f MiB idle when started again for the downloads",
                    Double(peak) / 1_048_576, goal(peak < 150 << 20), Double(idleMemory) / 1_048_576))
            print(
                String(
                    format: "  downloads %8.0f MiB peak with %d downloads at once (goal <= 100 MiB: %@)",
                    Double(downloadPeak) / 1_048_576, connections, goal(downloadPeak <= 100 << 20)))
            print(
                String(
                    format: "  slow      %8.0f MiB peak with %d readers at 100 KB/s for %d s (goal <= 100 MiB: %@)",
                    Double(slowPeak) / 1_048_576, slowReaders, seconds, goal(slowPeak <= 100 << 20)))
            let p50 = honest[honest.count / 2]
            let worst = honest.last ?? 0
            print(
                String(
                    format:
                        "  slowloris %d connections: an honest request p50 %.2f ms, slowest %.2f ms of %d (goal < 100 ms: %@)",
                    slowlorisConnections, p50 * 1000, worst * 1000, honest.count, goal(worst < 0.1)))
        }
    }

    /// `count` searches (API paths), most of them different: one or two starts of words (three
    /// letters or more) of the seeded loops' titles, tags and phrases, a third with a title's
    /// number, on page 1 to 4 of 20.
    static func newSearches(count: Int, loops: Int) -> [String] {
        let words = [
            "cafe", "gare", "marche", "train", "hotel", "bahnhof", "markt", "estacion", "mercado", "piazza", "stazione",
            "level", "bonjour", "madame", "voudrais", "merci", "combien", "euros", "toilettes", "journee", "coffee",
            "please", "thank",
        ]
        func start() -> String {
            let word = words.randomElement() ?? "cafe"
            return String(word.prefix(Int.random(in: 3...word.count)))
        }
        var searches: Set<String> = []
        while searches.count < count {
            var terms = [start()]
            if Bool.random() { terms.append(start()) }
            if Int.random(in: 0..<3) == 0 { terms.append(String(Int.random(in: 0..<loops))) }
            searches.insert(
                "/api/loops?q=\(terms.joined(separator: "+"))&limit=20&offset=\(20 * Int.random(in: 0..<4))")
        }
        return Array(searches)
    }

    /// The body of a GET of `url`.
    static func get(_ url: String) async throws -> Data {
        guard let address = URL(string: url) else { throw CommandRefusal("not an address: \(url)") }
        let (data, response) = try await URLSession.shared.data(from: address)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw CommandRefusal("\(url): not 200") }
        return data
    }

    /// Waits until the server at `address` says (`/metrics`) that its search mirror is read:
    /// the seconds it waited.
    static func searchMirrorRead(_ address: String) async throws -> Double {
        let started = Date()
        while Date().timeIntervalSince(started) < 600 {
            let metrics = String(decoding: try await get(address + "/metrics"), as: UTF8.self)
            if metrics.split(separator: "\n").contains(where: { $0.hasPrefix("loop_library_search_mirror_ready 1") }) {
                return Date().timeIntervalSince(started)
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw CommandRefusal("\(address): the server's search mirror was not read within 10 minutes")
    }

    static func catalogIDs(_ address: String, count: Int) async throws -> [String] {
        var ids: [String] = []
        while ids.count < count {
            let data = try await get(address + "/api/loops?limit=100&offset=\(ids.count)")
            let page = try JSONSerialization.jsonObject(with: data) as? [String: Any]
            let found = ((page?["loops"] as? [[String: Any]]) ?? []).compactMap { $0["id"] as? String }
            if found.isEmpty { break }
            ids += found
        }
        return ids
    }

    static func bundleSHA(_ address: String, _ id: String) async throws -> String {
        let data = try await get(address + "/api/loops/" + id)
        guard let detail = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let bundle = detail["bundle"] as? [String: Any],
            let sha = bundle["sha256"] as? String
        else { throw CommandRefusal("the server's detail of \(id) has no bundle") }
        return sha
    }
}

/// `loop-server` running for the benchmark, on a free port of 127.0.0.1.
struct RunningServer {
    let process: Process
    let address: String

    init(program: String, data: String, database: String?) throws {
        process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments =
            ["serve", "--data", data, "--listen", "127.0.0.1:0", "--quiet"]
            + (database.map { ["--database", $0] } ?? [])
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = output.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw CommandRefusal("loop-server ended before it listened") }
            line += chunk
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let range = text.range(of: #"http://127\.0\.0\.1:\d+"#, options: .regularExpression) else {
            throw CommandRefusal("loop-server printed no address: \(text)")
        }
        address = String(text[range])
    }

    /// The processor time the server has used, user and system, in seconds.
    var processorTime: Double {
        let stat = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/stat", encoding: .utf8)) ?? ""
        // After the command's name in parentheses: the state (field 3), ..., utime (14), stime (15).
        let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// `wrk` against the server, with the server's processor time a request.
    func wrk(_ path: String = "", script: String? = nil, headers: [String] = [], connections: Int, seconds: Int) throws
        -> Wrk
    {
        let before = processorTime
        var figures = try Wrk.run(
            address + path, script: script, headers: headers, connections: connections, seconds: seconds)
        figures.serverTimePerRequest =
            (processorTime - before) / max(1, figures.requestsPerSecond * Double(seconds))
        return figures
    }

    /// The most memory the server has held (VmHWM), in bytes.
    var peakMemory: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) * 1024
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// A throwaway PostgreSQL server (`Scripts/postgres`) with a database for the benchmark.
struct BenchmarkPostgres {
    let folder: String
    let url: String

    init(folder: String) throws {
        guard let script = RepositoryFiles.locate("Scripts/postgres") else {
            throw CommandRefusal("Scripts/postgres was not found; run from the repository")
        }
        self.folder = folder
        // The address through a file, not a pipe: the server started keeps the pipe's end open,
        // and reading to its end would never return.
        let started = try ChildProcess.run(
            "/bin/bash", ["-c", "bash \"$0\" start \"$1\" > \"$1.url\"", script, folder])
        guard started.status == 0 else { throw CommandRefusal("Scripts/postgres could not start PostgreSQL") }
        let server = try String(contentsOfFile: folder + ".url", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try ChildProcess.output("/usr/bin/psql", [server, "-q", "-c", "CREATE DATABASE loop_benchmark"])
        var components = URLComponents(string: server)
        components?.path = "/loop_benchmark"
        guard let url = components?.string else { throw CommandRefusal("Scripts/postgres printed \(server)") }
        self.url = url
        scriptPath = script
    }

    private let scriptPath: String

    func stop() {
        _ = try? ChildProcess.run("/bin/bash", [scriptPath, "stop", folder])
    }
}

/// nginx serving one file as `/bundle.loop`, as a static file server is usually set up.
struct Nginx {
    let process: Process
    let address: String

    init(folder: String, serving file: String) throws {
        try FileManager.default.createDirectory(atPath: folder + "/www", withIntermediateDirectories: true)
        try FileManager.default.linkItem(atPath: file, toPath: folder + "/www/bundle.loop")
        let port = try Self.freePort()
        let config = """
            daemon off; worker_processes auto; pid \(folder)/nginx.pid; error_log \(folder)/error.log;
            events { worker_connections 1024; }
            http { access_log off; sendfile on; tcp_nopush on; keepalive_requests 100000;
                   client_body_temp_path \(folder); proxy_temp_path \(folder); fastcgi_temp_path \(folder);
                   uwsgi_temp_path \(folder); scgi_temp_path \(folder);
                   server { listen 127.0.0.1:\(port); root \(folder)/www; } }
            """
        try config.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-c", folder + "/nginx.conf", "-p", folder, "-e", folder + "/error.log"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        address = "http://127.0.0.1:\(port)"
        for _ in 0..<100 {
            if Self.accepts(port: port) { return }
            usleep(50_000)
        }
        throw CommandRefusal("nginx did not start (see \(folder)/error.log)")
    }

    /// Whether something accepts connections on 127.0.0.1:`port`.
    static func accepts(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    static func freePort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw CommandRefusal("no free port for nginx") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }
}

/// wrk's figures for one URL.
struct Wrk {
    var requestsPerSecond: Double
    var bytesPerSecond: Double
    var p50: Double
    var p99: Double
    /// The server's processor time a request, in seconds (steadier than the rate where wrk
    /// and the server share the cores); nil where not measured.
    var serverTimePerRequest: Double?

    /// A wrk script whose every request is one of `paths`, at random.
    static func randomPathScript(_ file: String, paths: [String]) throws -> String {
        try paths.joined(separator: "\n").write(toFile: file + ".paths", atomically: true, encoding: .utf8)
        let script = """
            local paths = {}
            for line in io.lines("\(file).paths") do paths[#paths + 1] = line end
            math.randomseed(os.time() + (tonumber(tostring({}):sub(10), 16) or 0))
            request = function() return wrk.format("GET", paths[math.random(#paths)]) end
            """
        try script.write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    static func run(_ url: String, script: String? = nil, headers: [String] = [], connections: Int, seconds: Int) throws
        -> Wrk
    {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments =
            ["-t2", "-c\(connections)", "-d\(seconds)s", "--latency"] + headers.flatMap { ["-H", $0] }
            + (script.map { ["-s", $0] } ?? []) + [url]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw CommandRefusal("wrk \(url) failed: \(text)") }
        if let errors = text.split(separator: "\n").first(where: { $0.contains("Non-2xx") }) {
            throw CommandRefusal(
                "wrk \(url): the server answered errors (\(errors.trimmingCharacters(in: .whitespaces)))")
        }
        func value(after label: String) -> Substring? {
            text.split(separator: "\n").first { $0.trimmingCharacters(in: .whitespaces).hasPrefix(label) }?
                .trimmingCharacters(in: .whitespaces).dropFirst(label.count).split(separator: " ").first
        }
        guard let rate = value(after: "Requests/sec:").flatMap({ Double($0) }),
            let transfer = value(after: "Transfer/sec:"),
            let p50 = value(after: "50%"), let p99 = value(after: "99%")
        else { throw CommandRefusal("cannot read wrk's output: \(text)") }
        return Wrk(
            requestsPerSecond: rate,
            bytesPerSecond: Self.quantity(transfer, units: ["B": 1, "KB": 1024, "MB": 1_048_576, "GB": 1_073_741_824]),
            p50: Self.quantity(p50, units: ["us": 1e-6, "ms": 1e-3, "s": 1, "m": 60]),
            p99: Self.quantity(p99, units: ["us": 1e-6, "ms": 1e-3, "s": 1, "m": 60]))
    }

    /// `12.5ms`, `3.2GB`: the number times its unit's factor (the longest unit that matches).
    static func quantity(_ text: Substring, units: [String: Double]) -> Double {
        for (unit, factor) in units.sorted(by: { $0.key.count > $1.key.count }) where text.hasSuffix(unit) {
            if let number = Double(text.dropLast(unit.count)) { return number * factor }
        }
        return Double(text) ?? 0
    }
}
