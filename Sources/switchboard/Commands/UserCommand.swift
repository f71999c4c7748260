import Foundation
import IMClient
import IMProtocol
import IMServer

/// `switchboard user`: account administration, over the API as an administrator, or
/// straight on a server's data folder (`--data`), which is how the first administrator
/// is made.
struct UserCommand: Command {
    static let name = "user"
    static let summary = "manage accounts: add, list, passwd, suspend, unsuspend, delete, runner-token, telegram-token"
    static let help = """
        usage: switchboard user add NAME [--nickname TEXT] [--bot] [--admin] [--data DIR | --store URL | --server URL --user ADMIN]
               switchboard user list [--data DIR | --store URL | --server URL --user ADMIN]
               switchboard user passwd NAME [--data DIR | --store URL | --server URL --user ADMIN]
               switchboard user suspend|unsuspend|delete NAME [--server URL] [--user ADMIN]
               switchboard user runner-token NAME [--data DIR | --store URL]
               switchboard user telegram-token NAME [--revoke] [--data DIR | --store URL | --server URL --user ADMIN]

        add        creates an account (works while registration is closed); its password comes
                   from SWITCHBOARD_NEW_PASSWORD, else it is asked for twice
        list       prints every account: name, nickname, and whether bot, admin or suspended
        passwd     sets NAME's password (from SWITCHBOARD_NEW_PASSWORD or asked) and ends all
                   its logins; for your own account the current password is needed instead
                   of administration
        suspend    ends every login of NAME and refuses new ones until unsuspend
        delete     deletes NAME: its logins, memberships, contacts and media go; its messages
                   stay, shown as from a deleted account; the name can be taken again
        runner-token
                   prints a new administration credential for a bot runner (runner.admin_token):
                   a login of NAME, an administrator's bot account (user add runner --bot --admin),
                   that never expires; it ends with NAME's other logins (passwd, suspend, delete)
        telegram-token
                   prints a new token for bot NAME to use with the Telegram Bot API
                   (docs/telegram.md), ending the one before; --revoke ends it instead.
                   add --bot prints the first one

        With --data DIR the command works on the server's data folder directly: no login is
        needed, which is how the first administrator is made (user add NAME --admin --data
        ./data). add and list work while the server runs; passwd is refused on the folder of
        a running server, which would trust the account's cached logins for up to 30 s more:
        use --server there, or stop the server first. With PostgreSQL, --store URL does the
        same on the database the server nodes share (passwd too: the servers apply it at
        once). Otherwise --user is the administrator acting (their password:
        SWITCHBOARD_PASSWORD or asked).

        options:
          --nickname TEXT    the new account's display name (add)
          --bot              a bot account: its logins do not expire, it has the bot send
                             budget, and rules can tell it apart (add; administrators only)
          --admin            make the new account an administrator (add)
          --revoke           end the bot's Telegram token without a new one (telegram-token)
          --data DIR         the server's data folder (add, list, passwd, runner-token, telegram-token)
          --store URL        the server's PostgreSQL database, postgres://… (add, list, passwd, runner-token, telegram-token)
        \(ClientLogin.help)

        exit codes: 0 done, 1 refused or failed, 2 usage
        """
    static let options: Set<String> = ClientLogin.options.union(["nickname", "data", "store"])
    static let flags: Set<String> = ["bot", "admin", "revoke"]

    enum Action {
        case add(String)
        case list
        case passwd(String)
        case suspend(String, Bool)
        case delete(String)
        case runnerToken(String)
        case telegramToken(String, revoke: Bool)
    }

    var action: Action
    var nickname: String?
    var bot: Bool
    var admin: Bool
    /// Where to act: the data folder, or a server as an administrator.
    var target: Target

    enum Target {
        case data(String)
        case store(StoreLocation)
        case server(ClientLogin)
    }

    init(arguments: Arguments) throws {
        let words = arguments.positionals
        switch (words.first, words.count) {
        case ("add", 2): action = .add(words[1].lowercased())
        case ("list", 1): action = .list
        case ("passwd", 2): action = .passwd(words[1].lowercased())
        case ("suspend", 2): action = .suspend(words[1].lowercased(), true)
        case ("unsuspend", 2): action = .suspend(words[1].lowercased(), false)
        case ("delete", 2): action = .delete(words[1].lowercased())
        case ("runner-token", 2): action = .runnerToken(words[1].lowercased())
        case ("telegram-token", 2): action = .telegramToken(words[1].lowercased(), revoke: arguments.has("revoke"))
        case (let word?, _)
        where ["add", "list", "passwd", "suspend", "unsuspend", "delete", "runner-token", "telegram-token"].contains(word):
            throw UsageError(message: word == "list" ? "'user list' takes no name" : "'user \(word)' needs one NAME")
        default:
            throw UsageError(message: "say what to do: user add NAME, list, passwd NAME, suspend NAME, unsuspend NAME, "
                             + "delete NAME, runner-token NAME or telegram-token NAME")
        }
        nickname = arguments[option: "nickname"]
        bot = arguments.has("bot")
        admin = arguments.has("admin")
        let data = arguments[option: "data"]
        let store = arguments[option: "store"]
        if data != nil || store != nil {
            guard arguments[option: "server"] == nil, arguments[option: "user"] == nil, data == nil || store == nil else {
                throw UsageError(message: "--data and --store work on the database itself: give one, without --server and --user")
            }
            switch action {
            case .add, .list, .passwd, .runnerToken, .telegramToken: break
            case .suspend, .delete:
                throw UsageError(
                    message: "suspend, unsuspend and delete go through the running server (to end its logins at once): use --server and --user")
            }
            if let store {
                guard let location = StoreLocation(store), location != .sqlite else {
                    throw UsageError(message: "--store '\(ServerFileConfig.redacted(store))' is not a postgres:// URL (for SQLite give --data)")
                }
                target = .store(location)
            } else {
                target = .data(data ?? "data")
            }
        } else {
            if case .runnerToken = action {
                throw UsageError(message: "runner-token works on the database itself: give --data DIR (or --store URL)")
            }
            target = .server(try ClientLogin(arguments: arguments))
        }
    }

