import Foundation
import IMClient
import IMProtocol
import Testing

@Suite("ProfileStore")
struct ProfileStoreTests {
    private let root = FileManager.default.temporaryDirectory.appendingPathComponent("profiles-\(UUID().uuidString)").path

    private func mode(_ path: String) throws -> Int {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    private func leftovers() -> [String] {
        let walker = FileManager.default.enumerator(atPath: root)
        return (walker?.allObjects as? [String] ?? []).filter { $0.contains(".tmp-") }
    }

    @Test func anEmptyStoreHasNothing() {
        let store = ProfileStore(root: root)

        #expect(store.lastUsername == nil)
        #expect(store.profile(of: "alice") == nil)
        #expect(store.avatar(of: "alice") == nil)
        #expect(store.login(of: "alice") == nil)
        #expect(store.lastLogin == nil)
        #expect(store.avatarOrDefault(of: "alice") == DefaultAvatar.png)
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    @Test func savedValuesReadBackPerUser() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = ProfileStore(root: root)
        let alice = Fixtures.user("alice", avatarURL: "/v1/media/a1")

        try store.setLastUsername("Alice")
        try store.saveProfile(alice)
        try store.saveAvatar(Data([1, 2, 3]), for: "alice")
        try store.saveProfile(Fixtures.user("bob", id: 2))

        #expect(store.lastUsername == "alice")
        #expect(store.profile(of: "ALICE") == alice)
        #expect(store.profile(of: "bob")?.username == "bob")
        #expect(store.avatar(of: "alice") == Data([1, 2, 3]))
        #expect(store.avatar(of: "bob") == nil)
        #expect(store.avatarOrDefault(of: store.lastUsername) == Data([1, 2, 3]))
        #expect(leftovers().isEmpty)
    }

    @Test func loginsAreReadableByTheOwnerOnly() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = ProfileStore(root: root)
        let login = SavedLogin(username: "alice", serverURL: "http://127.0.0.1:8080", token: "sbt_secret", device: "cli")

        try store.saveLogin(login)
        try store.setLastUsername("alice")

        #expect(store.login(of: "alice") == login)
        #expect(store.lastLogin == login)
        #expect(try mode(root + "/users/alice/login.json") == 0o600)
        #expect(try mode(root + "/users/alice") == 0o700)
        try store.removeLogin(of: "alice")
        #expect(store.login(of: "alice") == nil)
        try store.removeLogin(of: "alice")  // removing twice is fine
    }

    @Test func anOverwriteReplacesTheWholeFile() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = ProfileStore(root: root)
        var user = Fixtures.user("alice")
        user.signature = String(repeating: "long signature ", count: 50)
        try store.saveProfile(user)

        try store.saveProfile(Fixtures.user("alice"))

        #expect(store.profile(of: "alice") == Fixtures.user("alice"))
        #expect(leftovers().isEmpty)
    }

    @Test func corruptFilesReadAsAbsent() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        let store = ProfileStore(root: root)
        try store.saveProfile(Fixtures.user("alice"))
        try store.saveLogin(SavedLogin(username: "alice", serverURL: "http://h", token: "t"))
        try store.setLastUsername("alice")
        let folder = root + "/users/alice"

        try Data("{\"id\":".utf8).write(to: URL(fileURLWithPath: folder + "/profile.json"))
        try Data([0xFF, 0x00, 0x7B]).write(to: URL(fileURLWithPath: folder + "/login.json"))
        try Data("[]".utf8).write(to: URL(fileURLWithPath: root + "/state.json"))
        try Data().write(to: URL(fileURLWithPath: folder + "/avatar"))

        #expect(store.profile(of: "alice") == nil)
        #expect(store.login(of: "alice") == nil)
        #expect(store.lastUsername == nil)
        #expect(store.avatar(of: "alice") == nil)
    }

    @Test func namesThatAreNotUsernamesAreRefusedNotUsedAsPaths() throws {
        let store = ProfileStore(root: root)

        let error = #expect(throws: IMClientError.self) { try store.saveAvatar(Data([1]), for: "../../etc") }

        #expect(error?.code == .invalidArgument)
        #expect(store.profile(of: "../x") == nil)
        #expect(!FileManager.default.fileExists(atPath: root))
    }

    @Test func aRootThatIsAFileGivesALocalStorageError() throws {
        let file = root + "-file"
        try Data().write(to: URL(fileURLWithPath: file))
        defer { try? FileManager.default.removeItem(atPath: file) }

        let error = #expect(throws: IMClientError.self) { try ProfileStore(root: file).setLastUsername("alice") }

        #expect(error?.code == .localStorage)
        #expect(error?.message.contains(file) == true)
    }

    @Test func theRootComesFromSwitchboardHomeElseTheUsersShareFolder() {
        #expect(ProfileStore.defaultRoot(environment: ["SWITCHBOARD_HOME": "/srv/sb", "HOME": "/home/a"]) == "/srv/sb")
        #expect(ProfileStore.defaultRoot(environment: ["HOME": "/home/a"]) == "/home/a/.local/share/switchboard")
        #expect(ProfileStore(environment: ["SWITCHBOARD_HOME": "/srv/sb/"]).root == "/srv/sb")
    }
}
