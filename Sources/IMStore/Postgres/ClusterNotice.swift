import IMProtocol

/// What one node's batch tells the other nodes, as `NOTIFY` payloads on one channel, sent
/// in the batch's transaction (so delivered at its commit, in commit order, and not at
/// all if it rolls back).
///
/// Text, numbers in base 36, at most `maxPayload` bytes each; a batch whose feed entries
/// do not fit in one payload sends several in a row (`more`), which PostgreSQL delivers
/// together:
///
/// - `f <node> <first> <last> <more> <position>=<recipients> …`: feed positions
///   `first…last` were committed; each entry's recipients ascend and are written as the
///   first id and then the differences (`12,1,3` is 12, 13, 16).
/// - `c <node> <login>:<generation> …`: event polls of these logins claimed on `node`.
/// - `r <node> <epoch>`: logins were ended, up to this revocation epoch.
enum ClusterNotice: Equatable, Sendable {
    case feed(node: String, first: Int64, last: Int64, entries: [Entry], more: Bool)
    case claims(node: String, [PollClaim])
    case revoked(node: String, epoch: Int64)

    /// One feed entry (or a part of its recipients).
    struct Entry: Equatable, Sendable {
        var position: Int64
        var recipients: [UserID]
    }

    /// The channel every node listens on.
    static let channel = "switchboard_cluster"
    /// PostgreSQL's limit is 8000 bytes including a terminator; a margin for the header.
    static let maxPayload = 7_900

    /// The node that sent it.
    var node: String {
        switch self {
        case .feed(let node, _, _, _, _), .claims(let node, _), .revoked(let node, _): node
        }
    }

    // MARK: Writing

    /// The payloads announcing a committed feed range and its entries.
    static func feedPayloads(node: String, first: Int64, last: Int64, entries: [Entry]) -> [String] {
        let header = "f \(node) \(b36(first)) \(b36(last))"
        var payloads: [String] = []
        var body = ""
        for entry in entries where !entry.recipients.isEmpty {
            let start = " " + b36(entry.position) + "="
            var item = start
            var previous: Int64?
            for user in entry.recipients {
                var text = previous.map { "," + b36(user.rawValue - $0) } ?? b36(user.rawValue)
                // " 1" or " 0" (more) follows the header.
                if header.utf8.count + 2 + body.utf8.count + item.utf8.count + text.utf8.count > maxPayload {
                    if previous != nil { body += item }
                    payloads.append(header + " 1" + body)
                    body = ""
                    item = start
                    text = b36(user.rawValue)
                }
                item += text
                previous = user.rawValue
            }
            body += item
        }
        payloads.append(header + " 0" + body)
        return payloads
    }

    /// The payloads announcing poll claims.
    static func claimPayloads(node: String, _ claims: [PollClaim]) -> [String] {
        var payloads: [String] = []
        var text = "c \(node)"
        for claim in claims {
            let item = " \(b36(claim.tokenID)):\(b36(claim.generation))"
            if text.utf8.count + item.utf8.count > maxPayload {
                payloads.append(text)
                text = "c \(node)"
            }
            text += item
        }
        payloads.append(text)
        return payloads
    }

    static func revokedPayload(node: String, epoch: Int64) -> String { "r \(node) \(b36(epoch))" }

    // MARK: Reading

    /// Reads a payload; nil for one this version does not know (another version's node).
    init?(_ payload: String) {
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2 else { return nil }
        let node = String(fields[1])
        switch fields[0] {
        case "f":
            guard fields.count >= 5, let first = Self.number(fields[2]), let last = Self.number(fields[3]),
                fields[4] == "0" || fields[4] == "1"
            else { return nil }
            var entries: [Entry] = []
            for item in fields.dropFirst(5) {
                guard let equals = item.firstIndex(of: "="), let position = Self.number(item[..<equals]) else { return nil }
                var recipients: [UserID] = []
                var previous: Int64?
                for part in item[item.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false) {
                    guard let value = Self.number(part) else { return nil }
                    let id = previous.map { $0 + value } ?? value
                    recipients.append(UserID(rawValue: id))
                    previous = id
                }
                entries.append(Entry(position: position, recipients: recipients))
            }
            self = .feed(node: node, first: first, last: last, entries: entries, more: fields[4] == "1")
        case "c":
            var claims: [PollClaim] = []
            for item in fields.dropFirst(2) {
                let parts = item.split(separator: ":")
                guard parts.count == 2, let token = Self.number(parts[0]), let generation = Self.number(parts[1]) else {
                    return nil
                }
                claims.append(PollClaim(tokenID: token, generation: generation))
            }
            self = .claims(node: node, claims)
        case "r":
            guard fields.count == 3, let epoch = Self.number(fields[2]) else { return nil }
            self = .revoked(node: node, epoch: epoch)
        default:
            return nil
        }
    }

    private static func b36(_ value: Int64) -> String { String(value, radix: 36) }

    private static func number(_ text: Substring) -> Int64? { Int64(text, radix: 36) }
}

/// The event poll of a login claimed by a node; a higher generation replaces a lower one.
public struct PollClaim: Equatable, Hashable, Sendable {
    public var tokenID: Int64
    public var generation: Int64

    public init(tokenID: Int64, generation: Int64) {
        self.tokenID = tokenID
        self.generation = generation
    }
}
