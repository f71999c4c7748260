/// The answer to `/sync`: what changed in the bot's rooms since `since`.
///
/// Only the parts a bot reads are decoded; the rest (presence, device lists, to-device
/// messages) is left out by the filter and ignored if sent.
public struct SyncResponse: Sendable, Decodable {
    /// The token for the next `/sync`: kept in the bot's journal, so a restart goes on here.
    public var nextBatch: String
    public var rooms: Rooms

    enum CodingKeys: String, CodingKey {
        case nextBatch = "next_batch"
        case rooms
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nextBatch = try container.decode(String.self, forKey: .nextBatch)
        rooms = try container.decodeIfPresent(Rooms.self, forKey: .rooms) ?? Rooms()
    }

    /// The rooms by membership.
    public struct Rooms: Sendable, Decodable {
        public var join: [String: JoinedRoom] = [:]
        public var invite: [String: InvitedRoom] = [:]
        public var leave: [String: JoinedRoom] = [:]

        init() {}

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            join = try container.decodeIfPresent([String: JoinedRoom].self, forKey: .join) ?? [:]
            invite = try container.decodeIfPresent([String: InvitedRoom].self, forKey: .invite) ?? [:]
            leave = try container.decodeIfPresent([String: JoinedRoom].self, forKey: .leave) ?? [:]
        }

        enum CodingKeys: String, CodingKey { case join, invite, leave }
    }

    /// A room the bot is in (or just left): its new state and timeline.
    public struct JoinedRoom: Sendable, Decodable {
        /// State before the timeline's start (on a first sync or after a gap).
        public var state: [MatrixEvent]
        /// Events in order, oldest first.
        public var timeline: [MatrixEvent]
        /// True when events between the last sync and `timeline` were left out.
        public var limited: Bool
        /// Where to page back from (`/messages`) for the events a limited timeline left out.
        public var prevBatch: String?

        enum CodingKeys: String, CodingKey { case state, timeline }
        enum ListKeys: String, CodingKey { case events, limited, prevBatch = "prev_batch" }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            if let list = try? container.nestedContainer(keyedBy: ListKeys.self, forKey: .state) {
                state = try list.decodeIfPresent([MatrixEvent].self, forKey: .events) ?? []
            } else {
                state = []
            }
            if let list = try? container.nestedContainer(keyedBy: ListKeys.self, forKey: .timeline) {
                timeline = try list.decodeIfPresent([MatrixEvent].self, forKey: .events) ?? []
                limited = try list.decodeIfPresent(Bool.self, forKey: .limited) ?? false
                prevBatch = try list.decodeIfPresent(String.self, forKey: .prevBatch)
            } else {
                timeline = []
                limited = false
            }
        }
    }

    /// A room the bot is invited to: a stripped preview of its state.
    public struct InvitedRoom: Sendable, Decodable {
        public var state: [MatrixEvent]

        enum CodingKeys: String, CodingKey { case inviteState = "invite_state" }
        enum ListKeys: String, CodingKey { case events }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let list = try? container.nestedContainer(keyedBy: ListKeys.self, forKey: .inviteState)
            state = try list?.decodeIfPresent([MatrixEvent].self, forKey: .events) ?? []
        }

        /// Who invited the bot, from its own `m.room.member` event in the preview.
        public func inviter(of user: MatrixUserID) -> String? {
            state.last { $0.type == "m.room.member" && $0.stateKey == user.rawValue && $0.membership == "invite" }?.sender
        }

        /// Whether the invitation is to a direct chat (`is_direct` on the bot's membership).
        public func isDirect(for user: MatrixUserID) -> Bool {
            state.last { $0.type == "m.room.member" && $0.stateKey == user.rawValue && $0.membership == "invite" }?
                .content["is_direct"] == .bool(true)
        }
    }
}
