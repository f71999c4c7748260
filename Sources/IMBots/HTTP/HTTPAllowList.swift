import IMClient

/// Where a bot's `http` actions may connect: anywhere public, and private, loopback and
/// link-local addresses only when the runner's configuration allows them
/// (`runner.http.allow`), as `AddressAllowList` judges them.
public struct HTTPAllowList: Sendable, Hashable {
    private var list = AddressAllowList()

    /// Allows no restricted address.
    public init() {}

    /// Parses the entries; throws naming the first one that is neither an address, a
    /// network nor a host name.
    public init(_ entries: [String]) throws(RunnerError) {
        do {
            list = try AddressAllowList(entries)
        } catch {
            throw RunnerError("runner.http.allow: '\(error.entry)' is not an address, a network (10.0.0.0/8) or a host name")
        }
    }

    /// Allows connections to `host` whatever it resolves to: for targets the runner's
    /// own configuration names.
    public mutating func allow(host: String) {
        list.allow(host: host)
    }

    /// Why a connection is refused; nil when it is allowed.
    public func refusal(_ attempt: CurlTransport.ConnectAttempt) -> String? {
        list.refusal(attempt, by: "http actions", setting: "runner.http.allow")
    }

    /// The bytes of an address written as text (`10.0.0.1`, `::1`).
    static func bytes(_ text: String) -> [UInt8]? { AddressAllowList.bytes(text) }
}
