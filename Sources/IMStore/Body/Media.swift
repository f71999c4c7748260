import Foundation
import IMProtocol

/// Uploaded pictures (avatars, logos), each stored once per owner and deleted when
/// nothing shows it any more.
extension StoreEngine {
    public func setAvatar(_ userID: UserID, contentType: String, bytes: [UInt8], sha256 digest: [UInt8], budget: Int)
        async throws -> (UserRecord, MediaRecord)
    {
        var generator = SystemRandomNumberGenerator()
        let freshID = (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 36) }
            .joined()
        return try await write { [self] context in
            let now = clock()
            let connection = context.connection
            // The account's row is locked first: two uploads of one account (on two nodes)
            // are checked against the budget one after the other.
            guard let current = try connection.first(
                "SELECT avatar_url FROM users WHERE id = ?1 FOR UPDATE", userID.rawValue, as: { try $0.text(0) })
            else { throw StoreError.notFound("no account \(userID)") }
            let media: MediaRecord
            if let id = try connection.first(
                "SELECT id FROM media WHERE owner_id = ?1 AND sha256 = ?2", userID.rawValue, digest, as: { try $0.text(0) })
            {
                media = MediaRecord(id: id, ownerID: userID, contentType: contentType, bytes: bytes, createdAt: now)
            } else {
                // The avatar being replaced is deleted below unless something else shows it.
                let freed = try Self.isUnreferenced(path: current, except: userID, connection)
                    ? try connection.first(
                        "SELECT size FROM media WHERE id = ?1 AND owner_id = ?2", Self.mediaID(in: current),
                        userID.rawValue, as: { try $0.int(0) }) ?? 0
                    : 0
                let used = Int(try connection.first(
                    "SELECT CAST(coalesce(sum(size), 0) AS BIGINT) FROM media WHERE owner_id = ?1", userID.rawValue,
                    as: { try $0.int(0) }) ?? 0)
                let after = used - Int(freed) + bytes.count
                guard after <= budget else { throw StoreError.overBudget(used: used - Int(freed), limit: budget) }
                try connection.execute(
                    "INSERT INTO media (id, owner_id, content_type, bytes, created_at, size, sha256) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                    freshID, userID.rawValue, contentType, bytes, now.milliseconds, bytes.count, digest)
                media = MediaRecord(id: freshID, ownerID: userID, contentType: contentType, bytes: bytes, createdAt: now)
            }
            let record = try updateProfile(context, userID, ProfileUpdate(avatarURL: media.path), at: now)
            return (record, media)
        }
    }

    public func media(id: String) async throws -> MediaRecord? {
        try await read { connection in
            try connection.first(
                "SELECT owner_id, content_type, bytes, created_at FROM media WHERE id = ?1", id,
                as: { row in
                    MediaRecord(
                        id: id, ownerID: UserID(rawValue: try row.int(0)), contentType: try row.text(1),
                        bytes: try row.bytes(2), createdAt: try row.time(3))
                })
        }
    }

    /// True when no profile (other than `except`'s) and no group or room logo shows the
    /// media at `path`.
    static func isUnreferenced(path: String, except userID: UserID? = nil, _ connection: Connection) throws -> Bool {
        guard path.hasPrefix("/v1/media/") else { return false }
        let shown = try connection.first(
            """
            SELECT EXISTS (SELECT 1 FROM users WHERE avatar_url = ?1 AND id != ?2)
                OR EXISTS (SELECT 1 FROM conversations WHERE logo_url = ?1)
            """,
            path, userID?.rawValue ?? 0, as: { try $0.bool(0) }) ?? true
        return !shown
    }

    /// Deletes the media at `path` (a `/v1/media/<id>` path) when nothing shows it any more.
    static func deleteIfUnreferenced(path: String, _ connection: Connection) throws {
        guard try isUnreferenced(path: path, connection) else { return }
        try connection.execute("DELETE FROM media WHERE id = ?1", mediaID(in: path))
    }

    /// The media id in a `/v1/media/<id>` path.
    static func mediaID(in path: String) -> String { String(path.dropFirst("/v1/media/".count)) }
}
