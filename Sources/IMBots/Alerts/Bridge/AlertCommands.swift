import IMProtocol

/// The alert bridge's chat commands, answered in the conversation they are sent in:
///
/// - `/silence 2h [name=value …] [reason]` (a reply to an alert message): shows the
///   matchers the silence will have and the alerts Alertmanager says it will mute, for
///   `/confirm`;
/// - `/confirm`: creates it (`POST /api/v2/silences` on the route's peers);
/// - `/silences`: the active silences of this conversation's incidents; `/unsilence ID`:
///   expires one of them;
/// - `/ack` (a reply to an alert message): shows who acknowledged it;
/// - `/refresh`: asks Alertmanager now about the replied-to incident, or every open one
///   here; `/resolve` (a reply): closes an incident by hand.
///
/// Every command works only in the groups the bridge posts alerts to, and only for
/// members with the route's `silence_role` (admin by default) or above: elsewhere, and
/// for anyone else, the answer is a refusal that says nothing of the alerts. Silences go
/// to the peers the route names, never to an address from a payload.
struct AlertCommands: CommandTap {
    let parts: BotParts
    let desk: AlertDesk

    static let names: Set<String> = ["silence", "confirm", "silences", "unsilence", "ack", "refresh", "resolve"]
    /// The rule name its replies carry (audit lines, client ids).
    static let rule = "alert-commands"

    func takes(_ message: Message) -> Bool {
        let definition = parts.rules.now.definition
        guard !definition.webhooks.isEmpty, let command = ParsedCommand.parse(message.text),
              Self.names.contains(command.name) else { return false }
        return command.target == nil || command.target == definition.account.username
    }

    func handle(_ event: Event, role: MemberRole?) async -> [OutgoingMessage] {
        guard let message = event.message, let conversation = event.conversation else { return [] }
        let text = await answer(message, in: conversation, role: role)
        let reply = OutgoingMessage(
            to: conversation.address, text: text,
            clientMessageID: IdempotencyKey.make(bot: parts.name, position: event.position, rule: Self.rule, actionIndex: 0),
            replyTo: message.id, rule: Self.rule, action: .reply)
        return [reply]
    }

    static let notHere = "Alert commands work only in the groups the alert bridge posts alerts to."
    static let notAnAlert = "That is not an alert message of this group the bridge tracks (it may be more than a day old)."
    static let noPeers = "No Alertmanager is configured for silences (alertmanager: in the bot's webhooks entry)."

