import Foundation
import IMClient

/// Rooms: joining, aliases, creating (set-up and tests), membership changes, state.
extension MatrixClient {
    /// Joins a room by id or alias (accepting an invitation too); returns its id.
    @discardableResult
    public func join(_ room: MatrixRoomAddress) async throws(IMClientError) -> String {
        let request = try MatrixRequest("POST", MatrixPath.client + "/join/" + MatrixPath.segment(room.description))
            .json([String: String]())
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: RoomAnswer.self).roomID
        }
    }

    /// Leaves a room.
    public func leave(_ roomID: String) async throws(IMClientError) {
        let request = try MatrixRequest("POST", MatrixPath.room(roomID) + "/leave").json([String: String]())
        _ = try await retrying { () async throws(IMClientError) in try await self.perform(request) }
    }

    /// The id of a room address: an id as it is, an alias as the homeserver resolves it.
    public func roomID(of room: MatrixRoomAddress) async throws(IMClientError) -> String {
        switch room {
        case .id(let id):
            return id
        case .alias(let alias):
            let request = MatrixRequest("GET", MatrixPath.client + "/directory/room/" + MatrixPath.segment(alias))
            return try await retrying { () async throws(IMClientError) in
                try await self.call(request, as: RoomAnswer.self).roomID
            }
        }
    }

    /// The ids of the rooms the user is in.
    public func joinedRooms() async throws(IMClientError) -> [String] {
        let request = MatrixRequest("GET", MatrixPath.client + "/joined_rooms")
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: JoinedRooms.self).rooms
        }
    }

    /// Creates a room; returns its id. Not retried: a repeat would make a second room.
    public func createRoom(_ room: NewRoom) async throws(IMClientError) -> String {
        try await call(MatrixRequest("POST", MatrixPath.client + "/createRoom").json(room), as: RoomAnswer.self).roomID
    }

    /// Asks to join a room whose join rule is `knock`; its members with the invite level
    /// answer by inviting (or kicking) the knocker. Returns the room's id.
    @discardableResult
    public func knock(_ room: MatrixRoomAddress, reason: String? = nil) async throws(IMClientError) -> String {
        var body: [String: String] = [:]
        if let reason { body["reason"] = reason }
        let request = try MatrixRequest("POST", MatrixPath.client + "/knock/" + MatrixPath.segment(room.description))
            .json(body)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: RoomAnswer.self).roomID
        }
    }

    /// The users whose membership in the room is `membership` (`join`, `knock`, `invite`…),
    /// with their membership events, from the room's state.
    public func members(of roomID: String, membership: String) async throws(IMClientError) -> [MatrixEvent] {
        try await state(of: roomID).filter { $0.type == "m.room.member" && $0.stateKey != nil && $0.membership == membership }
    }

    /// Invites `user` into the room.
    public func invite(_ user: MatrixUserID, to roomID: String) async throws(IMClientError) {
        try await membership("invite", user, roomID, reason: nil)
    }

    /// Removes `user` from the room; they may join again.
    public func kick(_ user: MatrixUserID, from roomID: String, reason: String? = nil) async throws(IMClientError) {
        try await membership("kick", user, roomID, reason: reason)
    }

    /// Bans `user` from the room (removing them if they are in it).
    public func ban(_ user: MatrixUserID, from roomID: String, reason: String? = nil) async throws(IMClientError) {
        try await membership("ban", user, roomID, reason: reason)
    }

    /// Lifts a ban; the user may then join (or be invited) again.
    public func unban(_ user: MatrixUserID, from roomID: String, reason: String? = nil) async throws(IMClientError) {
        try await membership("unban", user, roomID, reason: reason)
    }

    private func membership(_ action: String, _ user: MatrixUserID, _ roomID: String, reason: String?)
        async throws(IMClientError)
    {
        var body = ["user_id": user.rawValue]
        if let reason { body["reason"] = reason }
        let request = try MatrixRequest("POST", MatrixPath.room(roomID) + "/" + action).json(body)
        _ = try await retrying { () async throws(IMClientError) in try await self.perform(request) }
    }

    /// The room's current state, every event of it.
    public func state(of roomID: String) async throws(IMClientError) -> [MatrixEvent] {
        let request = MatrixRequest("GET", MatrixPath.room(roomID) + "/state")
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: [MatrixEvent].self)
        }
    }

    /// One state event's content (`stateKey` "" for most types); `NOT_FOUND` when unset.
    public func stateContent(of roomID: String, type: String, stateKey: String = "") async throws(IMClientError) -> JSONValue {
        var path = MatrixPath.room(roomID) + "/state/" + MatrixPath.segment(type)
        if !stateKey.isEmpty { path += "/" + MatrixPath.segment(stateKey) }
        let request = MatrixRequest("GET", path)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: JSONValue.self)
        }
    }

    /// Sets one state event; returns its id.
    @discardableResult
    public func setState(of roomID: String, type: String, stateKey: String = "", content: JSONValue)
        async throws(IMClientError) -> MatrixEventID
    {
        var path = MatrixPath.room(roomID) + "/state/" + MatrixPath.segment(type)
        if !stateKey.isEmpty { path += "/" + MatrixPath.segment(stateKey) }
        let request = try MatrixRequest("PUT", path).json(content)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: EventAnswer.self).eventID
        }
    }
}

