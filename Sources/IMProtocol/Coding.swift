import Foundation

/// The JSON coders of the wire format, configured once.
public enum WireJSON {
    /// A new encoder: compact, keys sorted so answers read the same every time.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return encoder
    }

    /// A new decoder.
    public static func decoder() -> JSONDecoder { JSONDecoder() }
}
