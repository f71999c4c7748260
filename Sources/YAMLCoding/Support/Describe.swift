import Foundation

/// How nodes and coding paths are named in error messages.
enum Describe {
    /// `rules[2].reply`; empty for the document root.
    ///
    /// `name` turns a type's key name into the text's spelling; keys that are text
    /// already (dictionary keys) are shown as they are.
    static func path(_ path: [any CodingKey], name: (String) -> String = { $0 }) -> String {
        var text = ""
        for key in path {
            if let index = key as? IndexKey {
                text += "[\(index.index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key is TextKey ? key.stringValue : name(key.stringValue)
            }
        }
        return text
    }

    /// What a node is, for "found ..." : `a list`, `a mapping`, `"abc"`, `42`, `null`.
    static func found(_ node: YAMLNode) -> String {
        switch node.content {
        case .sequence: return "a list"
        case .mapping: return "a mapping"
        case .scalar(let scalar):
            switch node.scalarValue {
            case .null?: return scalar.text.isEmpty ? "an empty value" : "null"
            case .string?: return quoted(scalar.text)
            default: return scalar.text
            }
        }
    }

    /// The text in double quotes, escaped and shortened to fit on a line.
    static func quoted(_ text: String) -> String {
        let limit = 60
        var shown = text.count > limit ? String(text.prefix(limit)) + "..." : text
        shown = shown.replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
            .replacingOccurrences(of: "\t", with: "\\t")
        return "\"" + shown + "\""
    }
}

/// A coding key for a sequence position.
struct IndexKey: CodingKey {
    let index: Int
    init(_ index: Int) { self.index = index }
    init?(intValue: Int) { self.index = intValue }
    init?(stringValue: String) { return nil }
    var intValue: Int? { index }
    var stringValue: String { "\(index)" }
}

/// A coding key for any mapping key text.
struct TextKey: CodingKey {
    let stringValue: String
    init(_ text: String) { stringValue = text }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = "\(intValue)" }
    var intValue: Int? { Int(stringValue) }
}
