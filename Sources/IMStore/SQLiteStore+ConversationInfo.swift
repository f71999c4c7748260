import IMProtocol

/// The info of groups and rooms (title, logo, description) and a group's settings: who
/// may change them is checked in the change's transaction (`GroupRules`).
extension SQLiteStore {
    public func updateInfo(
        _ conversationID: ConversationID, _ update: ConversationInfoUpdate, by actor: ActingUser, notice: String
    ) async throws -> ConversationRecord {
        return try await database.write { [self] context in
            let now = clock()
            let connection = context.connection
            let current = try record(conversationID, connection)
            let previousLogo = current.logoURL
            if current.kind == .group {
                let needed: MemberRole = update.settings.isEmpty && current.infoEditableBy == .members ? .member : .admin
                try GroupRules.require(
                    needed, actor: try standing(actor, in: conversationID, connection),
                    to: update.settings.isEmpty ? "change the group's info" : "change the group's settings")
                try saveSettings(update.settings, of: conversationID, connection)
            }
            let by = actor.id
            if let title = update.title {
                try connection.execute("UPDATE conversations SET title = ? WHERE id = ?", title, conversationID.rawValue)
            }
            if let logo = update.logoURL {
                try connection.execute("UPDATE conversations SET logo_url = ? WHERE id = ?", logo, conversationID.rawValue)
            }
            if let description = update.description {
                try connection.execute(
                    "UPDATE conversations SET description = ? WHERE id = ?", description, conversationID.rawValue)
            }
            let updated = try record(conversationID, connection)
            if previousLogo != updated.logoURL { try deleteIfUnreferenced(path: previousLogo, connection) }
            let info = try info(updated, connection)
            let actor = try username(by, connection) ?? "someone"
            let message = try insertMessage(
                context, NewMessage(
                    conversationID: conversationID, senderID: by, type: .system, text: notice, requireMembership: false), at: now
            ).message
            try appendConversationEvent(
                context, type: .conversationUpdated, conversationID: conversationID, messageID: message.id,
                payload: EventPayload(by: actor, info: info), at: now)
            return try record(conversationID, connection)
        }
    }

    /// Writes the settings given (the others stay).
    private func saveSettings(_ settings: GroupSettings, of conversationID: ConversationID, _ connection: SQLiteConnection)
        throws
    {
        let columns: [(String, (any SQLBindable)?)] = [
            ("join_policy", settings.join?.rawValue), ("new_members", settings.newMembers?.rawValue),
            ("slow_mode", settings.slowMode.map { Int($0.seconds) }), ("info_editable_by", settings.infoEditableBy?.rawValue),
        ]
        for case let (column, value?) in columns {
            try connection.execute("UPDATE conversations SET \(column) = ? WHERE id = ?", [value, conversationID.rawValue])
        }
    }

    public func info(_ record: ConversationRecord) async throws -> ConversationInfo {
        try await database.read { [self] connection in try info(record, connection) }
    }

    func info(_ record: ConversationRecord, _ connection: SQLiteConnection) throws -> ConversationInfo {
        Self.info(record, createdBy: try record.createdBy.flatMap { try username($0, connection) })
    }

    /// A conversation's public info from its row, given its creator's name (both stores).
    static func info(_ record: ConversationRecord, createdBy: String?) -> ConversationInfo {
        let group = record.kind == .group
        return ConversationInfo(
            id: record.id, kind: record.kind, name: record.name,
            title: record.title.isEmpty ? record.name : record.title, logoURL: record.logoURL,
            description: record.description, memberCount: record.memberCount,
            createdBy: createdBy, createdAt: record.createdAt, join: group ? record.joinPolicy : nil, newMembers: group ? record.newMembers : nil,
            slowMode: group && record.slowModeSeconds > 0 ? ConfigDuration(seconds: Double(record.slowModeSeconds)) : nil,
            infoEditableBy: group ? record.infoEditableBy : nil)
    }
}
