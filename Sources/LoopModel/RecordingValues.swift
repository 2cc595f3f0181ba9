import Foundation

/// What the recording view shows.
public struct RecordingStatus: Sendable, Equatable {
    /// The phrase expected next (0-based; `phraseCount` once all are read).
    public var phrase: Int
    /// Phrases to read.
    public var phraseCount: Int
    /// The input's peak level over the last 50 ms, dBFS.
    public var level: Float
    /// Samples at or near full scale lately: the input is too loud.
    public var clipping: Bool
    /// Whether the reader is speaking now.
    public var speaking: Bool
    /// Whether recording is paused.
    public var paused: Bool
    /// Seconds recorded so far.
    public var seconds: Double
    /// Times the input fell behind and audio was dropped.
    public var overruns: Int
    /// Whether every phrase was read and the take may be saved.
    public var finished: Bool

    /// A status from its fields.
    public init(
        phrase: Int, phraseCount: Int, level: Float, clipping: Bool, speaking: Bool, paused: Bool, seconds: Double,
        overruns: Int, finished: Bool
    ) {
        (self.phrase, self.phraseCount, self.level, self.clipping) = (phrase, phraseCount, level, clipping)
        (self.speaking, self.paused, self.seconds, self.overruns) = (speaking, paused, seconds, overruns)
        self.finished = finished
    }
}

/// How a recording ended: finished (to save), quit (to throw away), or interrupted (kept, to
/// recover later).
public enum RecordingStop: Sendable, Equatable { case finish, quit, interrupt }
