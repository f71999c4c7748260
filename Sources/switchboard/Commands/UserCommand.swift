import Foundation
import IMClient
import IMProtocol

/// `switchboard user add|list|passwd`: account administration against a server.
struct UserCommand: Command {
    static let name = "user"
    static let summary = "manage accounts: add, list, passwd (administrators)"
    static let help = """
        usage: switchboard user add NAME [--nickname TEXT] [--bot] [--admin] [--server URL] [--user ADMIN]
               switchboard user list [--server URL] [--user ADMIN]
               switchboard user passwd NAME [--server URL] [--user ADMIN]

        add     creates an account (works while registration is closed); its password comes
                from SWITCHBOARD_NEW_PASSWORD, else it is asked for twice
        list    prints every account: name, nickname, and whether bot or admin
        passwd  sets NAME's password (from SWITCHBOARD_NEW_PASSWORD or asked) and ends all
                its logins; for your own account the current password is needed instead
                of administration

        --user is the administrator acting (their password: SWITCHBOARD_PASSWORD or asked).

        options:
          --nickname TEXT    the new account's display name (add)
          --bot              mark the new account as a bot: its logins do not expire (add)
          --admin            make the new account an administrator (add)
        \(ClientLogin.help)

        exit codes: 0 done, 1 refused or failed, 2 usage
        """
    static let options: Set<String> = ClientLogin.options.union(["nickname"])
    static let flags: Set<String> = ["bot", "admin"]

    enum Action {
        case add(String)
        case list
        case passwd(String)
    }

    var login: ClientLogin
    var action: Action
    var nickname: String?
    var bot: Bool
    var admin: Bool

    init(arguments: Arguments) throws {
        login = try ClientLogin(arguments: arguments)
        let words = arguments.positionals
        switch (words.first, words.count) {
        case ("add", 2): action = .add(words[1].lowercased())
        case ("list", 1): action = .list
        case ("passwd", 2): action = .passwd(words[1].lowercased())
        case (let word?, _) where ["add", "list", "passwd"].contains(word):
            throw UsageError(message: word == "list" ? "'user list' takes no name" : "'user \(word)' needs one NAME")
        default:
            throw UsageError(message: "say what to do: user add NAME, user list or user passwd NAME")
        }
        nickname = arguments[option: "nickname"]
        bot = arguments.has("bot")
        admin = arguments.has("admin")
    }

    func run() async throws -> Int32 {
        let client = try await login.connect()
        switch action {
        case .add(let name):
            let password = try Secrets.password(
                variable: "SWITCHBOARD_NEW_PASSWORD", prompt: "password for the new account \(name): ", confirm: true)
            let created = try await client.adminCreateUser(
                AdminCreateUser(username: name, password: password, nickname: nickname, bot: bot, admin: admin))
            printOutput("created \(created.user.username)\(created.user.isBot ? " (bot)" : "")\(created.admin ? " (admin)" : "")")
        case .list:
            var after: String?
            repeat {
                let page = try await client.adminUsers(after: after, limit: 500)
                for entry in page.users {
                    let marks = [entry.user.isBot ? "bot" : nil, entry.admin ? "admin" : nil].compactMap { $0 }
                    let suffix = marks.isEmpty ? "" : "  [\(marks.joined(separator: ", "))]"
                    printOutput("\(entry.user.username)\t\(entry.user.nickname)\(suffix)")
                }
                after = page.next
            } while after != nil
        case .passwd(let name):
            if name == login.username {
                let old = try Secrets.password(variable: "SWITCHBOARD_PASSWORD", prompt: "current password: ")
                let new = try Secrets.password(
                    variable: "SWITCHBOARD_NEW_PASSWORD", prompt: "new password for \(name): ", confirm: true)
                _ = try await client.changePassword(old: old, new: new)
            } else {
                let new = try Secrets.password(
                    variable: "SWITCHBOARD_NEW_PASSWORD", prompt: "new password for \(name): ", confirm: true)
                try await client.adminSetPassword(username: name, password: new)
            }
            printOutput("password of \(name) changed; its other logins have ended")
        }
        return ExitCode.ok
    }
}
