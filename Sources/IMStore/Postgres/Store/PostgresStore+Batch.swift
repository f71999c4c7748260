import IMProtocol

/// The end of every batch transaction, just before COMMIT: positions for its feed events,
/// epochs for its revocations, and its notification.
///
/// The `feed_clock` row is taken here and held until COMMIT, so the next batch of any node
/// takes it only after this one has committed: positions ascend in commit order, without
/// gaps, and whoever can read a position can read every one before it. What runs while
/// the row is held is only this: a few statements writing rows nobody else writes (the
/// events at their new positions, the batch's own members) and the commit itself.
extension PostgresStore {
    static func finish(
        _ batch: PostgresBatch, on connection: PostgresConnection, node: String, order: FeedOrder, now: Timestamp
    ) throws {
        guard !batch.isEmpty else { return }
        var payloads: [String] = []
        if !batch.events.isEmpty {
            payloads.append(try storeEvents(batch, on: connection, node: node, order: order))
        }
        if !batch.revocations.isEmpty {
            payloads.append(try storeRevocations(batch, on: connection, node: node, now: now))
        }
        if !batch.claims.isEmpty {
            payloads += ClusterNotice.claimPayloads(
                node: node, batch.claims.map { PollClaim(tokenID: $0.tokenID, generation: $0.generation) })
        }
        // One statement, one NOTIFY lock for the batch, however many payloads.
        try connection.execute(
            "SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload", ClusterNotice.channel,
            PostgresValue.textArray(payloads))
    }

    /// Gives the batch's events their positions and stores them; returns the payload that
    /// announces them (the range only: the other nodes read who they reached from the
    /// tables), and arranges for this node's observers to hear of them.
    private static func storeEvents(_ batch: PostgresBatch, on connection: PostgresConnection, node: String, order: FeedOrder)
        throws -> String
    {
        let count = Int64(batch.events.count)
        guard let last = try connection.first(
            "UPDATE feed_clock SET position = position + $1 RETURNING position", count, as: { try $0.int(0) })
        else { throw StoreError.incompatibleSchema("feed_clock has no row") }
        let first = last - count + 1
        var rows = EventRows()
        var entries: [FeedEntry] = []
        for (index, event) in batch.events.enumerated() {
            let position = first + Int64(index)
            rows.add(event, at: position, first: first)
            if !event.recipients.isEmpty {
                entries.append(FeedEntry(position: position, recipients: event.recipients, message: event.message))
            }
        }
        try rows.store(on: connection)
        let update = entries.isEmpty ? nil : FeedUpdate(entries: entries)
        batch.afterCommit.append { order.arrived(first: first, last: last, update) }
        return ClusterNotice.feedPayload(node: node, first: first, last: last)
    }

    /// Numbers the batch's revocations and logs them; returns their payload.
    private static func storeRevocations(
        _ batch: PostgresBatch, on connection: PostgresConnection, node: String, now: Timestamp
    ) throws -> String {
        let count = Int64(batch.revocations.count)
        guard let last = try connection.first(
            "UPDATE revocation_clock SET epoch = epoch + $1 RETURNING epoch", count, as: { try $0.int(0) })
        else { throw StoreError.incompatibleSchema("revocation_clock has no row") }
        var epochs: [Int64] = []
        var tokens: [Int64] = []
        var users: [Int64] = []
        for (index, revocation) in batch.revocations.enumerated() {
            epochs.append(last - count + 1 + Int64(index))
            switch revocation {
            case .token(let id):
                tokens.append(id)
                users.append(0)
            case .user(let id):
                tokens.append(0)
                users.append(id.rawValue)
            }
        }
        try connection.execute(
            """
            INSERT INTO revocations (epoch, token_id, user_id, created_at)
            SELECT e, nullif(t, 0), nullif(u, 0), $4 FROM unnest($1::int8[], $2::int8[], $3::int8[]) AS r(e, t, u)
            """,
            PostgresValue.integerArray(epochs), PostgresValue.integerArray(tokens), PostgresValue.integerArray(users),
            now.milliseconds)
        return ClusterNotice.revokedPayload(node: node, epoch: last)
    }
}

/// The rows a batch's events become, as columns for `unnest` (one statement per table
/// whatever the number of events). Zero and the empty string stand for NULL: arrays are
/// sent without NULL elements, and no id is 0 and no payload empty.
private struct EventRows {
    var conversation = (position: [Int64](), id: [Int64](), type: [String](), message: [Int64](), payload: [String](), at: [Int64]())
    var user = (user: [Int64](), position: [Int64](), type: [String](), conversation: [Int64](), payload: [String](), at: [Int64]())
    var joins = (conversation: [Int64](), user: [Int64](), position: [Int64]())
    var leaves = (user: [Int64](), position: [Int64](), conversation: [Int64](), joined: [Int64](), seq: [Int64]())
    var versions = (message: [Int64](), position: [Int64](), text: [String](), editedAt: [Int64]())

