import IMProtocol
import Templates

/// The pieces of one moderation action: whom it is for, its acts, cases and messages.
struct ModerationWork<Effects: BotEffects> {
    let run: RuleRun
    /// The action's idempotency key: its case's key, and the root of its messages' ids.
    let key: String
    /// The action's place in its rule's `do` list.
    let index: Int
    let effects: Effects
    private var sent = 0

    init(run: RuleRun, key: String, index: Int, effects: Effects) {
        self.run = run
        self.key = key
        self.index = index
        self.effects = effects
    }

    func fail(_ code: ActionError.Code, _ message: String) -> ActionError {
        ActionError(code: code, message: message, rule: rule, actionIndex: index)
    }

    var event: BotEvent { run.event }
    var rule: String { run.firing.rule.name }
    var now: Int64 { run.context.now.milliseconds }

    // MARK: Targets

    /// The member an action is for: `user:` rendered, else the event's member, else its sender.
    func user(_ template: TemplateText?, _ root: TemplateValue) throws(ActionError) -> String {
        if let template {
            var name = template.render(root).trimmedWhitespace.lowercased()
            for prefix in ["user:", "@"] where name.hasPrefix(prefix) { name.removeFirst(prefix.count) }
            guard (try? Validate.username(name)) != nil else {
                throw fail(.notApplicable, "'\(name)' (from '\(template.source)') is not a username")
            }
            return name
        }
        guard let name = event.member?.username ?? event.actor else {
            throw fail(.notApplicable, "the event has no member or sender to act on")
        }
        return name.lowercased()
    }

    /// The group an action is in: `group:` rendered, else the event's group.
    func group(_ template: TemplateText?, _ root: TemplateValue, for action: String) throws(ActionError) -> String {
        if let template {
            var name = template.render(root).trimmedWhitespace.lowercased()
            if name.hasPrefix("group:") { name.removeFirst(6) }
            guard (try? Validate.conversationName(name)) != nil else {
                throw fail(.notApplicable, "'\(name)' (from '\(template.source)') is not a group name")
            }
            return name
        }
        guard case .group(let name)? = event.conversation?.address else {
            throw fail(.notApplicable, "\(action) needs a group: the event is not in one (give 'group')")
        }
        return name
    }

    /// `#12`, `12` or ` 12 ` as a case number.
    func caseNumber(_ text: String) throws(ActionError) -> Int {
        var trimmed = text.trimmedWhitespace
        if trimmed.hasPrefix("#") { trimmed.removeFirst() }
        guard let number = Int(trimmed), number > 0 else {
            throw fail(.notApplicable, "'\(text)' is not a case number (write e.g. /case 12)")
        }
        return number
    }

    // MARK: Acts, cases, messages

    /// Asks the server for `act` (when the rule is enforced) and notes it.
    func act(_ act: ModerationAct, _ effect: inout ModerationEffect) async throws(ActionError) {
        effect.acts.append(act)
        guard run.performs else { return }
        do {
            try await effects.moderate(act)
        } catch {
            throw fail(.effectFailed, "\(act) failed: \(error)")
        }
    }

    /// A case of this action, not yet numbered.
    func draft(_ action: String, detail: String? = nil, user: String? = nil, group: String? = nil, text: String? = nil,
               strike: String? = nil) -> ModerationCase {
        let place = group.map { "group:\($0)" } ?? event.conversation?.address.description
        return ModerationCase(number: 0, key: key, at: run.context.now, action: action, detail: detail,
                              user: user, conversation: place, rule: rule, by: run.context.bot.username,
                              text: text.map { ModerationCase.excerpt($0, limit: ModerationCase.textLimit) },
                              strike: strike, undoes: nil, undoneBy: nil, dry: run.performs ? nil : true)
    }

    /// Opens the case (when enforced) and posts its line to the mod-log.
    mutating func open(_ draft: ModerationCase, _ effect: inout ModerationEffect) async throws(ActionError) {
        var opened = draft
        if run.performs {
            guard let book = effects.moderation else { throw fail(.effectFailed, "cases cannot be kept here") }
            opened = book.open(draft)
        }
        effect.cases.append(opened)
        if let log = run.context.modLog { try await send(to: log, opened.line, as: .report, &effect) }
    }

    /// A warning in the event's conversation, answering its message.
    mutating func warn(_ text: String, _ effect: inout ModerationEffect) async throws(ActionError) {
        guard let conversation = event.conversation else { throw fail(.noConversation, "warn: the event has no conversation") }
        try await send(to: conversation.address, text, as: .warn, replyTo: event.event.message?.id, &effect)
    }

    /// An answer in the event's conversation.
    mutating func answer(_ text: String, _ effect: inout ModerationEffect) async throws(ActionError) {
        guard let conversation = event.conversation else { throw fail(.noConversation, "the event has no conversation") }
        try await send(to: conversation.address, text, as: effect.kind, &effect)
    }

    /// Sends (when enforced) a message of this action, with an id derived from the action's.
    mutating func send(to address: ConversationAddress, _ text: String, as kind: ActionKind, replyTo: MessageID? = nil,
                       _ effect: inout ModerationEffect) async throws(ActionError) {
        sent += 1
        let message = OutgoingMessage(to: address, text: text, clientMessageID: IdempotencyKey.derived(from: key, "m\(sent)"),
                                      replyTo: replyTo, rule: rule, action: kind)
        effect.messages.append(message)
        guard run.performs else { return }
        do {
            _ = try await effects.send(message)
        } catch {
            throw fail(.effectFailed, "sending to \(address) failed: \(error)")
        }
    }
}
