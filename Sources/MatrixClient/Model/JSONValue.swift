import Foundation

/// A JSON value as a homeserver sent it: event contents are open-ended (any client may
/// add fields), so they are kept whole and read through the accessors below.
public enum JSONValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([JSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: JSONValue].self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object; nil for anything else or a missing key.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    /// The text of a string.
    public var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// An integer (a number without a fraction).
    public var integer: Int64? {
        switch self {
        case .integer(let value): value
        case .number(let value) where value == value.rounded() && abs(value) < 9e15: Int64(value)
        default: nil
        }
    }

    /// The members of an object.
    public var object: [String: JSONValue]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The elements of an array.
    public var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    /// This value decoded as `T` (e.g. an event's content as ``PowerLevels``).
    public func decode<T: Decodable>(as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONEncoder().encode(self))
    }
}
