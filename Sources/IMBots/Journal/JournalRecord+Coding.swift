import IMProtocol

/// A record is one JSON object per line: `{"seq":7,"done":"b:helpdesk:12:greet:0"}`.
extension JournalRecord: Codable {
    private enum Key: String, CodingKey {
        case seq, handled, queued, accepted, done, cursor, resync, avatar, moderation, webhook, alerts, posted, matrix
    }

    private struct Handled: Codable {
        var position: Int64
        var state: [StateOperation]?
        var messages: [PendingMessage]?
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        sequence = try container.decode(UInt64.self, forKey: .seq)
        if let handled = try container.decodeIfPresent(Handled.self, forKey: .handled) {
            change = .handled(position: handled.position, state: handled.state ?? [], messages: handled.messages ?? [])
        } else if let messages = try container.decodeIfPresent([PendingMessage].self, forKey: .queued) {
            change = .queued(messages)
        } else if let event = try container.decodeIfPresent(Event.self, forKey: .accepted) {
            change = .accepted(event)
        } else if let id = try container.decodeIfPresent(String.self, forKey: .done) {
            change = .done(clientMessageID: id)
        } else if let cursor = try container.decodeIfPresent(String.self, forKey: .cursor) {
            change = .cursor(cursor)
        } else if try container.decodeIfPresent(Bool.self, forKey: .resync) == true {
            change = .resync
        } else if let hash = try container.decodeIfPresent(String.self, forKey: .avatar) {
            change = .avatar(hash)
        } else if let moderation = try container.decodeIfPresent(ModerationChange.self, forKey: .moderation) {
            change = .moderation(moderation)
        } else if let delivery = try container.decodeIfPresent(WebhookDelivery.self, forKey: .webhook) {
            change = .webhook(delivery)
        } else if let alerts = try container.decodeIfPresent(AlertChange.self, forKey: .alerts) {
            change = .alerts(alerts)
        } else if let post = try container.decodeIfPresent(IncidentPost.self, forKey: .posted) {
            change = .incidentPosted(post)
        } else if let matrix = try container.decodeIfPresent(MatrixChange.self, forKey: .matrix) {
            change = .matrix(matrix)
        } else {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "a journal record of a kind this version does not know"))
        }
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(sequence, forKey: .seq)
        switch change {
        case .handled(let position, let state, let messages):
            try container.encode(
                Handled(position: position, state: state.isEmpty ? nil : state, messages: messages.isEmpty ? nil : messages),
                forKey: .handled)
        case .queued(let messages): try container.encode(messages, forKey: .queued)
        case .accepted(let event): try container.encode(event, forKey: .accepted)
        case .done(let id): try container.encode(id, forKey: .done)
        case .cursor(let cursor): try container.encode(cursor, forKey: .cursor)
        case .resync: try container.encode(true, forKey: .resync)
        case .avatar(let hash): try container.encode(hash, forKey: .avatar)
        case .moderation(let change): try container.encode(change, forKey: .moderation)
        case .webhook(let delivery): try container.encode(delivery, forKey: .webhook)
        case .alerts(let change): try container.encode(change, forKey: .alerts)
        case .incidentPosted(let post): try container.encode(post, forKey: .posted)
        case .matrix(let change): try container.encode(change, forKey: .matrix)
        }
    }
}
