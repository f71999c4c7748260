import IMProtocol
import Templates

extension ModerationWork {
    /// Counts the strike and carries out the escalation step its points reach.
    mutating func strike(_ spec: StrikeSpec, _ root: TemplateValue, _ effect: inout ModerationEffect)
        async throws(ActionError)
    {
        let user = try self.user(nil, root)
        var outcome: StrikeOutcome
        if run.performs {
            guard let book = effects.moderation else { throw fail(.effectFailed, "strikes cannot be kept here") }
            outcome = book.strike(counter: spec.counter, user: user, points: spec.points, decay: spec.decayMilliseconds,
                                  key: key, at: now)
        } else {
            let points = effects.moderation?.points(counter: spec.counter, user: user, decay: spec.decayMilliseconds,
                                                    at: now) ?? 0
            outcome = StrikeOutcome(counter: spec.counter, user: user, points: points + spec.points, step: nil)
        }
        if !spec.escalate.isEmpty, outcome.points > 0 { outcome.step = min(outcome.points, spec.escalate.count) - 1 }
        effect.strike = outcome
        guard let step = outcome.step else {
            try await open(draft("strike", user: user, text: event.text, strike: outcome.label), &effect)
            return
        }
        switch spec.escalate[step] {
        case .warn(let template):
            let text = template?.render(Self.adding(strike: outcome, of: spec, to: root))
                ?? "@\(user), please keep to the rules of this group: this is a warning (\(outcome.label))."
            try await warn(text, &effect)
            try await open(draft("warn", user: user, text: event.text, strike: outcome.label), &effect)
        case .mute(let duration):
            try await member(.mute, user, duration, outcome, root, &effect)
        case .kick:
            try await member(.kick, user, nil, outcome, root, &effect)
        case .ban(let duration):
            try await member(.ban, user, duration, outcome, root, &effect)
        }
    }

    /// `root` with `strike`: what a warning of the escalation reads (`{{strike.step}}`).
    static func adding(strike outcome: StrikeOutcome, of spec: StrikeSpec, to root: TemplateValue) -> TemplateValue {
        guard case .object(var members) = root else { return root }
        let step = outcome.step ?? 0
        let next = spec.escalate.isEmpty ? "" : spec.escalate[min(step + 1, spec.escalate.count - 1)].description
        members["strike"] = .object([
            "counter": .string(outcome.counter), "count": .int(outcome.points), "step": .int(step + 1),
            "steps": .int(spec.escalate.count), "next": .string(next),
        ])
        return .object(members)
    }

    private mutating func member(_ action: ModerationAction, _ user: String, _ duration: ConfigDuration?,
                                 _ outcome: StrikeOutcome, _ root: TemplateValue,
                                 _ effect: inout ModerationEffect) async throws(ActionError) {
        let group = try self.group(nil, root, for: action.rawValue)
        try await act(.member(action, group: group, user: user, duration: duration,
                              reason: "\(outcome.label), rule \(rule)"), &effect)
        try await open(draft(action.rawValue, detail: duration?.description, user: user, group: group,
                             text: event.text, strike: outcome.label), &effect)
    }

    /// Sends a newcomer their challenge and notes what they owe; members who came in by
    /// invitation or an approved request are let post at once instead.
    mutating func verify(_ spec: VerifySpec, _ root: TemplateValue, _ effect: inout ModerationEffect)
        async throws(ActionError)
    {
        guard event.type == .memberJoined, let member = event.member else {
            throw fail(.notApplicable, "verify: the event is not a member_joined")
        }
        let group = try self.group(nil, root, for: "verify")
        let user = member.username.lowercased()
        if effects.moderation?.isModerator(id: member.id.rawValue) == true {
            try await act(.member(.unmute, group: group, user: user, duration: nil, reason: "a moderator"), &effect)
            effect.note = "no challenge: \(user) is a moderator"
            return
        }
        if let via = event.event.via, via != .open {
            try await act(.member(.unmute, group: group, user: user, duration: nil,
                                  reason: via == .invite ? "invited" : "approved"), &effect)
            effect.note = "no challenge: \(user) came in by " + (via == .invite ? "invitation" : "an approved request")
            return
        }
        try await send(to: .user(user), spec.text.render(root), as: .verify, &effect)
        let deadline = now + Int64(spec.within.seconds * 1000)
        effect.note = "\(user) may post in group:\(group) once they answer, within \(spec.within)"
        guard run.performs else { return }
        guard let book = effects.moderation else { throw fail(.effectFailed, "verifications cannot be kept here") }
        let answer = String(decoding: TextNormalizer.normalized(spec.answer).bytes, as: UTF8.self)
        book.setVerification(group: group, user: user, PendingVerification(
            group: group, user: user, answer: answer, deadline: deadline, rule: rule, fail: spec.fail.rawValue))
    }

    /// Reverses a mute or ban case: unmutes or unbans, marks it undone, opens an `undo` case.
    mutating func undo(_ number: Int, _ effect: inout ModerationEffect) async throws(ActionError) {
        guard let book = effects.moderation, let found = book.modCase(number) else {
            try await answer("No case #\(number) is kept.", &effect)
            return
        }
        guard found.undoable, let user = found.user, let place = found.conversation,
              case .group(let group)? = ConversationAddress(place) else {
            let why = found.undoneBy.map { "it was undone by \($0)" } ?? "only mutes and bans can be undone"
            try await answer("Case #\(number) cannot be undone: \(why).", &effect)
            return
        }
        let admin = event.actor ?? "someone"
        let reverse: ModerationAction = found.action == "ban" ? .unban : .unmute
        try await act(.member(reverse, group: group, user: user, duration: nil, reason: "undo #\(number) by \(admin)"),
                      &effect)
        if run.performs { _ = book.markUndone(number, by: admin) }
        var undoCase = draft("undo", user: user, group: group)
        undoCase.undoes = number
        undoCase.by = admin
        try await open(undoCase, &effect)
        try await answer("Undid #\(number): \(reverse == .unban ? "unbanned" : "unmuted") @\(user) in group:\(group).", &effect)
    }
}
