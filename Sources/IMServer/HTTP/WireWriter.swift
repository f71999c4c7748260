import Foundation
import IMProtocol

/// Writes the answers of the busiest endpoints (a sent message, a batch of feed events, a
/// page of history, the conversation list, profiles, a group's members, a read marker)
/// and every error envelope straight into bytes: exactly what `WireJSON.encoder()` produces
/// (compact, keys sorted, slashes unescaped), at a fraction of its cost. Foundation's
/// encoder builds a tree of boxed values and sorts every object's keys at run time; here
/// the key order is fixed in code. Events that carry conversation info or a notice are
/// rare and are encoded by the fallback encoder, whose bytes drop into the array
/// unchanged.
///
/// `WireWriterTests` checks the output byte for byte against `WireJSON.encoder()`, so a
/// new field in the wire types shows up there rather than silently on the wire.
struct WireWriter {
    private(set) var bytes: [UInt8] = []

    init(capacity: Int = 256) { bytes.reserveCapacity(capacity) }

    /// A message, as `POST …/messages` answers it.
    static func encode(_ message: Message) -> Data {
        var writer = WireWriter(capacity: 256 + message.text.utf8.count)
        writer.write(message)
        return Data(writer.bytes)
    }

    /// A page of a conversation's history, as `GET …/messages` answers it. (Foundation's
    /// encoder spent about 10 µs of CPU per message on it: most of a page's cost.)
    static func encode(_ page: MessagePage) -> Data {
        var writer = WireWriter(capacity: 48 + page.messages.reduce(0) { $0 + 256 + $1.text.utf8.count })
        writer.raw("{\"messages\":")
        writer.array(page.messages) { $0.write($1) }
        if let nextBefore = page.nextBefore {
            writer.raw(",\"next_before\":")
            writer.integer(nextBefore)
        }
        writer.raw("}")
        return Data(writer.bytes)
    }

    /// The conversation list, as `GET /v1/conversations` answers it. (Foundation's encoder
    /// spent more than half of the server's CPU for a list of 64 conversations on it.)
    static func encode(_ list: ConversationList) -> Data {
        var writer = WireWriter(
            capacity: 24 + list.conversations.reduce(0) { $0 + 512 + ($1.lastMessage?.text.utf8.count ?? 0) })
        writer.raw("{\"conversations\":")
        writer.array(list.conversations) { $0.write($1) }
        writer.raw("}")
        return Data(writer.bytes)
    }

    /// A profile, as `GET /v1/me` and the users' endpoints answer it.
    static func encode(_ user: User) -> Data {
        var writer = WireWriter(capacity: 256)
        writer.write(user)
        return Data(writer.bytes)
    }

    /// A list of profiles (`GET /v1/users?names=…`, the contacts).
    static func encode(_ list: UserList) -> Data {
        var writer = WireWriter(capacity: 32 + list.users.count * 256)
        writer.raw("{")
        if let missing = list.missing {
            writer.raw("\"missing\":")
            writer.array(missing) { $0.string($1) }
            writer.raw(",")
        }
        writer.raw("\"users\":")
        writer.array(list.users) { $0.write($1) }
        writer.raw("}")
        return Data(writer.bytes)
    }

    /// A group's members or a room's people (`GET /v1/groups/<name>/members`).
    static func encode(_ list: MemberList) -> Data {
        var writer = WireWriter(capacity: 16 + list.members.count * 320)
        writer.raw("{\"members\":")
        writer.array(list.members) { $0.write($1) }
        writer.raw("}")
        return Data(writer.bytes)
    }

    /// A read marker, as `POST …/read` answers it.
    static func encode(_ marker: ReadMarker) -> Data {
        var writer = WireWriter(capacity: 32)
        writer.raw("{\"seq\":")
        writer.integer(marker.seq)
        writer.raw("}")
        return Data(writer.bytes)
    }

    /// A poll's answer.
    static func encode(_ batch: EventBatch, fallback: JSONEncoder) throws -> Data {
        try answer(cursor: batch.cursor, events: batch.events.map { try encode($0, fallback: fallback) })
    }

    /// One event as it appears in a poll's answer.
    static func encode(_ event: Event, fallback: JSONEncoder) throws -> [UInt8] {
        // Conversation info and the rare notices take the fallback.
        guard event.info == nil && event.notice == nil else { return Array(try fallback.encode(event)) }
        var writer = WireWriter(capacity: 400)
        writer.write(event)
        return writer.bytes
    }

