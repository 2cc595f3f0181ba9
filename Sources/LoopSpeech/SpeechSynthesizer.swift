import CEspeakNG
import CEspeakNGLoader
import Foundation
import LoopFoundation
import Synchronization

/// Speech rendered from text by espeak-ng: mono samples at ``sampleRate``.
public struct RenderedSpeech: Sendable {
    /// The rendering's sample rate in hertz.
    public var sampleRate: Int
    /// The rendering, mono.
    public var samples: [Float]
}

/// The speech synthesizer (espeak-ng's library, opened on first use).
///
/// espeak-ng keeps global state and is not thread-safe: every call into it here goes through
/// one lock, so the process has one owner at a time. Each phrase is rendered on its own (espeak-ng's marks
/// inside one text are not reliable), which is as fast as one call for the whole text.
///
/// This process only opens espeak-ng; each call renders in a process forked for it, which sets
/// the voice and speed and renders. espeak-ng's wave generator carries its state from one text
/// to the next (its pitch flutter, a wave's phase, the noise of breath), so a phrase rendered
/// after others sounds slightly otherwise, and a cut would depend on what the process had
/// rendered before it. Forked from a process that never renders, every call starts from the
/// same state: the same phrases always give the same samples. Only when no process can be
/// started does a call render here (and the renderings after it start from that call's end).
public final class SpeechSynthesizer: Sendable {
    /// The one synthesizer of the process.
    public static let shared = SpeechSynthesizer()

    private struct State {
        var sampleRate: Int?
        var failure: String?
        /// The voice set in this process (only to render here when no process can be started).
        var voice: String?
        /// The languages espeak-ng's voices speak, as it lists them, in lower case.
        var listed: Set<String> = []
    }

    private let state = Mutex(State())

    private init() {}

    /// Renders each of `phrases` with `voice` (an espeak-ng voice name, see ``SpeechLanguage``);
    /// `wordsPerMinute` sets the speed (espeak-ng's default is 175).
    public func render(_ phrases: [String], voice: String, wordsPerMinute: Int = 175) throws(SpeechError)
        -> [RenderedSpeech]
    {
        guard !phrases.isEmpty else { return [] }
        if let child = try renderInChildProcess(phrases, voice: voice, wordsPerMinute: wordsPerMinute) {
            var rendered: [RenderedSpeech] = []
            rendered.reserveCapacity(phrases.count)
            while let speech = try child.next() { rendered.append(speech) }
            return rendered
        }
        return try state.withLock { (state: inout State) throws(SpeechError) -> [RenderedSpeech] in
            let rate = try Self.prepare(&state, voice: voice, wordsPerMinute: wordsPerMinute)
            return phrases.map { RenderedSpeech(sampleRate: rate, samples: Self.synthesize($0)) }
        }
    }

    /// espeak-ng opened and set to `voice` at `wordsPerMinute` in this process, to render here
    /// (under the lock); its output rate.
    private static func prepare(_ state: inout State, voice: String, wordsPerMinute: Int) throws(SpeechError) -> Int {
        let rate = try start(&state)
        if state.voice != voice {
            guard isListed(voice, in: state), espeak_SetVoiceByName(voice) == EE_OK else {
                throw noVoice(voice)
            }
            state.voice = voice
        }
        _ = espeak_SetParameter(espeakRATE, Int32(wordsPerMinute), 0)
        return rate
    }

    /// Whether espeak-ng has a voice of this name (false when espeak-ng itself is missing).
    public func hasVoice(_ voice: String) -> Bool {
        do {
            if try renderInChildProcess([], voice: voice, wordsPerMinute: 175) != nil { return true }
        } catch {
            return false
        }
        return state.withLock { state in
            (try? Self.prepare(&state, voice: voice, wordsPerMinute: 175)) != nil
        }
    }

    /// The rate (Hz) of what it renders; opens espeak-ng if it is not yet open.
    public func outputRate() throws(SpeechError) -> Int {
        try state.withLock { (state: inout State) throws(SpeechError) -> Int in try Self.start(&state) }
    }

