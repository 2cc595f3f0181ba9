import LoopWorkflows

/// Each command's discussion in its help (its `--help` and its man page): the interface's
/// words, beside what the commands print.
public enum CommandHelp {
    /// `loop edit`.
    public static let edit = """
        Without options, opens the loop's text in $VISUAL or $EDITOR (else vi). When you save, \
        the text is split again: every phrase whose text did not change keeps its audio. A \
        phrase whose text you changed in place (a typo fixed) keeps its clip, marked as \
        recorded for its earlier text (`loop attach --changed` records it again); with \
        --drop-changed-audio it loses its clip instead. New, split and merged phrases need \
        audio (`loop attach` cuts a take onto them). With --title, --language, --tag or \
        --untag, changes just those.

        With --phrases, opens the phrase editor: the loop's text full screen, the phrase at \
        the cursor highlighted with its clip's times and a waveform strip. It plays the \
        phrase (as you move, unless auto-play is off), nudges its start or end by 10 or 50 \
        ms (within the kept take; the take is not changed), records it again from the \
        microphone (--capture-device), splits it at the split point in its text and at the \
        nearest pause in its audio, merges it with the next, undoes and redoes. Nothing is \
        written until you save (w, or on leaving, confirmed), then in one transaction. The \
        keys are listed on the screen (and in README).
        """

    /// `loop adjust`.
    public static let adjust =
        "Give --start and/or --end in seconds within the take (see `loop show`), or --shift to move both by milliseconds (negative moves earlier). The take is not re-encoded."

    /// `loop image`.
    public static let image = """
        The picture is checked (its type by its bytes, at most 32 MiB and 16384 pixels a side, \
        whole and decodable), then stored in the library as the audio is; a picture given \
        before replaces it. `loop study` and `loop record` show the phrase's picture, else its \
        group's, else the loop's; bundles and the Loop Library's pages carry them. A loop's \
        text may name pictures too: `# image: FILE`, `# group-image: FILE`, `# phrase-image: \
        FILE` (see README).
        """

    /// `loop list`.
    public static let list = """
        On a terminal, a screenful, with a line saying how many more there are (--limit N \
        for another number, --all for every one); into a pipe or a file, and with --json, \
        every loop unless --limit says otherwise. --json prints the array as it goes.
        """

    /// `loop show`.
    public static let show = """
        LOOP is a unique start of the loop's id (as git takes short hashes), its title, or a unique start of its title (case and accents aside). \
        A phrase whose text was changed after its clip was recorded is marked \
        (recorded as "its earlier text"). --json prints {"id", "title", "language", \
        "groups": [{"phrases": [{"text", "translation", "start", "end", "recordedText"}]}]}, \
        times in seconds within the take (null for a phrase with no audio yet); \
        recordedText is the earlier text the clip reads, or null when it reads the phrase.
        """

    /// `loop search`.
    public static let search =
        "Case and accents do not matter (`cafe` finds `Café`); every word must match, as a word or its start (`caf` finds `café`). Best matches first."

    /// `loop rm`.
    public static let rm =
        "Asks first, unless --yes. Its audio stays in the library until `loop gc`."

    /// `loop doctor`.
    public static let doctor =
        "Exits non-zero when something is wrong, saying what to do about it. `--repair` mends what can be mended without a choice of yours: reviews dated after today, from a clock that was wrong. Unreferenced audio and pieces of interrupted imports are listed; `loop gc` removes them. Phrases whose clip was recorded for an earlier text (a typo fixed after recording) are listed too; they are not a fault."

    /// `loop new`.
    public static let `new` = """
        The text is split into groups and phrases (see `loop split`). With --audio, the take \
        is cut at its pauses so that every phrase gets its clip; the take itself is kept in \
        the library, so boundaries can be moved later (`loop adjust`). Cuts worth a listen \
        are named on standard error.

        A take of a part of a long text (a chapter with its whole book: a text of three times \
        the take's speech or more) is found in the text first; the loop holds the paragraphs \
        it reads, titled by the heading above them (`Book: Chapter 4`; --title wins).

        From a film or a podcast with subtitles: --media FILE --subtitles FILE.srt|.vtt \
        makes a phrase of each cue (its text cleaned of tags, speaker labels and sound \
        descriptions), starts a group where the dialogue pauses (--group-pause) or every \
        --group-size cues, takes the translations from --translation FILE.srt|.vtt by time \
        overlap, and moves each clip's edges to the speech's edges around the cue, so that no \
        clip starts or ends inside a word. --shift MS moves every cue first (for subtitles \
        made for another cut of the film).
        """

    /// `loop attach`.
    public static let attach =
        "The take reads, with pauses or without, the phrases that have no audio yet (all of them, or those of --group), in order. With --changed, also the phrases whose clip was recorded for an earlier text (see `loop show`). With --group G where every phrase has audio, the take reads the whole group and replaces its audio (the old clips stay until the new take is cut)."

