import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// The group directory (`GET /v1/directory/groups`): the groups anyone logged in may find,
/// those that are `open` or take requests (`approval`), searchable by name or title and
/// paged by name. Invite-only groups are never listed: they stay invisible to outsiders,
/// as everywhere else.
enum DirectoryRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/directory/groups", access: .user, handler: groups)
    ]

    /// The longest search text.
    static let queryLength = 100
    /// Groups read from the store per step of a search.
    static let batch = 200
    /// The most groups one request looks at: a search that matches little stops there and
    /// answers what it found with `next_after` where it stopped, so one request never
    /// walks every group of a large server.
    static let scanLimit = 2_000

    static func groups(_ context: RequestContext) async throws -> Response {
        let limit = try context.queryInt("limit", in: 1...100, default: 50) ?? 50
        let after = context.request.query("after").flatMap { $0.isEmpty ? nil : $0.lowercased() }
        let search = try needle(context.request.query("q"))
        let page = try await page(context.core.store, search: search, after: after, limit: limit)
        return try .json(page, encoder: context.core.encoder)
    }

    /// `q` lowercased and trimmed; nil when absent or blank.
    static func needle(_ text: String?) throws -> String? {
        guard let text else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard trimmed.count <= queryLength else {
            throw APIError.invalid("q", "q must be at most \(queryLength) characters")
        }
        return trimmed.isEmpty ? nil : trimmed.lowercased()
    }

    /// Up to `limit` listed groups after `after` whose name or title contains `search`.
    static func page(
        _ store: any ConversationStore, search: String?, after: String?, limit: Int, scanLimit: Int = scanLimit
    ) async throws -> DirectoryPage {
        var found: [ConversationRecord] = []
        var cursor = after
        var scanned = 0
        while true {
            let step = search == nil ? limit + 1 : min(batch, max(1, scanLimit - scanned))
            let rows = try await store.listedGroups(after: cursor, limit: step)
            for row in rows {
                scanned += 1
                guard matches(row, search) else { continue }
                found.append(row)
                // One more than asked for says that another page follows.
                if found.count > limit {
                    return DirectoryPage(groups: found.prefix(limit).map(entry), nextAfter: found[limit - 1].name)
                }
            }
            guard rows.count == step, let last = rows.last else {
                return DirectoryPage(groups: found.map(entry), nextAfter: nil)
            }
            cursor = last.name
            if scanned >= scanLimit {
                // Looked far enough for one request: the client goes on from here.
                return DirectoryPage(groups: found.map(entry), nextAfter: last.name)
            }
        }
    }

    private static func matches(_ record: ConversationRecord, _ search: String?) -> Bool {
        guard let search else { return true }
        return record.name.lowercased().contains(search) || record.title.lowercased().contains(search)
    }

    private static func entry(_ record: ConversationRecord) -> DirectoryGroup {
        DirectoryGroup(
            name: record.name, title: record.title.isEmpty ? record.name : record.title, description: record.description,
            join: record.joinPolicy, members: record.memberCount, logoURL: record.logoURL.isEmpty ? nil : record.logoURL)
    }
}
