import Foundation
import YAMLCoding

/// Locates and reads the shared test data next to the repository, and turns JSON into
/// `YAMLValue` for comparison.
enum SharedTestData {
    /// `<repo>/../shared/testdata`, found from this file's path.
    static let root: URL = {
        let repository = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent()  // YAMLCodingTests
            .deletingLastPathComponent()  // Tests
            .deletingLastPathComponent()  // repository root
        return repository.deletingLastPathComponent()
            .appendingPathComponent("shared/testdata", isDirectory: true)
    }()

    static func directory(_ name: String) -> URL {
        root.appendingPathComponent(name, isDirectory: true)
    }

    static func contents(of directory: URL) -> [URL] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.sorted().map { directory.appendingPathComponent($0) }
    }

    static func exists(_ url: URL) -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    /// Parses a file holding zero or more JSON texts one after another.
    static func jsonStream(_ data: Data) throws -> [YAMLValue] {
        try splitJSONTexts(Array(data)).map { text in
            yamlValue(fromJSON: try JSONSerialization.jsonObject(with: Data(text),
                                                                 options: [.fragmentsAllowed]))
        }
    }

    /// Splits concatenated JSON texts at their top-level boundaries.
    private static func splitJSONTexts(_ bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var texts: [ArraySlice<UInt8>] = []
        var index = 0
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        while index < bytes.count {
            if isSpace(bytes[index]) { index += 1; continue }
            let start = index
            var depth = 0, inString = false, escaped = false
            while index < bytes.count {
                let byte = bytes[index]
                if inString {
                    if escaped { escaped = false }
                    else if byte == UInt8(ascii: "\\") { escaped = true }
                    else if byte == UInt8(ascii: "\"") { inString = false; if depth == 0 { index += 1; break } }
                } else if byte == UInt8(ascii: "\"") {
                    inString = true
                } else if byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[") {
                    depth += 1
                } else if byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") {
                    depth -= 1
                    if depth == 0 { index += 1; break }
                } else if depth == 0 && isSpace(byte) {
                    break
                }
                index += 1
            }
            texts.append(bytes[start..<index])
        }
        return texts
    }

    /// Converts a Foundation JSON object; booleans are told apart from numbers by their
    /// Objective-C type code.
    static func yamlValue(fromJSON object: Any) -> YAMLValue {
        switch object {
        case is NSNull:
            return .null
        case let string as String:
            return .string(string)
        case let number as NSNumber:
            let type = String(cString: number.objCType)
            if type == "c" { return .bool(number.boolValue) }
            if type == "d" || type == "f" || type == "Q" { return .double(number.doubleValue) }
            return .int(number.intValue)
        case let array as [Any]:
            return .array(array.map(yamlValue(fromJSON:)))
        case let dictionary as [String: Any]:
            return .object(dictionary.keys.sorted().map { .init($0, yamlValue(fromJSON: dictionary[$0] as Any)) })
        default:
            return .string("<unexpected JSON object \(type(of: object))>")
        }
    }
}

extension YAMLValue {
    /// Equality as JSON sees it: numbers by value, object keys unordered, NaN equal to NaN.
    func sameJSON(as other: YAMLValue) -> Bool {
        switch (self, other) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case (.int, .int), (.int, .double), (.double, .int), (.double, .double):
            guard let a = number, let b = other.number else { return false }
            return a == b || (a.isNaN && b.isNaN)
        case let (.array(a), .array(b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.sameJSON(as: $1) }
        case let (.object(a), .object(b)):
            guard a.count == b.count else { return false }
            let lookup = Dictionary(b.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
            return a.allSatisfy { member in lookup[member.key].map { member.value.sameJSON(as: $0) } ?? false }
        default: return false
        }
    }

    /// Where two values first differ as JSON, for test messages; nil when they agree.
    func firstDifference(from other: YAMLValue, at path: String = "$") -> String? {
        switch (self, other) {
        case let (.array(a), .array(b)) where a.count == b.count:
            for (index, pair) in zip(a, b).enumerated() {
                if let difference = pair.0.firstDifference(from: pair.1, at: path + "[\(index)]") {
                    return difference
                }
            }
            return nil
        case let (.object(a), .object(b)) where Set(a.map(\.key)) == Set(b.map(\.key)):
            for member in a {
                guard let counterpart = b.first(where: { $0.key == member.key }) else { continue }
                if let difference = member.value.firstDifference(from: counterpart.value,
                                                                 at: path + "." + member.key) {
                    return difference
                }
            }
            return nil
        case let (.object(a), .object(b)):
            let keys = Set(a.map(\.key)), otherKeys = Set(b.map(\.key))
            return "\(path): keys \(keys.subtracting(otherKeys).sorted()) vs \(otherKeys.subtracting(keys).sorted())"
        default:
            return sameJSON(as: other) ? nil : "\(path): \(self) vs \(other)"
        }
    }

    private var number: Double? {
        switch self {
        case .int(let int): return Double(int)
        case .double(let double): return double
        default: return nil
        }
    }
}
