import Foundation
import IMClient

/// The bot's own account: its profile (display name, avatar), its account data (the
/// `m.direct` list of direct chats), and the media its avatar is uploaded as.
extension MatrixClient {
    /// The display name of `user` (the logged-in user when nil); nil when they set none.
    public func displayName(of user: MatrixUserID? = nil) async throws(IMClientError) -> String? {
        let who: MatrixUserID
        if let user { who = user } else { who = try currentUser() }
        let request = MatrixRequest("GET", MatrixPath.client + "/profile/" + MatrixPath.segment(who.rawValue) + "/displayname")
        do {
            return try await retrying { () async throws(IMClientError) in
                try await self.call(request, as: JSONValue.self)
            }["displayname"]?.string
        } catch where error.apiCode == .notFound {
            return nil
        }
    }

    /// Sets the logged-in user's avatar to an `mxc://` URL (from ``upload(_:contentType:)``).
    public func setAvatarURL(_ url: String) async throws(IMClientError) {
        let user = try currentUser()
        let request = try MatrixRequest("PUT", MatrixPath.client + "/profile/" + MatrixPath.segment(user.rawValue)
                                        + "/avatar_url").json(["avatar_url": url])
        _ = try await retrying { () async throws(IMClientError) in try await self.perform(request) }
    }

    /// Uploads `data` to the homeserver's media repository; returns its `mxc://` URL.
    /// Not retried: a repeat would store a second copy.
    public func upload(_ data: Data, contentType: String) async throws(IMClientError) -> String {
        var request = MatrixRequest("POST", "/_matrix/media/v3/upload")
        request.body = data
        request.contentType = contentType
        return try await call(request, as: UploadAnswer.self).contentURI
    }

    /// The logged-in user's account data of `type` (`m.direct`…); nil when unset.
    public func accountData(_ type: String) async throws(IMClientError) -> JSONValue? {
        let request = MatrixRequest("GET", try accountDataPath(type))
        do {
            return try await retrying { () async throws(IMClientError) in
                try await self.call(request, as: JSONValue.self)
            }
        } catch where error.apiCode == .notFound {
            return nil
        }
    }

    /// Sets the logged-in user's account data of `type`.
    public func setAccountData(_ type: String, to content: JSONValue) async throws(IMClientError) {
        let request = try MatrixRequest("PUT", try accountDataPath(type)).json(content)
        _ = try await retrying { () async throws(IMClientError) in try await self.perform(request) }
    }

    private func accountDataPath(_ type: String) throws(IMClientError) -> String {
        MatrixPath.client + "/user/" + MatrixPath.segment(try currentUser().rawValue) + "/account_data/"
            + MatrixPath.segment(type)
    }

    /// The direct chats of the logged-in user's `m.direct` account data: room id → the
    /// other user (the first one listed for it).
    public func directRooms() async throws(IMClientError) -> [String: String] {
        var rooms: [String: String] = [:]
        for (user, list) in (try await accountData("m.direct"))?.object ?? [:] {
            for room in list.array ?? [] {
                if let id = room.string, rooms[id] == nil { rooms[id] = user }
            }
        }
        return rooms
    }

    /// Adds `roomID` to the logged-in user's `m.direct` list for `user` (read, changed,
    /// written: the homeserver keeps no list operations).
    public func addDirectRoom(_ roomID: String, with user: MatrixUserID) async throws(IMClientError) {
        var lists = (try await accountData("m.direct"))?.object ?? [:]
        var list = lists[user.rawValue]?.array ?? []
        guard !list.contains(.string(roomID)) else { return }
        list.append(.string(roomID))
        lists[user.rawValue] = .array(list)
        try await setAccountData("m.direct", to: .object(lists))
    }

    /// Creates a direct chat with `user` (invited, `is_direct`) and lists it in `m.direct`;
    /// returns its id.
    public func createDirectRoom(with user: MatrixUserID) async throws(IMClientError) -> String {
        let roomID = try await createRoom(NewRoom(preset: "trusted_private_chat", invite: [user], isDirect: true))
        try await addDirectRoom(roomID, with: user)
        return roomID
    }
}

private struct UploadAnswer: Decodable {
    var contentURI: String
    enum CodingKeys: String, CodingKey { case contentURI = "content_uri" }
}
