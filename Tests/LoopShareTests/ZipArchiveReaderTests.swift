import Foundation
import LoopFoundation
import LoopTestSupport
import Testing

@testable import LoopShare

/// The zip archive itself as hostile input: the fixture bundle written again by
/// `Scripts/zip-variants`, field by field, as other writers write it (every field in Zip64, data
/// descriptors: each must read) and with sizes, offsets and counts that lie (each must be
/// refused in one line naming the bundle, before anything is extracted, and never trap).
struct ZipArchiveReaderTests {
    /// The variants of the fixture bundle, by name.
    static func variants() throws -> [(name: String, path: String)] {
        let (_, _, _, bundle) = try exportedBundle()
        let folder = scratch()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Fixture.folder + "/../../Scripts/zip-variants", bundle, folder]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "Scripts/zip-variants failed")
        return try FileManager.default.contentsOfDirectory(atPath: folder).sorted().map {
            (String($0.dropLast(".loop".count)), folder + "/" + $0)
        }
    }

    @Test func archivesWrittenAllInZip64OrWithDataDescriptorsRead() throws {
        let valid = try Self.variants().filter { $0.name.hasPrefix("valid-") }
        #expect(
            valid.map(\.name) == ["valid-all-zip64", "valid-data-descriptors", "valid-zip64-with-data-descriptors"])
        for variant in valid {
            let verified = try BundleReader().read(variant.path, extractingTo: scratch())
            #expect(verified.audioFiles.count == 1, "\(variant.name)")
            #expect(BundleReader.loopIds(inBundleAt: variant.path)?.count == 1, "\(variant.name)")
        }
    }

    @Test func lyingSizesOffsetsAndCountsAreRefusedInOneLineBeforeAnythingIsExtracted() throws {
        let refused = try Self.variants().filter { $0.name.hasPrefix("refused-") }
        #expect(refused.count >= 15)
        // What each is refused for: the field that lies, said.
        let said: [String: String] = [
            "refused-zip64-directory-offset-near-2-64": "at 18446744073709551516) does not end where its end record",
            "refused-zip64-directory-size-all-ones": "(18446744073709551615 bytes at",
            "refused-zip64-entry-count-all-ones": "more than 10000 entries",
            "refused-zip64-entry-count-past-the-directory": "too short for the 9999 entries it claims",
            "refused-zip64-entry-count-zero": "holds more than the entries it counts",
            "refused-zip64-locator-offset-all-ones": "Zip64 locator points outside the file",
            "refused-zip64-locator-offset-past-itself": "Zip64 locator points outside the file",
            "refused-zip64-several-disks": "several disks",
            "refused-directory-offset-past-the-file": "does not end where its end record begins",
            "refused-entry-offset-all-ones": "entry 'manifest.json' points outside the file",
            "refused-entry-offset-near-2-64": "entry 'manifest.json' points outside the file",
            "refused-entry-compressed-size-all-ones": "more than the file holds",
            "refused-entry-size-2-63": "declares 9223372036854775808 bytes",
            "refused-entry-size-all-ones": "declares 18446744073709551615 bytes",
            "refused-entries-overlapping": "two entries share bytes",
            "refused-deflate-cut-short": "its deflated data ends before its last block",
        ]
        for variant in refused {
            let folder = scratch()
            #expect {
                _ = try BundleReader().read(variant.path, extractingTo: folder)
            } throws: { error in
                let text = (error as? ShareError)?.description ?? "\(error)"
                let expected = said[variant.name] ?? "(no expectation for \(variant.name))"
                #expect(text.hasPrefix(variant.path + ": ") && text.contains(expected), "\(variant.name): \(text)")
                #expect(!text.contains("\n"), "\(variant.name): \(text)")
                return error is ShareError
            }
            #expect((try? FileManager.default.contentsOfDirectory(atPath: folder))?.isEmpty ?? true, "\(variant.name)")
            #expect(BundleReader.loopIds(inBundleAt: variant.path) == nil, "\(variant.name)")
        }
    }
}
