import Foundation
import IMClient
import YAMLCoding
import IMProtocol

/// `switchboard group`: groups for operators: create them, look at them, let people in
/// and moderate, as a server administrator (who may act in any group, such as those the
/// bots made) or as the group's owner or admin.
///
/// Unlike `user add`, nothing here works on the data folder: every act is an event that
/// the running server delivers to the members' parked polls, so it goes through the
/// server, as `user suspend` does.
struct GroupCommand: Command {
    static let name = "group"
    static let summary = "manage groups: create, info, members, invite, approve, kick, ban, mute, promote…"
    static let help = """
        usage: switchboard group create NAME [--join invite|approval|open] [--title TEXT] [--description TEXT]
               switchboard group info|members|requests|join NAME
               switchboard group invite|approve NAME USER
               switchboard group mute|ban NAME USER [--for DURATION] [--reason TEXT]
               switchboard group unmute|kick|unban|promote|demote|transfer NAME USER [--reason TEXT]
               (each also takes --server URL --user NAME)

        create     makes a group owned by --user: invite-only unless --join says otherwise
        info       prints the group's info and settings
        members    prints its members: name, nickname, role, and whether muted or restricted
        requests   prints who asked to join (a group with --join approval)
        join       joins it (an open group, or one you are invited to), or asks to
        invite     lets USER join; they accept by joining (switchboard chat: Contacts, j)
        approve    lets in USER, who asked to join
        mute       keeps USER from posting, for DURATION or until unmute (which also lets a
                   restricted newcomer post)
        kick       removes USER, who may come back if the group lets them
        ban        removes USER and keeps them out (no joining, invitations or posts) for
                   DURATION or until unban
        promote    makes USER an admin; demote makes them a member again; transfer makes
                   them the owner (you become an admin). The owner's powers
        A server administrator may do all of it in any group; transfer to yourself takes
        the group over. Admins moderate members; the owner moderates admins too.

        options:
          --join POLICY      who may join a new group: invite (default), approval, open
          --title TEXT       the new group's title (create)
          --description TEXT the new group's description (create)
          --for DURATION     how long a mute or ban lasts: 30s, 10m, 2h, 7d (default: until lifted)
          --reason TEXT      why, for the notice the group sees
        \(ClientLogin.help)

        Every act leaves a notice in the group naming who did it. The commands go through
        the running server (an act is an event for the members' clients); an administrator
        is made on the data folder: switchboard user add NAME --admin --data DIR.

        exit codes: 0 done, 1 refused or failed, 2 usage
        """
    static let options: Set<String> = ClientLogin.options.union(["join", "title", "description", "for", "reason"])
    static let flags: Set<String> = []

    enum Action {
        case create(String)
        case info(String)
        case members(String)
        case requests(String)
        case join(String)
        case invite(String, user: String)
        case approve(String, user: String)
        case moderate(String, ModerationAction, user: String)
    }

    var action: Action
    var join: JoinPolicy?
    var title: String?
    var groupDescription: String?
    var duration: ConfigDuration?
    var reason: String?
    var login: ClientLogin

    private static let onGroup = ["info", "members", "requests", "join"]

    init(arguments: Arguments) throws {
        let words = arguments.positionals
        guard let verb = words.first else {
            throw UsageError(message: "say what to do: group create, info, members, invite, approve, kick, ban, mute, …")
        }
        let moderation = ModerationAction(rawValue: verb)
        let wantsUser = moderation != nil || verb == "invite" || verb == "approve"
        guard verb == "create" || Self.onGroup.contains(verb) || wantsUser else {
            let verbs = ["create", "invite", "approve"] + Self.onGroup + ModerationAction.allCases.map(\.rawValue)
            let suggestion = Suggestion.closest(to: verb, among: verbs).map { " (did you mean '\($0)'?)" } ?? ""
            throw UsageError(message: "unknown group action '\(verb)'\(suggestion)")
        }
        guard words.count == (wantsUser ? 3 : 2) else {
            throw UsageError(message: "'group \(verb)' needs \(wantsUser ? "a group NAME and a USER" : "one group NAME")")
        }
        let group = words[1].lowercased()
        let user = words.count > 2 ? words[2].lowercased() : ""
        switch verb {
        case "create": action = .create(group)
        case "info": action = .info(group)
        case "members": action = .members(group)
        case "requests": action = .requests(group)
        case "join": action = .join(group)
        case "invite": action = .invite(group, user: user)
        case "approve": action = .approve(group, user: user)
        default: action = .moderate(group, moderation ?? .kick, user: user)
        }
        if let text = arguments[option: "join"] {
            guard verb == "create" else { throw UsageError(message: "--join is for 'group create'") }
            guard let policy = JoinPolicy(rawValue: text) else {
                throw UsageError(message: "--join '\(text)' is not a policy: use invite, approval or open")
            }
            join = policy
        }
        title = arguments[option: "title"]
        groupDescription = arguments[option: "description"]
        if let text = arguments[option: "for"] {
            guard moderation?.takesDuration == true else { throw UsageError(message: "--for is for 'group mute' and 'group ban'") }
            guard let parsed = ConfigDuration(text), parsed.seconds >= 1 else {
                throw UsageError(message: "--for '\(text)' is not a duration: write e.g. 30s, 10m, 2h or 7d")
            }
            duration = parsed
        }
        reason = arguments[option: "reason"]
        if reason != nil, moderation == nil { throw UsageError(message: "--reason is for moderation actions") }
        login = try ClientLogin(arguments: arguments)
    }

