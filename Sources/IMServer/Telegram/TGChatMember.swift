import IMProtocol
import IMStore

/// Someone's standing in a chat, in the shape of its status: each status has its own
/// set of required fields (`ChatMemberOwner`, `ChatMemberAdministrator`, …).
struct TGChatMember: Encodable, Sendable {
    enum Status: Sendable, Equatable {
        /// The group's owner.
        case creator
        case administrator
        case member
        /// Muted, or a newcomer waiting for an admin: may not post until `until` (0:
        /// until lifted).
        case restricted(until: Int64)
        case left
        /// Banned until `until` (0: until unbanned).
        case kicked(until: Int64)
    }

    var user: TGUser
    var status: Status

    /// A member of a group or room as the store keeps them.
    init(user: TGUser, role: MemberRole, muted: Bool, mutedUntil: Timestamp?) {
        self.user = user
        switch role {
        case .owner: status = .creator
        case .admin: status = .administrator
        case .member: status = muted ? .restricted(until: mutedUntil.map(TelegramTime.seconds) ?? 0) : .member
        }
    }

    init(user: TGUser, status: Status) {
        self.user = user
        self.status = status
    }

    /// The member's role seen as a status.
    static func status(of role: MemberRole) -> Status {
        switch role {
        case .owner: .creator
        case .admin: .administrator
        case .member: .member
        }
    }

    /// Keys as written (`TelegramJSON` writes keys in snake case already).
    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// What an administrator of a Switchboard group may do: moderate members, delete
    /// their messages, change the group's info, invite, approve.
    private static let administratorRights: [(String, Bool)] = [
        ("can_manage_chat", true), ("can_delete_messages", true), ("can_manage_video_chats", false),
        ("can_restrict_members", true), ("can_promote_members", false), ("can_change_info", true),
        ("can_invite_users", true), ("can_post_stories", false), ("can_edit_stories", false),
        ("can_delete_stories", false), ("can_pin_messages", false), ("can_manage_topics", false),
        ("can_send_welcome_messages", false),
    ]

    /// What a restricted member may do: nothing but read, in Switchboard's one kind of
    /// restriction.
    private static let restrictedRights = [
        "can_send_messages", "can_send_audios", "can_send_documents", "can_send_photos", "can_send_videos",
        "can_send_video_notes", "can_send_voice_notes", "can_send_polls", "can_send_other_messages",
        "can_add_web_page_previews", "can_react_to_messages", "can_edit_tag", "can_change_info",
        "can_invite_users", "can_pin_messages", "can_manage_topics",
    ]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(user, forKey: Key("user"))
        func flag(_ name: String, _ value: Bool) throws { try container.encode(value, forKey: Key(name)) }
        switch status {
        case .creator:
            try container.encode("creator", forKey: Key("status"))
            try flag("is_anonymous", false)
        case .administrator:
            try container.encode("administrator", forKey: Key("status"))
            try flag("is_anonymous", false)
            try flag("can_be_edited", false)
            for (name, value) in Self.administratorRights { try flag(name, value) }
        case .member:
            try container.encode("member", forKey: Key("status"))
        case .restricted(let until):
            try container.encode("restricted", forKey: Key("status"))
            try flag("is_member", true)
            try container.encode(until, forKey: Key("until_date"))
            for name in Self.restrictedRights { try flag(name, false) }
        case .left:
            try container.encode("left", forKey: Key("status"))
        case .kicked(let until):
            try container.encode("kicked", forKey: Key("status"))
            try container.encode(until, forKey: Key("until_date"))
        }
    }
}

/// Telegram's times: whole seconds since 1970.
enum TelegramTime {
    static func seconds(_ timestamp: Timestamp) -> Int64 { timestamp.milliseconds / 1000 }
}
