import IMProtocol

/// The directory of groups anyone may join or ask to join (`open` and `approval`),
/// searched as one types, a page at a time.
public struct DirectoryState: Sendable, Equatable {
    public var search = TextField("", limit: 100)
    /// The groups found for `shownSearch`, in name order.
    public private(set) var groups: [DirectoryGroup] = []
    /// Where the next page starts; nil when all are shown.
    public private(set) var nextAfter: String?
    /// The search the groups shown are for (nil before the first answer).
    public private(set) var shownSearch: String?
    /// A page is being loaded.
    public var loading = false
    public var selection = 0
    /// Why the last load failed.
    public private(set) var error: String?

    public init(search: String = "") {
        self.search.set(search)
    }

    /// The search as it goes to the server.
    public var query: String { search.text.trimmingSpaces() }

    /// The selected group.
    public var selected: DirectoryGroup? { groups.indices.contains(selection) ? groups[selection] : nil }

    /// Takes a page; an answer for a search other than the one typed now is dropped.
    public mutating func apply(_ page: DirectoryPage, search: String, after: String?) {
        guard search == query else { return }
        if after == nil || shownSearch != search {
            groups = page.groups
            selection = 0
        } else {
            groups += page.groups.filter { new in !groups.contains { $0.name == new.name } }
        }
        shownSearch = search
        nextAfter = page.nextAfter
        loading = false
        error = nil
    }

    public mutating func failed(_ reason: String, search: String) {
        guard search == query else { return }
        loading = false
        error = reason
    }

    /// Moves the selection; true when it reached the last group and more can be loaded.
    public mutating func move(_ offset: Int) -> Bool {
        guard !groups.isEmpty else { return nextAfter != nil && !loading }
        selection = min(max(selection + offset, 0), groups.count - 1)
        return selection == groups.count - 1 && nextAfter != nil && !loading
    }
}
