import ArgumentParser
import Foundation
import Logging
import LoopLibraryAPI
import LoopLibraryServer

/// `loop-server`: hosts a Loop Library (`loop serve` runs it).
@main
struct LoopServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loop serve",
        abstract: "Host a Loop Library: authors publish loops to it, learners browse and install them.",
        discussion: """
            The catalog lives in SQLite inside the data folder, or in PostgreSQL with --database \
            (several servers behind a proxy then share it, with the data folder on shared storage). \
            Bundles and takes are files named by their SHA-256 under DATA/blobs. docs/server.md \
            describes the HTTP API.
            """,
        subcommands: [
            Serve.self, Feature.self, Unfeature.self, TakeDown.self, BlockKey.self, CollectBlobs.self,
            RenderPages.self, SeedBenchmark.self,
        ],
        defaultSubcommand: Serve.self)

    /// `loop serve --help` shows what a server is started with (serving is the default
    /// command), then the operator's other commands.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard arguments == ["--help"] || arguments == ["-h"] || arguments == ["help"] else {
            await Self.mainAsParsed()
            return
        }
        let serving = Serve.helpMessage().replacingOccurrences(of: "USAGE: serve", with: "USAGE: loop serve")
        print(
            serving.trimmingCharacters(in: .newlines) + """


                OTHER COMMANDS:
                  loop serve feature LOOP [--data DIR] [--database URL]     Feature a loop on the front page.
                  loop serve unfeature LOOP [--data DIR] [--database URL]   Stop featuring it.
                  loop serve takedown LOOP --reason TEXT [--data DIR] [--database URL]
                                                                            Take a loop down (copyright, abuse): off
                                                                            its pages, search, feed and downloads at
                                                                            once; its author cannot publish it again.
                  loop serve block-key KEY --reason TEXT [--data DIR] [--database URL]
                                                                            Block an author's key (base64 or its
                                                                            fingerprint): its publishes are refused
                                                                            and its loops taken down.
                  loop serve gc [--grace HOURS] [--dry-run] [--data DIR] [--database URL]
                                                                            Remove the blobs no listed loop refers to
                                                                            (unpublished, taken down, replaced), once
                                                                            older than the grace period (24 h).
                  loop serve render-pages [--web DIR] [--data DIR] [--database URL]
                                                                            Render ahead the pages of loops published
                                                                            before this version, under other templates,
                                                                            or listed otherwise since (featured...).
                  (loop serve help feature: their options)
                """)
    }

    /// ArgumentParser's own entry point.
    private static func mainAsParsed() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            // Serving is the default command, so ArgumentParser's usage names it twice
            // ("loop serve serve <options>"): a user types `loop serve <options>`.
            let message = fullMessage(for: error).replacingOccurrences(of: "loop serve serve", with: "loop serve")
            let code = exitCode(for: error)
            if !message.isEmpty {
                if code == .success {
                    print(message)
                } else {
                    FileHandle.standardError.write(Data((message + "\n").utf8))
                }
            }
            Foundation.exit(code.rawValue)
        }
    }
}
