import Foundation
import Testing

/// The library as one door (the redesign of #82): the store is the door's alone, each command
/// makes one call through it, the interfaces import little, and the command line stays thin.
struct LibraryDoorTests {
    static var sources: URL { ImportArrowTests.sources }

    /// Every Swift file of `module`, with its text.
    static func files(of module: String) throws -> [(name: String, text: String)] {
        let folder = sources.appendingPathComponent(module)
        let names = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        return try names.filter { $0.hasSuffix(".swift") }.sorted().map {
            ($0, try String(contentsOf: folder.appendingPathComponent($0), encoding: .utf8))
        }
    }

    @Test func noTypeHoldsTheStoreButTheLibrary() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter {
            !$0.hasPrefix("C") && $0 != "LoopStore"
        }
        var holders: [String] = []
        for module in modules {
            for (name, text) in try Self.files(of: module) {
                for match in text.matches(of: /(?:let|var) \w+: LibraryStore\b/) {
                    holders.append("\(module)/\(name): \(match.0)")
                }
            }
        }
        #expect(holders == ["LoopWorkflows/Library.swift: let store: LibraryStore"], "\(holders)")
    }

    @Test func theInterfacesImportAtMostThreeOfOurModules() throws {
        for module in ["LoopReports", "LoopScreens"] {
            let ours = Set(try ImportArrowTests.imports().filter { $0.module == module }.map(\.imported))
            #expect(ours.count <= 3, "\(module) imports \(ours.sorted())")
        }
    }

    @Test func eachCommandMakesOneCallThroughTheDoorAndTheCommandLineStaysThin() throws {
        let files = try Self.files(of: "LoopCLI")
        let lines = files.reduce(0) { $0 + $1.text.split(separator: "\n", omittingEmptySubsequences: false).count }
        #expect(lines < 1_200, "LoopCLI holds \(lines) lines")
        var commands = 0
        for (name, text) in files {
            for body in Self.executeBodies(text) {
                commands += 1
                let opened = body.ranges(of: "libraryOptions.open(")
                #expect(opened.count <= 1, "\(name): an execute() opens the library \(opened.count) times")
                // Once opened, one operation is asked of the library (`.open(...).operation(`).
                for range in opened {
                    let after = Self.afterClosingParenthesis(body, from: range.upperBound)
                    #expect(
                        after.drop { $0.isWhitespace }.first == ".",
                        "\(name): an execute() opens the library without asking one operation of it")
                }
            }
        }
        #expect(commands >= 25, "the scan found \(commands) commands")
    }

    /// The bodies of the `execute()` functions in `text`, by their braces.
    static func executeBodies(_ text: String) -> [Substring] {
        text.ranges(of: "func execute() async throws {").map { range in
            var depth = 1
            var index = range.upperBound
            while index < text.endIndex, depth > 0 {
                if text[index] == "{" { depth += 1 }
                if text[index] == "}" { depth -= 1 }
                index = text.index(after: index)
            }
            return text[range.upperBound..<index]
        }
    }

    /// What follows the parenthesis that closes the one opened just before `start`.
    static func afterClosingParenthesis(_ text: Substring, from start: Substring.Index) -> Substring {
        var depth = 1
        var index = start
        while index < text.endIndex, depth > 0 {
            if text[index] == "(" { depth += 1 }
            if text[index] == ")" { depth -= 1 }
            index = text.index(after: index)
        }
        return text[index...]
    }

    @Test func noTypeAliasReExportsAnotherModulesType() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter {
            !$0.hasPrefix("C")
        }
        for module in modules {
            for (name, text) in try Self.files(of: module) {
                for match in text.matches(of: /public typealias (\w+) =\s*([^\n]+)/) {
                    let value = String(match.2)
                    // An error of the module's own kind, a function's type, or a number.
                    let allowed =
                        value.hasPrefix("LoopError<") || value.contains("->") || value.hasPrefix("@Sendable")
                        || value == "Int64"
                    #expect(allowed, "\(module)/\(name): typealias \(match.1) = \(value)")
                }
            }
        }
    }
}
