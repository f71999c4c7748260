import Foundation

/// The JSON coders of the wire format, configured once.
public enum WireJSON {
    /// A new encoder: compact, keys in declaration order.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return encoder
    }

    /// A new decoder.
    public static func decoder() -> JSONDecoder { JSONDecoder() }
}
