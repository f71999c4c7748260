import Foundation
import IMClient
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

    enum CodingKeys: String, CodingKey {
        case cursor, variables
        case handledThrough = "handled_through"
        case finishedAbove = "finished_above"
    }

    init() {}

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
