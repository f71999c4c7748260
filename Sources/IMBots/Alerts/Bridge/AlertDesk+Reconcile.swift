import IMProtocol

/// Incidents that never stay stale: reconciled with what Alertmanager holds (after a
/// silence ends or is lifted, on the route's `reconcile:` period, on `/refresh`), closed
/// by hand (`/resolve`), and showing the silences made from chat. Each is one desk step,
/// journaled with its messages like any other (``AlertDesk/commit(_:waitForRoom:)``).
extension AlertDesk {
    /// Which open incidents a reconciliation asks about.
    enum Selection: Sendable, Equatable {
        /// Those of one route.
        case route(String)
        /// Those whose messages are in one conversation.
        case conversation(String)
        /// One.
        case incident(book: String, groupKey: String)
    }

    /// What a reconciliation found, for `/refresh`'s answer.
    struct Reconciled: Sendable, Equatable {
        /// Incidents asked about (whose peers answered).
        var checked = 0
        /// Alerts found gone and resolved.
        var resolved = 0
        /// Why some could not be asked about.
        var failures: [String] = []
    }

    /// One open incident to ask about.
    private struct Target {
        var book: String
        var groupKey: String
        var endpoint: WebhookEndpoint
        var matchers: [SilenceMatcher]
        /// The alerts it shows firing now: only these can be found gone.
        var asked: Set<String>
    }

    /// What its peers said of one incident.
    private struct Answer {
        var target: Target
        var present: [String: [String]]
        var silences: [IncidentSilence]
    }

    /// Asks the routes' peers what they hold for the selected open incidents (`GET
    /// /api/v2/alerts` filtered by each group's labels, every peer), and folds the answers
    /// in one step: alerts gone are resolved ("resolved while silenced" when a silence
    /// muted them), silences are shown with who made them and until when.
    @discardableResult
    func reconcile(_ selection: Selection) async -> Reconciled {
        let definition = parts.rules.now.definition
        var result = Reconciled()
        var answers: [Answer] = []
        var silencesOf: [[String]: [Silence]] = [:]
        for target in targets(selection, in: definition) {
            let client: AlertmanagerClient
            do {
                client = try AlertmanagerClient(peers: target.endpoint.alertmanagers, transport: parts.transport)
            } catch {
                result.failures.append(error.message)
                continue
            }
            let found = await client.alertsOnEveryPeer(matching: target.matchers)
            guard found.answered > 0 else {
                result.failures.append(found.failures.joined(separator: "; "))
                continue
            }
            var present: [String: [String]] = [:]
            for alert in found.alerts { present[alert.fingerprint] = alert.status.silencedBy }
            let ids = Set(present.values.joined())
            var silences: [IncidentSilence] = []
            if !ids.isEmpty {
                let peers = target.endpoint.alertmanagers
                if silencesOf[peers] == nil { silencesOf[peers] = (try? await client.silences()) ?? [] }
                silences = (silencesOf[peers] ?? []).filter { ids.contains($0.id) }.map { silence in
                    IncidentSilence(id: silence.id, createdBy: silence.createdBy,
                                    endsAt: Timestamp(rfc3339: silence.endsAt)?.milliseconds ?? 0)
                }
            }
            result.checked += 1
            answers.append(Answer(target: target, present: present, silences: silences))
        }
        // Folded after every answer came: one synchronous stretch, on the books as they are now.
        let now = parts.time.wallMilliseconds
        var change = AlertChange()
        var books = parts.journal.read { $0.alerts.books }
        for answer in answers {
            let target = answer.target
            guard let action = IncidentAction(book: target.book, in: definition), let book = books[target.book] else {
                continue
            }
            var tracker = IncidentTracker(policy: action.policy, renderer: action.renderer, book: book)
            let effects = tracker.reconcile(groupKey: target.groupKey, present: answer.present,
                                            silences: answer.silences, asked: target.asked, now: now)
            let before = book[target.groupKey]?.resolvedCount ?? 0
            result.resolved += (tracker.book[target.groupKey]?.resolvedCount ?? before) - before
            change.incidents += IncidentUpdate.changes(in: target.book, from: book, to: tracker.book,
                                                      touched: [target.groupKey])
            change.messages += action.messages.pending(effects, scope: "r\(now)")
            books[target.book] = tracker.book
        }
        if !change.isEmpty, !commit(change, waitForRoom: true) {
            result.failures.append("the outbox is full of alerts; tried again later")
        }
        return result
    }

