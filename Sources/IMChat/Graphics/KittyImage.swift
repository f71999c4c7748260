import Foundation

/// Pictures in the kitty graphics protocol: the pixels sent with the placement, in
/// chunks of 4096 base64 bytes, drawn at the cursor without moving it, answering nothing.
enum KittyImage {
    /// The escape sequences that draw `pixels` at the cursor.
    static func draw(_ pixels: Pixels) -> String {
        let payload = Data(pixels.rgb).base64EncodedString()
        var out = ""
        var index = payload.startIndex
        var first = true
        while index < payload.endIndex {
            let end = payload.index(index, offsetBy: 4096, limitedBy: payload.endIndex) ?? payload.endIndex
            let more = end < payload.endIndex ? 1 : 0
            let keys = first ? "a=T,f=24,s=\(pixels.width),v=\(pixels.height),C=1,q=2,m=\(more)" : "m=\(more)"
            out += "\u{1B}_G\(keys);\(payload[index..<end])\u{1B}\\"
            index = end
            first = false
        }
        return out
    }

    /// Removes every picture drawn (before the next frame places them again).
    static let clear = "\u{1B}_Ga=d,d=A,q=2\u{1B}\\"
}
