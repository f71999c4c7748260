import IMProtocol

/// The Contacts screen: invitations and join requests (while there are any), friends,
/// groups and rooms in sections, the "+" menu, the name prompt its items open, and the
/// info view of each entry.
public struct ContactsState: Sendable, Equatable {
    /// The sections, in screen order; the first two show only while they hold something.
    public enum Section: Sendable, Equatable, CaseIterable {
        case invitations, requests, contacts, groups, rooms

        /// The heading.
        public var title: String {
            switch self {
            case .invitations: "Invitations"
            case .requests: "Join requests"
            case .contacts: "Contacts"
            case .groups: "Groups"
            case .rooms: "Rooms"
            }
        }

        /// What an empty section says; nil: an empty section is not shown.
        var emptyHint: String? {
            switch self {
            case .invitations, .requests: nil
            case .contacts: "no contacts: + then a adds one"
            case .groups: "no groups: + then g creates one, b browses those anyone may join"
            case .rooms: "no rooms: + then r creates one, e enters one"
            }
        }
    }

    /// One selectable row.
    public enum Item: Sendable, Equatable {
        case contact(User)
        case group(ConversationInfo)
        case room(ConversationInfo)
        /// An invitation to this user: accepted by joining.
        case invite(GroupInvite)
        /// Someone asking into a group whose requests this user decides.
        case request(GroupJoinRequest)
        /// This user's own request, waiting for an admin.
        case myRequest(GroupJoinRequest)
    }

    /// The "+" menu's items; each asks for a unique name, except creating a group (its
    /// form) and browsing the directory.
    public enum MenuItem: String, Sendable, Equatable, CaseIterable {
        case addContact = "Add a contact"
        case createGroup = "Create a group…"
        case browseGroups = "Browse groups anyone may join"
        case joinGroup = "Join a group by name"
        case createRoom = "Create a room"
        case enterRoom = "Enter a room"

        /// The prompt's label.
        var prompt: String {
            switch self {
            case .addContact: "Username to add"
            case .createGroup, .browseGroups: ""
            case .joinGroup: "Name of the group to join"
            case .createRoom: "Name of the new room"
            case .enterRoom: "Name of the room to enter"
            }
        }

        /// The key that picks it in the menu.
        var shortcut: Character {
            switch self {
            case .addContact: "a"
            case .createGroup: "g"
            case .browseGroups: "b"
            case .joinGroup: "j"
            case .createRoom: "r"
            case .enterRoom: "e"
            }
        }
    }

    /// The info view of one entry.
    public struct Info: Sendable, Equatable {
        public var item: Item
        /// Members (groups) or people present (rooms), once loaded.
        public var members: [Member]?
        /// The member selected in the list (groups), to act on.
        public var selectedMember: Int?
        /// The selected member's actions menu, open at this row.
        public var actionMenu: Int?
        /// A form over the page while open.
        public var form: Form?

        /// The role of `username` in the group, once the members are loaded.
        public func role(of username: String) -> MemberRole? {
            members?.first { $0.user.username == username }?.role
        }

        /// The selected member.
        public var member: Member? {
            guard let index = selectedMember, let members, members.indices.contains(index) else { return nil }
            return members[index]
        }
    }

    /// The forms of an info view.
    public enum Form: Sendable, Equatable {
        /// A group's or room's title and description, and a group's settings.
        case edit(GroupForm)
        /// The duration and reason of a mute, kick or ban.
        case moderate(ModerationForm)
        /// The username to invite into the group.
        case invite(TextField)
    }

    /// The name asked for by a "+" menu item.
    public struct Prompt: Sendable, Equatable {
        public var item: MenuItem
        public var field = TextField("", limit: Limits.conversationNameLength.upperBound)
    }

    public var users: [User] = []
    public var groups: [ConversationInfo] = []
    public var rooms: [ConversationInfo] = []
    /// Usernames this user blocks.
    public var blocked: Set<String> = []
    /// Invitations to this user, waiting to be accepted by joining.
    public var invites: [GroupInvite] = []
    /// Requests this user decides (to groups they own or administer).
    public var requests: [GroupJoinRequest] = []
    /// This user's own requests, waiting for an admin.
    public var myRequests: [GroupJoinRequest] = []
    /// Groups whose join requests this user decides.
    public var decides: Set<String> = []
    public var loaded = false
    public var selection = 0
    public var menu: Int?
    public var prompt: Prompt?
    public var info: Info?
    /// The form creating a group, while open.
    public var groupForm: GroupForm?
    /// The group directory, while open.
    public var directory: DirectoryState?

    public init() {}

    /// True while a prompt, menu, form or the directory is open: it takes every key, tab
    /// keys and digits too.
    public var takesEveryKey: Bool {
        prompt != nil || menu != nil || info?.form != nil || info?.actionMenu != nil || groupForm != nil || directory != nil
    }

