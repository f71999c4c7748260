import IMProtocol

/// The alert bridge's chat commands, answered in the conversation they are sent in:
///
/// - `/silence 2h [reason]` (a reply to an alert message): shows the matchers the
///   silence will have and the alerts Alertmanager says it will mute, for `/confirm`;
/// - `/confirm`: creates it (`POST /api/v2/silences` on the route's peers);
/// - `/silences`: the active silences; `/unsilence ID`: expires one;
/// - `/ack` (a reply to an alert message): shows who acknowledged it.
///
/// Only members of the group with the route's `silence_role` (admin by default) may
/// silence, confirm and unsilence; anyone in the conversation may list and acknowledge.
/// Silences go to the peers the route names, never to an address from a payload.
struct AlertCommands: CommandTap {
    let parts: BotParts
    let desk: AlertDesk

    static let names: Set<String> = ["silence", "confirm", "silences", "unsilence", "ack"]
    /// The rule name its replies carry (audit lines, client ids).
    static let rule = "alert-commands"

    func takes(_ message: Message) -> Bool {
        let definition = parts.rules.now.definition
        guard !definition.webhooks.isEmpty, let command = ParsedCommand.parse(message.text),
              Self.names.contains(command.name) else { return false }
        return command.target == nil || command.target == definition.account.username
    }

    func handle(_ event: Event, role: MemberRole?) async -> [PendingMessage] {
        guard let message = event.message, let conversation = event.conversation else { return [] }
        let text = await answer(message, in: conversation, role: role)
        let reply = OutgoingMessage(
            to: conversation.address, text: text,
            clientMessageID: IdempotencyKey.make(bot: parts.name, position: event.position, rule: Self.rule, actionIndex: 0),
            replyTo: message.id, rule: Self.rule, action: .reply)
        return PendingMessage.parts(of: reply, position: event.position)
    }

    private func answer(_ message: Message, in conversation: ConversationRef, role: MemberRole?) async -> String {
        let command: AlertCommand
        do {
            guard let parsed = try AlertCommand.parse(message.text) else { return "Not a command of the alert bridge." }
            command = parsed
        } catch {
            return error.description
        }
        let user = message.sender
        let address = conversation.address.description
        switch command {
        case .ack:
            guard let target = message.replyTo else { return "Reply /ack to an alert message." }
            switch await desk.acknowledge(messageID: target, by: user) {
            case true?: return "👀 acknowledged by \(user)"
            case false?: return "You acknowledged it already."
            case nil: return Self.notAnAlert
            }
        case .silence(let duration, let reason):
            guard let target = message.replyTo else {
                return "Reply /silence DURATION [reason] to the alert message whose group to silence."
            }
            guard let found = desk.incident(messageID: target), let endpoint = endpoint(ofBook: found.book) else {
                return Self.notAnAlert
            }
            if let refusal = refusal(role, endpoint) { return refusal }
            return await propose(found.incident, endpoint, duration: duration, reason: reason, by: user, in: address)
        case .confirm:
            guard let draft = await desk.takeDraft(by: user, conversation: address) else {
                return "Nothing to confirm: reply /silence DURATION to an alert message first, then /confirm within "
                    + "5 minutes."
            }
            guard let endpoint = endpoint(ofGroup: draft.groupKey, in: address) else { return Self.notAnAlert }
            if let refusal = refusal(role, endpoint) { return refusal }
            return await create(draft, endpoint)
        case .silences:
            return await list(endpoints(for: message))
        case .unsilence(let id):
            let endpoints = endpoints(for: message)
            for endpoint in endpoints {
                if let refusal = refusal(role, endpoint) { return refusal }
            }
            return await expire(id, endpoints)
        }
    }

    static let notAnAlert = "That is not an alert message the bridge tracks (it may be more than a day old)."

    // MARK: Silences

    private func propose(_ incident: Incident, _ endpoint: WebhookEndpoint, duration: Duration, reason: String?,
                         by user: String, in conversation: String) async -> String {
        let now = parts.time.wallMilliseconds
        guard var draft = SilenceDraft(incident: incident, duration: duration, reason: reason, proposedBy: user,
                                       now: now) else {
            return "This alert group has no labels a silence could match."
        }
        var note = ""
        do {
            let muted = try await client(endpoint).alerts(matching: draft.matchers)
            draft.mutedAlerts = muted.map { $0.labels["instance"] ?? $0.fingerprint }.sorted()
        } catch {
            note = "\n(Alertmanager could not say which alerts it mutes: \(error.message); listed are this message's.)"
        }
        await desk.propose(draft, conversation: conversation)
        return draft.preview + note
    }

