import Foundation
import IMProtocol

extension SQLiteStore: MediaStore {
    public func setAvatar(_ userID: UserID, contentType: String, bytes: [UInt8], sha256 digest: [UInt8], budget: Int)
        async throws -> (UserRecord, MediaRecord)
    {
        var generator = SystemRandomNumberGenerator()
        let freshID = (0..<4).map { _ in String(UInt32.random(in: 0...UInt32.max, using: &generator), radix: 36) }
            .joined()
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            try requireUser(userID, connection)
            let media: MediaRecord
            if let id = try connection.first(
                "SELECT id FROM media WHERE owner_id = ? AND sha256 = ?", userID.rawValue, digest, as: { $0.text(0) })
            {
                media = MediaRecord(id: id, ownerID: userID, contentType: contentType, bytes: bytes, createdAt: now)
            } else {
                // The avatar being replaced is deleted below unless something else shows it.
                let current = try connection.first(
                    "SELECT avatar_url FROM users WHERE id = ?", userID.rawValue, as: { $0.text(0) }) ?? ""
                let freed = try isUnreferenced(path: current, except: userID, connection)
                    ? try connection.scalar(
                        "SELECT size FROM media WHERE id = ? AND owner_id = ?", Self.mediaID(in: current), userID.rawValue) ?? 0
                    : 0
                let used = Int(try connection.scalar(
                    "SELECT coalesce(sum(size), 0) FROM media WHERE owner_id = ?", userID.rawValue) ?? 0)
                let after = used - Int(freed) + bytes.count
                guard after <= budget else { throw StoreError.overBudget(used: used - Int(freed), limit: budget) }
                try connection.execute(
                    "INSERT INTO media (id, owner_id, content_type, bytes, created_at, size, sha256) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    freshID, userID.rawValue, contentType, bytes, now.milliseconds, bytes.count, digest)
                media = MediaRecord(id: freshID, ownerID: userID, contentType: contentType, bytes: bytes, createdAt: now)
            }
            let record = try updateProfile(context, userID, ProfileUpdate(avatarURL: media.path), at: now)
            return (record, media)
        }
    }

    public func media(id: String) async throws -> MediaRecord? {
        try await database.read { connection in
            try connection.first(
                "SELECT owner_id, content_type, bytes, created_at FROM media WHERE id = ?", id,
                as: { row in
                    MediaRecord(
                        id: id, ownerID: UserID(rawValue: row.int(0)), contentType: row.text(1), bytes: row.blob(2),
                        createdAt: Timestamp(milliseconds: row.int(3)))
                })
        }
    }

    /// True when no profile (other than `except`'s) and no group or room logo shows the
    /// media at `path`.
    func isUnreferenced(path: String, except userID: UserID? = nil, _ connection: SQLiteConnection) throws -> Bool {
        guard path.hasPrefix("/v1/media/") else { return false }
        let users = try connection.scalar(
            "SELECT count(*) FROM users WHERE avatar_url = ? AND id != ?", path, userID?.rawValue ?? 0) ?? 0
        let logos = try connection.scalar("SELECT count(*) FROM conversations WHERE logo_url = ?", path) ?? 0
        return users == 0 && logos == 0
    }

    /// Deletes the media at `path` (a `/v1/media/<id>` path) when nothing shows it any more.
    func deleteIfUnreferenced(path: String, _ connection: SQLiteConnection) throws {
        guard try isUnreferenced(path: path, connection) else { return }
        try connection.execute("DELETE FROM media WHERE id = ?", Self.mediaID(in: path))
    }

    /// The media id in a `/v1/media/<id>` path.
    static func mediaID(in path: String) -> String { String(path.dropFirst("/v1/media/".count)) }
}
