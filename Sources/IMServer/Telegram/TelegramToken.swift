import IMProtocol
import IMStore
import SwitchboardCrypto

/// A bot account's token for the Telegram Bot API: `<bot user id>:<secret>`, the shape
/// every framework checks, with 256 random bits as the secret. It is a login like any
/// other (stored as its SHA-256, ended by revocation, suspension or a password change),
/// of the device `telegram`: issuing a new one ends the one before, so a bot has at most
/// one, and it never expires, as Telegram's do not.
enum TelegramToken {
    /// The device name of a bot's Telegram login.
    static let device = "telegram"

    /// The account id a token of this shape names, or nil when it is not of this shape.
    static func userID(in token: Substring) -> UserID? {
        guard let colon = token.firstIndex(of: ":") else { return nil }
        let id = token[..<colon]
        let secret = token[token.index(after: colon)...]
        guard !id.isEmpty, id.utf8.allSatisfy({ (0x30...0x39).contains($0) }), !secret.isEmpty,
            secret.utf8.allSatisfy({ isSecretByte($0) }), let value = Int64(id), value > 0
        else { return nil }
        return UserID(rawValue: value)
    }

    private static func isSecretByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) || byte == 0x2D
            || byte == 0x5F
    }

    /// Issues a new token for a bot account, ending its earlier one; returns the token and
    /// the logins it ended (the server forgets them and answers their parked polls).
    /// The bot's updates start after what the store has committed now, unless it has
    /// a place already.
    static func issue(for record: UserRecord, in store: any IMStorage) async throws -> (String, [TokenRecord]) {
        guard record.user.isBot else {
            // The request is well formed; the account is what refuses it.
            throw APIError(
                .conflict, "only bot accounts have Telegram tokens: '\(record.user.username)' is a person's",
                field: "user")
        }
        let token = "\(record.id.rawValue):\(SecureRandom.token(bits: 256))"
        let (_, replaced) = try await store.createToken(
            hash: Digest.sha256(Array(token.utf8)), userID: record.id, device: device, expiresAt: nil)
        _ = try await store.createTelegramBot(
            record.id, acknowledged: TelegramUpdateID.first(of: store.committedPosition + 1))
        return (token, replaced)
    }

    /// Ends the bot's Telegram logins, and its webhook with them (nothing more is posted
    /// for a bot cut off); returns the logins.
    static func revoke(for userID: UserID, in store: any IMStorage, now: Timestamp) async throws -> [TokenRecord] {
        let live = try await store.liveTokens(of: userID, at: now).filter { $0.device == device }
        for token in live { try await store.revokeToken(id: token.id, reason: "logout") }
        if !live.isEmpty, try await store.telegramBot(userID)?.webhook != nil {
            try await store.setTelegramWebhook(userID, nil)
        }
        return live
    }
}
