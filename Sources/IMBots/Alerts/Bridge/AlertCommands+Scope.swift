import IMProtocol

/// Where the alert bridge's commands work and whose routes they act on: the groups the
/// bridge posts alerts to, and the routes of those groups' alerts.
extension AlertCommands {
    /// Whether the bridge posts alerts to `conversation`: a webhook rule's `incident` or
    /// `send` names it, or an incident of it is kept (a `to:` template chose it).
    static func postsTo(_ conversation: String, definition: BotDefinition, journal: BotJournal) -> Bool {
        if fixedConversations(of: definition).contains(conversation) { return true }
        return journal.read { state in state.alerts.books.keys.contains { IncidentBookKey($0)?.conversation == conversation } }
    }

    /// The conversations webhook rules name in their `incident` and `send` actions, where
    /// no template chooses them.
    static func fixedConversations(of definition: BotDefinition) -> Set<String> {
        var conversations: Set<String> = []
        for rule in definition.rules where rule.webhook != nil {
            for action in rule.actions {
                switch action.spec {
                case .incident(let spec) where spec.to.text.isConstant:
                    conversations.insert(spec.to.text.source.lowercased())
                case .send(let spec):
                    if let to = spec.to, to.text.isConstant { conversations.insert(to.text.source.lowercased()) }
                default: break
                }
            }
        }
        return conversations
    }

    /// The routes whose alerts go to `conversation`.
    func routes(in conversation: String, definition: BotDefinition) -> [WebhookEndpoint] {
        var paths: [String] = []
        for rule in definition.rules {
            guard let path = rule.webhook?.path, !paths.contains(path) else { continue }
            let fixed = rule.actions.contains { action in
                switch action.spec {
                case .incident(let spec): spec.to.text.isConstant && spec.to.text.source.lowercased() == conversation
                case .send(let spec): spec.to.map { $0.text.isConstant && $0.text.source.lowercased() == conversation } ?? false
                default: false
                }
            }
            if fixed { paths.append(path) }
        }
        for key in parts.journal.read({ Array($0.alerts.books.keys) }) {
            guard let book = IncidentBookKey(key), book.conversation == conversation,
                  let path = definition.rule(named: book.rule)?.webhook?.path, !paths.contains(path) else { continue }
            paths.append(path)
        }
        return paths.compactMap(definition.webhook(path:))
    }

    /// The route a book's rule takes its webhooks from.
    static func endpoint(ofBook book: String, in definition: BotDefinition) -> WebhookEndpoint? {
        guard let key = IncidentBookKey(book), let path = definition.rule(named: key.rule)?.webhook?.path else { return nil }
        return definition.webhook(path: path)
    }

    /// The route of the incident of `groupKey` in `conversation`.
    func endpoint(ofGroup groupKey: String, in conversation: String, definition: BotDefinition) -> WebhookEndpoint? {
        let books = parts.journal.read { $0.alerts.books }
        let book = books.keys.sorted().first { key in
            IncidentBookKey(key)?.conversation == conversation && books[key]?[groupKey] != nil
        }
        return book.flatMap { Self.endpoint(ofBook: $0, in: definition) }
    }
}