    private func answer(_ message: Message, in conversation: ConversationRef, role: MemberRole?) async -> String {
        let definition = parts.rules.now.definition
        let address = conversation.address.description
        // Where, then who, before anything else is read or said.
        guard conversation.kind == .group, Self.postsTo(address, definition: definition, journal: parts.journal) else {
            return Self.notHere
        }
        let here = routes(in: address, definition: definition)
        guard let role else { return refusal(here) }
        let allowed = here.filter { role >= $0.silenceRole }
        guard !allowed.isEmpty else { return refusal(here) }
        let command: AlertCommand
        do {
            guard let parsed = try AlertCommand.parse(message.text) else { return "Not a command of the alert bridge." }
            command = parsed
        } catch {
            return error.description
        }
        let user = message.sender
        // Commands about one incident: a reply to its living message, in this group.
        var replied: (book: String, incident: Incident, endpoint: WebhookEndpoint)?
        if let target = message.replyTo, let found = desk.incident(messageID: target),
           IncidentBookKey(found.book)?.conversation == address,
           let endpoint = Self.endpoint(ofBook: found.book, in: definition) {
            guard role >= endpoint.silenceRole else { return refusal([endpoint]) }
            replied = (found.book, found.incident, endpoint)
        }
        switch command {
        case .ack:
            guard let target = message.replyTo else { return "Reply /ack to an alert message." }
            guard replied != nil else { return Self.notAnAlert }
            switch await desk.acknowledge(messageID: target, by: user) {
            case true?: return "👀 acknowledged by \(user)"
            case false?: return "You acknowledged it already."
            case nil: return Self.notAnAlert
            }
        case .resolve:
            guard let target = message.replyTo else { return "Reply /resolve to the alert message whose incident to close." }
            guard replied != nil else { return Self.notAnAlert }
            switch await desk.resolve(messageID: target, by: user) {
            case true?:
                parts.reporter.command("resolve", by: user, in: address, detail: "closed the incident of "
                                       + (replied?.incident.groupKey ?? "?") + " by hand",
                                       version: definition.version)
                return "✅ Closed by hand by \(user). Alertmanager is not told: if the alerts still fire, their next "
                    + "notification opens a new incident."
            case false?: return "That incident is closed already."
            case nil: return Self.notAnAlert
            }
        case .refresh:
            let selection: AlertDesk.Selection
            if let replied {
                selection = .incident(book: replied.book, groupKey: replied.incident.groupKey)
            } else if message.replyTo != nil {
                return Self.notAnAlert
            } else {
                selection = .conversation(address)
            }
            return refreshed(await desk.reconcile(selection))
        case .silence(let duration, let matchers, let reason):
            guard message.replyTo != nil else {
                return "Reply /silence DURATION [name=value …] [reason] to the alert message whose group to silence."
            }
            guard let replied else { return Self.notAnAlert }
            guard !replied.endpoint.alertmanagers.isEmpty else { return Self.noPeers }
            return await propose(replied.incident, replied.endpoint, duration: duration, matchers: matchers,
                                 reason: reason, by: user, in: address)
        case .confirm:
            guard let draft = await desk.takeDraft(by: user, conversation: address) else {
                return "Nothing to confirm: reply /silence DURATION to an alert message first, then /confirm within "
                    + "5 minutes."
            }
            guard let endpoint = endpoint(ofGroup: draft.groupKey, in: address, definition: definition) else {
                return Self.notAnAlert
            }
            guard role >= endpoint.silenceRole else { return refusal([endpoint]) }
            return await create(draft, endpoint, in: address)
        case .silences:
            return await list(in: address, allowed)
        case .unsilence(let id):
            return await expire(id, in: address, allowed, by: user)
        }
    }

    /// The refusal for a member below every route's `silence_role` here.
    private func refusal(_ endpoints: [WebhookEndpoint]) -> String {
        let least = endpoints.map(\.silenceRole).min() ?? .admin
        return "Only the group's \(least.rawValue)s\(least == .owner ? "" : " and above") may use alert commands here."
    }

    private func refreshed(_ result: AlertDesk.Reconciled) -> String {
        guard result.checked > 0 || !result.failures.isEmpty else {
            return "No open incident here can be checked with Alertmanager (it needs the route's alertmanager: peers)."
        }
        var text = "Asked Alertmanager about \(result.checked) open incident\(result.checked == 1 ? "" : "s")"
        text += result.resolved > 0 ? ": \(result.resolved) alert\(result.resolved == 1 ? "" : "s") had resolved "
            + "and \(result.resolved == 1 ? "is" : "are") shown resolved now." : ": they are as shown."
        if !result.failures.isEmpty { text += "\nNot checked: " + result.failures.joined(separator: "; ") }
        return text
    }

    // MARK: Silences

