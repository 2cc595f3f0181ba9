/// What a screen may do with a study session as it plays: its displays to show, the learner's
/// events to send, and its end. The study player (LoopPlayback) is one; a screen knows it only as
/// this, and never the player.
public protocol StudyControls: Sendable {
    /// Starts the session; the displays as they change, until it ends.
    func start() -> AsyncStream<StudyDisplay>
    /// What the learner did.
    func send(_ event: StudyEvent)
    /// Ends the session (its study is kept).
    func quit()
    /// Plays `samples` (the session's format) while the session is paused.
    func playAside(_ samples: [Float])
    /// What it shows now.
    var display: StudyDisplay { get }
    /// The groups studied through so far (0-based, in the order each was first finished).
    var studiedGroups: [Int] { get }
    /// Waits for the end; what was studied, phrase by phrase.
    func finished() async throws -> [Int: PhraseStudy]
}

/// What a screen may do with a recording as it is captured: its statuses, the author's keys,
/// and how it ended. The take recorder (LoopRecording) is one.
public protocol RecordingControls: Sendable {
    /// Starts capturing; the status as it changes, until capturing ends.
    func start() -> AsyncStream<RecordingStatus>
    /// The status now.
    var status: RecordingStatus { get }
    /// Read the current phrase again.
    func rerecord()
    /// Back one phrase.
    func back()
    /// Pause or resume.
    func togglePause()
    /// Finish, to save.
    func finish()
    /// Quit, throwing the take away.
    func quit()
    /// Stop, keeping the take to recover (Ctrl-C).
    func interrupt()
    /// Waits for capturing to end; how it ended.
    func stopped() async throws -> RecordingStop
    /// Removes the take's files (after a quit).
    func delete()
}