    /// Opens and initialises espeak-ng once; its output rate.
    private static func start(_ state: inout State) throws(SpeechError) -> Int {
        if let rate = state.sampleRate { return rate }
        if let failure = state.failure { throw SpeechError(.synthesizerMissing, failure) }
        if let missing = loop_espeak_load_error() {
            let failure = String(cString: missing)
            state.failure = failure
            throw SpeechError(.synthesizerMissing, failure)
        }
        let rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nil, 0)
        guard rate > 0 else {
            let failure = "espeak-ng could not start: is espeak-ng-data installed?"
            state.failure = failure
            throw SpeechError(.synthesizerMissing, failure)
        }
        espeak_SetSynthCallback(receiveSamples)
        state.sampleRate = Int(rate)
        state.listed = listedLanguages()
        return Int(rate)
    }

    /// Whether `voice` is a language one of espeak-ng's voices speaks, as it lists them (with
    /// a variant, perhaps). Only
    /// such a name is ever given to espeak-ng, which opens a file of its data folder by the
    /// name it is given: a path (`../../etc/passwd`), a folder, a FIFO or an endless device there
    /// would crash it or make it read forever, and a long `+variant` overflows its buffer.
    private static func isListed(_ voice: String, in state: State) -> Bool {
        // `language+variant` (`en-us+m3`): a listed language, and a variant's short name (a
        // file of espeak-ng's `voices/!v`; letters, digits and `_` only, so never a path).
        let parts = voice.split(separator: "+", maxSplits: 1, omittingEmptySubsequences: false)
        let language = parts[0]
        if parts.count == 2 {
            let variant = parts[1].utf8
            guard (1...20).contains(variant.count),
                variant.allSatisfy({ (97...122).contains($0) || (48...57).contains($0) || $0 == 95 })
            else { return false }
        }
        return language.utf8.count <= 40
            && language.utf8.allSatisfy { (97...122).contains($0) || (48...57).contains($0) || $0 == 45 }
            && state.listed.contains(String(language))
    }

    /// The languages of every voice espeak-ng lists (each voice's `languages`: a priority byte,
    /// then the language's name, over and over, ending with an empty name), in lower case.
    private static func listedLanguages() -> Set<String> {
        var listed: Set<String> = []
        guard let voices = espeak_ListVoices(nil) else { return listed }
        var index = 0
        while let voice = voices[index] {
            index += 1
            guard var entry = voice.pointee.languages else { continue }
            // A priority byte (never 0), then a name ending with NUL; a 0 priority ends the list.
            while entry.pointee != 0 {
                let name = String(cString: entry + 1)
                guard !name.isEmpty else { break }
                listed.insert(name.lowercased())
                entry += 1 + name.utf8.count + 1
            }
            if let name = voice.pointee.name { listed.insert(String(cString: name).lowercased()) }
        }
        return listed
    }

    /// A voice name as an error shows it: its printable ASCII, the rest as `?`.
    private static func shown(_ voice: String) -> String {
        String(voice.unicodeScalars.prefix(40).map { (32...126).contains($0.value) ? Character($0) : "?" })
    }

    /// The error for a voice espeak-ng does not have (not listed, or not set).
    private static func noVoice(_ voice: String) -> SpeechError {
        SpeechError(.voiceMissing, "espeak-ng has no voice \(shown(voice))")
    }

    /// One phrase's samples.
    private static func synthesize(_ text: String) -> [Float] {
        let sink = SampleSink()
        let retained = Unmanaged.passRetained(sink)
        defer { retained.release() }
        var bytes = Array(text.utf8CString)
        bytes.withUnsafeMutableBytes { buffer in
            _ = espeak_Synth(
                buffer.baseAddress, buffer.count, 0, POS_CHARACTER, 0, UInt32(espeakCHARS_UTF8), nil,
                retained.toOpaque())
        }
        _ = espeak_Synchronize()
        return sink.samples
    }
}