    private func propose(_ incident: Incident, _ endpoint: WebhookEndpoint, duration: Duration,
                         matchers: [SilenceMatcher], reason: String?, by user: String,
                         in conversation: String) async -> String {
        let now = parts.time.wallMilliseconds
        guard var draft = SilenceDraft(incident: incident, duration: duration, matchers: matchers, reason: reason,
                                       proposedBy: user, now: now) else {
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

    private func create(_ draft: SilenceDraft, _ endpoint: WebhookEndpoint, in conversation: String) async -> String {
        let now = parts.time.wallMilliseconds
        let request = draft.request(now: now)
        do {
            let id = try await client(endpoint).createSilence(request)
            let matchers = draft.matchers.map(\.description).joined(separator: " ")
            parts.reporter.command("confirm", by: draft.proposedBy, in: conversation,
                                   detail: "silence \(id) until \(request.endsAt): \(matchers)",
                                   version: parts.rules.now.definition.version)
            await desk.noteSilence(IncidentSilence(id: id, createdBy: draft.proposedBy,
                                                   endsAt: Timestamp(rfc3339: request.endsAt)?.milliseconds ?? now),
                                   matchers: draft.matchers, conversation: conversation)
            return "🔕 Silenced until \(request.endsAt): \(matchers) (id \(id); /unsilence \(id) lifts it)."
        } catch {
            return "The silence was not created: \(error.message). Propose it again with /silence."
        }
    }

    /// The active silences of `endpoints`' peers that mute an alert of an incident of
    /// this conversation (or are shown on one), by peers.
    private func silences(in conversation: String, _ endpoints: [WebhookEndpoint]) async
        -> (silences: [Silence], failures: [String])
    {
        let incidents = parts.journal.read { $0.alerts.books }.filter { IncidentBookKey($0.key)?.conversation == conversation }
            .flatMap { $0.value.incidents.values }
        let labels = incidents.flatMap { $0.instances.map(\.labels) }
        let shown = Set(incidents.flatMap { ($0.silences ?? []).map(\.id) })
        var found: [Silence] = []
        var failures: [String] = []
        var seen: Set<[String]> = []
        for endpoint in endpoints where !endpoint.alertmanagers.isEmpty && seen.insert(endpoint.alertmanagers).inserted {
            do {
                for silence in try await client(endpoint).silences()
                where shown.contains(silence.id) || labels.contains(where: { set in silence.matchers.allSatisfy { $0.matches(set) } }) {
                    if !found.contains(where: { $0.id == silence.id }) { found.append(silence) }
                }
            } catch {
                failures.append("Alertmanager of \(endpoint.path) did not answer: \(error.message)")
            }
        }
        return (found.sorted { $0.endsAt < $1.endsAt }, failures)
    }

    private func list(in conversation: String, _ endpoints: [WebhookEndpoint]) async -> String {
        guard endpoints.contains(where: { !$0.alertmanagers.isEmpty }) else { return Self.noPeers }
        let (silences, failures) = await silences(in: conversation, endpoints)
        var lines: [String] = []
        for silence in silences.prefix(20) {
            let matchers = silence.matchers.map(\.description).joined(separator: " ")
            lines.append("• \(silence.id) until \(silence.endsAt) by \(silence.createdBy): \(matchers)"
                         + (silence.comment.isEmpty ? "" : " — \(silence.comment.singleLine)"))
        }
        if silences.count > 20 { lines.append("…and \(silences.count - 20) more") }
        lines += failures
        return silences.isEmpty && failures.isEmpty ? "No active silences of this group's alerts."
            : (silences.isEmpty ? "" : "Active silences of this group's alerts:\n") + lines.joined(separator: "\n")
    }

    private func expire(_ id: String, in conversation: String, _ endpoints: [WebhookEndpoint],
                        by user: String) async -> String {
        guard endpoints.contains(where: { !$0.alertmanagers.isEmpty }) else { return Self.noPeers }
        let (silences, failures) = await silences(in: conversation, endpoints)
        guard silences.contains(where: { $0.id == id }) else {
            return failures.isEmpty ? "No active silence \(id) of this group's alerts." : failures.joined(separator: "\n")
        }
        var refusals: [String] = []
        for endpoint in endpoints where !endpoint.alertmanagers.isEmpty {
            do {
                try await client(endpoint).expireSilence(id: id)
                parts.reporter.command("unsilence", by: user, in: conversation, detail: "expired silence \(id)",
                                       version: parts.rules.now.definition.version)
                // The alerts it muted may have resolved meanwhile: Alertmanager says nothing of those.
                let checked = await desk.reconcile(.conversation(conversation))
                return "🔔 Silence \(id) expired." + (checked.resolved > 0
                    ? " \(checked.resolved) alert\(checked.resolved == 1 ? "" : "s") had resolved while silenced." : "")
            } catch where error.code == .notFound {
                continue
            } catch {
                refusals.append(error.message)
            }
        }
        return refusals.isEmpty ? "No active silence \(id) of this group's alerts."
            : "Silence \(id) was not expired: " + refusals.joined(separator: "; ")
    }

    private func client(_ endpoint: WebhookEndpoint) throws(AlertmanagerClientError) -> AlertmanagerClient {
        try AlertmanagerClient(peers: endpoint.alertmanagers, transport: parts.transport)
    }
}
