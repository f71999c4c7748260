import IMProtocol

/// The Contacts screen: friends, groups and rooms in three sections, the "+" menu, the
/// name prompt its items open, and the info view of each entry.
public struct ContactsState: Sendable, Equatable {
    /// The sections, in screen order. Invitations and join requests become further
    /// sections here (with their own `Item` cases) once the server offers them.
    public enum Section: Sendable, Equatable, CaseIterable {
        case contacts, groups, rooms

        /// The heading.
        public var title: String {
            switch self {
            case .contacts: "Contacts"
            case .groups: "Groups"
            case .rooms: "Rooms"
            }
        }

        /// What an empty section says.
        var emptyHint: String {
            switch self {
            case .contacts: "no contacts: + then a adds one"
            case .groups: "no groups: + then g creates one, j joins one"
            case .rooms: "no rooms: + then r creates one, e enters one"
            }
        }
    }

    /// One selectable row.
    public enum Item: Sendable, Equatable {
        case contact(User)
        case group(ConversationInfo)
        case room(ConversationInfo)
    }

    /// The "+" menu's items; each asks for a unique name.
    public enum MenuItem: String, Sendable, Equatable, CaseIterable {
        case addContact = "Add a contact"
        case createGroup = "Create a group"
        case joinGroup = "Join a group"
        case createRoom = "Create a room"
        case enterRoom = "Enter a room"

        /// The prompt's label.
        var prompt: String {
            switch self {
            case .addContact: "Username to add"
            case .createGroup: "Name of the new group"
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
        /// The edit form (title and description) while open.
        public var editing: EditForm?
    }

    /// The name asked for by a "+" menu item.
    public struct Prompt: Sendable, Equatable {
        public var item: MenuItem
        public var field = TextField("", limit: Limits.conversationNameLength.upperBound)
    }

    /// Editing a group's or room's title and description.
    public struct EditForm: Sendable, Equatable {
        public var title: TextField
        public var description: TextField
        public var focusDescription = false
    }

    public var users: [User] = []
    public var groups: [ConversationInfo] = []
    public var rooms: [ConversationInfo] = []
    public var loaded = false
    public var selection = 0
    public var menu: Int?
    public var prompt: Prompt?
    public var info: Info?

    public init() {}

    /// The sections with their rows, in screen order.
    public var sections: [(section: Section, items: [Item])] {
        [(.contacts, users.map(Item.contact)), (.groups, groups.map(Item.group)), (.rooms, rooms.map(Item.room))]
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
    public mutating func replace(users: [User], groups: [ConversationInfo], rooms: [ConversationInfo]) {
        self.users = users.sorted { $0.username < $1.username }
        self.groups = groups.sorted { $0.name < $1.name }
        self.rooms = rooms.sorted { $0.name < $1.name }
        loaded = true
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
        selection = min(selection, max(0, items.count - 1))
    }
}

extension ContactsState.Item {
    /// The name shown.
    var title: String {
        switch self {
        case .contact(let user): user.nickname.isEmpty ? user.username : user.nickname
        case .group(let info), .room(let info): info.title.isEmpty ? info.name : info.title
        }
    }

    /// The unique name (`@alice`, `#ops`, `&lobby` are how the screens show it).
    var name: String {
        switch self {
        case .contact(let user): user.username
        case .group(let info), .room(let info): info.name
        }
    }

    /// The conversation it opens.
    var address: ConversationAddress {
        switch self {
        case .contact(let user): .user(user.username)
        case .group(let info): .group(info.name)
        case .room(let info): .room(info.name)
        }
    }

    var kind: ConversationKind {
        switch self {
        case .contact: .direct
        case .group: .group
        case .room: .room
        }
    }
}
