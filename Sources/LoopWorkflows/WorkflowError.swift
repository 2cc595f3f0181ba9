import LoopFoundation

/// The ways a workflow itself can fail (the libraries under it report their own).
public enum WorkflowFailure: String, LoopErrorKind {
    /// The draft of a loop's text cannot be written, or read back.
    case draftUnwritable, draftUnreadable
    /// No Loop Library server is named, or a link does not name a loop on one.
    case noServer
    /// An author name a Loop Library would not show.
    case badName
    /// A progress file (from a loop's page) that cannot be read or is not one.
    case badProgress
    /// The person's editor failed, after text was typed into the draft (kept).
    case editorFailed
    /// Reviews asked of a library that cannot keep them (read-only, or its disk full).
    case cannotKeepReviews
    /// What was asked cannot be done as asked: a phrase or group the loop lacks, a destination
    /// that is neither a folder nor a server's address.
    case refused

    /// Workflow errors are named `workflow.KIND`.
    public static let domain = ErrorDomain.workflow
}

/// A failure of a workflow itself (the libraries under it report their own).
public typealias WorkflowError = LoopError<WorkflowFailure>

extension ErrorDomain {
    /// The workflows.
    public static let workflow = ErrorDomain(rawValue: "workflow")
}
