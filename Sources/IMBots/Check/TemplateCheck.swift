import Templates
import YAMLCoding

/// Checks every template of a bot's rules down to the leaf: each name it reads must be a
/// path of ``TemplateVariables`` that the rule provides (its events, its matchers), with
/// the rule's own regex groups, the bot's declared state keys and the `as` names of
/// earlier `http` actions filled in, and a webhook rule's payload as its route's format
/// gives it (``AlertTemplatePaths``; an incident's `title:` and `line:` read their own
/// values). Every other path is reported at its tag, with a suggestion where one is close.
///
/// Inside a `{{#section}}` a name is looked up as the renderer does, in the section's
/// value first (one item of a list), then outwards; where that value's shape is not known
/// (a JSON body), names inside are not judged.
struct TemplateCheck {
    let file: String
    /// The bot's declared state keys; nil when not all of them are known (a rule that did
    /// not decode may write others), so that every state key is accepted.
    let state: TemplateShape?
    /// The formats of the bot's webhook routes, by path.
    var webhooks: [String: WebhookFormat] = [:]

    /// The problems of one rule's templates.
    func problems(in rule: Rule) -> [BotConfigError] {
        let provided = Self.provided(by: rule)
        var problems: [BotConfigError] = []
        for action in rule.actions {
            let earlier = rule.results.filter { $0.location < action.location }.map(\.name)
            let later = Set(rule.results.map(\.name)).subtracting(earlier)
            let groups = rule.decodedWhen ? rule.when.regexGroups ?? [] : nil
            let payload = rule.webhook.flatMap { webhooks[$0.path] }.map(AlertTemplatePaths.payload)
            let names = TemplateShape.Names(groups: groups, state: state, results: earlier, payload: payload)
            let shape = TemplateShape.make(TemplateVariables.all, names: names)
            let place = Place(rule: rule, provided: provided, shape: shape, later: later)
            for (text, place) in Self.places(of: action, rule: rule, place) {
                for reference in text.template.references where Self.isJudged(reference) {
                    guard let message = place.problem(with: reference) else { continue }
                    let mark = text.position(line: reference.line, column: reference.column)
                    problems.append(BotConfigError(code: .unknownVariable, location: SourceLocation(file: file, mark: mark),
                                                   message: message))
                }
            }
        }
        return problems
    }

    /// Each template of `action` with what it reads: the rule's variables, except for an
    /// incident's `title:` (`incident`) and `line:` (`alert`).
    private static func places(of action: Action, rule: Rule, _ place: Place) -> [(TemplateText, Place)] {
        if case .moderation(.strike(let spec)) = action.spec {
            let warning = Place(rule: rule, provided: place.provided.union([.strike]), shape: place.shape, later: place.later)
            return spec.escalate.compactMap(\.warning).map { ($0, warning) }
        }
        guard case .incident(let spec) = action.spec else { return action.spec.templates.map { ($0, place) } }
        func own(_ shape: TemplateShape) -> Place { Place(rule: rule, provided: [.webhook], shape: shape, later: []) }
        return [(spec.to.text, place)] + [spec.title.map { ($0, own(AlertTemplatePaths.title())) },
                                          spec.line.map { ($0, own(AlertTemplatePaths.line())) }].compactMap { $0 }
    }

    /// Names the check can judge: not partials, not `{{.}}`.
    private static func isJudged(_ reference: TemplateReference) -> Bool {
        reference.kind != .partial && !reference.path.isEmpty
    }

    /// The sources whose variables hold values in this rule.
    static func provided(by rule: Rule) -> Set<TemplateVariable.Source> {
        // A `when` that did not decode is reported itself; what it would provide is not known.
        guard rule.decodedWhen else { return Set(TemplateVariable.Source.allCases) }
        var sources: Set<TemplateVariable.Source> = [.always, .state, .httpResult]
        sources.insert(rule.webhook == nil ? .feed : .webhook)
        for source in TemplateVariable.Source.allCases {
            if let types = source.eventTypes, types.contains(where: rule.events.accepts) { sources.insert(source) }
        }
        if rule.when.bindsCommand { sources.insert(.command) }
        if rule.when.regexGroups != nil { sources.insert(.regex) }
        return sources
    }

    /// The state keys a bot declares: those of `state:`, and those its `set` and
    /// `increment` actions write.
    static func declaredState(initial: [String: YAMLValue], rules: [Rule]) -> TemplateShape {
        let root = TemplateShape.state(.object)
        for (key, value) in initial.sorted(by: { $0.key < $1.key }) {
            root.merge(shape(of: TemplateValue(yaml: value)), at: [key])
        }
        for rule in rules {
            for action in rule.actions {
                switch action.spec {
                case .set(let assignments):
                    // Rendered without variables: only the value's structure counts here.
                    for assignment in assignments {
                        root.merge(shape(of: assignment.value.render(.object([:])).templateValue), at: assignment.key.path)
                    }
                case .increment(let spec):
                    root.merge(TemplateShape.state(.number), at: spec.key.path)
                default:
                    break
                }
            }
        }
        return root
    }

    private static func shape(of value: TemplateValue) -> TemplateShape {
        switch value {
        case .null: .state(.any)
        case .bool: .state(.boolean)
        case .int, .double: .state(.number)
        case .string: .state(.text)
        case .array: .state(.list(.any))
        // An empty object is a place for keys still to come.
        case .object(let members) where members.isEmpty: .state(.any)
        case .object(let members):
            .state(.object, fields: members.sorted { $0.key < $1.key }.map { ($0.key, shape(of: $0.value)) })
        }
    }
}
