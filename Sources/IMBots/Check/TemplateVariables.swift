/// Every variable templates can read: the one table `check` judges templates by, and the
/// one docs/rules.md lists (a test keeps the two the same, and another checks that
/// `TemplateContext` builds exactly these paths).
///
/// To add variables, add rows here, with a `Source` of their own when they exist only for
/// some rules; `TemplateCheck` and the docs test pick them up. A webhook body's fields,
/// which depend on the route's format, are ``AlertTemplatePaths``' rows.
enum TemplateVariables {
    /// The rows, in the order the docs list them. An object's first field is the one
    /// `check` suggests for a bare `{{object}}`.
    static let all: [TemplateVariable] = user("sender", .feed, "whoever caused the event")
        + user("member", .memberEvents, "the member a member event is about")
        + [
            TemplateVariable("message.text", .text, .messageEvents, "the message's text"),
            TemplateVariable("message.id", .text, .messageEvents, "the message's id"),
            TemplateVariable("message.seq", .number, .messageEvents, "its position in the conversation"),
            TemplateVariable("message.created_at", .time, .messageEvents, "when it was sent"),
            TemplateVariable("message.reply_to", .text, .messageEvents,
                             "the id of the message it answers; empty when it answers none"),
            TemplateVariable("conversation.address", .text, .feed, "`user:alice`, `group:ops`, `room:lobby`"),
            TemplateVariable("conversation.id", .text, .feed, "the conversation's id"),
            TemplateVariable("conversation.kind", .text, .feed, "`direct`, `group` or `room`"),
            TemplateVariable("conversation.name", .text, .feed,
                             "the group's or room's name, or the other user's in a direct conversation"),
            TemplateVariable("matched", .text, .regex, "the whole match of the rule's `regex`"),
            TemplateVariable("match.{group}", .text, .regex,
                             "`match.1`...: the groups of the rule's `regex`, counting from 1; "
                                 + "`match.NAME`: its named groups `(?<NAME>...)`"),
            TemplateVariable("args", .text, .command, "the command's arguments, trimmed"),
            TemplateVariable("argv", .list(.text), .command,
                             "the arguments split at whitespace: `argv.1` is the first, `argv.length` their number"),
            TemplateVariable("state.{key}", .any, .state,
                             "the bot's state, with the changes of earlier actions; a key is known once `state:` "
                                 + "gives it a value or a `set` or `increment` action writes it"),
            TemplateVariable("bot.username", .text, "the bot's username"),
            TemplateVariable("bot.nickname", .text, "the bot's display name"),
            TemplateVariable("bot.id", .text, "the bot's user id"),
            TemplateVariable("now.rfc3339", .time, "the time the event is handled, in UTC"),
            TemplateVariable("now.local", .time, "the same in the bot's time zone, with its offset"),
            TemplateVariable("now.date", .text, "`2025-01-06`, in the bot's time zone"),
            TemplateVariable("now.time", .text, "`09:30` (HH:MM)"),
            TemplateVariable("now.hour", .number, "0 to 23"),
            TemplateVariable("now.minute", .number, "0 to 59"),
            TemplateVariable("now.weekday", .text, "`mon` ... `sun`"),
            TemplateVariable("now.timezone", .text, "the bot's time zone, e.g. `Europe/Berlin`"),
            TemplateVariable("now.unix", .number, "seconds since 1970-01-01 UTC"),
            TemplateVariable("event.type", .text, "`message`, `member_joined`, ..."),
            TemplateVariable("event.position", .number, "the event's position in the bot's feed"),
            TemplateVariable("event.at", .time, "when the event happened"),
            TemplateVariable("payload.{payload}", .any, .webhook,
                             "the webhook's body: checked to the leaf on `alertmanager` and `grafana` routes (their "
                                 + "fields are in alerts.md), not below `payload` on `json` routes"),
            TemplateVariable("strike.counter", .text, .strike, "the strike's counter (`spam`)"),
            TemplateVariable("strike.count", .number, .strike, "the member's points on it after this strike"),
            TemplateVariable("strike.step", .number, .strike,
                             "the step of `escalate` the points reached, counting from 1"),
            TemplateVariable("strike.steps", .number, .strike, "how many steps `escalate` has"),
            TemplateVariable("strike.next", .text, .strike, "what the next strike does: `mute 1d`, `ban`"),
            TemplateVariable("{as}.status", .number, .httpResult, "the response's status code"),
            TemplateVariable("{as}.ok", .boolean, .httpResult, "true for a 2xx status"),
            TemplateVariable("{as}.text", .text, .httpResult, "the body as text"),
            TemplateVariable("{as}.body", .any, .httpResult,
                             "the decoded JSON when the response is JSON (`AS.body.id`, `AS.body.items.length`), "
                                 + "else the text; not checked below `body`"),
            TemplateVariable("{as}.headers.*", .text, .httpResult, "a response header, its name lowered"),
        ]

    /// The fields of a user's public profile under `root`.
    private static func user(_ root: String, _ source: TemplateVariable.Source,
                             _ who: String) -> [TemplateVariable] {
        [
            TemplateVariable("\(root).nickname", .text, source, "the display name of \(who)"),
            TemplateVariable("\(root).username", .text, source, "the username"),
            TemplateVariable("\(root).id", .text, source, "the user id"),
            TemplateVariable("\(root).is_bot", .boolean, source, "whether it is a bot account"),
            TemplateVariable("\(root).avatar_url", .text, source, "the avatar's URL"),
            TemplateVariable("\(root).signature", .text, source, "the line shown under the name"),
            TemplateVariable("\(root).attrs.*", .text, source, "a free-form profile field"),
        ]
    }

    /// The names a root of the table has; the `as` name of an `http` action may not be one.
    static let roots: Set<String> = Set(all.compactMap { row in
        row.parts.first.flatMap { $0.hasPrefix("{") ? nil : $0 }
    })
}