/// What `createRoom` makes.
public struct NewRoom: Sendable, Encodable {
    /// `private_chat`, `trusted_private_chat` or `public_chat`.
    public var preset: String
    public var name: String?
    /// The local part of an alias to publish (`#<alias>:server`).
    public var aliasLocalpart: String?
    public var invite: [MatrixUserID]
    /// E.g. "10" or "12"; nil: the homeserver's default.
    public var roomVersion: String?
    /// Users the create event names as creators besides the sender (room version 12).
    public var additionalCreators: [MatrixUserID]
    /// Merged into the initial power levels.
    public var powerLevels: PowerLevels?
    /// A direct chat: the invitations say so (`is_direct`), and clients show it as one.
    public var isDirect: Bool

    public init(preset: String = "private_chat", name: String? = nil, aliasLocalpart: String? = nil,
                invite: [MatrixUserID] = [], roomVersion: String? = nil, additionalCreators: [MatrixUserID] = [],
                powerLevels: PowerLevels? = nil, isDirect: Bool = false) {
        self.isDirect = isDirect
        self.preset = preset
        self.name = name
        self.aliasLocalpart = aliasLocalpart
        self.invite = invite
        self.roomVersion = roomVersion
        self.additionalCreators = additionalCreators
        self.powerLevels = powerLevels
    }

    enum CodingKeys: String, CodingKey {
        case preset, name, invite
        case aliasLocalpart = "room_alias_name"
        case roomVersion = "room_version"
        case creationContent = "creation_content"
        case powerLevels = "power_level_content_override"
        case isDirect = "is_direct"
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(preset, forKey: .preset)
        try container.encodeIfPresent(name, forKey: .name)
        try container.encodeIfPresent(aliasLocalpart, forKey: .aliasLocalpart)
        try container.encode(invite, forKey: .invite)
        try container.encodeIfPresent(roomVersion, forKey: .roomVersion)
        if !additionalCreators.isEmpty {
            try container.encode(["additional_creators": additionalCreators], forKey: .creationContent)
        }
        try container.encodeIfPresent(powerLevels, forKey: .powerLevels)
        if isDirect { try container.encode(true, forKey: .isDirect) }
    }
}

struct RoomAnswer: Decodable {
    var roomID: String
    enum CodingKeys: String, CodingKey { case roomID = "room_id" }
}

struct JoinedRooms: Decodable {
    var rooms: [String]
    enum CodingKeys: String, CodingKey { case rooms = "joined_rooms" }
}

extension MatrixClient {
    /// The room's latest events, newest first (`/messages` backwards), at most `limit`
    /// (1 to 1,000), only those of `senders` when given.
    public func latestEvents(in roomID: String, limit: Int = 100, senders: [MatrixUserID]? = nil)
        async throws(IMClientError) -> [MatrixEvent]
    {
        let filter = senders.map { JSONValue.object(["senders": .array($0.map { .string($0.rawValue) })]) }
        return try await page(in: roomID, from: nil, to: nil, limit: limit, filter: filter).chunk
    }

    /// A room's events going back from `from` (a `prev_batch` or an earlier page's `end`)
    /// towards `to` (a `/sync` token), newest first, at most `limit` (1 to 1,000), of the
    /// types given; and where the next page back starts, nil when this one reached `to`
    /// or the room's beginning.
    public func events(in roomID: String, backFrom from: String, to: String?, limit: Int, types: [String])
        async throws(IMClientError) -> (events: [MatrixEvent], next: String?)
    {
        let filter = JSONValue.object(["types": .array(types.map(JSONValue.string)), "lazy_load_members": .bool(true)])
        let page = try await page(in: roomID, from: from, to: to, limit: limit, filter: filter)
        // An empty page, or one without an end, is the last.
        return (page.chunk, page.chunk.isEmpty ? nil : page.end)
    }

    /// One page of `/messages` backwards: from `from` (the newest events when nil)
    /// towards `to`, at most `limit` (1 to 1,000) events that pass `filter`.
    private func page(in roomID: String, from: String?, to: String?, limit: Int, filter: JSONValue?)
        async throws(IMClientError) -> EventPage
    {
        guard (1...1000).contains(limit) else {
            throw IMClientError(.invalidArgument, "a page of events holds 1 to 1,000 events, not \(limit)")
        }
        var query: [(name: String, value: String)] = [("dir", "b")]
        if let from { query.append(("from", from)) }
        if let to { query.append(("to", to)) }
        query.append(("limit", String(limit)))
        if let filter {
            do {
                query.append(("filter", String(decoding: try JSONEncoder().encode(filter), as: UTF8.self)))
            } catch {
                throw IMClientError(.invalidArgument, "cannot encode the filter: \(error)")
            }
        }
        let request = MatrixRequest("GET", MatrixPath.room(roomID) + "/messages", query: query)
        return try await retrying { () async throws(IMClientError) in
            try await self.call(request, as: EventPage.self)
        }
    }
}

private struct EventPage: Decodable {
    var chunk: [MatrixEvent]
    var end: String?
}
