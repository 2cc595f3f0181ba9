import Foundation
import LoopModel
import LoopShare
import LoopStore
import LoopTestSupport
import LoopText
import Testing
import ZIPFoundation

@testable import LoopWorkflows

extension Fixture {
    static var source: LoopSource { get throws { try LoopSource(contentsOf: path("phrases.txt")) } }
    /// The clean fixture's phrase ranges (one per phrase, in 16 kHz frames), from its truth.
    static let ranges: [Range<Int>] = [
        6_080..<26_600, 35_200..<59_900, 63_900..<72_600, 88_900..<117_500, 123_400..<147_400,
    ]
}

func scratch() -> String { Scratch.path("workflows") }

/// A library with the fixture loop, its identity, and the loop exported to a bundle.
func exportedBundle() throws -> (library: LibraryStore, identity: AuthorIdentity, loop: LoopDetail, bundle: String) {
    let library = try LibraryStore(at: scratch())
    let loop = try library.createLoop(
        source: try Fixture.source, take: CutTake(path: Fixture.path("clean.flac"), ranges: Fixture.ranges))
    let identity = try Library.identity(of: library)
    let bundle = scratch() + ".loop"
    try BundleWriter(identity: identity).write([loop], to: bundle)
    return (library, identity, loop, bundle)
}

/// A bundle of this loop's newest revision, signed by `identity`.
func publish(_ library: LibraryStore, _ identity: AuthorIdentity, _ id: String) throws -> String {
    let bundle = scratch() + ".loop"
    try BundleWriter(identity: identity).write([try library.loop(id: id)], to: bundle)
    return bundle
}

/// An author's library with the fixture loop, and a learner's empty library.
func authorAndLearner() throws -> (
    author: LibraryStore, loop: LoopDetail, identity: AuthorIdentity, learner: LibraryStore
) {
    let (author, identity, loop, _) = try exportedBundle()
    return (author, loop, identity, try LibraryStore(at: scratch()))
}

/// A bundle rebuilt with its manifest changed by `edit` and signed again by `identity`.
func resigned(_ bundle: String, by identity: AuthorIdentity, edit: (inout [String: Any]) -> Void) throws -> String {
    let archive = try Archive(url: URL(fileURLWithPath: bundle), accessMode: .read)
    var parts: [(String, Data)] = try archive.map { entry in
        var data = Data()
        _ = try archive.extract(entry) { data.append($0) }
        return (entry.path, data)
    }
    let manifestIndex = try #require(parts.firstIndex { $0.0 == "manifest.json" })
    var object = try #require(try JSONSerialization.jsonObject(with: parts[manifestIndex].1) as? [String: Any])
    edit(&object)
    let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
    parts[manifestIndex].1 = data
    let signatureIndex = try #require(parts.firstIndex { $0.0 == "manifest.sig" })
    parts[signatureIndex].1 = Data(try identity.sign(data).base64EncodedString().utf8)
    let path = scratch() + ".loop"
    let rebuilt = try Archive(url: URL(fileURLWithPath: path), accessMode: .create)
    for (name, data) in parts {
        try rebuilt.addEntry(with: name, type: .file, uncompressedSize: Int64(data.count), compressionMethod: .none) {
            position, size in
            data.subdata(in: Int(position)..<(Int(position) + size))
        }
    }
    return path
}
