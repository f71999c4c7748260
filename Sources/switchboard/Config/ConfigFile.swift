import Foundation
import IMBots
import IMServer
import Logging
import YAMLCoding

/// `config.yaml`: the embedded server, the bot runner, and logging.
struct ConfigFile: Decodable {
    var server: ServerFileConfig?
    var runner: RunnerFileConfig?
    /// trace, debug, info, notice, warning or error.
    var logLevel: String?
    /// Where log lines go instead of standard error; reopened on SIGHUP.
    var logFile: String?

    enum CodingKeys: String, CodingKey {
        case server, runner
        case logLevel = "log_level"
        case logFile = "log_file"
    }

    /// The default file name, looked for in the working directory.
    static let defaultPath = "config.yaml"

    /// Reads and checks a config file. A missing file is an error when `required`, and
    /// an empty configuration otherwise.
    static func load(_ path: String?, environment: [String: String] = CommandContext.current.environment)
        throws -> (ConfigFile, directory: String)
    {
        let file = path ?? defaultPath
        guard FileManager.default.fileExists(atPath: file) else {
            if path != nil { throw ConfigurationError("\(file): no such file") }
            return (ConfigFile(), ".")
        }
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError("\(file): cannot be read")
        }
        let text = String(decoding: data, as: UTF8.self)
        do {
            let config = try YAMLDecoder(interpolation: .environment(environment)).decode(
                ConfigFile.self, from: text, file: file)
            return (config, (file as NSString).deletingLastPathComponent.isEmpty ? "." : (file as NSString).deletingLastPathComponent)
        } catch {
            throw ConfigurationError(error.description)
        }
    }

    init() {}

    /// The server's configuration of a `server:` section (with the command's flags
    /// applied); its problems are configuration errors.
    static func serverConfiguration(_ section: ServerFileConfig) throws -> ServerConfiguration {
        do {
            return try section.configuration()
        } catch let error as ServerFileConfig.Invalid {
            throw ConfigurationError(error.description)
        }
    }

    /// The log level, checked.
    func level(override: String?) throws -> LogLevel {
        let name = override ?? logLevel ?? "info"
        guard let level = LogLevel(name: name) else {
            throw ConfigurationError("log level '\(name)' is not one of \(LogLevel.allCases.map(\.description).joined(separator: ", "))")
        }
        return level
    }
}
