import Foundation
import IMProtocol
import Templates

/// Builds the variables templates read: `sender`, `message`, `conversation`, `matched`, `match`,
/// `args`, `argv`, `member`, `state`, `bot`, `now`, `event`, `payload` (a webhook's),
/// plus the responses of earlier `http` actions of the rule under their `as` names.
enum TemplateContext {
    /// Every built-in variable except `state`, which changes while actions run.
    static func base(event: BotEvent, context: BotContext, bindings: Bindings) -> [String: TemplateValue] {
        var root: [String: TemplateValue] = [
            "bot": ["username": .string(context.bot.username), "nickname": .string(context.bot.nickname),
                    "id": context.bot.id.map { .string($0.description) } ?? .null],
            "now": now(context),
            "event": ["type": .string(event.type.rawValue), "position": .int(Int(event.position)),
                      "at": .string(event.event.at.rfc3339)],
            "match": .object(bindings.match.mapValues(TemplateValue.string)),
        ]
        if let sender = event.sender {
            root["sender"] = user(sender)
        } else if let actor = event.actor {
            root["sender"] = ["username": .string(actor), "nickname": .string(actor), "is_bot": false]
        }
        if event.carriesText, let message = event.event.message {
            root["message"] = [
                "id": .string(message.id.description), "text": .string(message.text), "seq": .int(Int(message.seq)),
                "created_at": .string(message.createdAt.rfc3339),
                "reply_to": message.replyTo.map { .string($0.description) } ?? .null,
            ]
        }
        if let conversation = event.conversation {
            root["conversation"] = [
                "id": .string(conversation.id.description), "kind": .string(conversation.kind.rawValue),
                "address": .string(conversation.address.description), "name": .string(name(of: conversation)),
            ]
        }
        if let member = event.member { root["member"] = user(member) }
        if let matched = bindings.matched { root["matched"] = .string(matched) }
        if let args = bindings.args { root["args"] = .string(args) }
        if let argv = bindings.argv { root["argv"] = .array(argv.map(TemplateValue.string)) }
        if let payload = event.payload { root["payload"] = payload.templateValue }
        return root
    }

    /// A user's public profile.
    static func user(_ user: User) -> TemplateValue {
        [
            "id": .string(user.id.description), "username": .string(user.username),
            "nickname": .string(user.nickname), "is_bot": .bool(user.isBot),
            "avatar_url": .string(user.avatarURL), "signature": .string(user.signature),
            "attrs": .object(user.attrs.mapValues(TemplateValue.string)),
        ]
    }

    /// A group's or room's name, or the other user's name in a direct conversation.
    static func name(of conversation: ConversationRef) -> String {
        switch conversation.address {
        case .user(let name), .group(let name), .room(let name): name
        case .id(let id): id.description
        }
    }

    /// `now.rfc3339` (UTC), `now.local`, `now.date`, `now.time`, `now.hour`, `now.minute`,
    /// `now.weekday`, `now.timezone`, `now.unix`, in the context's time zone.
    static func now(_ context: BotContext) -> TemplateValue {
        let zone = TimeZone(identifier: context.timezone) ?? .gmt
        let local = LocalTime(context.now, in: zone)
        let (year, month, day) = civil(fromDays: local.day)
        let date = pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
        let seconds = Int((context.now.milliseconds % 60_000 + 60_000) % 60_000 / 1000)
        let offset = abs(local.offset)
        let sign = local.offset < 0 ? "-" : "+"
        let localText = date + "T" + local.clock + ":" + pad(seconds, 2) + sign + pad(offset / 3600, 2) + ":"
            + pad(offset % 3600 / 60, 2)
        return [
            "rfc3339": .string(context.now.rfc3339), "local": .string(localText), "date": .string(date),
            "time": .string(local.clock), "hour": .int(local.minuteOfDay / 60), "minute": .int(local.minuteOfDay % 60),
            "weekday": .string(LocalTime.dayNames[local.weekday]), "timezone": .string(local.zone),
            "unix": .int(Int(context.now.milliseconds / 1000)),
        ]
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
    /// algorithm).
    static func civil(fromDays days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
