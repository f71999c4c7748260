/// Scalar resolution per the YAML 1.2 core schema.
///
/// Only untagged plain scalars are resolved by their text; quoted and block scalars are
/// strings; the core tags `!!str`, `!!null`, `!!bool`, `!!int`, `!!float` force a type.
extension YAMLNode {
    /// The tags of the core schema, as libyaml spells them after resolving `!!`.
    enum CoreTag {
        static let prefix = "tag:yaml.org,2002:"
        static let str = prefix + "str"
        static let null = prefix + "null"
        static let bool = prefix + "bool"
        static let int = prefix + "int"
        static let float = prefix + "float"
        static let merge = prefix + "merge"
    }

    /// The resolved value of a scalar node (null, bool, int, double or string); nil for
    /// collections.
    ///
    /// A scalar whose explicit core tag does not fit its text resolves as a string (the
    /// loader reports such scalars as errors).
    public var scalarValue: YAMLValue? {
        guard let scalar else { return nil }
        return Self.resolve(scalar, tag: tag)
    }

    static func resolve(_ scalar: Scalar, tag: String?) -> YAMLValue {
        let text = scalar.text
        switch tag {
        case CoreTag.str?, "!"?:
            return .string(text)
        case CoreTag.null?:
            return CoreSchema.null(text) ?? .string(text)
        case CoreTag.bool?:
            return CoreSchema.bool(text) ?? .string(text)
        case CoreTag.int?:
            return CoreSchema.int(text) ?? .string(text)
        case CoreTag.float?:
            return CoreSchema.float(text) ?? CoreSchema.int(text).map(Self.asDouble) ?? .string(text)
        default:
            guard scalar.style == .plain else { return .string(text) }
            return CoreSchema.null(text) ?? CoreSchema.bool(text) ?? CoreSchema.int(text)
                ?? CoreSchema.float(text) ?? .string(text)
        }
    }

    /// Why an explicitly tagged scalar does not fit its tag, or nil if it fits.
    static func tagProblem(_ scalar: Scalar, tag: String?) -> String? {
        let text = scalar.text
        let fits: Bool
        let name: String
        switch tag {
        case CoreTag.null?: (fits, name) = (CoreSchema.null(text) != nil, "!!null")
        case CoreTag.bool?: (fits, name) = (CoreSchema.bool(text) != nil, "!!bool")
        case CoreTag.int?: (fits, name) = (CoreSchema.int(text) != nil, "!!int")
        case CoreTag.float?:
            (fits, name) = (CoreSchema.float(text) != nil || CoreSchema.int(text) != nil, "!!float")
        default: return nil
        }
        return fits ? nil : "'\(text)' is not a valid \(name) value"
    }

    private static func asDouble(_ value: YAMLValue) -> YAMLValue {
        if case .int(let int) = value { return .double(Double(int)) }
        return value
    }
}

/// Recognisers for the core schema's plain-scalar forms.
enum CoreSchema {
    static func null(_ text: String) -> YAMLValue? {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        default: return nil
        }
    }

    static func bool(_ text: String) -> YAMLValue? {
        switch text {
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        default: return nil
        }
    }

    /// `[-+]?[0-9]+`, `0o[0-7]+`, `0x[0-9a-fA-F]+`; decimals too large for `Int` become doubles.
    static func int(_ text: String) -> YAMLValue? {
        let bytes = Array(text.utf8)
        if bytes.count > 2, bytes[0] == UInt8(ascii: "0") {
            let digits = String(decoding: bytes[2...], as: UTF8.self)
            if bytes[1] == UInt8(ascii: "x"), bytes[2...].allSatisfy(isHexDigit) {
                return Int(digits, radix: 16).map(YAMLValue.int)
            }
            if bytes[1] == UInt8(ascii: "o"), bytes[2...].allSatisfy(isOctalDigit) {
                return Int(digits, radix: 8).map(YAMLValue.int)
            }
        }
        var rest = bytes[...]
        if let first = rest.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            rest = rest.dropFirst()
        }
        guard !rest.isEmpty, rest.allSatisfy(isDigit) else { return nil }
        if let int = Int(text) { return .int(int) }
        return Double(text).map(YAMLValue.double)
    }

    /// `[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?`, `[-+]?.inf`, `.nan` (three casings).
    static func float(_ text: String) -> YAMLValue? {
        var unsigned = Substring(text)
        var negative = false
        if let first = unsigned.first, first == "-" || first == "+" {
            negative = first == "-"
            unsigned = unsigned.dropFirst()
        }
        switch unsigned {
        case ".inf", ".Inf", ".INF": return .double(negative ? -.infinity : .infinity)
        default: break
        }
        switch text {
        case ".nan", ".NaN", ".NAN": return .double(.nan)
        default: break
        }
        guard matchesDecimalFloat(Array(unsigned.utf8)), let double = Double(text) else { return nil }
        return .double(double)
    }

    private static func matchesDecimalFloat(_ bytes: [UInt8]) -> Bool {
        var i = 0
        func digits() -> Int {
            let start = i
            while i < bytes.count, isDigit(bytes[i]) { i += 1 }
            return i - start
        }
        let whole = digits()
        if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            let fraction = digits()
            if whole == 0 && fraction == 0 { return false }
        } else if whole == 0 {
            return false
        }
        if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
            i += 1
            if i < bytes.count, bytes[i] == UInt8(ascii: "-") || bytes[i] == UInt8(ascii: "+") { i += 1 }
            if digits() == 0 { return false }
        }
        return i == bytes.count
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private static func isOctalDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "7")
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        isDigit(byte) || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "f"))
    }
}
