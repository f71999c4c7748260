import Foundation

/// Bot files read the way the runner takes them: each loaded and checked, a bot whose
/// name, account or a webhook path an earlier file already uses refused, and, with
/// ``runningExamples()``, a file whose examples fail refused too.
///
/// `switchboard check`, the runner's start and its reloads all read bots through this one
/// type, so that what `check` says about the live folder is what the runner did.
public struct BotCatalog: Sendable {
    /// One file and what came of it.
    public struct File: Sendable {
        /// The path, as given or found (without `./`).
        public let path: String
        /// Its bot, when the file has no problem.
        public let bot: BotDefinition?
        /// The bot's name as the file writes it, also when the file has problems; nil when
        /// it cannot be read.
        public let name: String?
        /// A hash of the file's bytes; nil when it cannot be read.
        public let version: String?
        /// Every problem, as `file:line:column: message`, in position order.
        public let problems: [String]

        /// The name to report the file under: its bot's, else the file's own (`helpdesk`
        /// for `bots/helpdesk.yaml`).
        public var label: String {
            name ?? ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        }
    }

    /// The files in the order read.
    public let files: [File]

    /// The bots without problems, in file order.
    public var bots: [BotDefinition] { files.compactMap(\.bot) }
    /// Every problem, file by file.
    public var problems: [String] { files.flatMap(\.problems) }

    /// Reads `paths` in order.
    public static func read(_ paths: [String], environment: [String: String]) -> BotCatalog {
        var files: [File] = []
        var accepted: [BotDefinition] = []
        for path in paths {
            let read = BotLoader.read(file: path, environment: environment)
            let file = BotLoader.displayPath(path)
            var problems = read.errors.errors.map(\.description)
            var bot = read.bot
            if let found = bot {
                if let other = accepted.first(where: { $0.name == found.name }) {
                    problems = ["\(file): bot '\(found.name)' is also defined in \(other.file)"]
                } else if let other = accepted.first(where: { $0.account.username == found.account.username }) {
                    problems = ["\(file): account '\(found.account.username)' is also used by bot '\(other.name)' in "
                                + other.file]
                } else if let shared = sharedWebhook(found, among: accepted) {
                    problems = ["\(file): webhook path \(shared.path) is also served by bot '\(shared.bot.name)' in "
                                + shared.bot.file]
                }
                if problems.isEmpty { accepted.append(found) } else { bot = nil }
            }
            files.append(File(path: file, bot: bot, name: read.name ?? read.bot?.name, version: read.version,
                              problems: problems))
        }
        return BotCatalog(files: files)
    }

    /// A bot of `others` that serves one of `bot`'s webhook paths (the runner has one
    /// listener), and the path.
    private static func sharedWebhook(_ bot: BotDefinition,
                                      among others: [BotDefinition]) -> (bot: BotDefinition, path: String)? {
        for other in others {
            if let path = bot.webhooks.map(\.path).first(where: { other.webhook(path: $0) != nil }) { return (other, path) }
        }
        return nil
    }

    /// Reads every `*.yaml` and `*.yml` file of `folder` (not its subfolders), in name
    /// order; a folder that cannot be listed is one file with that problem.
    public static func read(folder: String, environment: [String: String]) -> BotCatalog {
        do {
            return read(try files(in: folder), environment: environment)
        } catch {
            let path = BotLoader.displayPath(folder)
            return BotCatalog(files: [File(path: path, bot: nil, name: nil, version: nil,
                                           problems: ["\(path): cannot list the bot folder"])])
        }
    }

    /// The bot files of a folder, in name order.
    public static func files(in folder: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder)
            .filter { $0.hasSuffix(".yaml") || $0.hasSuffix(".yml") }.sorted()
            .map { BotLoader.displayPath((folder as NSString).appendingPathComponent($0)) }
    }

    /// The catalog with every bot's examples run: a bot with a failing example is refused,
    /// its failures its problems (`file:line:column: rule 'r' example 1: failed: …`).
    public func runningExamples() async -> BotCatalog {
        var checked: [File] = []
        for file in files {
            guard let bot = file.bot else {
                checked.append(file)
                continue
            }
            let failures = await ExampleRunner.run(bot: bot).filter { !$0.passed }.map(\.description)
            checked.append(failures.isEmpty ? file
                : File(path: file.path, bot: nil, name: file.name, version: file.version, problems: failures))
        }
        return BotCatalog(files: checked)
    }
}