    /// `loop unpublish`.
    public static let unpublish =
        "Only the loop's author can. Learners who installed it keep their copy; `loop update` tells them it is gone."

    /// `loop update`.
    public static let update = """
        Asks each loop's server for its newest revision (sending the version it has, so an \
        unchanged loop costs no download) and imports it as `loop import` would: your study \
        history stays; a loop you edited here since is not overwritten (--force replaces \
        your edits). Prints one line per loop updated; a loop that cannot be updated gets a \
        line on standard error and a non-zero exit status, and the others go on.
        """

    /// `loop browse`.
    public static let browse = """
        Words match titles, tags, phrases and translations, whatever their case and accents. \
        Each line ends with the loop's link: `loop import LINK` installs it.
        """

    /// `loop serve`.
    public static let serve =
        "The server is the program `loop-server` beside `loop`; every argument goes to it."

    /// `loop identity`.
    public static let identity = """
        Bundles you export are signed with this library's Ed25519 key (created on first use, \
        stored owner-only in the library folder); only its holder can publish updates of your \
        loops. Keep a backup: --export writes the key, --import restores it.
        """

    /// `loop export`.
    public static let `export` = """
        The bundle (the default format) holds each loop's text, groups, phrases and clips, its \
        takes as FLAC, and your signature (see docs/bundle-format.md). --format srt or vtt \
        writes one loop's phrases as subtitles, and labels as an Audacity label track, timed \
        over the take they were cut from; with --clips, over one FLAC file of the clips one \
        after the other, written beside (lesson.srt and lesson.flac). --format anki writes an \
        Anki package (.apkg): a deck of the loop with a note per phrase (fields Text, \
        Translation, Audio, Loop, Group, Number), which Anki updates, not duplicates, when a \
        newer export of the loop is imported.
        """

    /// `loop import`.
    public static let `import` = """
        A new loop is added. A loop already here is updated in place only when the same \
        author signed it and the revision is higher; its study history stays. Another \
        author's bundle for a loop here is refused (--as-copy imports it as a new loop); a \
        loop edited here since its import is not overwritten (--as-copy, or --force). Each \
        bundle is verified in full first and goes in whole or not at all. Folders are taken \
        newest revision first. A bundle that is refused (damaged, another author's, ...) gets \
        one line on standard error naming it and why; the others are imported all the same, \
        a summary follows, and the exit status is non-zero. A link (`loop import \
        https://HOST/9ddbb9`) downloads the loop's bundle and imports it the same way, and \
        `loop update` pulls its later revisions.
        """

    /// `loop publish`.
    public static let publish = """
        --to URL (or $LOOP_SERVER, or `server = URL` in ~/.config/loop/config) uploads the \
        loop signed with your identity and prints its preview link; publish again after an \
        edit to update it, and learners get it with `loop update`. Only the loop's author \
        can publish it (--as-copy publishes your own copy, with a new id). The server shows \
        the name set with `loop identity --name`. --to DIR writes the bundle into a folder \
        (a synced folder, a USB stick) instead, replacing the previous revision atomically.
        """

    /// `loop` itself.
    public static let loop = """
        Author a loop from a text (a phrase per line, a blank line between groups) and a take \
        of it (a recording, an audiobook chapter, a film's audio): the take is cut into one clip \
        per phrase by following its words, no pauses needed, and the text is found in a take \
        that holds more or less than it. \
        Keep loops in a library (`loop new`, `list`, `search`), record them live (`loop \
        record`), study them in the terminal (`loop study`), and share them as signed bundles \
        (`loop export`, `import`, `publish`). Data lives in $XDG_DATA_HOME/loop unless \
        --library or $LOOP_LIBRARY says otherwise.
        """

    /// `loop record`.
    public static let record = """
        Shows the group's text with the phrase to read next highlighted, an input level meter \
        and how many phrases are done. Read with a pause after each phrase: the highlight \
        moves on. Keys: r read the current phrase again, b back one phrase, space pause or \
        resume, enter finish and save, q quit without saving (asks). When you finish, the take \
        is cut with the text (as `loop segment --text` does) and saved in one step; phrases \
        that already have audio are replaced only if you recorded them now.

        The take is written to disk as it is captured: after Ctrl-C or a crash, \
        `loop record LOOP --recover` saves what was recorded. --input FILE replays a \
        recording through the same pipeline (at real speed, or --fast); without a terminal \
        it runs to the end of the file and saves, with no keys needed.
        """

