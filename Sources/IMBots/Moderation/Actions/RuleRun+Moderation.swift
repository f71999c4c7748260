import IMProtocol
import Templates

extension RuleRun {
    /// Carries out (or, in dry and shadow rules, describes) a moderation action: its acts
    /// on the server, its case and mod-log line, its strike, its messages.
    mutating func moderation(_ spec: ModerationSpec, key: String, index: Int, root: TemplateValue,
                             effects: some BotEffects,
                             _ fail: (ActionError.Code, String) -> ActionError) async throws(ActionError) -> ActionEffect {
        var effect = ModerationEffect(kind: spec.kind)
        var work = ModerationWork(run: self, key: key, index: index, effects: effects)
        switch spec {
        case .delete:
            guard event.carriesText, let message = event.event.message, let conversation = event.conversation else {
                throw fail(.notApplicable, "delete: the event is not a message or an edit of one")
            }
            try await work.act(.delete(message.id, in: conversation.address), &effect)
            try await work.open(work.draft("delete", user: event.actor, text: message.text), &effect)
        case .member(let action, let target):
            let user = try work.user(target.user, root)
            let group = try work.group(target.group, root, for: action.rawValue)
            let reason = target.reason?.render(root) ?? "rule \(firing.rule.name)"
            try await work.act(.member(action, group: group, user: user, duration: target.duration, reason: reason), &effect)
            try await work.open(work.draft(action.rawValue, detail: target.duration?.description, user: user,
                                           group: group, text: event.text), &effect)
        case .warn(let template):
            let user = try work.user(nil, root)
            try await work.warn(template.render(root), &effect)
            try await work.open(work.draft("warn", user: user, text: event.text), &effect)
        case .joinRequest(let approve):
            guard event.type == .joinRequested, let member = event.member else {
                throw fail(.notApplicable, "\(approve ? "approve" : "deny"): the event is not a join request")
            }
            let group = try work.group(nil, root, for: approve ? "approve" : "deny")
            try await work.act(.joinRequest(approve: approve, group: group, user: member.username), &effect)
            try await work.open(work.draft(approve ? "approve" : "deny", user: member.username, group: group), &effect)
        case .allJoinRequests(let approve, let target):
            let group = try work.group(target, root, for: approve ? "approve" : "deny")
            try await work.act(.allJoinRequests(approve: approve, group: group), &effect)
            try await work.open(work.draft(approve ? "approve" : "deny", detail: "every waiting request", group: group),
                                &effect)
        case .slowMode(let interval, let target):
            let group = try work.group(target, root, for: "slow_mode")
            try await work.act(.settings(group: group, GroupSettings(slowMode: interval)), &effect)
            try await work.open(work.draft("slow_mode", detail: interval.seconds == 0 ? "off" : interval.description,
                                           group: group), &effect)
        case .joinPolicy(let policy, let target):
            let group = try work.group(target, root, for: "join_policy")
            if policy != .invite, context.modLog == .group(group) {
                throw fail(.notApplicable, "join_policy: group:\(group) is the mod-log, which stays invite-only "
                           + "(it repeats deleted messages); give the rule a 'group' condition or 'group:'")
            }
            try await work.act(.settings(group: group, GroupSettings(join: policy)), &effect)
            try await work.open(work.draft("join_policy", detail: policy.rawValue, group: group), &effect)
        case .strike(let strike):
            try await work.strike(strike, root, &effect)
        case .report(let template, let kind):
            guard context.modLog != nil else {
                throw fail(.notApplicable, "report needs a mod-log: set moderation.log in the bot file")
            }
            let text = template?.render(root) ?? event.text ?? ""
            // A case of its own kind (a raid) is about the group, not whoever's event set it off.
            try await work.open(work.draft(kind ?? "report", user: kind == nil ? event.actor : nil, text: text), &effect)
        case .verify(let verify):
            try await work.verify(verify, root, &effect)
        case .showCase(let template):
            let number = try work.caseNumber(template.render(root))
            let found = effects.moderation?.modCase(number)
            try await work.answer(found?.line ?? "No case #\(number) is kept.", &effect)
        case .undo(let template):
            try await work.undo(work.caseNumber(template.render(root)), &effect)
        case .showStrikes(let template):
            let user = try work.user(template, root)
            let lines = effects.moderation?.strikeLines(of: user, counters: context.strikeCounters,
                                                        at: context.now.milliseconds) ?? []
            try await work.answer(lines.isEmpty ? "@\(user) has no strikes (no rule of this bot counts any)."
                                  : "Strikes of @\(user):\n" + lines.joined(separator: "\n"), &effect)
        }
        return .moderation(effect)
    }
}
