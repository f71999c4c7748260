import Templates
import YAMLCoding

extension Rule: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case name, when, `do`, mode, examples
        case dedupe
    }

    /// Decodes one rule and checks its templates against the variables it provides.
    public convenience init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.dedupe) {
            let node = try container.decode(YAMLNode.self, forKey: .dedupe)
            context.report(.notAvailable, "'dedupe' is not available in this version", at: node.mark)
        }
        // Each part is read even when one before it is wrong, so every problem is reported;
        // the rule is then built from stand-ins, and the loader refuses the file.
        let name = try context.attempt { try container.decode(Name.self, forKey: .name) } ?? Name.unnamed
        let when = (try context.attempt { try container.decodeIfPresent(ConditionSet.self, forKey: .when) } ?? nil)
            ?? .empty
        let mode = (try context.attempt { try container.decodeIfPresent(RuleMode.self, forKey: .mode) } ?? nil)
            ?? .enforce
        let rawActions = try container.decode(YAMLNode.self, forKey: .do)
        let actions = try context.attempt { try container.decode([Action].self, forKey: .do) } ?? []
        let examples = (try context.attempt { try container.decodeIfPresent([RuleExample].self, forKey: .examples) }
            ?? nil) ?? []

        Self.reportTemplateErrors(actions, raw: rawActions.sequence ?? [], context: context)
        if actions.isEmpty, rawActions.sequence?.isEmpty ?? false {
            context.report(.invalidValue, "rule '\(name.value)' needs at least one action in 'do'", at: rawActions.mark)
        }
        self.init(name: name.value, mode: mode, location: SourceLocation(file: context.file, mark: decoder.mark),
                  when: when, actions: actions, examples: examples)
    }

    /// Unknown variables in the rule's templates, each at its tag.
    ///
    /// An `http` action's `as` name is known to the actions after it. The names are read
    /// from the written actions, so one that failed to decode still counts (its own
    /// problem is reported where it is).
    private static func reportTemplateErrors(_ actions: [Action], raw: [YAMLNode], context: BotDecoding) {
        var httpNames: [(index: Int, name: String)] = []
        for (index, node) in raw.enumerated() {
            if let name = node["http"]?["as"]?.scalar?.text { httpNames.append((index, name)) }
        }
        let allHTTPNames = Set(httpNames.map(\.name))
        var errors: [YAMLError] = []
        for action in actions {
            let position = raw.firstIndex {
                $0.mark.line == action.location.line && $0.mark.column == action.location.column
            } ?? raw.count
            let earlier = Set(httpNames.filter { $0.index < position }.map(\.name))
            let known = TemplateRoots.builtin.union(earlier)
            for text in action.spec.templates {
                for reference in text.template.unknownReferences(knownRoots: known) {
                    guard let root = reference.path.first else { continue }
                    let at = text.position(line: reference.line, column: reference.column)
                    if allHTTPNames.contains(root) {
                        errors.append(context.error(.unknownVariable,
                            "template variable '\(reference.name)' is used before the http action "
                                + "that sets '\(root)' (as: \(root))", at: at))
                    } else {
                        let hint = Suggestion.hint(for: root, among: known)
                        errors.append(context.error(.unknownVariable,
                            "unknown template variable '\(reference.name)'\(hint) (known: "
                                + known.sorted().joined(separator: ", ") + ")", at: at))
                    }
                }
                errors += bareObjectErrors(text, httpNames: earlier, context: context)
            }
        }
        for error in errors { context.record(error) }
    }

    /// `{{now}}`, `{{sender}}`, `{{created}}`: objects render as nothing, which is
    /// never what the author meant.
    private static func bareObjectErrors(_ text: TemplateText, httpNames: Set<String>,
                                         context: BotDecoding) -> [YAMLError] {
        text.template.references.compactMap { reference in
            guard reference.kind == .variable, reference.path.count == 1, !reference.isInsideContextSection
            else { return nil }
            let root = reference.path[0]
            guard let example = TemplateRoots.objectFieldExamples[root]
                    ?? (httpNames.contains(root) ? "\(root).text" : nil) else { return nil }
            return context.error(.unknownVariable,
                "'{{\(root)}}' renders nothing: it is an object; name one of its fields, e.g. '{{\(example)}}'",
                at: text.position(line: reference.line, column: reference.column))
        }
    }
}
