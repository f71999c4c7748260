import Foundation
import IMProtocol
import Templates

/// What conditions read from one event, each derived at most once and only when a
/// condition asks: the UTF-8 bytes, the lowered text, word streams, the parsed command,
/// local times.
///
/// Evaluation passes it `inout`, so the caches fill in place without allocation of
/// their own.
struct EventFacts {
    /// Where the event happened.
    let conversation: ConversationRef?
    /// Whether whoever caused the event is a bot, as far as the runner knows.
    let senderIsBot: Bool
    /// The sender's group role, when the runner knows it.
    let senderRole: MemberRole?
    /// The bot's username, lowered.
    let botUsername: String
    let now: Timestamp
    let defaultTimeZone: String
    /// The text of a message event.
    let text: String?
    /// Who caused the event, lowered.
    let actor: String?
    /// The kind of event.
    let type: EventType
    /// The member a member event is about.
    let member: Member?

    /// What `member:` reads about the member of a member event.
    struct Member {
        /// Lowered.
        let username: String
        let isBot: Bool
        /// The member's role in the group, when the runner knows it.
        let role: MemberRole?
        /// How they joined (`member_joined`), when the event says.
        let via: JoinVia?
    }
    /// The bot's state variables (`state:` matchers).
    let state: [String: TemplateValue]
    /// The counters `rate` and `repeated` read; nil counts nothing before this event.
    let windows: EventWindows?
    /// When the sender joined the event's group, when the runner knows it.
    let senderJoinedAt: Timestamp?
    /// The `schedule` or `quiet` trigger this event is for (`BotEvent.trigger`).
    let trigger: String?
    /// The counters this event adds to, for the runner to record after the decision.
    var windowHits: [WindowHit] = []
    /// A webhook delivery's payload and path.
    let payload: WebhookPayload?
    let webhookPath: String?

    private var cachedBytes: [UInt8]?
    private var cachedIsASCII: Bool?
    private var cachedLowered: [UInt8]?
    private var cachedFolded: [UInt8]?
    private var cachedWords: TokenText?
    private var cachedLoweredWords: TokenText?
    private var cachedNormalized: TokenText?
    private var cachedCommand: ParsedCommand??
    private var cachedMention: Bool?
    private var cachedLocalTimes: [(zone: String, time: LocalTime)] = []

    init(event: BotEvent, context: BotContext) {
        self.conversation = event.event.conversation
        self.senderIsBot = event.sender?.isBot ?? false
        self.senderRole = event.senderRole
        self.botUsername = context.bot.username
        self.now = context.now
        self.defaultTimeZone = context.timezone
        self.text = event.text
        self.actor = event.actor.map(Self.lowercasedName)
        self.type = event.type
        self.member = event.member.map { user in
            Member(username: Self.lowercasedName(user.username), isBot: user.isBot, role: event.memberRole,
                   via: event.joinedVia)
        }
        self.state = context.state
        self.windows = context.windows
        self.senderJoinedAt = event.senderJoinedAt
        self.trigger = event.trigger
        self.payload = event.payload
        self.webhookPath = event.webhookPath
    }

    /// The text's UTF-8 (empty without text).
    var bytes: [UInt8] {
        mutating get {
            if let cachedBytes { return cachedBytes }
            let bytes = Array((text ?? "").utf8)
            cachedBytes = bytes
            return bytes
        }
    }

    /// Whether the text is pure ASCII.
    var isASCII: Bool {
        mutating get {
            if let cachedIsASCII { return cachedIsASCII }
            let value = ByteText.isASCII(bytes)
            cachedIsASCII = value
            return value
        }
    }

    /// The text lowered, as UTF-8.
    var lowered: [UInt8] {
        mutating get {
            if let cachedLowered { return cachedLowered }
            let value = isASCII ? ByteText.asciiLowercased(bytes) : Array((text ?? "").lowercased().utf8)
            cachedLowered = value
            return value
        }
    }

    /// The text as case-insensitive regex matching may see it: compatibility forms
    /// decomposed (`ﬁ` is `fi`, `ſ` is `s`, the Kelvin sign is `K`), lowered, and `ß` as
    /// `ss`. Every ASCII literal a case-insensitive regex can match is in here, lowered.
    var folded: [UInt8] {
        mutating get {
            if let cachedFolded { return cachedFolded }
            let value = isASCII ? lowered
                : Array((text ?? "").decomposedStringWithCompatibilityMapping.lowercased()
                    .replacingOccurrences(of: "ß", with: "ss").utf8)
            cachedFolded = value
            return value
        }
    }

    /// The words as written, or lowered.
    mutating func words(lowercase: Bool) -> TokenText {
        if lowercase {
            if let cachedLoweredWords { return cachedLoweredWords }
            let value = TextNormalizer.words(text ?? "", lowercase: true)
            cachedLoweredWords = value
            return value
        }
        if let cachedWords { return cachedWords }
        let value = TextNormalizer.words(text ?? "", lowercase: false)
        cachedWords = value
        return value
    }

