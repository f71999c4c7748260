/// The outcome of reading a scalar as a Swift primitive.
enum ScalarDecoding<Value> {
    case value(Value)
    case mismatch
    case outOfRange
}

/// Swift primitives the decoder reads straight from a node, with the words used for them
/// in "expected ..." messages.
protocol ScalarDecodable {
    static var yamlExpectation: String { get }
    /// The stand-in a lenient pass uses after a failure.
    static var yamlPlaceholder: Self { get }
    static func decodeYAML(_ node: YAMLNode) -> ScalarDecoding<Self>
}

extension String: ScalarDecodable {
    static var yamlExpectation: String { "a string" }
    static var yamlPlaceholder: String { "" }

    /// Any non-null scalar, as written: `port: 80` read as a String is `"80"`.
    static func decodeYAML(_ node: YAMLNode) -> ScalarDecoding<String> {
        guard let scalar = node.scalar, !node.isNull else { return .mismatch }
        return .value(scalar.text)
    }
}

extension Bool: ScalarDecodable {
    static var yamlExpectation: String { "true or false" }
    static var yamlPlaceholder: Bool { false }

    static func decodeYAML(_ node: YAMLNode) -> ScalarDecoding<Bool> {
        guard case .bool(let bool)? = node.scalarValue else { return .mismatch }
        return .value(bool)
    }
}

/// Integers accept whole numbers, including floats without a fraction (`3.0`).
protocol IntegerScalarDecodable: ScalarDecodable, FixedWidthInteger {}

extension IntegerScalarDecodable {
    static var yamlExpectation: String { "an integer" }
    static var yamlPlaceholder: Self { 0 }

    static func decodeYAML(_ node: YAMLNode) -> ScalarDecoding<Self> {
        switch node.scalarValue {
        case .int(let int)?:
            return Self(exactly: int).map { .value($0) } ?? .outOfRange
        case .double(let double)? where double.isFinite && double.rounded() == double:
            if let text = node.scalar?.text, let exact = Self(text) { return .value(exact) }
            return Self(exactly: double).map { .value($0) } ?? .outOfRange
        default:
            return .mismatch
        }
    }
}

extension Int: IntegerScalarDecodable {}
extension Int8: IntegerScalarDecodable {}
extension Int16: IntegerScalarDecodable {}
extension Int32: IntegerScalarDecodable {}
extension Int64: IntegerScalarDecodable {}
extension UInt: IntegerScalarDecodable {}
extension UInt8: IntegerScalarDecodable {}
extension UInt16: IntegerScalarDecodable {}
extension UInt32: IntegerScalarDecodable {}
extension UInt64: IntegerScalarDecodable {}

/// Floating-point types accept integers and floats, including `.inf` and `.nan`.
protocol FloatScalarDecodable: ScalarDecodable, BinaryFloatingPoint {}

extension FloatScalarDecodable {
    static var yamlExpectation: String { "a number" }
    static var yamlPlaceholder: Self { 0 }

    static func decodeYAML(_ node: YAMLNode) -> ScalarDecoding<Self> {
        switch node.scalarValue {
        case .int(let int)?: return .value(Self(int))
        case .double(let double)?: return .value(Self(double))
        default: return .mismatch
        }
    }
}

extension Double: FloatScalarDecodable {}
extension Float: FloatScalarDecodable {}