    /// A poll's answer made of events encoded before (`encode(_:fallback:)`), so that many
    /// answers with the same event share its bytes.
    static func answer(cursor: String, events: [[UInt8]]) -> Data {
        var writer = WireWriter(capacity: 64 + events.reduce(0) { $0 + $1.count + 1 })
        writer.raw("{\"cursor\":")
        writer.string(cursor)
        writer.raw(",\"events\":")
        writer.array(events) { $0.bytes.append(contentsOf: $1) }
        writer.raw("}")
        return Data(writer.bytes)
    }

    /// An error envelope, as every refusal answers it. (Foundation's encoder spent about
    /// 7 µs of CPU on one: a fifth of what a request refused for its token cost the
    /// server, and refusals are what a flood of bad requests is answered with.)
    static func encode(_ envelope: ErrorEnvelope) -> Data {
        let error = envelope.error
        var writer = WireWriter(capacity: 64 + error.message.utf8.count)
        writer.raw("{\"error\":{\"code\":")
        writer.string(error.code.rawValue)
        if let field = error.field {
            writer.raw(",\"field\":")
            writer.string(field)
        }
        writer.raw(",\"message\":")
        writer.string(error.message)
        if let reason = error.reason {
            writer.raw(",\"reason\":")
            writer.string(reason)
        }
        if let retryAfter = error.retryAfter {
            writer.raw(",\"retry_after\":")
            writer.integer(Int64(retryAfter))
        }
        if let until = error.until {
            writer.raw(",\"until\":")
            writer.timestamp(until)
        }
        writer.raw("}}")
        return Data(writer.bytes)
    }

    // MARK: Wire types (keys in sorted order)

    mutating func write(_ message: Message) {
        raw("{")
        if let clientMessageID = message.clientMessageID {
            raw("\"client_msg_id\":")
            string(clientMessageID)
            raw(",")
        }
        raw("\"conversation_id\":")
        quoted(message.conversationID.rawValue)
        raw(",\"created_at\":")
        timestamp(message.createdAt)
        if let deletedAt = message.deletedAt {
            raw(",\"deleted_at\":")
            timestamp(deletedAt)
        }
        if let editedAt = message.editedAt {
            raw(",\"edited_at\":")
            timestamp(editedAt)
        }
        raw(",\"id\":")
        quoted(message.id.rawValue)
        if let replyTo = message.replyTo {
            raw(",\"reply_to\":")
            quoted(replyTo.rawValue)
        }
        raw(",\"sender\":")
        string(message.sender)
        raw(",\"sender_id\":")
        quoted(message.senderID.rawValue)
        raw(",\"seq\":")
        integer(message.seq)
        raw(",\"text\":")
        string(message.text)
        raw(",\"type\":")
        string(message.type.rawValue)
        raw("}")
    }

    /// A profile; its attributes in the order of their keys' UTF-8 bytes, as the wire
    /// encoder sorts them.
    mutating func write(_ user: User) {
        raw("{\"attrs\":{")
        let attrs = user.attrs.sorted { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }
        for (index, (key, value)) in attrs.enumerated() {
            if index > 0 { byte(UInt8(ascii: ",")) }
            string(key)
            byte(UInt8(ascii: ":"))
            string(value)
        }
        raw("},\"avatar_url\":")
        string(user.avatarURL)
        raw(",\"created_at\":")
        timestamp(user.createdAt)
        raw(",\"id\":")
        quoted(user.id.rawValue)
        raw(user.isBot ? ",\"is_bot\":true" : ",\"is_bot\":false")
        raw(",\"nickname\":")
        string(user.nickname)
        raw(",\"signature\":")
        string(user.signature)
        raw(",\"username\":")
        string(user.username)
        raw("}")
    }

    mutating func write(_ member: Member) {
        raw("{\"joined_at\":")
        timestamp(member.joinedAt)
        if let muted = member.muted { raw(muted ? ",\"muted\":true" : ",\"muted\":false") }
        if let mutedUntil = member.mutedUntil {
            raw(",\"muted_until\":")
            timestamp(mutedUntil)
        }
        if let restricted = member.restricted { raw(restricted ? ",\"restricted\":true" : ",\"restricted\":false") }
        raw(",\"role\":")
        string(member.role.rawValue)
        raw(",\"user\":")
        write(member.user)
        raw("}")
    }