    func run() async throws -> Int32 {
        let client = try await login.connect()
        switch action {
        case .create(let name):
            let info = try await client.createGroup(name: name, title: title, description: groupDescription, join: join)
            printOutput("created group:\(info.name) (join: \(info.join?.rawValue ?? "invite"))")
        case .info(let name):
            print(try await client.groupInfo(name))
        case .members(let name):
            for member in try await client.groupMembers(name) { printOutput(Self.line(member)) }
        case .requests(let name):
            for request in try await client.groupJoinRequests(name) {
                printOutput("\(request.user)\tasked \(request.createdAt)")
            }
        case .join(let name):
            switch try await client.join(group: name) {
            case .joined(let info): printOutput("joined group:\(info.name)")
            case .requested(let request): printOutput("asked to join group:\(request.group): an admin approves")
            }
        case .invite(let name, let user):
            _ = try await client.inviteToGroup(name, user: user)
            printOutput("invited \(user) to group:\(name); they accept by joining it")
        case .approve(let name, let user):
            _ = try await client.approveJoinRequest(name, user: user)
            printOutput("let \(user) into group:\(name)")
        case .moderate(let name, let action, let user):
            let result = try await client.moderate(group: name, action, user: user, duration: duration, reason: reason)
            printOutput(Self.line(result))
        }
        return ExitCode.ok
    }

    private func print(_ info: ConversationInfo) {
        var lines = ["name: \(info.name)", "title: \(info.title)"]
        // A description's own lines are indented, so none of them reads as a field.
        if !info.description.isEmpty {
            lines.append("description: " + info.description.replacingOccurrences(of: "\n", with: "\n    "))
        }
        lines += [
            "join: \(info.join?.rawValue ?? "invite")", "new members: \(info.newMembers?.rawValue ?? "full")",
            "slow mode: \(info.slowMode?.description ?? "off")", "info editable by: \(info.infoEditableBy?.rawValue ?? "admins")",
            "members: \(info.memberCount)",
        ]
        if let creator = info.createdBy { lines.append("created by: \(creator)") }
        lines.forEach(printOutput)
    }

    static func line(_ member: Member) -> String {
        let marks = [
            member.muted == true ? "muted" + (member.mutedUntil.map { " until \($0)" } ?? "") : nil,
            member.restricted == true ? "restricted" : nil,
        ].compactMap { $0 }
        return "\(member.user.username)\t\(member.user.nickname)\t\(member.role.rawValue)"
            + (marks.isEmpty ? "" : "  [\(marks.joined(separator: ", "))]")
    }

    static func line(_ result: ModerationResult) -> String {
        let (who, group) = (result.user, "group:\(result.group)")
        guard result.changed else {
            switch result.action {
            case .unmute: return "nothing to do: \(who) is not muted in \(group)"
            case .unban: return "nothing to do: \(who) is not banned from \(group)"
            case .promote: return "nothing to do: \(who) is an admin or the owner of \(group) already"
            case .demote: return "nothing to do: \(who) is a member of \(group) already"
            default: return "nothing to do: \(who) owns \(group) already"
            }
        }
        let until = result.until.map { " until \($0)" } ?? ""
        switch result.action {
        case .mute: return "muted \(who) in \(group)\(until)"
        case .unmute: return "unmuted \(who) in \(group)"
        case .kick: return "removed \(who) from \(group)"
        case .ban: return "banned \(who) from \(group)\(until)"
        case .unban: return "unbanned \(who) in \(group)"
        case .promote: return "made \(who) an admin of \(group)"
        case .demote: return "made \(who) a member of \(group)"
        case .transfer: return "made \(who) the owner of \(group)"
        }
    }
}
