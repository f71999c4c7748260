import Foundation
import IMClient

/// Power levels: reading who may do what, and muting as a level below the one messages need.
extension MatrixClient {
    /// The room's power levels with its version and creators (from the room's state).
    public func power(in roomID: String) async throws(IMClientError) -> RoomPower {
        let events = try await self.state(of: roomID)
        return try Self.power(from: events, roomID: roomID)
    }

    /// The power of a room from its state events.
    public static func power(from state: [MatrixEvent], roomID: String) throws(IMClientError) -> RoomPower {
        guard let create = state.last(where: { $0.type == "m.room.create" && ($0.stateKey ?? "") == "" }) else {
            throw IMClientError(.badResponse, "the state of \(roomID) has no m.room.create event")
        }
        var creators: Set<String> = [create.sender]
        // Versions before 11 name the creator in the content too.
        if let creator = create.content["creator"]?.string { creators.insert(creator) }
        for extra in create.content["additional_creators"]?.array ?? [] {
            if let user = extra.string { creators.insert(user) }
        }
        let levels: PowerLevels
        if let event = state.last(where: { $0.type == "m.room.power_levels" && ($0.stateKey ?? "") == "" }) {
            do {
                levels = try event.content.decode(as: PowerLevels.self)
            } catch {
                throw IMClientError(.badResponse, "the power levels of \(roomID) cannot be read: \(error)")
            }
        } else {
            levels = PowerLevels()
        }
        return RoomPower(roomVersion: create.content["room_version"]?.string ?? "1", creators: creators, levels: levels)
    }

    /// Sets `user`'s power level in the room (nil: back to `users_default`). Refuses a
    /// creator of a version 12 room (creators may not be listed) before asking.
    @discardableResult
    public func setPowerLevel(_ level: Int64?, for user: MatrixUserID, in roomID: String)
        async throws(IMClientError) -> RoomPower
    {
        let current = try await self.power(in: roomID)
        let changed: PowerLevels
        do {
            changed = try current.setting(user.rawValue, to: level)
        } catch {
            throw IMClientError(.invalidArgument, error.description)
        }
        let content: JSONValue
        do {
            content = try JSONDecoder().decode(JSONValue.self, from: JSONEncoder().encode(changed))
        } catch {
            throw IMClientError(.invalidArgument, "cannot encode power levels: \(error)")
        }
        try await setState(of: roomID, type: "m.room.power_levels", content: content)
        return RoomPower(roomVersion: current.roomVersion, creators: current.creators, levels: changed)
    }

    /// Mutes `user`: a level one below what messages need (their other rights as the
    /// room's defaults give them). Returns the level they had, for unmuting.
    @discardableResult
    public func mute(_ user: MatrixUserID, in roomID: String) async throws(IMClientError) -> Int64 {
        let current = try await self.power(in: roomID)
        let had = current.level(of: user.rawValue)
        try await setPowerLevel(min(had, current.levels.messageLevel - 1), for: user, in: roomID)
        return had
    }

    /// Lifts a mute: the user's entry is removed, back to the room's default level.
    public func unmute(_ user: MatrixUserID, in roomID: String) async throws(IMClientError) {
        try await setPowerLevel(nil, for: user, in: roomID)
    }
}