    /// `loop segment`.
    public static let segment = """
        Without a hint, every pause long enough to end a phrase is a cut. With --count N the \
        take is cut into exactly N phrases at the N-1 clearest pauses. With --text FILE the \
        take is cut by what is said: the text is rendered by a speech synthesizer (espeak-ng) \
        in its language (--language, else the text's `# language:`, else a guess from its \
        script), aligned with the take, and each cut placed on the pause or the quietest point \
        where one phrase ends; a take of only some of the phrases is cut into those, and a \
        take of another text is refused.

        --json prints one object: {"file", "duration", "sampleRate", "channels", \
        "segments": [{"start", "end"}], "cuts": [{"at", "pause", "confidence"}], "method" \
        ("text" or "pauses"), "language", "languageOrigin" ("given", "loop", "guessed"), \
        "phrases" ([first, last] of the text's phrases the take reads), "notes"}, times in seconds.
        """

    /// `loop cut`.
    public static let cut = """
        Writes OUT/01-<phrase>.flac, OUT/02-<phrase>.flac, ... in phrase order, and \
        OUT/labels.txt, an Audacity label track of the cuts in the original take. The take \
        itself is not changed. Clips appear only once all of them are written.
        """

    /// `loop split`.
    public static let split = """
        The text has a phrase per line and a blank line between groups; `text | translation` \
        adds a translation or note; `# title:`, `# language:`, `# translation:` and `# tags:` \
        lines before the first phrase set the loop's metadata. See README.md for the format.
        """

    /// `loop review`.
    public static let review = """
        Each group studied has its next review: after a group is studied (here, or by \
        `loop study`, or on a loop's page and merged with `loop stats --import`), the learner \
        rates it again, hard, good or easy (keys 1-4; a group studied through and not rated \
        counts as good), and the scheduler gives it its next date: FSRS by default (its \
        published parameters, desired retention 0.9), or a fixed ladder of 6 hours, 1, 2, \
        4, 7, 14 and 28 days (--scheduler ladder).

        `loop review` plays what is due today, overdue first, then due, then up to the day's \
        new groups (10 a day unless --new-per-day says), one group after another in the \
        study view: the group loops until you rate it. --list and --json show the queue \
        without studying. Without a terminal, each group plays once (to --output) and is \
        rated as --rate says.

        Reviews are found by a group's text: a loop updated, re-imported, re-cut or edited \
        keeps the reviews of every group whose text did not change. They are yours: they \
        never go into a bundle or to a Loop Library.
        """

    /// `loop stats`.
    public static let stats = """
        Beside each loop's time and repetitions: the reviews due today and this week, \
        retention (the share of reviews over the last 30 days not rated again), the streak \
        (days in a row with study) and the days studied over the last six months, drawn as a \
        calendar (`loop review` says what is due). With a LOOP, each group begun and its next \
        review, and your last attempts at each phrase with their scores (`loop study --shadow`).


        --import FILE merges the progress a loop's page kept in a browser (its "Export my \
        progress" button) into the library: each session of a loop that is here, its phrases \
        matched by number and text (a phrase edited since is left out, and counted). A \
        session merged once is not merged again.
        """

    /// `loop study`.
    public static let study = """
        repeat-with-me plays each phrase, then a gap to say it along (the gap factor times the \
        phrase's length, plus 0.3 s); listen-and-repeat plays the whole group, then a silence \
        as long as the group times the factor, to repeat it aloud. The selection loops until \
        you quit, or for --rounds, or once with --once.

        On a terminal a full-screen view shows the groups, the current phrase and the keys \
        (? for help), and the picture of the phrase (else of its group, else of the loop): \
        kitty graphics in kitty, sixel where the terminal says it has them, character art \
        otherwise; --no-images shows none. Without a terminal, or with --once, it prints a \
        line per step.

        Sound goes to the sound card (--device, default `default`), or to a file (--output \
        track.mp3, with --once or --rounds: a study track to take along, in the format its name \
        says: WAV, FLAC, Ogg, Opus, MP3 or AIFF), or nowhere (--output null). Time and repetitions per phrase are saved (`loop stats`).

        --shadow (repeat-with-me) records you during each gap from the sound card \
        (--capture-device, default `default`) and scores each attempt against the phrase's \
        clip: how much was said and which words were missed, the pace against the model's and \
        the word furthest from it, and how closely the melody follows the model's (0 to 1; \
        `loop compare` says how). In the view, c plays the model, then your last attempt. \
        The last \(Shadowing.attemptsKeptPerPhrase) attempts of each phrase are kept \
        in the library (at most \(Shadowing.attemptMebibytes) MiB in all: the oldest \
        go first); `loop stats LOOP` shows them; bundles never carry them.
        """

    /// `loop compare`.
    public static let compare = """
        The attempt is aligned with the model frame by frame (as a take is with its text): \
        how much of the phrase was said and which words were missed, the attempt's pace \
        against the model's and the word said furthest from it, and how closely its melody \
        (pitch in semitones from each speaker's middle, by aubio's YIN) follows the model's, \
        from 0 to 1. An attempt whose words are not the model's says so. `loop study \
        --shadow` scores each attempt as you study.
        """
}
