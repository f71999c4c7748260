import Foundation
import IMClient
import IMProtocol
import Templates

/// What a bot keeps between runs, in one file written atomically:
/// `<state folder>/<bot>/state.json`.
struct BotStateFile: Codable, Sendable, Equatable {
    /// The event cursor to resume from (saved only once every event before it finished).
    var cursor: String?
    var handledThrough: Int64 = 0
    /// Positions above `handledThrough` that already finished.
    var finishedAbove: [Int64] = []
    /// The rules' state variables (`set`, `increment`).
    var variables: [String: TemplateValue] = [:]
    /// SHA-256 of the avatar file last uploaded, so it is uploaded again only when it changes.
    var avatarHash: String?
    /// Messages decided but not yet confirmed sent: sent again (with the same client ids,
    /// so never twice) after a restart.
    var outbox: [PendingMessage] = []

    enum CodingKeys: String, CodingKey {
        case cursor, variables, outbox
        case avatarHash = "avatar_hash"
        case handledThrough = "handled_through"
        case finishedAbove = "finished_above"
    }

    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        cursor = try container.decodeIfPresent(String.self, forKey: .cursor)
        handledThrough = try container.decodeIfPresent(Int64.self, forKey: .handledThrough) ?? 0
        finishedAbove = try container.decodeIfPresent([Int64].self, forKey: .finishedAbove) ?? []
        variables = try container.decodeIfPresent([String: TemplateValue].self, forKey: .variables) ?? [:]
        avatarHash = try container.decodeIfPresent(String.self, forKey: .avatarHash)
        outbox = try container.decodeIfPresent([PendingMessage].self, forKey: .outbox) ?? []
    }

    /// Reads the file; a missing file is a fresh start. A damaged file is moved aside (so
    /// it can be inspected) and the bot starts fresh: sends are idempotent on the server,
    /// so at worst some events are evaluated again without double replies.
    static func load(_ path: String, onDamaged: (String) -> Void) -> BotStateFile {
        guard let data = FileManager.default.contents(atPath: path) else { return BotStateFile() }
        do {
            return try JSONDecoder().decode(BotStateFile.self, from: data)
        } catch {
            let aside = path + ".damaged-\(Int(Date().timeIntervalSince1970))"
            try? FileManager.default.moveItem(atPath: path, toPath: aside)
            onDamaged("\(path) could not be read (\(error)); moved to \(aside) and starting fresh")
            return BotStateFile()
        }
    }

    func save(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFile.write(try encoder.encode(self), to: path)
    }
}

/// A message in a bot's outbox, as kept in its state file.
struct PendingMessage: Codable, Sendable, Equatable {
    var to: String
    var text: String
    var clientMessageID: String
    var replyTo: MessageID?
    var rule: String
    var action: String
    /// The feed position of the event that caused it.
    var position: Int64

    enum CodingKeys: String, CodingKey {
        case to, text, rule, action, position
        case clientMessageID = "client_msg_id"
        case replyTo = "reply_to"
    }

    init(_ message: OutgoingMessage, position: Int64) {
        to = message.to.description
        text = message.text
        clientMessageID = message.clientMessageID
        replyTo = message.replyTo
        rule = message.rule
        action = message.action.rawValue
        self.position = position
    }
}
