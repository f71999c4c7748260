import Templates
import YAMLCoding

extension Rule: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case name, when, `do`, mode, examples
        case dedupe, onEdit
    }

    /// Decodes one rule; its templates are checked with the rest of the file
    /// (``TemplateCheck``), once the bot's state keys are known.
    public convenience init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        let container = try decoder.container(keyedBy: Key.self)
        var dedupe: DedupeSpec?
        if container.contains(.dedupe) {
            let node = try container.decode(YAMLNode.self, forKey: .dedupe)
            do {
                dedupe = try DedupeSpec(yaml: node, file: context.file)
            } catch {
                for problem in error.errors { context.record(problem) }
            }
        }
        // Each part is read even when one before it is wrong, so every problem is reported;
        // the rule is then built from stand-ins, and the loader refuses the file.
        let name = try context.attempt { try container.decode(Name.self, forKey: .name) } ?? Name.unnamed
        let when = try context.attempt { try container.decodeIfPresent(ConditionSet.self, forKey: .when) }
        let mode = (try context.attempt { try container.decodeIfPresent(RuleMode.self, forKey: .mode) } ?? nil)
            ?? .enforce
        let onEdit = try container.decodeIfPresent(Located<Bool>.self, forKey: .onEdit)
        if let onEdit, let when = when ?? nil, when.events != nil || when.webhook != nil {
            context.report(.invalidValue, when.webhook != nil
                ? "on_edit applies to rules that take messages; a webhook rule has no edits"
                : "on_edit applies to rules without 'event:'; list message_edited in 'event:' instead", at: onEdit.mark)
        }
        let rawActions = try container.decode(YAMLNode.self, forKey: .do)
        let actions = try context.attempt { try container.decode([Action].self, forKey: .do) }
        let examples = (try context.attempt { try container.decodeIfPresent([RuleExample].self, forKey: .examples) }
            ?? nil) ?? []

        if actions?.isEmpty ?? false, rawActions.sequence?.isEmpty ?? false {
            // A rule without a usable name is counted from 1, as people count.
            let rule = name.mark.isKnown ? "rule '\(name.value)'"
                : "rule \((decoder.codingPath.last?.intValue ?? 0) + 1)"
            context.report(.invalidValue, "\(rule) needs at least one action in 'do'", at: rawActions.mark)
        }
        // An `http` action's `as` name, read from the file as written.
        let results = (rawActions.sequence ?? []).compactMap { node -> (name: String, location: SourceLocation)? in
            node["http"]?["as"]?.scalar.map { ($0.text, SourceLocation(file: context.file, mark: node.mark)) }
        }
        self.init(name: name.value, mode: mode, location: SourceLocation(file: context.file, mark: decoder.mark),
                  when: (when ?? nil) ?? .empty, actions: actions ?? [], examples: examples, results: results,
                  decodedWhen: when != nil, decodedActions: actions != nil, dedupe: dedupe, onEdit: onEdit?.value)
    }
}
