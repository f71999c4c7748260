import Foundation
import IMProtocol
import Testing

@Suite struct ImageFormatTests {
    static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48]
    static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10, 0x4A, 0x46, 0x49, 0x46]
    static let gif87: [UInt8] = Array("GIF87a".utf8) + [0x01, 0x00, 0x01, 0x00]
    static let gif89: [UInt8] = Array("GIF89a".utf8) + [0x01, 0x00, 0x01, 0x00]
    static let webp: [UInt8] = Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBPVP8 ".utf8)

    @Test(arguments: [
        (png, ImageFormat.png),
        (jpeg, .jpeg),
        (gif87, .gif),
        (gif89, .gif),
        (webp, .webp),
        // The shortest inputs that still carry the whole signature.
        (Array(png.prefix(8)), .png),
        (Array(jpeg.prefix(3)), .jpeg),
        (Array(gif89.prefix(6)), .gif),
        (Array(webp.prefix(12)), .webp),
    ])
    func recognisesSignatures(bytes: [UInt8], format: ImageFormat) {
        #expect(ImageFormat.sniff(bytes) == format)
        #expect(ImageFormat.sniff(Data(bytes)) == format)
    }

    @Test(arguments: [
        [],
        Array(png.prefix(7)),
        Array(jpeg.prefix(2)),
        Array(gif89.prefix(5)),
        Array(webp.prefix(11)),
        Array(webp.prefix(4)),
        // One byte off in each signature.
        [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0B, 0x00],
        [0xFF, 0xD8, 0xFE, 0xE0],
        Array("GIF88a".utf8) + [0x01],
        Array("gif89a".utf8) + [0x01],
        Array("RIFF".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WAVEfmt ".utf8),
        Array("RIFX".utf8) + [0x24, 0x00, 0x00, 0x00] + Array("WEBPVP8 ".utf8),
        // Other formats.
        Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8),
        Array("BM6\u{0}\u{0}\u{0}".utf8),
        [0x00, 0x00, 0x00, 0x18, 0x66, 0x74, 0x79, 0x70, 0x61, 0x76, 0x69, 0x66],
        Array("%PDF-1.7".utf8),
    ] as [[UInt8]])
    func rejectsOtherBytes(bytes: [UInt8]) {
        #expect(ImageFormat.sniff(bytes) == nil)
    }

    @Test func signatureMustBeAtTheStart() {
        #expect(ImageFormat.sniff([0x00] + Self.png) == nil)
        #expect(ImageFormat.sniff([0x00] + Self.jpeg) == nil)
    }

    @Test func sniffsSlicesFromTheirOwnStart() {
        let buffer: [UInt8] = [0x00, 0x01] + Self.webp
        #expect(ImageFormat.sniff(buffer[2...]) == .webp)
        #expect(ImageFormat.sniff(buffer[1...]) == nil)
    }

    @Test func mimeTypes() {
        #expect(ImageFormat.allCases.map(\.mimeType) == ["image/png", "image/jpeg", "image/gif", "image/webp"])
    }
}
