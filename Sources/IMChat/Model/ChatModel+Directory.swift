import IMProtocol

/// Groups from Contacts: the form that creates one, and the directory of those anyone
/// may join, searched as one types.
extension ChatModel {
    /// The form creating a group: Enter creates it, Esc closes it.
    mutating func groupFormKey(_ key: Key) -> [ChatEffect] {
        guard var form = contacts.groupForm else { return [] }
        switch key {
        case .escape:
            contacts.groupForm = nil
        case .enter:
            switch form.createRequest() {
            case .success(let request): return [.createGroup(request)]
            case .failure(let error): status = (error.message, true)
            }
        default:
            form.key(key)
            contacts.groupForm = form
        }
        return []
    }

    /// Opens the group directory with `search` and asks for its first page.
    mutating func openDirectory(search: String) -> [ChatEffect] {
        contacts.menu = nil
        contacts.info = nil
        var directory = DirectoryState(search: search)
        directory.loading = true
        contacts.directory = directory
        return [.loadDirectory(search: directory.query, after: nil)]
    }

    /// The directory's keys: typing searches, ↑↓ choose, Enter joins (or asks to), Esc closes.
    mutating func directoryKey(_ key: Key) -> [ChatEffect] {
        guard var directory = contacts.directory else { return [] }
        var effects: [ChatEffect] = []
        switch key {
        case .escape:
            contacts.directory = nil
            return []
        case .up, .down, .pageUp, .pageDown, .wheelUp, .wheelDown:
            let step = switch key {
            case .up, .wheelUp: -1
            case .down, .wheelDown: 1
            case .pageUp: -pageRows
            default: pageRows
            }
            if directory.move(step), let after = directory.nextAfter {
                directory.loading = true
                effects = [.loadDirectory(search: directory.query, after: after)]
            }
        case .enter:
            guard let group = directory.selected else { return [] }
            status = (group.join == .open ? "joining #\(group.name)…" : "asking to join #\(group.name)…", false)
            effects = [.joinGroup(group.name)]
        default:
            let before = directory.query
            directory.search.edit(key)
            if directory.query != before {
                directory.loading = true
                effects = [.loadDirectory(search: directory.query, after: nil)]
            }
        }
        contacts.directory = directory
        return effects
    }
}
