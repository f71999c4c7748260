import Templates
import YAMLCoding

extension TemplateCheck {
    /// What one action of a rule can read, and the sentence for each name it cannot.
    struct Place {
        let rule: Rule
        /// The sources that hold values in this rule.
        let provided: Set<TemplateVariable.Source>
        let shape: TemplateShape
        /// The `as` names of the rule's later `http` actions.
        let later: Set<String>

        /// Why `reference` renders nothing (or not what its author meant); nil when it is fine.
        ///
        /// Inside `{{#section}}`s a name is looked up the way the renderer does: in the
        /// innermost section's value first (one alert of `{{#payload.alerts}}`), then
        /// outwards, then at the root. A name is not judged where a section's value has
        /// no known shape (a JSON body), or below a section whose own name is wrong (that
        /// one is reported at its tag).
        func problem(with reference: TemplateReference) -> String? {
            let path = reference.path
            guard let root = path.first else { return nil }
            guard let frames = frames(around: reference) else { return nil }
            if let frame = Self.holder(of: root, in: frames) {
                guard frame.shape.type != .any else { return nil }
                return describe(frame.shape.find(path), path: path, kind: reference.kind, source: frame.shape.source)
            }
            guard let top = shape.field(root) else {
                let name = reference.name
                if later.contains(root) {
                    return "template variable '\(name)' is used before the http action that sets '\(root)' (as: \(root))"
                }
                if let hint = payloadHint(for: name) { return hint }
                let roots = shape.fields.filter { provided.contains($0.shape.source) }.map(\.name).sorted()
                if let inner = frames.last(where: { !$0.shape.fields.isEmpty }) {
                    let close = Self.suggestion(for: root, among: inner.shape.fields.map(\.name))
                        ?? Suggestion.closest(to: root, among: roots)
                    return "unknown template variable '\(name)' inside {{#\(inner.section)}}"
                        + (close.map { " (did you mean '\($0)'?)" } ?? "")
                        + " (known there: " + inner.shape.fieldNames.joined(separator: ", ")
                        + "; at the top: " + roots.joined(separator: ", ") + ")"
                }
                return "unknown template variable '\(name)'" + Suggestion.hint(for: root, among: roots)
                    + " (known: " + roots.joined(separator: ", ") + ")"
            }
            guard provided.contains(top.source) else { return unavailable(reference.name, root, top.source) }
            return describe(shape.find(path), path: path, kind: reference.kind, source: top.source)
        }

        /// The value one section pushes, with the section's name.
        private typealias Frame = (shape: TemplateShape, section: String)

        /// The innermost frame where the renderer finds `name`: one that has it, or one of
        /// unknown shape (which may); nil when only the root can.
        private static func holder(of name: String, in frames: [Frame]) -> Frame? {
            frames.last { $0.shape.type == .any || $0.shape.field(name) != nil }
        }

        /// In a webhook rule, a name that is a field of the body without its root
        /// (`{{commonLabels.alertname}}`): the body is `payload` in every template of the
        /// rule, its dedupe key included.
        private func payloadHint(for name: String) -> String? {
            guard rule.webhook != nil, let payload = shape.field("payload"), provided.contains(payload.source) else {
                return nil
            }
            let root = String(name.prefix { $0 != "." })
            guard payload.type == .any || payload.field(root) != nil else { return nil }
            return "unknown template variable '\(name)' (did you mean 'payload.\(name)'?): a webhook rule names the "
                + "body 'payload' in its templates and its dedupe key ('{{payload.\(name)}}'); only match: paths start "
                + "at the body"
        }

        /// The values the sections around `reference` push, outermost first; nil when a
        /// name inside cannot be judged.
        private func frames(around reference: TemplateReference) -> [Frame]? {
            var frames: [Frame] = []
            for section in reference.sectionStack where !section.inverted {
                guard let first = section.path.first else { return nil }
                var found: TemplateShape?
                if let frame = Self.holder(of: first, in: frames) {
                    if frame.shape.type == .any { return nil }
                    if case .found(let node) = frame.shape.find(section.path) { found = node }
                } else if let top = shape.field(first), provided.contains(top.source),
                          case .found(let node) = shape.find(section.path) {
                    found = node
                }
                guard let node = found else { return nil }
                let name = section.path.joined(separator: ".")
                switch node.type {
                case .any: return nil
                case .list(let item): frames.append((node.item ?? TemplateShape(type: item, source: node.source), name))
                default: frames.append((node, name))
                }
            }
            return frames
        }

