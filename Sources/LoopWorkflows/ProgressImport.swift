import Foundation
import LoopFoundation
import LoopModel
import LoopStore
import LoopStudy

/// A learner's progress kept by a loop's page in the browser and exported as JSON
/// (`looplearn-progress`, version 1), merged into a library's study history: each session of a
/// loop that is here, its phrases matched by number and text. A session already merged (the
/// same loop, the same start to the millisecond) is not merged again.
///
/// The file comes from outside: read within 8 MiB, every count and number bounded, every text
/// checked; a file that fails is refused whole, with one line naming it and what is wrong.
public enum ProgressImport {
    /// The file, as the page writes it.
    public struct File: Decodable, Sendable {
        /// `loop-progress`: what the page writes.
        public var format: String
        /// The file's format version.
        public var version: Int
        /// The loops it holds progress of.
        public var loops: [Loop]

        /// A loop's progress.
        public struct Loop: Decodable, Sendable {
            /// The loop's id.
            public var id: String
            /// Its study sessions.
            public var sessions: [Session]
        }

        /// A study session on the page.
        public struct Session: Decodable, Sendable {
            /// When it started (ISO 8601).
            public var startedAt: String
            /// The phrases it played.
            public var phrases: [Phrase]
            /// The groups studied through in the session, and how the learner rated them (none
            /// in files from before the page asked).
            public var reviews: [Review]?
        }

        /// A group studied through: its number (1-based), its phrases' texts (what finds it),
        /// when, and the rating (1 again to 4 easy; null when not rated, which counts as good).
        public struct Review: Decodable, Sendable {
            /// The group's number, 1-based.
            public var group: Int
            /// Its phrases' texts when studied.
            public var texts: [String]
            /// When (ISO 8601).
            public var at: String
            /// The rating: 1 again to 4 easy; nil when not rated.
            public var rating: Int?
        }

        /// A phrase's study in a session.
        public struct Phrase: Decodable, Sendable {
            /// The phrase's number across its loop, 1-based.
            public var number: Int
            /// Its text when studied.
            public var text: String
            /// Times it was played.
            public var repetitions: Int
            /// Seconds spent on it.
            public var seconds: Double
        }
    }

    /// What a merge did.
    public struct Outcome: Sendable, Equatable {
        /// Sessions added, and those that were here already.
        public var sessionsAdded = 0
        /// (The sessions skipped as here already.)
        public var sessionsAlreadyHere = 0
        /// Phrase records added, and those whose phrase is not here (edited or gone since).
        public var phrasesAdded = 0
        /// (The phrase records whose phrase is not here.)
        public var phrasesUnmatched = 0
        /// The loops of the file this library does not hold (ids).
        public var loopsNotHere: [String] = []
        /// The titles of the loops merged into.
        public var titles: [String] = []
        /// Group reviews added, and those whose group is not here as it was (its text changed).
        public var reviewsAdded = 0
        /// (The reviews whose group is not here as it was.)
        public var reviewsUnmatched = 0
        /// Reviews left out as kept already: the same group at the same time (twice in the
        /// file, or merged before).
        public var reviewsAlreadyHere = 0
    }

    static let byteLimit = 8 << 20
    static let limits = (
        loops: 10_000, sessions: 100_000, phrases: 20_000, number: 20_000, repetitions: 1_000_000,
        seconds: 10_000_000.0, text: 4_000
    )

