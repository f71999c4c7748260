import IMProtocol

/// A position in one user's feed of one database, as handed to clients:
/// `v1.<epoch>.<user>.<position>`. Clients treat it as opaque.
struct FeedCursor: Equatable {
    var epoch: String
    var userID: UserID
    var position: Int64

    var text: String {
        "v1.\(epoch).\(String(userID.rawValue, radix: 36)).\(String(position, radix: 36))"
    }

    init(epoch: String, userID: UserID, position: Int64) {
        self.epoch = epoch
        self.userID = userID
        self.position = position
    }

    /// Parses a cursor; nil when it is not one at all.
    init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4, parts[0] == "v1", !parts[1].isEmpty,
            let user = Int64(parts[2], radix: 36), user > 0,
            let position = Int64(parts[3], radix: 36), position >= 0
        else { return nil }
        self.epoch = String(parts[1])
        self.userID = UserID(rawValue: user)
        self.position = position
    }
}