extension SpeechSynthesizer {
    /// Starts rendering `phrases` as `language` reads them in a second process, forked from
    /// this one (its state is global to a process, so a second process is how two renderings
    /// run at once), which sets the voice and speed and renders; nil when no process could be
    /// started, and the caller renders them itself. Its phrases are read one at a time as they
    /// are rendered.
    public func renderInChildProcess(_ phrases: [String], in language: SpeechLanguage, wordsPerMinute: Int = 175)
        throws(SpeechError) -> ChildRendering?
    {
        try withVoices(phrases, in: language) { (spoken, voice) throws(SpeechError) in
            try renderInChildProcess(spoken, voice: voice, wordsPerMinute: wordsPerMinute)
        }
    }

    private func renderInChildProcess(_ phrases: [String], voice: String, wordsPerMinute: Int) throws(SpeechError)
        -> ChildRendering?
    {
        let started = try state.withLock { (state: inout State) throws(SpeechError) -> ChildRendering? in
            let rate = try Self.start(&state)
            guard Self.isListed(voice, in: state) else {
                throw Self.noVoice(voice)
            }
            // The texts as C strings, made before the fork: the child only reads them.
            let texts = phrases.map { strdup($0) }
            defer { for text in texts { free(text) } }
            var child: Int32 = 0
            let descriptor = texts.map { UnsafePointer($0) }.withUnsafeBufferPointer {
                loop_espeak_render_in_child(voice, Int32(wordsPerMinute), $0.baseAddress, Int32($0.count), &child)
            }
            guard descriptor >= 0 else { return nil }
            return ChildRendering(descriptor: descriptor, process: child, count: phrases.count, sampleRate: rate)
        }
        // The child says first whether it could set the voice (outside the lock: it loads it).
        guard let started else { return nil }
        switch started.status() {
        case 0: return started
        case 1: throw Self.noVoice(voice)
        default: throw SpeechError(.synthesizerMissing, "espeak-ng stopped rendering in its second process")
        }
    }
}

/// Phrases rendered by a second process (``SpeechSynthesizer/renderInChildProcess(_:in:wordsPerMinute:)``),
/// read one at a time, in order, by one reader. ``stop()`` ends the process from any thread;
/// its pipe is closed and the process reaped when the last reference goes.
public final class ChildRendering: Sendable {
    private let descriptor: Int32
    private let process: Int32
    private let count: Int
    private let sampleRate: Int
    private let read = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    /// A phrase's samples are not believed beyond this many (about three hours at espeak-ng's rate).
    private static let greatestPhrase = 1 << 28

    init(descriptor: Int32, process: Int32, count: Int, sampleRate: Int) {
        self.descriptor = descriptor
        self.process = process
        self.count = count
        self.sampleRate = sampleRate
    }

    deinit {
        if read.load(ordering: .relaxed) < count { kill(process, SIGKILL) }
        close(descriptor)
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0 && errno == EINTR {}
    }

    /// What the child says first: 0 when its voice is set, 1 when espeak-ng could not set it,
    /// nil when it ended before saying.
    fileprivate func status() -> Int32? {
        var status: Int32 = -1
        return readExactly(&status, bytes: 4) ? status : nil
    }

    /// The next phrase's speech; nil after the last.
    public func next() throws(SpeechError) -> RenderedSpeech? {
        let index = read.load(ordering: .relaxed)
        guard index < count else { return nil }
        var length: Int32 = 0
        var samples: [Int16] = []
        if !stopped.load(ordering: .relaxed), readExactly(&length, bytes: 4), length >= 0,
            Int(length) <= Self.greatestPhrase
        {
            samples = [Int16](repeating: 0, count: Int(length))
        } else {
            length = -1
        }
        guard
            length == 0
                || (length > 0
                    && samples.withUnsafeMutableBytes { bytes in
                        bytes.baseAddress.map { readExactly($0, bytes: bytes.count) } ?? false
                    })
        else {
            stop()
            throw SpeechError(.synthesizerMissing, "espeak-ng stopped rendering in its second process")
        }
        read.store(index + 1, ordering: .relaxed)
        let floats = [Float](unsafeUninitializedCapacity: samples.count) { floats, initialized in
            samples.withUnsafeBufferPointer { samples in
                for index in samples.indices { floats[index] = Float(samples[index]) / 32_768 }
            }
            initialized = samples.count
        }
        return RenderedSpeech(sampleRate: sampleRate, samples: floats)
    }

