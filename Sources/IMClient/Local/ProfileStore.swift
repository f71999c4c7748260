import Foundation
import IMProtocol

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The local, per-user store of a device (the seed's `storeUserProfile`/`fetchUserProfile`):
/// the last username, and per user the profile fields, the avatar image, the last login
/// (token and server, readable by the owner only) and the event cursor.
///
/// Layout under `root`: `state.json`, `users/<name>/profile.json`, `users/<name>/avatar`,
/// `users/<name>/login.json` (0600), `users/<name>/cursor`, `cache/avatars/`. Every write
/// is atomic; a file that is missing, unreadable or corrupt reads as absent.
public struct ProfileStore: Sendable {
    /// The folder everything lives in.
    public let root: String

    /// A store in `root`; created on the first write.
    public init(root: String) {
        var path = root
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.root = path
    }

    /// The store at `$SWITCHBOARD_HOME`, else `~/.local/share/switchboard`.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.init(root: Self.defaultRoot(environment: environment))
    }

    /// `$SWITCHBOARD_HOME`, else `$HOME/.local/share/switchboard`.
    public static func defaultRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let home = environment["SWITCHBOARD_HOME"], !home.isEmpty { return home }
        let userHome = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return userHome + "/.local/share/switchboard"
    }

    private struct State: Codable {
        var lastUsername: String?
        enum CodingKeys: String, CodingKey { case lastUsername = "last_username" }
    }

    // MARK: Last user

    /// The username that logged in last on this machine.
    public var lastUsername: String? {
        read(State.self, at: root + "/state.json")?.lastUsername
    }

    /// Records the user who logged in last.
    public func setLastUsername(_ username: String) throws(IMClientError) {
        let name = try Self.checked(username)
        try write(State(lastUsername: name), to: root + "/state.json")
    }

    // MARK: Profile and avatar

    /// The profile saved for `username`.
    public func profile(of username: String) -> User? {
        guard let folder = try? folder(username) else { return nil }
        return read(User.self, at: folder + "/profile.json")
    }

    /// Saves a profile under its username.
    public func saveProfile(_ user: User) throws(IMClientError) {
        try write(user, to: try folder(user.username) + "/profile.json")
    }

    /// The avatar image saved for `username`.
    public func avatar(of username: String) -> Data? {
        guard let folder = try? folder(username), let data = AtomicFile.read(folder + "/avatar"), !data.isEmpty
        else { return nil }
        return data
    }

    /// The saved avatar of `username`, or `DefaultAvatar.png` (the login screen's picture).
    public func avatarOrDefault(of username: String?) -> Data {
        username.flatMap { avatar(of: $0) } ?? DefaultAvatar.png
    }

    /// Saves the avatar image of `username`.
    public func saveAvatar(_ image: Data, for username: String) throws(IMClientError) {
        try AtomicFile.write(image, to: try folder(username) + "/avatar")
    }

    // MARK: Logins

    /// The last login of `username` on this machine, for tools that reuse it. `slot`
    /// names a login kept apart from the command line's (`chat`, `chat-2`: each terminal
    /// of the chat client keeps its own, since one login holds one live stream).
    public func login(of username: String, slot: String? = nil) -> SavedLogin? {
        guard let folder = try? folder(username) else { return nil }
        return read(SavedLogin.self, at: folder + "/" + Self.loginFile(slot))
    }

    /// The last login of the last user, if both are known.
    public var lastLogin: SavedLogin? { lastUsername.flatMap { login(of: $0) } }

    /// Saves a login, readable by the owner only (mode 0600).
    public func saveLogin(_ login: SavedLogin, slot: String? = nil) throws(IMClientError) {
        try write(login, to: try folder(login.username) + "/" + Self.loginFile(slot), mode: 0o600)
    }

    /// Forgets the login of `username` (after logout).
    public func removeLogin(of username: String, slot: String? = nil) throws(IMClientError) {
        try AtomicFile.remove(try folder(username) + "/" + Self.loginFile(slot))
    }

    private static func loginFile(_ slot: String?) -> String {
        slot.map { "\($0.filter { $0.isLetter || $0.isNumber || $0 == "-" })-login.json" } ?? "login.json"
    }

    // MARK: This machine

    /// A name for logins from this home that no other home shares: `prefix-<random>@<host>`,
    /// made at the first call and kept in `device` (so a new login from here ends only an
    /// earlier login from here, never one from another home or machine).
    public func deviceName(prefix: String) throws(IMClientError) -> String {
        let path = root + "/device"
        if let data = AtomicFile.read(path), let id = String(data: data, encoding: .utf8)?
            .trimmingCharacters(in: .whitespacesAndNewlines), !id.isEmpty, id.count <= 16
        {
            return Self.device(prefix, id)
        }
        let id = String(UInt64.random(in: 0...UInt64.max), radix: 36)
        try AtomicFile.write(Data((id + "\n").utf8), to: path, mode: 0o600)
        return Self.device(prefix, id)
    }

    private static func device(_ prefix: String, _ id: String) -> String {
        let host = ProcessInfo.processInfo.hostName
        return String("\(prefix)-\(id)@\(host)".prefix(Limits.deviceLength.upperBound - 4))
    }

    /// Claims the first free numbered place `name-1`, `name-2`, … under this home for as
    /// long as the returned lock is held (the process's life at most): how several
    /// terminals of one home tell each other apart.
    public func claimSlot(_ name: String, most: Int = 99) throws(IMClientError) -> HomeSlot {
        try HomeSlot.claim(folder: root + "/locks", name: name, most: most)
    }

    // MARK: Places for other stores

    /// A cursor file for `username`'s event stream.
    public func cursorStore(for username: String) throws(IMClientError) -> FileCursorStore {
        FileCursorStore(path: try folder(username) + "/cursor")
    }

    /// The on-disk cache of downloaded avatars.
    public var avatarCache: AvatarCache { AvatarCache(directory: root + "/cache/avatars") }

    // MARK: Files

    private func folder(_ username: String) throws(IMClientError) -> String {
        root + "/users/" + (try Self.checked(username))
    }

    /// Usernames become folder names, so only valid ones are accepted: no `/`, no `..`.
    private static func checked(_ username: String) throws(IMClientError) -> String {
        do {
            return try Validate.username(username)
        } catch {
            throw IMClientError(.invalidArgument, "'\(username)' is not a username: \(error)")
        }
    }

    private func read<T: Decodable>(_ type: T.Type, at path: String) -> T? {
        guard let data = AtomicFile.read(path) else { return nil }
        return try? WireJSON.decoder().decode(T.self, from: data)
    }

    private func write<T: Encodable>(_ value: T, to path: String, mode: mode_t = 0o644) throws(IMClientError) {
        let data: Data
        do {
            data = try WireJSON.encoder().encode(value)
        } catch {
            throw IMClientError(.localStorage, "cannot encode \(path): \(error)")
        }
        try AtomicFile.write(data, to: path, mode: mode)
    }
}
