import IMProtocol

/// One member of a conversation as a write sees them, read inside its transaction: who
/// an event reaches, and what the member may do now.
struct MemberState: Sendable, Hashable {
    var user: UserID
    var role: MemberRole
    /// Muted until then (milliseconds; `Int64.max`: until unmuted).
    var mutedUntil: Int64?

    /// Why the member may not post at `now`, or nil when they may.
    func postingRefusal(at now: Timestamp) -> StoreError? {
        if let mutedUntil, mutedUntil > now.milliseconds {
            return .muted(until: Timestamp(milliseconds: mutedUntil))
        }
        return nil
    }
}
