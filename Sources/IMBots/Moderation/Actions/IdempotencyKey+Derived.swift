import SwitchboardCrypto

extension IdempotencyKey {
    /// An id for one of several things an action does (a warning and a mod-log line),
    /// derived from the action's key, within the length the server accepts.
    static func derived(from key: String, _ suffix: String) -> String {
        let full = key + ":" + suffix
        guard full.utf8.count > maximumLength else { return full }
        return "b:h:" + String(Digest.hex(Digest.sha256(Array(full.utf8))).prefix(40))
    }
}