    /// The normalised words (see `TextNormalizer`).
    var normalized: TokenText {
        mutating get {
            if let cachedNormalized { return cachedNormalized }
            let value = TextNormalizer.normalized(text ?? "")
            cachedNormalized = value
            return value
        }
    }

    /// The command the text starts with, whoever it is addressed to.
    var command: ParsedCommand? {
        mutating get {
            if let cachedCommand { return cachedCommand }
            let value = text.flatMap(ParsedCommand.parse)
            cachedCommand = .some(value)
            return value
        }
    }

    /// The command, when it is addressed to this bot (no `@name`, or `@` this bot).
    var commandForBot: ParsedCommand? {
        mutating get {
            guard let command, command.target == nil || command.target == botUsername else { return nil }
            return command
        }
    }

    /// Whether the text holds `@<bot username>` as a word.
    var mentionsBot: Bool {
        mutating get {
            if let cachedMention { return cachedMention }
            let value = Self.mentions(botUsername, in: lowered)
            cachedMention = value
            return value
        }
    }

    /// The local time in `zone`, or in the context's zone when nil.
    mutating func localTime(in zone: TimeZone?) -> LocalTime {
        let name = zone?.identifier ?? defaultTimeZone
        if let cached = cachedLocalTimes.first(where: { $0.zone == name }) { return cached.time }
        let resolved = zone ?? TimeZone(identifier: defaultTimeZone) ?? .gmt
        let time = LocalTime(now, in: resolved)
        cachedLocalTimes.append((name, time))
        return time
    }

    /// A username lowered; usernames are ASCII, so the common case needs no Unicode
    /// case mapping.
    static func lowercasedName(_ name: String) -> String {
        name.utf8.contains(where: { $0 &- UInt8(ascii: "A") < 26 || $0 >= 0x80 }) ? name.lowercased() : name
    }

    /// Finds `@name` not preceded or followed by a character that could continue a name.
    static func mentions(_ username: String, in lowered: [UInt8]) -> Bool {
        let needle = [UInt8(ascii: "@")] + Array(username.lowercased().utf8)
        return lowered.withUnsafeBufferPointer { text in
            needle.withUnsafeBufferPointer { pattern in
                var start = 0
                while let found = ByteText.firstIndex(of: pattern, in: text, from: start, wildcard: false) {
                    let before = found > 0 ? text[found - 1] : nil
                    let after = found + pattern.count
                    if !continuesName(before), endsName(text, at: after) { return true }
                    start = found + 1
                }
                return false
            }
        }
    }

    private static func continuesName(_ byte: UInt8?) -> Bool {
        guard let byte else { return false }
        return ByteText.isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    /// A name ends at `offset` unless a name character follows; a `.` followed by
    /// something that is not a name character is the end of a sentence.
    private static func endsName(_ text: UnsafeBufferPointer<UInt8>, at offset: Int) -> Bool {
        guard offset < text.count else { return true }
        let next = text[offset]
        if next == UInt8(ascii: ".") {
            return offset + 1 >= text.count || !continuesName(text[offset + 1])
        }
        return !continuesName(next)
    }
}

/// A moment as a wall clock in some time zone shows it.
struct LocalTime: Sendable, Hashable {
    /// Minutes since local midnight, 0..<1440.
    var minuteOfDay: Int
    /// 0 = Monday ... 6 = Sunday.
    var weekday: Int
    /// Days since 1970-01-01 in local time.
    var day: Int
    /// The zone's offset from UTC at that moment, in seconds.
    var offset: Int
    /// The zone's identifier.
    var zone: String

    init(_ time: Timestamp, in zone: TimeZone) {
        let utcSeconds = time.milliseconds >= 0 ? time.milliseconds / 1000 : (time.milliseconds - 999) / 1000
        let offset = zone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(utcSeconds)))
        let local = utcSeconds + Int64(offset)
        let day = local >= 0 ? local / 86400 : (local - 86399) / 86400
        let secondOfDay = Int(local - day * 86400)
        self.minuteOfDay = secondOfDay / 60
        // 1970-01-01 was a Thursday: index 3 when Monday is 0.
        self.weekday = Int(((day % 7) + 7 + 3) % 7)
        self.day = Int(day)
        self.offset = offset
        self.zone = zone.identifier
    }

    /// `HH:MM`.
    var clock: String {
        let hour = minuteOfDay / 60, minute = minuteOfDay % 60
        return (hour < 10 ? "0" : "") + "\(hour):" + (minute < 10 ? "0" : "") + "\(minute)"
    }

    /// Short English day names, Monday first.
    static let dayNames = ["mon", "tue", "wed", "thu", "fri", "sat", "sun"]
}