    /// The sections with their rows, in screen order.
    public var sections: [(section: Section, items: [Item])] {
        let all: [(section: Section, items: [Item])] = [
            (.invitations, invites.map(Item.invite)),
            (.requests, requests.map(Item.request) + myRequests.map(Item.myRequest)),
            (.contacts, users.map(Item.contact)), (.groups, groups.map(Item.group)), (.rooms, rooms.map(Item.room)),
        ]
        return all.filter { !$0.items.isEmpty || $0.section.emptyHint != nil }
    }

    /// Every row in screen order.
    public var items: [Item] { sections.flatMap(\.items) }

    /// The selected row.
    public var selectedItem: Item? {
        let all = items
        return all.isEmpty ? nil : all[min(selection, all.count - 1)]
    }

    /// Moves the selection.
    public mutating func move(_ offset: Int) {
        let count = items.count
        guard count > 0 else { return }
        selection = min(max(selection + offset, 0), count - 1)
    }

    /// Replaces the lists with the server's.
    public mutating func replace(_ lists: ContactLists) {
        users = lists.users.sorted { $0.username < $1.username }
        groups = lists.groups.sorted { $0.name < $1.name }
        rooms = lists.rooms.sorted { $0.name < $1.name }
        blocked = Set(lists.blocked.map(\.username))
        invites = lists.invites
        requests = lists.requests
        myRequests = lists.myRequests
        decides = lists.decides
        loaded = true
        clampSelection()
    }

    /// Adds an invitation to this user (once).
    public mutating func add(_ invite: GroupInvite) {
        guard !invites.contains(where: { $0.group == invite.group }) else { return }
        invites.append(invite)
    }

    /// Adds a join request: this user's own, or one they decide (once).
    public mutating func add(_ request: GroupJoinRequest, mine: Bool) {
        if mine {
            guard !myRequests.contains(where: { $0.group == request.group }) else { return }
            myRequests.append(request)
        } else {
            guard decides.contains(request.group),
                !requests.contains(where: { $0.group == request.group && $0.user == request.user })
            else { return }
            requests.append(request)
        }
    }

    /// Drops the invitation to `group` and this user's request to it (joined, declined,
    /// withdrawn).
    public mutating func settle(group: String) {
        invites.removeAll { $0.group == group }
        myRequests.removeAll { $0.group == group }
        clampSelection()
    }

    /// Drops someone's request to `group` (approved, denied, withdrawn).
    public mutating func settleRequest(group: String, user: String) {
        requests.removeAll { $0.group == group && $0.user == user }
        clampSelection()
    }

    private mutating func clampSelection() {
        selection = min(selection, max(0, items.count - 1))
    }

    /// Adds or updates a contact.
    public mutating func upsert(_ user: User) {
        if let index = users.firstIndex(where: { $0.id == user.id }) {
            users[index] = user
        } else {
            users.append(user)
            users.sort { $0.username < $1.username }
        }
        if case .contact(let shown)? = info?.item, shown.id == user.id { info?.item = .contact(user) }
    }

    /// Adds or updates a group or room.
    public mutating func upsert(_ conversation: ConversationInfo) {
        func merge(_ list: inout [ConversationInfo]) {
            if let index = list.firstIndex(where: { $0.id == conversation.id }) {
                list[index] = conversation
            } else {
                list.append(conversation)
                list.sort { $0.name < $1.name }
            }
        }
        if conversation.kind == .group { merge(&groups) } else if conversation.kind == .room { merge(&rooms) }
        switch info?.item {
        case .group(let shown)? where shown.id == conversation.id: info?.item = .group(conversation)
        case .room(let shown)? where shown.id == conversation.id: info?.item = .room(conversation)
        default: break
        }
    }

    /// Drops a contact, group or room.
    public mutating func remove(kind: ConversationKind, name: String) {
        switch kind {
        case .direct: users.removeAll { $0.username == name }
        case .group: groups.removeAll { $0.name == name }
        case .room: rooms.removeAll { $0.name == name }
        }
        clampSelection()
    }
}

extension ContactsState.Item {
    /// The name shown.
    var title: String {
        switch self {
        case .contact(let user): user.nickname.isEmpty ? user.username : user.nickname
        case .group(let info), .room(let info): info.title.isEmpty ? info.name : info.title
        case .invite(let invite): invite.group
        case .request(let request), .myRequest(let request): request.group
        }
    }

    /// The unique name (`@alice`, `#ops`, `&lobby` are how the screens show it); the
    /// group's for invitations and requests.
    var name: String {
        switch self {
        case .contact(let user): user.username
        case .group(let info), .room(let info): info.name
        case .invite(let invite): invite.group
        case .request(let request), .myRequest(let request): request.group
        }
    }

    /// The conversation it opens (or, for invitations and requests, is about).
    var address: ConversationAddress {
        switch self {
        case .contact(let user): .user(user.username)
        case .room(let info): .room(info.name)
        case .group, .invite, .request, .myRequest: .group(name)
        }
    }

    var kind: ConversationKind {
        switch self {
        case .contact: .direct
        case .room: .room
        case .group, .invite, .request, .myRequest: .group
        }
    }
}
