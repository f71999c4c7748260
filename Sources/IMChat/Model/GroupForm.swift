import IMProtocol

/// Creating a group, or changing one: its name (when new), title and description, and
/// its settings: who may join, slow mode, whether newcomers wait for an admin, who may
/// change the info. ↑↓ or Tab go from field to field; ←→ or Space change a choice.
public struct GroupForm: Sendable, Equatable {
    public enum Field: Sendable, Equatable, CaseIterable {
        case name, title, description, join, slowMode, newcomers, infoEditors

        /// The label in front of it.
        var label: String {
            switch self {
            case .name: "Name"
            case .title: "Title"
            case .description: "Description"
            case .join: "Who may join"
            case .slowMode: "Slow mode"
            case .newcomers: "Newcomers"
            case .infoEditors: "Info changed by"
            }
        }
    }

    /// The group changed; nil while creating one.
    public var editing: ConversationInfo?
    public var name = TextField("", limit: Limits.conversationNameLength.upperBound)
    public var title = TextField("", limit: Limits.nicknameLength.upperBound)
    public var description = TextField("", limit: Limits.descriptionLength.upperBound)
    public var join = JoinPolicy.invite
    /// `30s`, `10m`; empty: off.
    public var slowMode = TextField("", limit: 16)
    public var newMembers = NewMemberPolicy.full
    public var infoEditableBy = InfoEditors.admins
    /// The fields shown, in order.
    public let fields: [Field]
    public var focus: Field

    /// A form for a new group, named `name` so far.
    public static func creating(name: String = "") -> GroupForm {
        var form = GroupForm(editing: nil, fields: Field.allCases)
        form.name.set(name)
        return form
    }

    /// A form for `info`: its settings too when `settings` (its owner and admins; rooms
    /// have none).
    public static func editing(_ info: ConversationInfo, settings: Bool) -> GroupForm {
        let fields: [Field] = info.kind == .group && settings
            ? [.title, .description, .join, .slowMode, .newcomers, .infoEditors] : [.title, .description]
        var form = GroupForm(editing: info, fields: fields)
        form.title.set(info.title)
        form.description.set(info.description)
        form.join = info.join ?? .invite
        form.slowMode.set(info.slowMode.map { $0.description } ?? "")
        form.newMembers = info.newMembers ?? .full
        form.infoEditableBy = info.infoEditableBy ?? .admins
        return form
    }

    private init(editing: ConversationInfo?, fields: [Field]) {
        self.editing = editing
        self.fields = fields
        focus = fields[0]
    }

    /// The text field in focus, if the focus is on one.
    var focusedText: TextField? {
        switch focus {
        case .name: name
        case .title: title
        case .description: description
        case .slowMode: slowMode
        default: nil
        }
    }

    /// Applies a key (Enter and Esc are the caller's).
    public mutating func key(_ key: Key) {
        let index = fields.firstIndex(of: focus) ?? 0
        switch key {
        case .tab, .down:
            focus = fields[(index + 1) % fields.count]
        case .backTab, .up:
            focus = fields[(index + fields.count - 1) % fields.count]
        case .left, .right, .character(" "):
            // On a choice they change it; in a text field they move or type as usual.
            guard focusedText == nil else { return edit(key) }
            let step = key == .left ? -1 : 1
            switch focus {
            case .join: join = Self.cycle(GroupForm.policies, join, step)
            case .newcomers: newMembers = Self.cycle([.full, .restricted], newMembers, step)
            case .infoEditors: infoEditableBy = Self.cycle([.admins, .members], infoEditableBy, step)
            default: edit(key)
            }
        default:
            edit(key)
        }
    }

    private mutating func edit(_ key: Key) {
        switch focus {
        case .name: name.edit(key)
        case .title: title.edit(key)
        case .description: description.edit(key)
        case .slowMode: slowMode.edit(key)
        default: break
        }
    }

    /// The join policies in the order the form offers them: the default first.
    static let policies: [JoinPolicy] = [.invite, .open, .approval]

    private static func cycle<T: Equatable>(_ values: [T], _ current: T, _ step: Int) -> T {
        let index = values.firstIndex(of: current) ?? 0
        return values[(index + step + values.count) % values.count]
    }

    /// The slow mode typed, checked: nil for off.
    private func slowModeValue() -> Result<ConfigDuration?, ContactsState.FormError> {
        let typed = slowMode.text.trimmingSpaces()
        if typed.isEmpty || typed == "0" || typed == "off" { return .success(nil) }
        guard let value = ConfigDuration(typed), value.seconds >= 1, value.seconds <= Double(GroupSettings.slowModeLimit),
            value.seconds == value.seconds.rounded()
        else {
            return .failure(ContactsState.FormError(message: "slow mode '\(typed)' is not a duration: e.g. 30s, 10m (at most 1d; empty: off)"))
        }
        return .success(value)
    }

    /// The request that creates the group, or what is wrong with the form.
    public func createRequest() -> Result<CreateConversationRequest, ContactsState.FormError> {
        let name = self.name.text.trimmingSpaces().lowercased()
        guard !name.isEmpty else { return .failure(ContactsState.FormError(message: "Type a name first.")) }
        let slow: ConfigDuration?
        switch slowModeValue() {
        case .success(let value): slow = value
        case .failure(let error): return .failure(error)
        }
        let title = self.title.text.trimmingSpaces()
        let description = self.description.text.trimmingSpaces()
        return .success(CreateConversationRequest(
            name: name, title: title.isEmpty ? nil : title, description: description.isEmpty ? nil : description,
            join: join, newMembers: newMembers == .full ? nil : newMembers, slowMode: slow,
            infoEditableBy: infoEditableBy == .admins ? nil : infoEditableBy))
    }

    /// The change to the group: only what differs from it; or what is wrong.
    public func update() -> Result<ConversationInfoUpdate, ContactsState.FormError> {
        guard let info = editing else { return .failure(ContactsState.FormError(message: "nothing to change")) }
        let title = self.title.text.trimmingSpaces()
        guard !title.isEmpty else { return .failure(ContactsState.FormError(message: "The title cannot be empty.")) }
        var update = ConversationInfoUpdate()
        if title != info.title { update.title = title }
        let description = self.description.text.trimmingSpaces()
        if description != info.description { update.description = description }
        if fields.contains(.join) {
            if join != (info.join ?? .invite) { update.join = join }
            switch slowModeValue() {
            case .success(let value):
                if value?.seconds ?? 0 != info.slowMode?.seconds ?? 0 { update.slowMode = value ?? ConfigDuration(seconds: 0) }
            case .failure(let error): return .failure(error)
            }
            if newMembers != (info.newMembers ?? .full) { update.newMembers = newMembers }
            if infoEditableBy != (info.infoEditableBy ?? .admins) { update.infoEditableBy = infoEditableBy }
        }
        return .success(update)
    }
}
