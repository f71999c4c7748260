import IMProtocol

/// One member of a conversation as a write sees them, read inside its transaction: who
/// an event reaches, and what the member may do now.
struct MemberState: Sendable, Hashable {
    var user: UserID
    var role: MemberRole
    /// Muted until then, in milliseconds (`untilUnmuted`: until someone unmutes them).
    var mutedUntil: Int64?
    /// A newcomer kept from posting until an admin lets them (`new_members: restricted`).
    var restricted: Bool
    /// When they last posted a chat message (milliseconds), for slow mode.
    var lastPostedAt: Int64?

    /// What `muted_until` holds for a mute without an end.
    static let untilUnmuted = Int64.max

    func isMuted(at now: Timestamp) -> Bool { (mutedUntil ?? 0) > now.milliseconds }

    /// When the mute ends, for the API: nil when it lasts until unmuted (or there is none).
    var muteEnd: Timestamp? {
        guard let mutedUntil, mutedUntil != Self.untilUnmuted else { return nil }
        return Timestamp(milliseconds: mutedUntil)
    }

    /// Why the member may not post at `now`, or nil when they may. `slowMode` is the
    /// group's interval between a member's posts, in seconds (0: none); its owner and
    /// admins are not slowed.
    func postingRefusal(at now: Timestamp, slowMode: Int = 0) -> StoreError? {
        if isMuted(at: now) { return .muted(until: muteEnd) }
        if restricted { return .restricted }
        if slowMode > 0, role == .member, let lastPostedAt {
            let wait = lastPostedAt + Int64(slowMode) * 1000 - now.milliseconds
            if wait > 0 { return .slowMode(retryAfter: Int((wait + 999) / 1000)) }
        }
        return nil
    }
}
