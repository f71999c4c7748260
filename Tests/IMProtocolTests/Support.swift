import Foundation
import IMProtocol

/// Wire JSON helpers shared by the tests.
enum JSON {
    /// The wire encoding of a value, as text.
    static func encode<T: Encodable>(_ value: T) throws -> String {
        String(decoding: try WireJSON.encoder().encode(value), as: UTF8.self)
    }

    /// A value decoded from wire JSON text.
    static func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        try WireJSON.decoder().decode(type, from: Data(text.utf8))
    }

    /// Decodes one value written as a JSON literal (`"30s"`, `42`), wrapped in an array
    /// so the top level is always a container.
    static func decodeValue<T: Decodable>(_ type: T.Type, _ literal: String) throws -> T {
        try decode([T].self, "[\(literal)]")[0]
    }

    /// The `debugDescription` of the `dataCorrupted` error thrown when decoding a JSON
    /// literal as `type`; nil when decoding succeeds or fails in another way.
    static func corruption<T: Decodable>(_ type: T.Type, _ literal: String) -> String? {
        do {
            _ = try decodeValue(type, literal)
            return nil
        } catch DecodingError.dataCorrupted(let context) {
            return context.debugDescription
        } catch {
            return nil
        }
    }
}
