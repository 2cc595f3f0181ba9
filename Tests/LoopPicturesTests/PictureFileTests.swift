import Foundation
import LoopFFmpeg
import LoopFoundation
import LoopPictures
import LoopTerminal
import LoopTestSupport
import Testing

@Suite struct PictureFileTests {
    /// The picture's middle pixel, as (red, green, blue).
    private func middle(_ picture: RGBAPicture) -> (Int, Int, Int) {
        let index = ((picture.height / 2) * picture.width + picture.width / 2) * 4
        return (Int(picture.pixels[index]), Int(picture.pixels[index + 1]), Int(picture.pixels[index + 2]))
    }

    @Test(arguments: [
        ("picture-red.png", PictureFormat.png, (255, 0, 0)),
        ("picture-green.jpg", PictureFormat.jpeg, (0, 128, 0)),
        ("picture-blue.webp", PictureFormat.webp, (0, 0, 255)),
        // A GIF shows its first frame (yellow), not a later one (blue).
        ("picture-yellow-then-blue.gif", PictureFormat.gif, (255, 255, 0)),
    ])
    func everyFormatIsCheckedAndDecoded(name: String, format: PictureFormat, color: (Int, Int, Int)) throws {
        let info = try PictureDecoder.check(Fixture.path(name))
        #expect(info.format == format)
        #expect(info.width == 96 && info.height == 64)
        let picture = try PictureDecoder.decode(Fixture.path(name), fitting: 48)
        #expect(picture.width == 48 && picture.height == 32)
        let (red, green, blue) = middle(picture)
        #expect(
            abs(red - color.0) < 24 && abs(green - color.1) < 24 && abs(blue - color.2) < 24,
            "\(name): \((red, green, blue))")
    }

    private func refusal(_ bytes: [UInt8], named name: String) throws -> PictureError? {
        let path = Scratch.path("picture") + "-" + name
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        do {
            _ = try PictureDecoder.check(path)
            return nil
        } catch {
            #expect(error.path == path)
            return error
        }
    }

    private func bytes(_ name: String) -> [UInt8] {
        [UInt8](FileManager.default.contents(atPath: Fixture.path(name)) ?? Data())
    }

    @Test func textNamedLikeAPictureIsRefusedByItsBytes() throws {
        let error = try refusal(Array("<svg onload=alert(1)>".utf8), named: "bird.png")
        #expect(error?.kind == .notAPicture)
        #expect(error?.message == "not a PNG, JPEG, WebP or GIF picture")
    }

    /// A PNG can only be decoded whole: above 16 million pixels (64 MB decoded) it is refused,
    /// where a JPEG of that size is decoded at a fraction of it.
    @Test func aPNGTooLargeToDecodeWholeIsRefusedFromItsHeader() throws {
        var png = bytes("picture-red.png")
        for offset in [16, 20] {
            png[offset] = 0
            png[offset + 1] = 0
            png[offset + 2] = UInt8(7_000 >> 8)
            png[offset + 3] = UInt8(7_000 & 0xFF)
        }
        let error = try refusal(png, named: "big.png")
        #expect(error?.kind == .tooLarge)
        #expect(
            error?.message
                == "the picture is 7000 × 7000 pixels; pictures are at most 16384 pixels a side and 16 million pixels as a PNG, WebP or GIF (50 million as a JPEG)"
        )
    }

    @Test func hugePixelCountsAreRefusedBeforeDecoding() throws {
        // A PNG whose header claims 30,000 × 30,000 pixels: refused from the header alone.
        var png = bytes("picture-red.png")
        for (offset, value) in [(16, 30_000), (20, 30_000)] {
            png[offset] = 0
            png[offset + 1] = 0
            png[offset + 2] = UInt8(value >> 8)
            png[offset + 3] = UInt8(value & 0xFF)
        }
        let error = try refusal(png, named: "bomb.png")
        #expect(error?.kind == .tooLarge)
        #expect(error?.message.contains("30000 × 30000 pixels") == true)
        // The same for a GIF's logical screen.
        var gif = bytes("picture-yellow-then-blue.gif")
        gif[6] = 0x30
        gif[7] = 0x75
        gif[8] = 0x30
        gif[9] = 0x75
        #expect(try refusal(gif, named: "bomb.gif")?.kind == .tooLarge)
    }

    @Test(arguments: ["picture-red.png", "picture-green.jpg", "picture-blue.webp", "picture-yellow-then-blue.gif"])
    func truncatedPicturesAreRefused(name: String) throws {
        let whole = bytes(name)
        let error = try refusal(Array(whole.prefix(whole.count * 2 / 3)), named: "cut-" + name)
        #expect(error?.kind == .damaged, "\(name): \(String(describing: error))")
    }

    @Test func damagedDataWithItsEndInPlaceIsRefused() throws {
        // The pixels scrambled, the end marker whole: the decoder finds it.
        var png = bytes("picture-red.png")
        for index in 41..<(png.count - 16) { png[index] ^= 0x5A }
        #expect(try refusal(png, named: "scrambled.png")?.kind == .damaged)
    }

    @Test func characterArtSixelAndKittyAreDrawnInTheBoxGiven() throws {
        let picture = try PictureDecoder.decode(Fixture.path("picture-red.png"), fitting: 256)
        let art = TerminalPicture(picture, columns: 20, rows: 8, graphics: .symbols(.trueColor))
        #expect(art.columns <= 20 && art.rows <= 8 && art.rows >= 4)
        #expect(art.lines.count == art.rows)
        // Red, in 24-bit colour.
        let colors = art.lines[0].matches(of: /[34]8;2;(\d+);(\d+);(\d+)/).map { (Int($0.1)!, Int($0.2)!, Int($0.3)!) }
        #expect(
            colors.contains { $0.0 > 240 && $0.1 < 16 && $0.2 < 16 } && !colors.contains { $0.1 > 16 || $0.2 > 16 },
            "\(art.lines[0].debugDescription)")
        let plain = TerminalPicture(picture, columns: 20, rows: 8, graphics: .symbols(.none))
        #expect(!plain.lines.joined().contains("38;2"))
        let sixel = TerminalPicture(picture, columns: 20, rows: 8, graphics: .sixel)
        #expect(sixel.lines.isEmpty)
        #expect(
            sixel.sequence.hasPrefix("\u{1B}P") && sixel.sequence.contains("q") && sixel.sequence.hasSuffix("\u{1B}\\"))
        let kitty = TerminalPicture(picture, columns: 20, rows: 8, graphics: .kitty)
        #expect(kitty.sequence.hasPrefix("\u{1B}_G"))
    }
}
