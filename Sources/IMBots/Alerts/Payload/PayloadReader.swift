import Foundation
import IMProtocol
import Templates

/// Reads typed fields out of a parsed JSON body, naming the full path of any field that
/// is missing or of the wrong type.
///
/// Unknown keys are ignored on purpose: Alertmanager and Grafana add fields in minor
/// releases, and refusing them would drop real alerts after an upgrade of the sender.
struct PayloadReader {
    let members: [String: TemplateValue]
    /// The path of this object (`alerts[1]`), empty for the body.
    let path: String
    let limits: PayloadLimits

    /// Reads `value` as an object found at `path`.
    init(_ value: TemplateValue, path: String, limits: PayloadLimits) throws(AlertPayloadError) {
        guard case .object(let members) = value else {
            throw AlertPayloadError(.invalidField, field: path.isEmpty ? nil : path,
                                    "\(path.isEmpty ? "the body" : path) must be a JSON object, got \(value.jsonKind)")
        }
        self.members = members
        self.path = path
        self.limits = limits
    }

    func fieldPath(_ key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

    private func wrongType(_ key: String, _ expected: String, _ got: TemplateValue) -> AlertPayloadError {
        AlertPayloadError(.invalidField, field: fieldPath(key),
                          "\(fieldPath(key)) must be \(expected), got \(got.jsonKind)")
    }

    private func missing(_ key: String) -> AlertPayloadError {
        AlertPayloadError(.missingField, field: fieldPath(key), "\(fieldPath(key)) is missing")
    }

    /// The value of `key`, nil when absent or JSON `null`.
    func optional(_ key: String) -> TemplateValue? {
        guard let value = members[key], value != .null else { return nil }
        return value
    }

    func string(_ key: String) throws(AlertPayloadError) -> String {
        guard let value = try optionalString(key) else { throw missing(key) }
        return value
    }

    func optionalString(_ key: String) throws(AlertPayloadError) -> String? {
        guard let value = optional(key) else { return nil }
        guard case .string(let text) = value else { throw wrongType(key, "a string", value) }
        return text
    }

    func int(_ key: String) throws(AlertPayloadError) -> Int? {
        guard let value = optional(key) else { return nil }
        switch value {
        case .int(let number): return number
        case .double(let number) where number.rounded() == number && abs(number) < 9e15: return Int(number)
        default: throw wrongType(key, "a whole number", value)
        }
    }

    /// A `status` field: `firing` or `resolved`.
    func status(_ key: String) throws(AlertPayloadError) -> AlertStatus {
        let text = try string(key)
        guard let status = AlertStatus(rawValue: text) else {
            throw AlertPayloadError(.invalidField, field: fieldPath(key),
                                    "\(fieldPath(key)) must be 'firing' or 'resolved', got '\(text.prefix(64))'")
        }
        return status
    }

    /// A label or annotation set: an object of strings, within the bounds; absent is empty.
    func labels(_ key: String) throws(AlertPayloadError) -> [String: String] {
        guard let value = optional(key) else { return [:] }
        guard case .object(let members) = value else { throw wrongType(key, "an object of strings", value) }
        guard members.count <= limits.maxLabels else {
            throw AlertPayloadError(.tooLarge, field: fieldPath(key),
                                    "\(fieldPath(key)) has \(members.count) entries; at most \(limits.maxLabels) are accepted")
        }
        var labels: [String: String] = [:]
        for (name, member) in members {
            guard case .string(let text) = member else {
                throw wrongType("\(key).\(name)", "a string", member)
            }
            guard name.utf8.count + text.utf8.count <= limits.maxLabelBytes else {
                throw AlertPayloadError(.tooLarge, field: fieldPath("\(key).\(name)"),
                                        "\(fieldPath("\(key).\(name)")) is \(name.utf8.count + text.utf8.count) bytes; "
                                        + "at most \(limits.maxLabelBytes) are accepted")
            }
            labels[name] = text
        }
        return labels
    }

    /// An RFC 3339 time; nil when absent or Go's zero time (`0001-01-01T00:00:00Z`), which
    /// both senders use for "no end yet".
    func time(_ key: String) throws(AlertPayloadError) -> Timestamp? {
        guard let text = try optionalString(key), !text.isEmpty else { return nil }
        if text.hasPrefix("0001-01-01T") { return nil }
        guard let time = Timestamp(rfc3339: text) else {
            throw AlertPayloadError(.invalidField, field: fieldPath(key),
                                    "\(fieldPath(key)) must be an RFC 3339 time, got '\(text.prefix(64))'")
        }
        return time
    }

    /// A list of objects, each read at `key[index]`, at most `limit` long.
    func objects(_ key: String, limit: Int) throws(AlertPayloadError) -> [PayloadReader] {
        guard let value = optional(key) else { throw missing(key) }
        guard case .array(let items) = value else { throw wrongType(key, "a list", value) }
        guard items.count <= limit else {
            throw AlertPayloadError(.tooLarge, field: fieldPath(key),
                                    "\(fieldPath(key)) has \(items.count) alerts; at most \(limit) are accepted "
                                    + "(set max_alerts on the sending receiver)")
        }
        var readers: [PayloadReader] = []
        readers.reserveCapacity(items.count)
        for (index, item) in items.enumerated() {
            readers.append(try PayloadReader(item, path: "\(fieldPath(key))[\(index)]", limits: limits))
        }
        return readers
    }

    /// An object of numbers (Grafana's `values`); absent is empty.
    func numbers(_ key: String) throws(AlertPayloadError) -> [String: Double] {
        guard let value = optional(key) else { return [:] }
        guard case .object(let members) = value else { throw wrongType(key, "an object of numbers", value) }
        guard members.count <= limits.maxLabels else {
            throw AlertPayloadError(.tooLarge, field: fieldPath(key),
                                    "\(fieldPath(key)) has \(members.count) entries; at most \(limits.maxLabels) are accepted")
        }
        var numbers: [String: Double] = [:]
        for (name, member) in members {
            switch member {
            case .int(let number): numbers[name] = Double(number)
            case .double(let number): numbers[name] = number
            default: throw wrongType("\(key).\(name)", "a number", member)
            }
        }
        return numbers
    }
}

extension TemplateValue {
    /// The JSON type of this value, for error messages.
    var jsonKind: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}