    /// Reads and checks the file at `path`.
    public static func read(_ path: String) throws -> File {
        func refuse(_ message: String) -> WorkflowError { WorkflowError(.badProgress, path: path, message: message) }
        // A folder, a FIFO (whose open would wait for a writer forever) or a device is refused
        // before it is opened.
        if let problem = RegularFile.problem(at: path) { throw refuse(problem) }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw refuse("cannot read the file") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: byteLimit + 1)) ?? Data()
        guard data.count <= byteLimit else { throw refuse("larger than 8 MiB: not a progress file of loop's") }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch {
            throw refuse("not a progress file exported from a loop's page (the JSON does not have its shape)")
        }
        guard file.format == "looplearn-progress" else {
            throw refuse("not a progress file exported from a loop's page (format '\(Self.shown(file.format))')")
        }
        guard file.version == 1 else {
            throw refuse("a progress file of version \(file.version), newer than this loop reads (1)")
        }
        guard file.loops.count <= limits.loops else { throw refuse("more than \(limits.loops) loops") }
        for loop in file.loops {
            guard UUID(uuidString: loop.id) != nil, loop.id == loop.id.lowercased() else {
                throw refuse("a loop id that is not one: '\(Self.shown(loop.id))'")
            }
            guard loop.sessions.count <= limits.sessions else {
                throw refuse("more than \(limits.sessions) sessions of one loop")
            }
            for session in loop.sessions {
                guard Self.date(session.startedAt) != nil else {
                    throw refuse(
                        "a session's start '\(Self.shown(session.startedAt))' is not a time a page studied at (ISO 8601, from 2020 to now)"
                    )
                }
                guard session.phrases.count <= limits.phrases else {
                    throw refuse("more than \(limits.phrases) phrases in a session")
                }
                try checkReviews(session.reviews ?? [], refuse: refuse)
                for phrase in session.phrases {
                    guard (1...limits.number).contains(phrase.number),
                        (0...limits.repetitions).contains(phrase.repetitions),
                        phrase.seconds.isFinite, (0...limits.seconds).contains(phrase.seconds)
                    else {
                        throw refuse(
                            "phrase \(phrase.number): a count out of range (\(phrase.repetitions) repetitions, \(phrase.seconds) s)"
                        )
                    }
                    guard phrase.text.count <= limits.text,
                        !phrase.text.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                    else {
                        throw refuse(
                            "phrase \(phrase.number): its text is longer than \(limits.text) characters or holds a control character"
                        )
                    }
                }
            }
        }
        return file
    }

    /// Refuses reviews out of range: a group number, a rating, a time, a text.
    static func checkReviews(_ reviews: [File.Review], refuse: (String) -> WorkflowError) throws {
        guard reviews.count <= limits.phrases else { throw refuse("more than \(limits.phrases) reviews in a session") }
        for review in reviews {
            guard (1...limits.number).contains(review.group) else {
                throw refuse("a review of group \(review.group), past the \(limits.number) groups a loop holds")
            }
            guard review.rating.map({ (1...4).contains($0) }) ?? true else {
                throw refuse("group \(review.group): a review rated \(review.rating ?? 0), not 1 (again) to 4 (easy)")
            }
            guard review.texts.count <= limits.phrases else {
                throw refuse(
                    "group \(review.group): a review of \(review.texts.count) texts, more than the \(limits.phrases) phrases a group holds"
                )
            }
            guard date(review.at) != nil else {
                throw refuse(
                    "group \(review.group): a review's time '\(shown(review.at))' is not a time a page studied at")
            }
            guard
                review.texts.allSatisfy({
                    $0.count <= limits.text
                        && !$0.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
                })
            else {
                throw refuse(
                    "group \(review.group): a text longer than \(limits.text) characters or holding a control character"
                )
            }
        }
    }

    /// Merges `file` into the library: one study session each, in the library's own terms,
    /// all in one transaction (a merge cut short leaves nothing of it).
    static func merge(_ file: File, into store: LibraryStore) throws -> Outcome {
        var outcome = Outcome()
        var sessions: [(record: StudySessionRecord, unmatched: Int, reviewsUnmatched: Int)] = []
        for loop in file.loops {
            guard let detail = try? store.loop(id: loop.id) else {
                outcome.loopsNotHere.append(loop.id)
                continue
            }
            outcome.titles.append(detail.summary.title)
            let byNumber = Dictionary(detail.phrases.map { ($0.number, $0) }, uniquingKeysWith: { first, _ in first })
            for session in loop.sessions {
                guard let startedAt = Self.date(session.startedAt) else { continue }
                var records: [PhraseStudyRecord] = []
                var unmatched = 0
                for phrase in session.phrases where phrase.repetitions > 0 || phrase.seconds > 0 {
                    // The phrase it was: the same number and the same text (an edit since makes it another).
                    guard let here = byNumber[phrase.number], Self.same(here.text, phrase.text) else {
                        unmatched += 1
                        continue
                    }
                    records.append(
                        PhraseStudyRecord(phraseId: here.id, seconds: phrase.seconds, repetitions: phrase.repetitions))
                }
                // Each group reviewed: the same place and the same texts (an edit since makes it another).
                var reviews: [GroupRating] = []
                var reviewsUnmatched = 0
                for review in session.reviews ?? [] {
                    guard let date = Self.date(review.at), detail.groups.indices.contains(review.group - 1),
                        detail.groups[review.group - 1].map(\.text).elementsEqual(review.texts, by: Self.same)
                    else {
                        reviewsUnmatched += 1
                        continue
                    }
                    let rating = review.rating.flatMap(ReviewRating.init(rawValue:)) ?? .good
                    reviews.append(GroupRating(group: review.group - 1, rating: rating, date: date))
                }
                sessions.append(
                    (
                        StudySessionRecord(loopId: loop.id, startedAt: startedAt, phrases: records, reviews: reviews),
                        unmatched, reviewsUnmatched
                    ))
            }
        }
        let saved = try store.recordStudySessions(sessions.map(\.record), replay: ReviewSettings.replay)
        for (session, saved) in zip(sessions, saved) {
            if saved.saved {
                outcome.sessionsAdded += 1
                outcome.phrasesAdded += session.record.phrases.count
                outcome.phrasesUnmatched += session.unmatched
                outcome.reviewsAdded += saved.reviews
                outcome.reviewsAlreadyHere += session.record.reviews.count - saved.reviews
                outcome.reviewsUnmatched += session.reviewsUnmatched
            } else if !session.record.phrases.isEmpty {
                outcome.sessionsAlreadyHere += 1
            } else {
                outcome.phrasesUnmatched += session.unmatched
            }
        }
        return outcome
    }

    /// A value from the file as an error message may show it: printable ASCII, at most 40 characters.
    static func shown(_ text: String) -> String {
        let printable = String(
            text.unicodeScalars.filter { (0x20..<0x7F).contains($0.value) }.prefix(40).map(Character.init))
        return printable + (text.unicodeScalars.count > 40 ? "..." : "")
    }

    static func same(_ a: String, _ b: String) -> Bool {
        a.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespaces)
            == b.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespaces)
    }

    /// The time `text` writes (ISO 8601: `2026-11-25T08:30:00.123Z`, or with an offset, as a
    /// page exports it), or nil when it is not a time a page could have studied at: an
    /// impossible date or hour (`2026-02-30T25:61:61Z`, which a lenient parser rolls over into
    /// March), or one before 2020 or past tomorrow. Read byte by byte: a file holds up to
    /// 100,000 of them.
    static func date(_ text: String, now: Date = Date()) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard (48...57).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 20, bytes[4] == 45, bytes[7] == 45, bytes[10] == 84, bytes[13] == 58, bytes[16] == 58,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), hour < 24,
            minute < 60, second < 60
        else { return nil }
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let monthDays = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        guard (1...monthDays[month - 1]).contains(day) else { return nil }
        // Fractional seconds, then Z or an offset ±hh:mm.
        var index = 19
        var fraction = 0.0
        if bytes[index] == 46 {
            var scale = 0.1
            index += 1
            let start = index
            while index < bytes.count, (48...57).contains(bytes[index]), index - start < 9 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
            }
            guard index > start else { return nil }
        }
        var offset = 0
        if index == bytes.count - 1, bytes[index] == 90 {
            offset = 0
        } else if index == bytes.count - 6, bytes[index] == 43 || bytes[index] == 45, bytes[index + 3] == 58,
            let hours = number((index + 1)..<(index + 3)), let minutes = number((index + 4)..<(index + 6)), hours < 24,
            minutes < 60
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 45 ? -1 : 1)
        } else {
            return nil
        }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offset
        let date = Date(timeIntervalSince1970: Double(seconds) + fraction)
        let earliest = Date(timeIntervalSince1970: 1_577_836_800) // 2020-01-01
        guard date >= earliest, date <= now.addingTimeInterval(86_400) else { return nil }
        return date
    }
}

extension Library {
    /// Merges the progress file at `path` (exported from a loop's page) into the study history.
    public func importProgress(from path: String) throws -> ProgressImport.Outcome {
        try ProgressImport.merge(ProgressImport.read(path), into: store)
    }
}
