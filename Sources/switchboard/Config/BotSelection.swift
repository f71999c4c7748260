import Foundation
import IMBots
import IMServer

/// The bot files `check`, `test` and `explain` work on: the files named on the command
/// line (a folder stands for its `*.yaml` and `*.yml` files), else those of the bots
/// folder of the configuration (`runner.bots`, default `bots` next to the config file).
///
/// The configuration file is read, and checked, when it is named with `--config` or
/// when it is needed to find the bots folder.
struct BotSelection {
    /// The `--config` line of a command's `--help`.
    static let help = """
          --config FILE      configuration file (default: config.yaml if present); without
                             FILES, the bots are those of its runner.bots folder (default:
                             bots, next to the configuration file)
        """

    /// `--config`, when given.
    var configPath: String?
    /// Files and folders named on the command line; empty for the bots folder.
    var paths: [String]

    /// Reads every file and reports every problem; `${VAR}` reads `environment`. With
    /// `runningExamples`, a bot whose examples fail is refused as the runner refuses it,
    /// its failing examples its problems.
    func load(environment: [String: String], runningExamples: Bool = false) async -> LoadedBots {
        var loaded = LoadedBots()
        var botsFolder: String?
        if configPath != nil || paths.isEmpty {
            botsFolder = loadConfiguration(environment: environment, into: &loaded)
        }
        var files: [String] = []
        if paths.isEmpty {
            if let folder = botsFolder {
                files = botFiles(in: folder, given: false, loaded: &loaded)
            }
        } else {
            for path in paths {
                var isFolder: ObjCBool = false
                if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue {
                    files += botFiles(in: path, given: true, loaded: &loaded)
                } else {
                    files.append(path)
                }
            }
        }
        var catalog = BotCatalog.read(files, environment: environment)
        if runningExamples { catalog = await catalog.runningExamples() }
        for file in catalog.files {
            loaded.results.append(LoadedBots.FileResult(file: file.path, problems: file.problems, bot: file.bot))
        }
        return loaded
    }

    /// Reads the configuration file into `loaded`; the bots folder it names, or nil
    /// when the file has problems.
    private func loadConfiguration(environment: [String: String], into loaded: inout LoadedBots) -> String? {
        let file = configPath ?? ConfigFile.defaultPath
        let exists = FileManager.default.fileExists(atPath: file)
        let config: ConfigFile
        let directory: String
        do {
            (config, directory) = try ConfigFile.load(configPath, environment: environment)
        } catch {
            // Each line of a configuration error is one `file:line:column: message`.
            let lines = String(describing: error).split(separator: "\n").map(String.init)
            loaded.results.append(LoadedBots.FileResult(file: file, problems: lines, bot: nil))
            return nil
        }
        var problems: [String] = []
        do {
            _ = try (config.server ?? ServerFileConfig()).configuration()
        } catch {
            problems.append("\(file): \(error)")
        }
        do {
            _ = try config.level(override: nil)
        } catch {
            problems.append("\(file): \(error)")
        }
        if exists {
            loaded.results.append(LoadedBots.FileResult(file: file, problems: problems, bot: nil))
        }
        let folder = config.runner?.bots ?? "bots"
        if folder.hasPrefix("/") || directory == "." { return folder }
        return (directory as NSString).appendingPathComponent(folder)
    }

    /// The bot files of a folder, in name order; a missing folder is a problem.
    private func botFiles(in folder: String, given: Bool, loaded: inout LoadedBots) -> [String] {
        do {
            return try BotCatalog.files(in: folder)
        } catch {
            let hint = given ? "" : "; name bot files on the command line, or set runner.bots in the configuration"
            loaded.generalProblems.append("\(BotLoader.displayPath(folder)): no such folder\(hint)")
            return []
        }
    }
}

/// What loading a `BotSelection` found: per file its problems or its bot.
struct LoadedBots {
    /// One file read: the configuration file or a bot file.
    struct FileResult {
        /// The path as given or found.
        var file: String
        /// Its problems, as `file:line:column: message`, sorted by position.
        var problems: [String]
        /// The bot it defines, when it is a bot file without problems.
        var bot: BotDefinition?
    }

    /// Every file read, the configuration file first, then the bot files in order.
    var results: [FileResult] = []
    /// Problems that belong to no file (a bots folder that does not exist).
    var generalProblems: [String] = []

    /// The bots that loaded, in file order.
    var bots: [BotDefinition] { results.compactMap(\.bot) }
    /// Every problem, in the order files were read.
    var problems: [String] { generalProblems + results.flatMap(\.problems) }
}