    mutating func add(_ event: PostgresBatch.Event, at position: Int64, first: Int64) {
        switch event.target {
        case .conversation(let conversationID, let messageID):
            conversation.position.append(position)
            conversation.id.append(conversationID.rawValue)
            conversation.type.append(event.type.rawValue)
            conversation.message.append(messageID?.rawValue ?? 0)
            conversation.payload.append(event.payload ?? "")
            conversation.at.append(event.createdAt)
            if let version = event.replaced {
                versions.message.append(version.message.rawValue)
                versions.position.append(position)
                versions.text.append(version.text)
                versions.editedAt.append(version.editedAt ?? 0)
            }
            for member in event.joins {
                joins.conversation.append(conversationID.rawValue)
                joins.user.append(member.rawValue)
                joins.position.append(position)
            }
            for leave in event.leaves {
                let joined: Int64
                switch leave.joined {
                case .position(let stored): joined = stored
                case .event(let index): joined = first + Int64(index)
                }
                // A member whose position was never set read nothing: nothing to keep.
                guard joined <= position else { continue }
                leaves.user.append(leave.user.rawValue)
                leaves.position.append(position)
                leaves.conversation.append(conversationID.rawValue)
                leaves.joined.append(joined)
                leaves.seq.append(leave.joinedSeq)
            }
        case .users(let conversationID):
            for recipient in event.recipients {
                user.user.append(recipient.rawValue)
                user.position.append(position)
                user.type.append(event.type.rawValue)
                user.conversation.append(conversationID?.rawValue ?? 0)
                user.payload.append(event.payload ?? "")
                user.at.append(event.createdAt)
            }
        }
    }

    func store(on connection: PostgresConnection) throws {
        if !conversation.position.isEmpty {
            try connection.execute(
                """
                INSERT INTO conversation_events (position, conversation_id, type, message_id, payload, created_at)
                SELECT p, c, t, nullif(m, 0), nullif(d, ''), a
                FROM unnest($1::int8[], $2::int8[], $3::text[], $4::int8[], $5::text[], $6::int8[]) AS e(p, c, t, m, d, a)
                """,
                PostgresValue.integerArray(conversation.position), PostgresValue.integerArray(conversation.id),
                PostgresValue.textArray(conversation.type), PostgresValue.integerArray(conversation.message),
                PostgresValue.textArray(conversation.payload), PostgresValue.integerArray(conversation.at))
        }
        if !user.user.isEmpty {
            try connection.execute(
                """
                INSERT INTO user_events (user_id, position, type, conversation_id, message_id, payload, created_at)
                SELECT u, p, t, nullif(c, 0), NULL, nullif(d, ''), a
                FROM unnest($1::int8[], $2::int8[], $3::text[], $4::int8[], $5::text[], $6::int8[]) AS e(u, p, t, c, d, a)
                """,
                PostgresValue.integerArray(user.user), PostgresValue.integerArray(user.position),
                PostgresValue.textArray(user.type), PostgresValue.integerArray(user.conversation),
                PostgresValue.textArray(user.payload), PostgresValue.integerArray(user.at))
        }
        if !joins.user.isEmpty {
            try connection.execute(
                """
                UPDATE members m SET joined_position = j.p
                FROM unnest($1::int8[], $2::int8[], $3::int8[]) AS j(c, u, p)
                WHERE m.conversation_id = j.c AND m.user_id = j.u
                """,
                PostgresValue.integerArray(joins.conversation), PostgresValue.integerArray(joins.user),
                PostgresValue.integerArray(joins.position))
        }
        if !versions.message.isEmpty {
            try connection.execute(
                """
                INSERT INTO message_versions (message_id, until_position, text, edited_at)
                SELECT m, p, t, nullif(e, 0) FROM unnest($1::int8[], $2::int8[], $3::text[], $4::int8[]) AS v(m, p, t, e)
                """,
                PostgresValue.integerArray(versions.message), PostgresValue.integerArray(versions.position),
                PostgresValue.textArray(versions.text), PostgresValue.integerArray(versions.editedAt))
        }
        if !leaves.user.isEmpty {
            try connection.execute(
                """
                INSERT INTO former_members (user_id, left_position, conversation_id, joined_position, joined_seq)
                SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::int8[], $5::int8[])
                """,
                PostgresValue.integerArray(leaves.user), PostgresValue.integerArray(leaves.position),
                PostgresValue.integerArray(leaves.conversation), PostgresValue.integerArray(leaves.joined),
                PostgresValue.integerArray(leaves.seq))
        }
    }
}
