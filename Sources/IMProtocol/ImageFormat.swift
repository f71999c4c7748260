/// Image formats accepted for avatars, recognised from their first bytes (never from a
/// client's `Content-Type`): the server checks uploads with it, clients label them.
public enum ImageFormat: String, Sendable, CaseIterable {
    case png, jpeg, gif, webp

    /// `image/png`, …
    public var mimeType: String { "image/\(rawValue)" }

    /// The format of an image, or nil when the bytes are none of these.
    public static func sniff<Bytes: Collection>(_ data: Bytes) -> ImageFormat? where Bytes.Element == UInt8 {
        let bytes = [UInt8](data.prefix(12))
        func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + prefix.count && Array(bytes[offset..<offset + prefix.count]) == prefix
        }
        if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if starts([0xFF, 0xD8, 0xFF]) { return .jpeg }
        if starts(Array("GIF87a".utf8)) || starts(Array("GIF89a".utf8)) { return .gif }
        if starts(Array("RIFF".utf8)), starts(Array("WEBP".utf8), at: 8) { return .webp }
        return nil
    }
}