    func run() async throws -> Int32 {
        switch target {
        case .data(let folder):
            try await administer(try await AccountAdministration(dataDirectory: folder))
        case .store(let location):
            try await administer(try await AccountAdministration(dataDirectory: "", store: location))
        case .server(let login):
            try await run(on: try await login.connect(), as: login.username)
        }
        return ExitCode.ok
    }

    /// Runs the action on the database itself, then closes it however that ends.
    private func administer(_ local: AccountAdministration) async throws {
        do {
            try await run(on: local)
        } catch {
            await local.close()
            throw error
        }
        await local.close()
    }

    private func newAccount(_ name: String) throws -> AdminCreateUser {
        let password = try Secrets.password(
            variable: "SWITCHBOARD_NEW_PASSWORD", prompt: "password for the new account \(name): ", confirm: true)
        return AdminCreateUser(username: name, password: password, nickname: nickname, bot: bot, admin: admin)
    }

    private func newPassword(_ name: String) throws -> String {
        try Secrets.password(variable: "SWITCHBOARD_NEW_PASSWORD", prompt: "new password for \(name): ", confirm: true)
    }

    private func run(on local: AccountAdministration) async throws {
        switch action {
        case .add(let name):
            report(try await local.addAccount(try newAccount(name)))
        case .list:
            try await listAll { try await local.accounts(after: $0, limit: 500) }
        case .passwd(let name):
            try await local.setPassword(of: name, to: try newPassword(name))
            printOutput("password of \(name) changed; its logins have ended")
        case .runnerToken(let name):
            printOutput(try await local.runnerCredential(for: name))
        case .telegramToken(let name, let revoke):
            reportToken(name, try await local.telegramToken(of: name, revoke: revoke))
        case .suspend, .delete:
            break
        }
    }

    private func run(on client: IMClient, as username: String) async throws {
        switch action {
        case .add(let name):
            report(try await client.adminCreateUser(try newAccount(name)))
        case .list:
            try await listAll { try await client.adminUsers(after: $0, limit: 500) }
        case .passwd(let name):
            if name == username {
                let old = try Secrets.password(variable: "SWITCHBOARD_PASSWORD", prompt: "current password: ")
                _ = try await client.changePassword(old: old, new: try newPassword(name))
            } else {
                try await client.adminSetPassword(username: name, password: try newPassword(name))
            }
            printOutput("password of \(name) changed; its other logins have ended")
        case .suspend(let name, let suspended):
            try await client.adminSetSuspended(username: name, suspended)
            printOutput(suspended ? "suspended \(name); its logins have ended" : "unsuspended \(name)")
        case .delete(let name):
            try await client.adminDeleteUser(username: name)
            printOutput("deleted \(name)")
        case .telegramToken(let name, let revoke):
            if revoke {
                try await client.adminRevokeTelegramToken(username: name)
                reportToken(name, nil)
            } else {
                reportToken(name, try await client.adminIssueTelegramToken(username: name))
            }
        case .runnerToken:
            break
        }
    }

    private func report(_ created: AdminUser) {
        printOutput("created \(created.user.username)\(created.user.isBot ? " (bot)" : "")\(created.admin ? " (admin)" : "")")
        if let token = created.telegramToken { printOutput("telegram token: \(token)") }
    }

    private func reportToken(_ name: String, _ answer: AdminUser?) {
        if let token = answer?.telegramToken {
            printOutput("telegram token of \(name): \(token)")
        } else {
            printOutput("the telegram token of \(name) has ended")
        }
    }

    /// Prints every account, page after page.
    private func listAll(_ page: (String?) async throws -> AdminUserList) async throws {
        var after: String?
        repeat {
            let next = try await page(after)
            next.users.forEach(list)
            after = next.next
        } while after != nil
    }

    private func list(_ entry: AdminUser) {
        let marks = [entry.user.isBot ? "bot" : nil, entry.admin ? "admin" : nil, entry.suspended == true ? "suspended" : nil]
            .compactMap { $0 }
        let suffix = marks.isEmpty ? "" : "  [\(marks.joined(separator: ", "))]"
        printOutput("\(entry.user.username)\t\(entry.user.nickname)\(suffix)")
    }
}