    /// The open incidents `selection` names, on routes whose peers can be asked.
    private func targets(_ selection: Selection, in definition: BotDefinition) -> [Target] {
        var targets: [Target] = []
        for (key, book) in parts.journal.read({ $0.alerts.books }).sorted(by: { $0.key < $1.key }) {
            guard let bookKey = IncidentBookKey(key), let endpoint = AlertCommands.endpoint(ofBook: key, in: definition),
                  endpoint.reconciles else { continue }
            switch selection {
            case .route(let path) where endpoint.path != path: continue
            case .conversation(let address) where bookKey.conversation != address: continue
            case .incident(let wanted, _) where wanted != key: continue
            default: break
            }
            for (groupKey, incident) in book.incidents.sorted(by: { $0.key < $1.key }) where !incident.isClosed {
                if case .incident(_, let wanted) = selection, wanted != groupKey { continue }
                let matchers = SilenceDraft.groupMatchers(of: incident)
                guard !matchers.isEmpty else { continue }
                targets.append(Target(book: key, groupKey: groupKey, endpoint: endpoint, matchers: matchers,
                                      asked: Set(incident.instances.filter(\.showsFiring).map(\.fingerprint))))
            }
        }
        return targets
    }

    // MARK: When

    /// When a reconciliation is due next (wall ms): a route's `reconcile:` period after
    /// its last, or a few seconds after a silence shown on an incident ends; nil when no
    /// open incident is on a route whose peers can be asked.
    func nextReconcile() -> Int64? {
        let definition = parts.rules.now.definition
        var due: [Int64] = []
        for (path, incidents) in openIncidents(in: definition) {
            guard let endpoint = definition.webhook(path: path) else { continue }
            if let every = endpoint.reconcileEvery {
                due.append((reconciledAt[path] ?? startedAt) + every.milliseconds)
            }
            for (key, incident) in incidents {
                guard let end = incident.nextSilenceEnd else { continue }
                due.append(max(end + Self.afterSilenceEnds, silenceChecks[key] ?? 0))
            }
        }
        return due.min()
    }

    /// Reconciles what is due now: routes whose period has passed, incidents whose silence ended.
    func reconcileDue() async {
        let now = parts.time.wallMilliseconds
        let definition = parts.rules.now.definition
        for (path, incidents) in openIncidents(in: definition).sorted(by: { $0.key < $1.key }) {
            guard let endpoint = definition.webhook(path: path) else { continue }
            if let every = endpoint.reconcileEvery, (reconciledAt[path] ?? startedAt) + every.milliseconds <= now {
                reconciledAt[path] = now
                await reconcile(.route(path))
                continue
            }
            for (key, incident) in incidents {
                guard let end = incident.nextSilenceEnd, max(end + Self.afterSilenceEnds, silenceChecks[key] ?? 0) <= now,
                      let separator = key.lastIndex(of: "\u{0}") else { continue }
                silenceChecks[key] = now + 60_000
                await reconcile(.incident(book: String(key[..<separator]),
                                          groupKey: String(key[key.index(after: separator)...])))
            }
        }
        silenceChecks = silenceChecks.filter { $0.value > now }
    }

    /// A silence's end is asked about this long after it (Alertmanager's own clock may lag).
    static let afterSilenceEnds: Int64 = 5_000

    /// The open incidents of routes that reconcile, by path, each keyed `book␀groupKey`.
    private func openIncidents(in definition: BotDefinition) -> [String: [(String, Incident)]] {
        var open: [String: [(String, Incident)]] = [:]
        for (key, book) in parts.journal.read({ $0.alerts.books }) {
            guard let endpoint = AlertCommands.endpoint(ofBook: key, in: definition), endpoint.reconciles else { continue }
            for (groupKey, incident) in book.incidents where !incident.isClosed {
                open[endpoint.path, default: []].append((key + "\u{0}" + groupKey, incident))
            }
        }
        return open
    }

    // MARK: By hand

    /// `/resolve` of the incident whose living message is `messageID`: closed by `user`.
    /// Nil when no incident has that message; false when it was closed already.
    func resolve(messageID: MessageID, by user: String) -> Bool? {
        step(onMessage: messageID, scope: "x") { tracker, now in
            tracker.resolve(messageID: messageID, by: user, now: now)
        }
    }

    /// A silence `/confirm` made: shown at once on the open incidents of `conversation`
    /// whose alerts its matchers select.
    func noteSilence(_ silence: IncidentSilence, matchers: [SilenceMatcher], conversation: String) {
        let now = parts.time.wallMilliseconds
        let definition = parts.rules.now.definition
        var change = AlertChange()
        for (key, book) in parts.journal.read({ $0.alerts.books }).sorted(by: { $0.key < $1.key }) {
            guard IncidentBookKey(key)?.conversation == conversation,
                  let action = IncidentAction(book: key, in: definition) else { continue }
            var tracker = IncidentTracker(policy: action.policy, renderer: action.renderer, book: book)
            var touched: Set<String> = []
            var effects: [IncidentEffect] = []
            for (groupKey, incident) in book.incidents.sorted(by: { $0.key < $1.key }) where !incident.isClosed {
                let noted = tracker.noteSilence(groupKey: groupKey, silence, matchers: matchers, now: now)
                if tracker.book[groupKey] != incident { touched.insert(groupKey) }
                effects += noted
            }
            change.incidents += IncidentUpdate.changes(in: key, from: book, to: tracker.book, touched: touched)
            change.messages += action.messages.pending(effects, scope: "s\(now)")
        }
        if !change.isEmpty { commit(change, waitForRoom: false) }
    }
}
