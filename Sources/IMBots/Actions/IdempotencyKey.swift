import SwitchboardCrypto

/// Ids that make actions safe to repeat: the same bot, event, rule and action always
/// give the same id, so after a crash the re-delivered event re-sends the same
/// `client_msg_id` (or `Idempotency-Key`) and the receiver drops the duplicate.
public enum IdempotencyKey {
    /// The longest id the server accepts as a `client_msg_id`.
    public static let maximumLength = 128

    /// `b:<bot>:<position>:<rule>:<action index>`; when that is longer than 128
    /// characters, `b:h:` and 40 hex digits of its SHA-256.
    public static func make(bot: String, position: Int64, rule: String, actionIndex: Int) -> String {
        let full = "b:\(bot):\(position):\(rule):\(actionIndex)"
        guard full.utf8.count > maximumLength else { return full }
        return "b:h:" + String(Digest.hex(Digest.sha256(Array(full.utf8))).prefix(40))
    }
}