    private func create(_ draft: SilenceDraft, _ endpoint: WebhookEndpoint) async -> String {
        let request = draft.request(now: parts.time.wallMilliseconds)
        do {
            let id = try await client(endpoint).createSilence(request)
            let matchers = draft.matchers.map(\.description).joined(separator: " ")
            return "🔕 Silenced until \(request.endsAt): \(matchers) (id \(id); /unsilence \(id) lifts it)."
        } catch {
            return "The silence was not created: \(error.message). Propose it again with /silence."
        }
    }

    private func list(_ endpoints: [WebhookEndpoint]) async -> String {
        guard !endpoints.isEmpty else { return Self.noPeers }
        var lines: [String] = []
        for endpoint in endpoints {
            do {
                let silences = try await client(endpoint).silences()
                for silence in silences.sorted(by: { $0.endsAt < $1.endsAt }).prefix(20) {
                    let matchers = silence.matchers.map(\.description).joined(separator: " ")
                    lines.append("• \(silence.id) until \(silence.endsAt) by \(silence.createdBy): \(matchers)"
                                 + (silence.comment.isEmpty ? "" : " — \(silence.comment.singleLine)"))
                }
                if silences.count > 20 { lines.append("…and \(silences.count - 20) more") }
            } catch {
                lines.append("Alertmanager of \(endpoint.path) did not answer: \(error.message)")
            }
        }
        return lines.isEmpty ? "No active silences." : "Active silences:\n" + lines.joined(separator: "\n")
    }

    private func expire(_ id: String, _ endpoints: [WebhookEndpoint]) async -> String {
        guard !endpoints.isEmpty else { return Self.noPeers }
        var failures: [String] = []
        for endpoint in endpoints {
            do {
                try await client(endpoint).expireSilence(id: id)
                return "🔔 Silence \(id) expired."
            } catch where error.code == .notFound {
                continue
            } catch {
                failures.append(error.message)
            }
        }
        return failures.isEmpty ? "No silence \(id)." : "Silence \(id) was not expired: " + failures.joined(separator: "; ")
    }

    static let noPeers = "No Alertmanager is configured for silences (alertmanager: in the bot's webhooks entry)."

    // MARK: Who and where

    /// Why `role` may not silence on `endpoint`'s peers; nil when it may.
    private func refusal(_ role: MemberRole?, _ endpoint: WebhookEndpoint) -> String? {
        guard let role else { return "Silences are made in the group the alert went to." }
        guard role >= endpoint.silenceRole else {
            return "Only the group's \(endpoint.silenceRole.rawValue)s\(endpoint.silenceRole == .owner ? "" : " and above") "
                + "may silence alerts here."
        }
        return endpoint.alertmanagers.isEmpty ? Self.noPeers : nil
    }

    /// The route a book's rule takes its webhooks from.
    private func endpoint(ofBook book: String) -> WebhookEndpoint? {
        let definition = parts.rules.now.definition
        guard let key = IncidentBookKey(book), let path = definition.rule(named: key.rule)?.webhook?.path else { return nil }
        return definition.webhook(path: path)
    }

    /// The route of the incident of `groupKey` in `conversation`.
    private func endpoint(ofGroup groupKey: String, in conversation: String) -> WebhookEndpoint? {
        let books = parts.journal.read { $0.alerts.books }
        let book = books.keys.sorted().first { key in
            IncidentBookKey(key)?.conversation == conversation && books[key]?[groupKey] != nil
        }
        return book.flatMap(endpoint(ofBook:))
    }

    /// The routes a `/silences` or `/unsilence` means: the replied-to alert's, else every
    /// route with peers (one per set of peers).
    private func endpoints(for message: Message) -> [WebhookEndpoint] {
        if let target = message.replyTo, let found = desk.incident(messageID: target),
           let endpoint = endpoint(ofBook: found.book) {
            return [endpoint]
        }
        var seen: Set<[String]> = []
        return parts.rules.now.definition.webhooks.filter { !$0.alertmanagers.isEmpty && seen.insert($0.alertmanagers).inserted }
    }

    private func client(_ endpoint: WebhookEndpoint) throws(AlertmanagerClientError) -> AlertmanagerClient {
        try AlertmanagerClient(peers: endpoint.alertmanagers, transport: parts.transport)
    }
}