        /// The sentence for what following `path` found; nil when it is fine.
        private func describe(_ finding: TemplateShape.Finding, path: [String], kind: TemplateReference.Kind,
                              source: TemplateVariable.Source) -> String? {
            let name = path.joined(separator: ".")
            switch finding {
            case .open:
                return nil
            case .found(let node):
                guard kind == .variable, node.type == .object else { return nil }
                let example = node.exampleField ?? "KEY"
                return "'{{\(name)}}' renders nothing: it is an object; name one of its fields, e.g. '{{\(name).\(example)}}'"
            case .unknownField(let index, let node):
                return unknownField(path, index, node, source: source)
            case .noFields(let index, let type):
                let prefix = path[..<index].joined(separator: ".")
                if case .list = type {
                    return "unknown template variable '\(name)': '\(prefix)' is a \(type); write \(prefix).1 for its "
                        + "first item, \(prefix).length for their number, or repeat over it with "
                        + "{{#\(prefix)}}...{{/\(prefix)}}"
                }
                if prefix == "args", path.count == 2, let number = Int(path[1]) {
                    // The docs' {{match.1}} makes {{args.1}} look like the first argument.
                    let position = number < 1 ? "1" : path[1]
                    return "unknown template variable '\(name)' (did you mean 'argv.\(position)'?): 'args' is the "
                        + "arguments as one text; 'argv' is them as a list, 'argv.1' the first"
                }
                return "unknown template variable '\(name)': '\(prefix)' is \(type), which has no fields"
            case .badPosition(let index):
                let prefix = path[..<index].joined(separator: ".")
                return "'{{\(name)}}' is always empty: positions in a list count from 1 ('{{\(prefix).1}}' is the first)"
            }
        }

        private func unknownField(_ path: [String], _ index: Int, _ node: TemplateShape,
                                  source: TemplateVariable.Source) -> String {
            let name = path.joined(separator: ".")
            let prefix = path[..<index].joined(separator: ".")
            let field = path[index]
            // Among the names themselves: `labls` is close to `labels`, not to `labels.NAME`.
            let hint = Self.suggestion(for: field, among: node.fields.map(\.name)).map { " (did you mean '\(prefix).\($0)'?)" } ?? ""
            let fields = node.fieldNames.joined(separator: ", ")
            switch source {
            case .regex where index == 1 && field == "0":
                return "'{{\(name)}}' is refused: positions count from 1 everywhere ('{{match.1}}' is the first group); "
                    + "the whole match is '{{matched}}'"
            case .regex where index == 1:
                return "unknown template variable '\(name)'\(hint): the rule's regex has no group '\(field)' "
                    + "(its groups: \(fields))"
            case .state where index == 1:
                let keys = fields.isEmpty ? "it has no keys yet" : "its keys: \(fields)"
                return "unknown template variable '\(name)'\(hint): the bot's state has no key '\(field)' (\(keys); a "
                    + "key is known once 'state:' gives it a value or a set or increment action writes it)"
            default:
                return "unknown template variable '\(name)'\(hint): '\(prefix)' has no field '\(field)' "
                    + "(its fields: \(fields))"
            }
        }

        /// `{{member.nickname}}` in a rule for messages, `{{args}}` without a command...
        private func unavailable(_ name: String, _ root: String, _ source: TemplateVariable.Source) -> String {
            let head = "'{{\(name)}}' is always empty in rule '\(rule.name)': "
            if rule.webhook != nil {
                return head + "'\(root)' is set for \(source.description), and the rule takes webhooks (its 'webhook:')"
            }
            switch source {
            case .command:
                return head + "'\(root)' is set by a 'command' matcher, which the rule does not have"
            case .regex:
                let what = root == "matched" ? "the whole match" : "the groups"
                return head + "'\(root)' holds \(what) of a text 'regex', which the rule does not have"
            case .webhook:
                return head + "'\(root)' is a webhook's body, and the rule is not a webhook rule (when: { webhook: PATH })"
            case .strike:
                return head + "'\(root)' is set only in a strike's warning (strike: { escalate: [ { warn: TEXT } ] })"
            default:
                return head + "'\(root)' is set for \(source.description), and the rule handles \(rule.events) events"
                    + " (its 'event:' says which)"
            }
        }

        /// A close name (a typo), else the one name that starts with `word` (`nick`).
        static func suggestion(for word: String, among names: [String]) -> String? {
            if let close = Suggestion.closest(to: word, among: names) { return close }
            let longer = names.filter { $0.hasPrefix(word) && word.count >= 3 }
            return longer.count == 1 ? longer[0] : nil
        }
    }
}
