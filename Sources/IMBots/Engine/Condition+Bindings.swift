/// What a rule's conditions bind for its templates, as the template check needs to know
/// it: the regex groups under `match.*` and whether a command gives `args` and `argv`.
extension Condition {
    /// The names under `match.*` this condition can bind; nil when it holds no regex.
    /// Nothing inside `not` binds.
    var regexGroups: [String]? {
        switch self {
        case .text(let text):
            var groups: [String]?
            for test in text.tests {
                if case .regex(let regex) = test { groups = (groups ?? []) + regex.groups }
            }
            return groups
        case .any(let alternatives):
            return ConditionSet.union(alternatives.map(\.regexGroups))
        case .command, .from, .member, .conversation, .mentionsMe, .time, .not, .moderation, .webhook:
            return nil
        }
    }

    /// Whether it binds `args` and `argv` (a `command`, also as an alternative of `any`).
    var bindsCommand: Bool {
        switch self {
        case .command: true
        case .any(let alternatives): alternatives.contains(where: \.bindsCommand)
        case .text, .from, .member, .conversation, .mentionsMe, .time, .not, .moderation, .webhook: false
        }
    }
}

extension ConditionSet {
    /// The names under `match.*` its regexes can bind, in order without repeats; nil when
    /// it has no regex that binds.
    var regexGroups: [String]? { Self.union(conditions.map(\.regexGroups)) }

    /// Whether a command of its binds `args` and `argv`.
    var bindsCommand: Bool { conditions.contains(where: \.bindsCommand) }

    static func union(_ lists: [[String]?]) -> [String]? {
        let present = lists.compactMap { $0 }
        guard !present.isEmpty else { return nil }
        var seen = Set<String>()
        return present.joined().filter { seen.insert($0).inserted }
    }
}
