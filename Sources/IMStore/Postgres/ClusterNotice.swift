import IMProtocol

/// What one node's batch tells the other nodes, as `NOTIFY` payloads on one channel, sent
/// in the batch's transaction (so delivered at its commit, in commit order, and not at
/// all if it rolls back).
///
/// A notice is a **hint**, never the truth: any role that may connect to the database may
/// send on the channel (`NOTIFY` needs no grant) and listen to it. So a notice carries no
/// more than what makes the other nodes look, and they read what to act on from the
/// tables (`PostgresClusterFeed`): the feed clock and the events, the poll claims, the
/// revocation log. A notice the tables do not back is refused and counted. For the same
/// reason it names nobody who received anything.
///
/// Text, numbers in base 36, at most `maxPayload` bytes each:
///
/// - `f <node> <first> <last>`: feed positions `first…last` were committed.
/// - `c <node> <login>:<generation> …`: event polls of these logins claimed on `node`.
/// - `r <node> <epoch>`: logins were ended, up to this revocation epoch.
///
/// Reading checks every number (base 36, no sign, no overflow, positive where a position
/// or an id must be) and the shape; anything else is nil, as is a notice of a kind this
/// version does not know.
enum ClusterNotice: Equatable, Sendable {
    case feed(node: String, first: Int64, last: Int64)
    case claims(node: String, [PollClaim])
    case revoked(node: String, epoch: Int64)

    /// The channel every node listens on.
    static let channel = "switchboard_cluster"
    /// PostgreSQL's limit is 8000 bytes including a terminator; a margin for the header.
    static let maxPayload = 7_900

    /// The node that sent it (or claims to: anyone can write any name).
    var node: String {
        switch self {
        case .feed(let node, _, _), .claims(let node, _), .revoked(let node, _): node
        }
    }

    // MARK: Writing

    /// The payload announcing a committed feed range.
    static func feedPayload(node: String, first: Int64, last: Int64) -> String {
        "f \(node) \(b36(first)) \(b36(last))"
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

    /// Reads a payload; nil for one that is malformed, or of a kind this version does not
    /// know. A feed notice of an earlier version (recipients after the range) reads as its
    /// range: what follows is not needed.
    init?(_ payload: String) {
        guard payload.utf8.count <= Self.maxPayload + 100 else { return nil }
        let fields = payload.split(separator: " ", omittingEmptySubsequences: false)
        guard fields.count >= 2, !fields[1].isEmpty else { return nil }
        let node = String(fields[1])
        switch fields[0] {
        case "f":
            guard fields.count >= 4, let first = Self.positive(fields[2]), let last = Self.positive(fields[3]),
                first <= last
            else { return nil }
            self = .feed(node: node, first: first, last: last)
        case "c":
            var claims: [PollClaim] = []
            for item in fields.dropFirst(2) {
                let parts = item.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let token = Self.positive(parts[0]), let generation = Self.positive(parts[1]) else {
                    return nil
                }
                claims.append(PollClaim(tokenID: token, generation: generation))
            }
            self = .claims(node: node, claims)
        case "r":
            guard fields.count == 3, let epoch = Self.positive(fields[2]) else { return nil }
            self = .revoked(node: node, epoch: epoch)
        default:
            return nil
        }
    }

    private static func b36(_ value: Int64) -> String { String(value, radix: 36) }

    /// A number of at least 1 in base 36 as written here (lower-case digits, no sign);
    /// nil for anything else, one that does not fit in 64 bits included.
    private static func positive(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 13,
            text.utf8.allSatisfy({ (0x30...0x39).contains($0) || (0x61...0x7A).contains($0) }),
            let value = Int64(text, radix: 36), value > 0
        else { return nil }
        return value
    }
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
