import Templates

/// A YAML value whose strings are templates: the `json` of an `http` action and the
/// values of `set`. Object keys keep their written order.
indirect enum ValueTemplate: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(TemplateText)
    case array([ValueTemplate])
    case object([OrderedEntry<ValueTemplate>])

    /// Every template inside.
    var templates: [TemplateText] {
        switch self {
        case .null, .bool, .int, .double: []
        case .string(let text): [text]
        case .array(let items): items.flatMap(\.templates)
        case .object(let entries): entries.flatMap(\.value.templates)
        }
    }

    /// Renders every string, keeping the structure.
    func render(_ context: TemplateValue) -> RenderedValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let text): .string(text.render(context))
        case .array(let items): .array(items.map { $0.render(context) })
        case .object(let entries): .object(entries.map { ($0.key, $0.value.render(context)) })
        }
    }
}

/// A rendered `ValueTemplate`: a JSON value with ordered object keys.
indirect enum RenderedValue: Sendable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([RenderedValue])
    case object([(String, RenderedValue)])

    /// The value as templates and state see it (object order is dropped).
    var templateValue: TemplateValue {
        switch self {
        case .null: .null
        case .bool(let value): .bool(value)
        case .int(let value): .int(value)
        case .double(let value): .double(value)
        case .string(let value): .string(value)
        case .array(let items): .array(items.map(\.templateValue))
        case .object(let entries):
            .object(Dictionary(entries.map { ($0.0, $0.1.templateValue) }, uniquingKeysWith: { _, last in last }))
        }
    }

    /// Compact JSON text, object keys in the order written.
    var json: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .double(let value):
            // JSON has no NaN or infinity; null is the usual stand-in.
            output += value.isFinite ? String(value) : "null"
        case .string(let value): Self.writeString(value, to: &output)
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let entries):
            output += "{"
            for (index, entry) in entries.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(entry.0, to: &output)
                output += ":"
                entry.1.write(to: &output)
            }
            output += "}"
        }
    }

    /// A JSON string literal (RFC 8259): quotes, backslashes and control characters escaped.
    static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
