import LoopPictures

/// A picture's pixels: 8-bit red, green, blue and alpha, row by row.
public struct RGBAPicture: Sendable, Equatable {
    /// Its width in pixels.
    public var width: Int
    /// Its height in pixels.
    public var height: Int
    /// Its pixels, four bytes each (red, green, blue, alpha), row by row.
    public var pixels: [UInt8]
}

/// Decodes a picture's first frame (a GIF's first, as the loops want a still).
public enum PictureDecoder {
    /// The picture at `path`, checked as hostile input: its header (``PictureFile/checkHeader(_:)``:
    /// type, size, whole), then its first frame decoded, into a small picture so that memory
    /// stays small. Throws a ``PictureError`` naming the file and the fault.
    public static func check(_ path: String) throws(PictureError) -> PictureInfo {
        let info = try PictureFile.checkHeader(path)
        _ = try decode(path, info: info, fitting: 64)
        return info
    }

    /// The picture at `path`, checked (``PictureFile/checkHeader(_:)``), decoded and scaled
    /// down, aspect kept, to fit `size`×`size` pixels.
    public static func decode(_ path: String, fitting size: Int) throws(PictureError) -> RGBAPicture {
        let info = try PictureFile.checkHeader(path)
        return try decode(path, info: info, fitting: size)
    }

    /// `info`, from the picture's header, says its format and its size.
    static func decode(_ path: String, info: PictureInfo, fitting size: Int) throws(PictureError) -> RGBAPicture {
        try FFmpegPictureCalls.decodeFirstFrame(
            path: path, format: info.format, width: info.width, height: info.height, fitting: size)
    }
}
