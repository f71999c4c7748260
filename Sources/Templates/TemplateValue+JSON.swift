import Foundation

extension TemplateValue {
    /// Converts the output of `JSONSerialization` (or plain Swift values) into a value.
    ///
    /// Accepts `NSNull`, `nil`, `Bool`, numbers (`NSNumber` and Swift integer and
    /// floating-point types), `String`, `Substring`, arrays and `[String: Any]`.
    /// JSON booleans stay booleans even though Foundation stores them as `NSNumber`.
    /// Anything else becomes its `String(describing:)` text, so a stray `Date` or `URL`
    /// still renders as something recognisable instead of vanishing.
    public init(json: Any) {
        switch json {
        case is NSNull, Optional<Any>.none:
            self = .null
        case let value as String:
            self = .string(value)
        case let value as Substring:
            self = .string(String(value))
        case let value as [Any]:
            self = .array(value.map(TemplateValue.init(json:)))
        case let value as [String: Any]:
            self = .object(value.mapValues(TemplateValue.init(json:)))
        case let value as TemplateValue:
            self = value
        case let value as NSNumber:
            self = Self.fromNumber(value)
        default:
            self = .string(String(describing: json))
        }
    }

    /// Classifies a Foundation number: booleans, exact integers, then doubles.
    private static func fromNumber(_ number: NSNumber) -> TemplateValue {
        // Foundation backs JSON `true`/`false` (and Swift `Bool`) by a dedicated
        // boolean subclass; comparing classes is the portable way to tell it from 1/0.
        if type(of: number) == type(of: NSNumber(value: true)) {
            return .bool(number.boolValue)
        }
        switch UInt8(bitPattern: number.objCType.pointee) {
        case UInt8(ascii: "d"), UInt8(ascii: "f"):
            return .double(number.doubleValue)
        case UInt8(ascii: "Q"), UInt8(ascii: "L"), UInt8(ascii: "I"), UInt8(ascii: "S"), UInt8(ascii: "C"):
            let unsigned = number.uint64Value
            return unsigned <= UInt64(Int.max) ? .int(Int(unsigned)) : .double(number.doubleValue)
        default:
            return .int(number.intValue)
        }
    }
}

extension TemplateValue: Codable {
    /// Decodes any JSON value; numbers that are exact integers become `int`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Int.self) {
            self = .int(value)
        } else if let value = try? container.decode(Double.self) {
            self = .double(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([TemplateValue].self) {
            self = .array(value)
        } else if let value = try? container.decode([String: TemplateValue].self) {
            self = .object(value)
        } else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "expected a JSON value usable by a template")
        }
    }

    /// Encodes the value as the JSON it came from.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .int(let value): try container.encode(value)
        case .double(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}