    mutating func write(_ conversation: Conversation) {
        raw("{\"address\":")
        string(conversation.address.description)
        raw(",\"avatar_url\":")
        string(conversation.avatarURL)
        raw(",\"display_name\":")
        string(conversation.displayName)
        raw(",\"id\":")
        quoted(conversation.id.rawValue)
        raw(",\"kind\":")
        string(conversation.kind.rawValue)
        if let lastMessage = conversation.lastMessage {
            raw(",\"last_message\":")
            write(lastMessage)
        }
        raw(",\"last_read_seq\":")
        integer(conversation.lastReadSeq)
        raw(",\"unread\":")
        integer(Int64(conversation.unread))
        raw(",\"updated_at\":")
        timestamp(conversation.updatedAt)
        raw("}")
    }

    /// An event without `info` or `notice` (those go through the fallback encoder).
    mutating func write(_ event: Event) {
        raw("{\"at\":")
        timestamp(event.at)
        if let by = event.by {
            raw(",\"by\":")
            string(by)
        }
        if let conversation = event.conversation {
            raw(",\"conversation\":{\"address\":")
            string(conversation.address.description)
            raw(",\"id\":")
            quoted(conversation.id.rawValue)
            raw(",\"kind\":")
            string(conversation.kind.rawValue)
            raw("}")
        }
        if let message = event.message {
            raw(",\"message\":")
            write(message)
        }
        raw(",\"position\":")
        integer(event.position)
        if let reason = event.reason {
            raw(",\"reason\":")
            string(reason)
        }
        if let role = event.role {
            raw(",\"role\":")
            string(role.rawValue)
        }
        if let seq = event.seq {
            raw(",\"seq\":")
            integer(seq)
        }
        raw(",\"type\":")
        string(event.type.rawValue)
        if let until = event.until {
            raw(",\"until\":")
            timestamp(until)
        }
        if let user = event.user {
            raw(",\"user\":")
            write(user)
        }
        if let via = event.via {
            raw(",\"via\":")
            string(via.rawValue)
        }
        raw("}")
    }

    // MARK: JSON values

    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// A JSON array of `items`, each written by `element`.
    mutating func array<Item>(_ items: some Sequence<Item>, _ element: (inout WireWriter, Item) -> Void) {
        byte(UInt8(ascii: "["))
        var first = true
        for item in items {
            if !first { byte(UInt8(ascii: ",")) }
            first = false
            element(&self, item)
        }
        byte(UInt8(ascii: "]"))
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var rest = value.magnitude
        // The digits from the last, at the end of a buffer on the stack (20 hold any Int64).
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Identifiers travel as decimal strings.
    mutating func quoted(_ value: Int64) {
        bytes.append(UInt8(ascii: "\""))
        integer(value)
        bytes.append(UInt8(ascii: "\""))
    }

    /// `Timestamp.rfc3339` in quotes (`"2026-11-29T16:16:50.123Z"`), without building the
    /// string.
    mutating func timestamp(_ value: Timestamp) {
        let milliseconds = value.milliseconds
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let millis = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        bytes.append(UInt8(ascii: "\""))
        padded(Int(parts.tm_year) + 1900, 4)
        bytes.append(UInt8(ascii: "-"))
        padded(Int(parts.tm_mon) + 1, 2)
        bytes.append(UInt8(ascii: "-"))
        padded(Int(parts.tm_mday), 2)
        bytes.append(UInt8(ascii: "T"))
        padded(Int(parts.tm_hour), 2)
        bytes.append(UInt8(ascii: ":"))
        padded(Int(parts.tm_min), 2)
        bytes.append(UInt8(ascii: ":"))
        padded(Int(parts.tm_sec), 2)
        bytes.append(UInt8(ascii: "."))
        padded(millis, 3)
        bytes.append(contentsOf: [UInt8(ascii: "Z"), UInt8(ascii: "\"")])
    }

    /// A number with leading zeros up to `width` digits (`Timestamp.rfc3339`'s padding:
    /// wider numbers, and the sign of negative ones, as they are).
    private mutating func padded(_ value: Int, _ width: Int) {
        var digits = value < 0 ? 1 : 0
        var rest = value.magnitude
        repeat {
            digits += 1
            rest /= 10
        } while rest > 0
        for _ in 0..<max(0, width - digits) { bytes.append(UInt8(ascii: "0")) }
        integer(Int64(value))
    }

    /// A JSON string: quotes, backslashes and control characters escaped as Foundation
    /// escapes them; everything else, slashes and non-ASCII included, as is.
    mutating func string(_ text: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in utf8.indices {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index]))
                start = index + 1
                escape(byte)
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func escape(_ byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
        case 0x08: bytes.append(UInt8(ascii: "b"))
        case 0x0C: bytes.append(UInt8(ascii: "f"))
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
        }
    }
}