    /// Ends the second process at once, if it is still rendering: its reader sees the pipe end.
    public func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if read.load(ordering: .relaxed) < count { kill(process, SIGKILL) }
    }

    /// Reads `bytes` bytes into `target`; false at the pipe's end or on an error.
    private func readExactly(_ target: UnsafeMutableRawPointer, bytes: Int) -> Bool {
        var done = 0
        while done < bytes {
            let got = Foundation.read(descriptor, target + done, bytes - done)
            if got < 0 && errno == EINTR { continue }
            guard got > 0 else { return false }
            done += got
        }
        return true
    }
}

/// Where espeak-ng's callback puts a phrase's samples (reached through the call's user data).
private final class SampleSink {
    var samples: [Float] = []
}

/// espeak-ng's synthesis callback: appends the samples to the phrase's sink; 0 goes on.
private func receiveSamples(
    _ wave: UnsafeMutablePointer<Int16>?, _ count: Int32, _ events: UnsafeMutablePointer<espeak_EVENT>?
) -> Int32 {
    guard let events, let userData = events.pointee.user_data else { return 0 }
    let sink = Unmanaged<SampleSink>.fromOpaque(userData).takeUnretainedValue()
    if let wave, count > 0 {
        // Appended with the array's own growth (doubling): reserving exactly what each chunk adds
        // copied the whole phrase at every chunk, quadratic in its length (a phrase of 10,000
        // kanji took minutes).
        let buffer = UnsafeBufferPointer(start: wave, count: Int(count))
        sink.samples.append(contentsOf: buffer.lazy.map { Float($0) / 32_768 })
    }
    return 0
}

/// The ways speech cannot be rendered.
public enum SpeechFailure: String, LoopErrorKind {
    /// espeak-ng (or its data, or MeCab for Japanese) is not installed.
    case synthesizerMissing
    /// The synthesizer has no voice for the language.
    case voiceMissing

    /// Where these errors come from: speech.
    public static let domain = ErrorDomain.speech
}

/// Why speech could not be rendered.
public typealias SpeechError = LoopError<SpeechFailure>

extension SpeechSynthesizer {
    /// Renders `phrases` as `language` reads them: Japanese kanji first given their readings,
    /// the language's voice else its language without the region.
    public func render(_ phrases: [String], in language: SpeechLanguage, wordsPerMinute: Int = 175) throws(SpeechError)
        -> [RenderedSpeech]
    {
        try withVoices(phrases, in: language) { (spoken, voice) throws(SpeechError) in
            try render(spoken, voice: voice, wordsPerMinute: wordsPerMinute)
        }
    }

    /// `body` given `phrases` as `language` reads them (Japanese kanji given their readings)
    /// and each of the language's voices in turn, until one is there.
    fileprivate func withVoices<Value>(
        _ phrases: [String], in language: SpeechLanguage,
        _ body: ([String], String) throws(SpeechError) -> Value
    ) throws(SpeechError) -> Value {
        var spoken = phrases
        if language.needsReadings {
            spoken = []
            for phrase in phrases { spoken.append(try JapaneseReadings.shared.reading(phrase)) }
        }
        var missing: SpeechError?
        for voice in language.voices() {
            do {
                return try body(spoken, voice)
            } catch  where error.kind == .voiceMissing {
                missing = missing ?? error
            }
        }
        throw missing ?? SpeechError(.voiceMissing, "espeak-ng has no voice for \(language.code)")
    }
}

extension ErrorDomain {
    /// The speech synthesizer.
    public static let speech = ErrorDomain(rawValue: "speech")
}
