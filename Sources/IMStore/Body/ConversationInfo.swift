import IMProtocol

/// The info of groups and rooms (title, logo, description) and a group's settings: who
/// may change them is checked in the change's transaction (`GroupRules`), after the
/// conversation's row is locked.
extension StoreEngine {
    public func updateInfo(
        _ conversationID: ConversationID, _ update: ConversationInfoUpdate, by actor: ActingUser, notice: String
    ) async throws -> ConversationRecord {
        try await write(lockOrder: conversationID) { [self] context in
            let now = clock()
            let connection = context.connection
            let current = try Self.record(conversationID, connection, forUpdate: true)
            var settings = GroupSettings()
            if current.kind == .group {
                let needed: MemberRole = update.settings.isEmpty && current.infoEditableBy == .members ? .member : .admin
                try GroupRules.require(
                    needed, actor: try standing(actor, in: conversationID, connection),
                    to: update.settings.isEmpty ? "change the group's info" : "change the group's settings")
                settings = update.settings
            }
            // Only the fields given change (NULL keeps a column as it is).
            try connection.execute(
                """
                UPDATE conversations SET title = coalesce(?2, title), logo_url = coalesce(?3, logo_url),
                    description = coalesce(?4, description), join_policy = coalesce(?5, join_policy),
                    new_members = coalesce(?6, new_members), slow_mode = coalesce(?7, slow_mode),
                    info_editable_by = coalesce(?8, info_editable_by)
                WHERE id = ?1
                """,
                conversationID.rawValue, update.title, update.logoURL, update.description, settings.join?.rawValue,
                settings.newMembers?.rawValue, settings.slowMode.map { Int($0.seconds) }, settings.infoEditableBy?.rawValue)
            let updated = try Self.record(conversationID, connection)
            if current.logoURL != updated.logoURL { try Self.deleteIfUnreferenced(path: current.logoURL, connection) }
            let info = try info(updated, connection)
            let actorName = try username(actor.id, connection) ?? "someone"
            let message = try appendMessage(
                context,
                NewMessage(
                    conversationID: conversationID, senderID: actor.id, type: .system, text: notice,
                    requireMembership: false),
                at: now)
            try appendEvent(
                context, .conversationUpdated, in: conversationID, messageID: message.id,
                payload: EventPayload(by: actorName, info: info), recipients: nil, replacing: nil, at: now)
            return try Self.record(conversationID, connection)
        }
    }

    public func info(_ record: ConversationRecord) async throws -> ConversationInfo {
        try await read { [self] connection in try info(record, connection) }
    }

    func info(_ record: ConversationRecord, _ connection: Connection) throws -> ConversationInfo {
        Self.info(record, createdBy: try record.createdBy.flatMap { try username($0, connection) })
    }

    /// A conversation's public info from its row, given its creator's name.
    static func info(_ record: ConversationRecord, createdBy: String?) -> ConversationInfo {
        let group = record.kind == .group
        return ConversationInfo(
            id: record.id, kind: record.kind, name: record.name,
            title: record.title.isEmpty ? record.name : record.title, logoURL: record.logoURL,
            description: record.description, memberCount: record.memberCount, createdBy: createdBy,
            createdAt: record.createdAt, join: group ? record.joinPolicy : nil, newMembers: group ? record.newMembers : nil,
            slowMode: group && record.slowModeSeconds > 0 ? ConfigDuration(seconds: Double(record.slowModeSeconds)) : nil,
            infoEditableBy: group ? record.infoEditableBy : nil)
    }
}
