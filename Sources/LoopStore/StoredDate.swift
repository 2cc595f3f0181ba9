import Foundation
import GRDB
import LoopFoundation

/// Dates as GRDB stores them (`YYYY-MM-DD HH:MM:SS.SSS`, UTC), read without a calendar: a
/// listing of 10,000 loops reads 20,000 of them, and Foundation's parsing was a tenth of its time.
///
/// A library keeps dates of four-digit years only: the queries compare dates as text, which is
/// time's order only while every year has four digits (`10000-01-08` sorts before `2026-...`).
enum StoredDate {
    /// The last moment a library keeps: 9999-12-31 23:59:59.999 UTC.
    static let latest = Date(timeIntervalSince1970: 253_402_300_799.999)

    /// The date in `row[index]`, or nil when it holds none a library keeps (NULL, another form, a
    /// year of five digits that a clock in the year 9999 once gave): never a trap.
    static func read(_ row: Row, _ index: Int) -> Date? {
        let value: DatabaseValue = row[index]
        guard case .string(let text) = value.storage else { return Date.fromDatabaseValue(value) }
        return parse(text)
    }

    /// `YYYY-MM-DD HH:MM:SS[.SSS]` in UTC; nil for anything else.
    static func parse(_ text: String) -> Date? {
        var utf8 = text.utf8.makeIterator()
        func number(_ digits: Int, then separator: UInt8?) -> Int? {
            var value = 0
            for _ in 0..<digits {
                guard let byte = utf8.next(), (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            if let separator, utf8.next() != separator { return nil }
            return value
        }
        guard let year = number(4, then: UInt8(ascii: "-")), let month = number(2, then: UInt8(ascii: "-")),
            let day = number(2, then: UInt8(ascii: " ")), let hour = number(2, then: UInt8(ascii: ":")),
            let minute = number(2, then: UInt8(ascii: ":")), let second = number(2, then: nil),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds = 0
        switch utf8.next() {
        case nil: break
        case UInt8(ascii: "."):
            var scale = 100
            while let byte = utf8.next() {
                guard (48...57).contains(byte) else { return nil }
                milliseconds += Int(byte - 48) * scale
                scale /= 10
            }
        default: return nil
        }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + Double(milliseconds) / 1_000
        return Date(timeIntervalSince1970: seconds)
    }
}
