import Foundation
import IMProtocol
import TestSupport
import Testing

@testable import IMServer

/// The group directory (`GET /v1/directory/groups`): open and approval groups anyone
/// logged in may find, searched by name or title, paged by name; invite-only groups and
/// rooms never show.
@Suite(.sharedServers) struct DirectoryTests {
    private func page(_ client: TestClient, _ query: String) async throws -> DirectoryPage {
        let answer = try await client.get("/v1/directory/groups?" + query)
        guard answer.status == 200 else { throw TestFailure("directory: \(answer.status) \(answer.text)") }
        return try answer.decode(DirectoryPage.self)
    }

    @Test(arguments: TestStore.allCases) func listsOpenAndApprovalGroupsButNeverInviteOnlyOnesOrRooms(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let (reader, _) = try await server.client.newUser("reader")
        let tag = Names.unique("dir")
        let open = "\(tag)-a-open", approval = "\(tag)-b-club", secret = "\(tag)-c-secret", room = "\(tag)-d-room"
        expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(
            name: open, title: "Open Door", description: "come in", join: .open)), 201)
        expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(
            name: approval, description: "ask first", join: .approval)), 201)
        expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(name: secret)), 201)
        _ = try await owner.create(.room, room)
        try await reader.join(.group, open)

        let found = try await page(reader, "q=\(tag)")
        #expect(found.groups == [
            DirectoryGroup(name: open, title: "Open Door", description: "come in", join: .open, members: 2),
            DirectoryGroup(name: approval, title: approval, description: "ask first", join: .approval, members: 1),
        ])
        #expect(found.nextAfter == nil)
        // The last page says so with an explicit null.
        let raw = try await reader.get("/v1/directory/groups?q=\(tag)").text
        #expect(raw.contains("\"next_after\":null"))

        // A group made invite-only leaves the directory.
        expectStatus(try await owner.send("PATCH", "/v1/groups/\(open)", json: ConversationInfoUpdate(join: .invite)), 200)
        #expect(try await page(reader, "q=\(tag)").groups.map(\.name) == [approval])
        expectError(try await reader.with(token: nil).get("/v1/directory/groups"), .unauthorized)
    }

    @Test(arguments: TestStore.allCases) func searchesNamesAndTitlesWhateverTheirCase(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let tag = Names.unique("find")
        for (suffix, title) in [("doctors", "Ärzte Am Markt"), ("chess", "Chess Club"), ("plain", nil)] {
            expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(
                name: "\(tag)-\(suffix)", title: title, join: .open)), 201)
        }
        let byTitle = try await page(owner, "q=" + "ärzte am".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
        #expect(byTitle.groups.map(\.name).filter { $0.hasPrefix(tag) } == ["\(tag)-doctors"])
        #expect(try await page(owner, "q=CHESS%20club").groups.map(\.name).filter { $0.hasPrefix(tag) } == ["\(tag)-chess"])
        #expect(try await page(owner, "q=\(tag.uppercased())-PL").groups.map(\.name) == ["\(tag)-plain"])
        #expect(try await page(owner, "q=\(tag)-nothing-like-it").groups.isEmpty)
    }

    @Test(arguments: TestStore.allCases) func pagesByNameWithLimitAndAfter(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let tag = Names.unique("page")
        let names = (1...5).map { "\(tag)-\($0)" }
        for name in names.shuffled() {
            expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(name: name, join: .approval)), 201)
        }
        var seen: [String] = []
        var after: String?
        var pages = 0
        repeat {
            let next = try await page(owner, "q=\(tag)&limit=2" + (after.map { "&after=\($0)" } ?? ""))
            #expect(next.groups.count <= 2)
            seen += next.groups.map(\.name)
            after = next.nextAfter
            pages += 1
        } while after != nil && pages < 10
        #expect(seen == names)
        #expect(pages == 3)
        // Without a search the pages walk every listed group in name order.
        let all = try await page(owner, "limit=100")
        #expect(all.groups.map(\.name) == all.groups.map(\.name).sorted { Array($0.utf8).lexicographicallyPrecedes(Array($1.utf8)) })
    }

    @Test(arguments: TestStore.allCases) func refusesALimitOutOfRangeAndTooLongASearch(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (user, _) = try await server.client.newUser("user")
        expectError(try await user.get("/v1/directory/groups?limit=0"), .invalidRequest, field: "limit")
        expectError(try await user.get("/v1/directory/groups?limit=101"), .invalidRequest, field: "limit")
        expectError(try await user.get("/v1/directory/groups?q=" + String(repeating: "x", count: 101)), .invalidRequest, field: "q")
    }

    /// A search that matches little stops after `scanLimit` groups with `next_after` where
    /// it stopped, so the client goes on and no request walks every group.
    @Test(arguments: TestStore.allCases) func aSearchLooksAtABoundedNumberOfGroupsPerRequest(_ store: TestStore) async throws {
        let server = try SharedServer.current(store)
        let (owner, _) = try await server.client.newUser("owner")
        let tag = Names.unique("scan")
        for index in 1...7 {
            expectStatus(try await owner.send("POST", "/v1/groups", json: CreateConversationRequest(
                name: "\(tag)-\(index)", title: index == 7 ? "the needle" : "hay", join: .open)), 201)
        }
        let storage = server.app.store.storage
        var after: String? = "\(tag)-"
        var requests = 0
        var found: [String] = []
        repeat {
            let page = try await DirectoryRoutes.page(storage, search: "needle", after: after, limit: 5, scanLimit: 3)
            found += page.groups.map(\.name)
            after = page.nextAfter
            requests += 1
        } while after.map { $0.hasPrefix(tag) } == true && requests < 10
        #expect(found.first == "\(tag)-7")
        #expect(requests >= 3)
    }
}
