import Foundation
import Testing

@testable import LoopWorkflows

/// The times of a page's progress file, read byte by byte, agree with Foundation's ISO 8601
/// reading wherever a time is valid, and refuse what is not one.
struct ProgressDateTests {
    @Test func validTimesReadAsFoundationReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<2_000 {
            let seconds = Double.random(in: 1_577_836_800...Date().timeIntervalSince1970, using: &generator)
            let date = Date(timeIntervalSince1970: (seconds * 1000).rounded() / 1000)
            let text = style.format(date)
            let read = try #require(ProgressImport.date(text), "\(text)")
            #expect(abs(read.timeIntervalSince(try style.parse(text))) < 1e-6, "\(text)")
            let whole = Date.ISO8601FormatStyle().format(date)
            #expect(ProgressImport.date(whole) == (try Date.ISO8601FormatStyle().parse(whole)), "\(whole)")
        }
        // Offsets: the same instant.
        #expect(ProgressImport.date("2026-11-25T09:30:00+01:00") == ProgressImport.date("2026-11-25T08:30:00Z"))
        #expect(ProgressImport.date("2026-11-25T03:00:00-05:30") == ProgressImport.date("2026-11-25T08:30:00Z"))
        #expect(ProgressImport.date("2024-02-29T12:00:00Z") != nil, "a leap day")
    }

    @Test func impossibleOrAbsurdTimesAreNone() {
        for text in [
            "2026-02-30T08:00:00Z", "2025-02-29T08:00:00Z", "2026-11-25T24:00:00Z", "2026-11-25T23:60:00Z",
            "2026-11-25T23:59:60Z", "2026-13-01T00:00:00Z", "2026-00-10T00:00:00Z", "2019-12-31T23:59:59Z",
            "9999-12-31T23:59:59Z", "2026-11-25T08:30:00", "2026-11-25 08:30:00Z", "2026-11-25T08:30:00.Z",
            "2026-11-25T08:30:00+1:00", "yesterday", "",
        ] {
            #expect(ProgressImport.date(text) == nil, "\(text)")
        }
    }
}
