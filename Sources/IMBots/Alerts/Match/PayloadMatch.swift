import Templates
import YAMLCoding

/// A webhook rule's `match:`: every entry's condition must hold on the payload.
///
/// ```yaml
/// match:
///   status: firing                                   # equality
///   commonLabels.severity: { in: [critical, page] }  # list membership
///   alerts.labels.instance: { regex: '^db-' }        # any alert's instance
///   commonAnnotations.runbook_url: { present: true }
/// ```
public struct PayloadMatch: Sendable {
    /// One `path: condition` entry.
    public struct Clause: Sendable {
        public let path: PayloadPath
        public let condition: PayloadCondition
        /// Where the path is written, for `check`.
        let mark: YAMLMark?

        public init(path: PayloadPath, condition: PayloadCondition) {
            self.init(path: path, condition: condition, mark: nil)
        }

        init(path: PayloadPath, condition: PayloadCondition, mark: YAMLMark?) {
            self.path = path
            self.condition = condition
            self.mark = mark
        }
    }

    public let clauses: [Clause]

    public init(_ clauses: [Clause]) { self.clauses = clauses }

    /// Whether every clause holds on `payload` (its ``WebhookPayload/templateValue``).
    public func matches(_ payload: WebhookPayload) -> Bool {
        firstFailure(in: payload.templateValue) == nil
    }

    /// One line per clause, for `explain`: whether it held, and the values its path
    /// reached (`✓ commonLabels.severity in [critical, page]: saw 'critical'`).
    public func explanation(of value: TemplateValue) -> [String] {
        clauses.map { clause in
            let values = clause.path.values(in: value)
            let held = clause.condition.holds(for: values)
            let texts = values.prefix(5).map { "'" + ($0.scalarText ?? "(\(Self.kind(of: $0)))") + "'" }
            let seen = values.isEmpty ? "saw nothing there"
                : "saw " + texts.joined(separator: ", ") + (values.count > 5 ? " and \(values.count - 5) more" : "")
            return (held ? "✓ " : "✗ ") + "\(clause.path) \(clause.condition.summary): \(seen)"
        }
    }

    private static func kind(of value: TemplateValue) -> String {
        switch value {
        case .array: "a list"
        case .object: "an object"
        default: "a value"
        }
    }

    /// The first clause that does not hold, for `explain`; nil when all hold.
    public func firstFailure(in value: TemplateValue) -> Clause? {
        clauses.first { !$0.condition.holds(for: $0.path.values(in: value)) }
    }
}
