import Foundation
import HTTPServer
import IMProtocol
import IMStore

/// Public profiles, the caller's contacts, and whom the caller blocks.
enum UserRoutes {
    static let routes: [Route] = [
        Route(.get, "/v1/users", access: .user, handler: lookup),
        Route(.get, "/v1/users/:name", access: .user, handler: user),
        Route(.get, "/v1/contacts", access: .user, handler: contacts),
        Route(.put, "/v1/contacts/:name", access: .user, handler: addContact),
        Route(.delete, "/v1/contacts/:name", access: .user, handler: removeContact),
        Route(.get, "/v1/blocks", access: .user, handler: blocks),
        Route(.put, "/v1/blocks/:name", access: .user, handler: block),
        Route(.delete, "/v1/blocks/:name", access: .user, handler: unblock),
    ]

    static func lookup(_ context: RequestContext) async throws -> Response {
        guard let list = context.request.query("names") else {
            throw APIError.invalid("names", "give the usernames to look up: ?names=alice,bob")
        }
        let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            .filter { !$0.isEmpty }
        guard names.count <= Limits.namesPerLookup else {
            throw APIError.invalid("names", "at most \(Limits.namesPerLookup) names per lookup")
        }
        let found = try await context.core.store.users(named: names)
        let byName = Dictionary(found.map { ($0.user.username, $0.user) }, uniquingKeysWith: { first, _ in first })
        var users: [User] = []
        var missing: [String] = []
        for name in names where !users.contains(where: { $0.username == name }) && !missing.contains(name) {
            if let user = byName[name] { users.append(user) } else { missing.append(name) }
        }
        return .users(UserList(users: users, missing: missing))
    }

    static func user(_ context: RequestContext) async throws -> Response {
        let record = try await existingUser(context, try context.parameter("name"))
        return .user(record.user)
    }

    static func existingUser(_ context: RequestContext, _ name: String) async throws -> UserRecord {
        let username = name.lowercased()
        guard let record = try await context.core.store.user(named: username), record.deletedAt == nil else {
            throw APIError(.notFound, "no user '\(username)'")
        }
        return record
    }

    static func contacts(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let users = try await context.core.store.contacts(of: session.userID)
        return .users(UserList(users: users))
    }

    static func addContact(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let record = try await existingUser(context, try context.parameter("name"))
        guard record.id != session.userID else {
            throw APIError.invalid("name", "you cannot add yourself as a contact")
        }
        let added = try await context.core.store.addContact(session.userID, record.id)
        return .user(record.user, status: added ? 201 : 200)
    }

    static func removeContact(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let record = try await existingUser(context, try context.parameter("name"))
        guard try await context.core.store.removeContact(session.userID, record.id) else {
            throw APIError(.notFound, "'\(record.user.username)' is not in your contacts")
        }
        return .noContent
    }

    static func blocks(_ context: RequestContext) async throws -> Response {
        let users = try await context.core.store.blocked(by: try context.caller.userID)
        return .users(UserList(users: users))
    }

    /// The blocked user's one-to-one sends to the caller are refused from now on; they are
    /// not told.
    static func block(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let record = try await existingUser(context, try context.parameter("name"))
        guard record.id != session.userID else { throw APIError.invalid("name", "you cannot block yourself") }
        let added = try await context.core.store.block(session.userID, record.id)
        return .user(record.user, status: added ? 201 : 200)
    }

    static func unblock(_ context: RequestContext) async throws -> Response {
        let session = try context.caller
        let record = try await existingUser(context, try context.parameter("name"))
        guard try await context.core.store.unblock(session.userID, record.id) else {
            throw APIError(.notFound, "you do not block '\(record.user.username)'")
        }
        return .noContent
    }
}
