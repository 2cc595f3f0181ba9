import ArgumentParser
import Foundation
import LoopLibraryServer

struct RenderPages: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render-pages",
        abstract:
            "Render ahead the pages of the loops published before this server version, under other templates, or listed otherwise since.",
        discussion: """
            A publish renders a loop's page and keeps it in the catalog, so a first visit renders \
            nothing while the loop is listed as it was (featured, its author's name, its downloads \
            this week: then only the page around its phrases). Loops published before, or under \
            other templates (after an upgrade, or an edited --web folder), have their pages \
            rendered on each first visit until this is run (or they are published again). Safe \
            while servers run; give it the --web folder the servers use. Prints what it did.
            """)

    @OptionGroup var storage: StorageOptions
    @Option(
        name: .long,
        help: ArgumentHelp(
            "The templates the servers render with (by default Resources/web beside the program, or share/loop/web).",
            valueName: "folder"))
    var web: String?
    @Flag(help: "Print the figures as JSON.") var json = false

    func run() async throws {
        let templates = try loadWebTemplates(web)
        let terminal = isatty(STDERR_FILENO) == 1
        let figures = try await storage.operatorChange { catalog in
            try await templates.renderPagesAhead(in: catalog) { done, total in
                guard terminal, done % 1_000 == 0 || done == total else { return }
                FileHandle.standardError.write(Data("\r\u{1B}[Krendering pages ahead: \(done) of \(total)".utf8))
                if done == total { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
            }
        }
        if json {
            let data = try JSONEncoder().encode(figures)
            print(String(decoding: data, as: UTF8.self))
            return
        }
        print(
            "rendered \(figures.rendered) page(s) ahead; \(figures.current) were already"
                + (figures.unrendered > 0 ? "; \(figures.unrendered) could not be (rendered on each first visit)" : ""))
    }
}
