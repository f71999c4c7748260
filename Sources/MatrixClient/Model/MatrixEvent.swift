/// One event as `/sync` or a state read returns it (the client-server format).
public struct MatrixEvent: Sendable, Hashable, Decodable {
    /// E.g. `m.room.message`, `m.room.member`.
    public var type: String
    /// Absent in stripped state (an invite's preview of the room).
    public var eventID: MatrixEventID?
    public var sender: String
    /// Milliseconds since 1970, by the sender's homeserver's clock.
    public var originServerTS: Int64?
    /// Set on state events (`""` for most of them; the member's user id for `m.room.member`).
    public var stateKey: String?
    public var content: JSONValue
    /// What the homeserver adds: for the bot's own events, the transaction id it sent them with.
    public var unsigned: JSONValue?
    /// A redaction's target where room versions before 11 put it: beside the content.
    var redactsOutside: MatrixEventID?

    enum CodingKeys: String, CodingKey {
        case type, sender, content, unsigned
        case redactsOutside = "redacts"
        case eventID = "event_id"
        case originServerTS = "origin_server_ts"
        case stateKey = "state_key"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        type = try container.decode(String.self, forKey: .type)
        eventID = try container.decodeIfPresent(String.self, forKey: .eventID)
        sender = try container.decodeIfPresent(String.self, forKey: .sender) ?? ""
        originServerTS = try container.decodeIfPresent(Int64.self, forKey: .originServerTS)
        stateKey = try container.decodeIfPresent(String.self, forKey: .stateKey)
        content = try container.decodeIfPresent(JSONValue.self, forKey: .content) ?? .object([:])
        unsigned = try container.decodeIfPresent(JSONValue.self, forKey: .unsigned)
        redactsOutside = try container.decodeIfPresent(String.self, forKey: .redactsOutside)
    }

    /// Creates an event (tests, and events made from others).
    public init(type: String, eventID: MatrixEventID?, sender: String, originServerTS: Int64? = nil,
                stateKey: String? = nil, content: JSONValue, unsigned: JSONValue? = nil) {
        self.type = type
        self.eventID = eventID
        self.sender = sender
        self.originServerTS = originServerTS
        self.stateKey = stateKey
        self.content = content
        self.unsigned = unsigned
    }

    /// A message's text (`body`), for `m.room.message` events.
    public var body: String? { content["body"]?.string }
    /// `m.text`, `m.notice`, `m.emote`, `m.image`, …
    public var messageType: String? { content["msgtype"]?.string }
    /// The event an `m.replace` edit replaces.
    public var replaces: MatrixEventID? {
        guard content["m.relates_to"]?["rel_type"]?.string == "m.replace" else { return nil }
        return content["m.relates_to"]?["event_id"]?.string
    }
    /// The event a reply answers (`m.in_reply_to`).
    public var inReplyTo: MatrixEventID? { content["m.relates_to"]?["m.in_reply_to"]?["event_id"]?.string }
    /// An edit's new text (`m.new_content.body`).
    public var newBody: String? { content["m.new_content"]?["body"]?.string }
    /// `join`, `invite`, `leave`, `ban`, `knock` for `m.room.member` events.
    public var membership: String? { content["membership"]?.string }
    /// A state event's membership before it (`unsigned.prev_content`): a `join` after a
    /// `join` is a profile change, one after an `invite` the answer to it.
    public var previousMembership: String? { unsigned?["prev_content"]?["membership"]?.string }
    /// The transaction id the bot sent its own event with.
    public var transactionID: String? { unsigned?["transaction_id"]?.string }
    /// The event a redaction removes (`redacts`: in the content from room version 11 on,
    /// beside it before).
    public var redacts: MatrixEventID? { content["redacts"]?.string ?? redactsOutside }
}
