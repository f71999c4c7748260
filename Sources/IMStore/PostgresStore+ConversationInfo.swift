import IMProtocol

/// The info of groups and rooms (title, logo, description) and a group's settings: who
/// may change them is checked in the change's transaction (`GroupRules`), after the
/// conversation's row is locked.
extension PostgresStore {
    public func updateInfo(
        _ conversationID: ConversationID, _ update: ConversationInfoUpdate, by actor: ActingUser, notice: String
    ) async throws -> ConversationRecord {
        try await write(lockOrder: conversationID) { [clock] context in
            let now = clock()
            let connection = context.connection
            let current = try Self.record(conversationID, connection, forUpdate: true)
            var settings = GroupSettings()
            if current.kind == .group {
                let needed: MemberRole = update.settings.isEmpty && current.infoEditableBy == .members ? .member : .admin
                try GroupRules.require(
                    needed, actor: try Self.standing(actor, in: conversationID, connection),
                    to: update.settings.isEmpty ? "change the group's info" : "change the group's settings")
                settings = update.settings
            }
            // Only the fields given change (NULL keeps a column as it is).
            try connection.execute(
                """
                UPDATE conversations SET title = coalesce($2, title), logo_url = coalesce($3, logo_url),
                    description = coalesce($4, description), join_policy = coalesce($5, join_policy),
                    new_members = coalesce($6, new_members), slow_mode = coalesce($7, slow_mode),
                    info_editable_by = coalesce($8, info_editable_by)
                WHERE id = $1
                """,
                conversationID.rawValue, update.title, update.logoURL, update.description, settings.join?.rawValue,
                settings.newMembers?.rawValue, settings.slowMode.map { Int($0.seconds) }, settings.infoEditableBy?.rawValue)
            let updated = try Self.record(conversationID, connection)
            if current.logoURL != updated.logoURL { try Self.deleteIfUnreferenced(path: current.logoURL, connection) }
            let info = try Self.info(updated, connection)
            let actorName = try Self.username(actor.id, connection) ?? "someone"
            let message = try Self.insertMessage(
                context,
                NewMessage(
                    conversationID: conversationID, senderID: actor.id, type: .system, text: notice,
                    requireMembership: false),
                at: now
            ).message
            try Self.appendConversationEvent(
                context, type: .conversationUpdated, conversationID: conversationID, messageID: message.id,
                payload: EventPayload(by: actorName, info: info), at: now)
            return try Self.record(conversationID, connection)
        }
    }

    public func info(_ record: ConversationRecord) async throws -> ConversationInfo {
        try await read { connection in try Self.info(record, connection) }
    }

    static func info(_ record: ConversationRecord, _ connection: PostgresConnection) throws -> ConversationInfo {
        SQLiteStore.info(record, createdBy: try record.createdBy.flatMap { try username($0, connection) })
    }
}
