import IMProtocol
import Templates

/// Everything a bot keeps between runs: where it is in its feed, its rules' state
/// variables, and the work it took on but has not finished. The snapshot a journal
/// compacts to, and what replaying its records rebuilds.
struct JournalState: Sendable, Equatable {
    /// The event cursor to resume from: saved only after every event before it was handled.
    var cursor: String?
    /// The highest feed position handled (or taken over by a lane): events at or below it
    /// are repeats after a restart and are skipped.
    var handledThrough: Int64 = 0
    /// The rules' state variables (`set`, `increment`).
    var variables: [String: TemplateValue] = [:]
    /// SHA-256 of the avatar file last uploaded, so it is uploaded again only when it changes.
    var avatarHash: String?
    /// Messages decided but not yet sent, in the order decided: sent again (with the same
    /// client ids, so never twice) after a restart.
    var outbox: [PendingMessage] = []
    /// Feed events taken over by a conversation lane and not finished yet.
    var accepted: [Event] = []
    /// Strikes, cases, verifications and trigger times.
    var moderation = ModerationState()
    /// The alert bridge's inbox, incidents, dedupe keys and switches.
    var alerts = AlertState()
    /// A Matrix bot's direct chats and slow modes.
    var matrix = MatrixState()
    /// The sequence number of the last record this state holds.
    var sequence: UInt64 = 0

    /// Whether the bot never got anywhere in its feed (its first start).
    var isFresh: Bool { cursor == nil && handledThrough == 0 }

    /// Applies one record; records this state already holds are skipped.
    mutating func apply(_ record: JournalRecord) {
        guard record.sequence > sequence else { return }
        sequence = record.sequence
        switch record.change {
        case .handled(let position, let operations, let messages):
            for operation in operations { operation.apply(to: &variables) }
            outbox += messages
            accepted.removeAll { $0.position == position }
            handledThrough = max(handledThrough, position)
        case .queued(let messages):
            outbox += messages
        case .accepted(let event):
            accepted.append(event)
            handledThrough = max(handledThrough, event.position)
        case .done(let id):
            if let index = outbox.firstIndex(where: { $0.clientMessageID == id }) { outbox.remove(at: index) }
        case .cursor(let cursor):
            self.cursor = cursor
        case .resync:
            // The server forgot the cursor: the feed begins anew, at the present.
            cursor = nil
            handledThrough = 0
            accepted = []
        case .avatar(let hash):
            avatarHash = hash
        case .moderation(let change):
            moderation.apply(change)
        case .webhook(let delivery):
            alerts.store(delivery)
        case .alerts(let change):
            alerts.apply(change)
            for operation in change.state { operation.apply(to: &variables) }
            outbox += change.messages
        case .incidentPosted(let post):
            alerts.posted(post)
        case .matrix(let change):
            matrix.apply(change)
        }
    }
}

extension JournalState: Codable {
    /// The snapshot file's keys; older runners wrote `state.json` with the same ones.
    private enum Key: String, CodingKey {
        case cursor, variables, outbox, accepted, seq, moderation, alerts, matrix
        case avatarHash = "avatar_hash"
        case handledThrough = "handled_through"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        handledThrough = try container.decodeIfPresent(Int64.self, forKey: .handledThrough) ?? 0
        variables = try container.decodeIfPresent([String: TemplateValue].self, forKey: .variables) ?? [:]
        avatarHash = try container.decodeIfPresent(String.self, forKey: .avatarHash)
        outbox = try container.decodeIfPresent([PendingMessage].self, forKey: .outbox) ?? []
        accepted = try container.decodeIfPresent([Event].self, forKey: .accepted) ?? []
        moderation = try container.decodeIfPresent(ModerationState.self, forKey: .moderation) ?? ModerationState()
        alerts = try container.decodeIfPresent(AlertState.self, forKey: .alerts) ?? AlertState()
        matrix = try container.decodeIfPresent(MatrixState.self, forKey: .matrix) ?? MatrixState()
        sequence = try container.decodeIfPresent(UInt64.self, forKey: .seq) ?? 0
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encodeIfPresent(cursor, forKey: .cursor)
        try container.encode(handledThrough, forKey: .handledThrough)
        try container.encode(variables, forKey: .variables)
        try container.encodeIfPresent(avatarHash, forKey: .avatarHash)
        try container.encode(outbox, forKey: .outbox)
        if !accepted.isEmpty { try container.encode(accepted, forKey: .accepted) }
        if !moderation.isEmpty { try container.encode(moderation, forKey: .moderation) }
        if !alerts.isEmpty { try container.encode(alerts, forKey: .alerts) }
        if !matrix.isEmpty { try container.encode(matrix, forKey: .matrix) }
        try container.encode(sequence, forKey: .seq)
    }
}
