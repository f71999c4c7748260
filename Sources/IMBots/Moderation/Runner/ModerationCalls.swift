import IMClient
import IMProtocol

/// Moderation acts as calls of the client core.
enum ModerationCalls {
    /// Carries `act` out; "nothing to do" answers (a member already gone) count as done.
    /// A Matrix bot's (`matrix`) acts go to its homeserver.
    static func perform(_ act: ModerationAct, with client: IMClient, matrix: MatrixLink? = nil)
        async throws(IMClientError)
    {
        if let matrix {
            try await matrix.moderate(act)
            return
        }
        switch act {
        case .delete(let id, let address):
            do {
                _ = try await client.deleteMessage(id, in: address)
            } catch where error.apiCode == .notFound {
                // Deleted already (by its sender, an admin, or this act before a restart).
            }
        case .member(let action, let group, let user, let duration, let reason):
            _ = try await client.moderate(group: group, action, user: user, duration: duration, reason: reason)
        case .joinRequest(let approve, let group, let user):
            do {
                if approve {
                    _ = try await client.approveJoinRequest(group, user: user)
                } else {
                    try await client.revokeJoinRequest(group, user: user)
                }
            } catch where error.apiCode == .notFound {
                // The request was withdrawn or handled meanwhile.
            }
        case .allJoinRequests(let approve, let group):
            for request in try await client.groupJoinRequests(group) {
                try await perform(.joinRequest(approve: approve, group: group, user: request.user), with: client)
            }
        case .settings(let group, let settings):
            _ = try await client.updateGroupSettings(group, settings)
        }
    }
}
