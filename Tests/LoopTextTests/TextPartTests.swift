import LoopText
import Testing

/// The part of a long text a take reads: whole paragraphs, and the heading above them.
struct TextPartTests {
    static let book = """
        # title: The Clockmaker

        Chapter One

        I was fifteen when my mother put me on the tram.
        She gave me a letter and a loaf.

        The tram climbed slowly out of the valley.

        Chapter Two

        The workshop stood at the bottom of the lane.
        A brass bell rang when I opened the door.

        Abel looked at me over his spectacles.
        "You are smaller than your mother said."

        Chapter Three

        Years later, I came back to the town.
        """

    @Test func aPartIsTheParagraphsHoldingTheLinesReadUnderTheNearestHeading() throws {
        let source = try LoopSource(parsing: Self.book)
        // Phrases 5...7 (0-based): the second chapter's first paragraph and a line of its second.
        let part = source.part(holding: 5...7)
        #expect(part.heading == "Chapter Two")
        #expect(part.phrases == 5..<9)
        #expect(part.source.phrases.map(\.text) == Array(source.phrases[5..<9].map(\.text)))
        #expect(part.source.title == "The Clockmaker")
        // A part that starts with its heading is titled by it and holds it.
        let withHeading = source.part(holding: 4...8)
        #expect(withHeading.heading == "Chapter Two" && withHeading.phrases == 4..<9)
        // Before any heading but the first, and a text without headings.
        #expect(source.part(holding: 1...2).heading == "Chapter One")
        let plain = try LoopSource(parsing: "One line here.\nAnother line.\n\nA third line.\n")
        #expect(plain.part(holding: 2...2).heading == nil)
        #expect(plain.part(holding: 2...2).phrases == 2..<3)
    }

    @Test func aHeadingIsAParagraphOfOneShortLineThatIsNotASentence() throws {
        let source = try LoopSource(parsing: Self.book)
        #expect(source.headingPhrases == [0, 4, 9])
        let notHeadings = try LoopSource(
            parsing: "It rained.\n\nWhere are you going?\n\n\"Yes.\"\n\n"
                + "This line is far too long to be anything but a sentence of a story\n\nTwo lines\nin one paragraph\n")
        #expect(notHeadings.headingPhrases.isEmpty)
    }
}
