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
        make(bot: bot, scope: String(position), rule: rule, actionIndex: actionIndex)
    }

    /// `b:<bot>:<scope>:<rule>:<action index>`: the scope is a feed position, or for
    /// what no feed event caused, a tag of its own (`w12` for the inbox's delivery 12).
    public static func make(bot: String, scope: String, rule: String, actionIndex: Int) -> String {
        bounded("b:\(bot):\(scope):\(rule):\(actionIndex)")
    }

    /// The id of a part of what `key` names (`key:p2`, the second part of a split message;
    /// `key:log`, a moderation action's mod-log line), within the length the server accepts.
    public static func derived(from key: String, _ part: String) -> String {
        bounded(key + ":" + part)
    }

    /// `id` when it fits, else `b:h:` and 40 hex digits of its SHA-256.
    static func bounded(_ id: String) -> String {
        guard id.utf8.count > maximumLength else { return id }
        return "b:h:" + String(Digest.hex(Digest.sha256(Array(id.utf8))).prefix(40))
    }
}
