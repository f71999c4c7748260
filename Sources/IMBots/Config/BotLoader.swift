import Foundation
import SwitchboardCrypto
import YAMLCoding

/// Loads bot files: YAML in, a checked `BotDefinition` out, or every problem found with
/// its file, line and column.
public enum BotLoader {
    /// Loads and checks one bot file.
    ///
    /// - Parameter environment: what `${VAR}` and `${VAR:-default}` read.
    /// - Throws: every problem found, never an empty list.
    public static func load(file: String, environment: [String: String]) throws(BotConfigErrors) -> BotDefinition {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw BotConfigErrors([BotConfigError(code: .unreadableFile, location: SourceLocation(file: file, line: 0, column: 0),
                                                  message: "cannot read the file (does it exist, and may it be read?)")])
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw BotConfigErrors([BotConfigError(code: .unreadableFile, location: SourceLocation(file: file, line: 0, column: 0),
                                                  message: "the file is not UTF-8 text")])
        }
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        return try load(text: text, file: file, directory: directory, environment: environment,
                        version: version(of: data))
    }

    /// Loads and checks a bot from text, e.g. for tests or standard input.
    ///
    /// - Parameters:
    ///   - file: the name used in error messages and in the definition.
    ///   - directory: where a relative `profile.avatar` is looked up.
    public static func load(text: String, file: String, directory: String,
                            environment: [String: String]) throws(BotConfigErrors) -> BotDefinition {
        try load(text: text, file: file, directory: directory, environment: environment,
                 version: version(of: Data(text.utf8)))
    }

    /// Loads every `*.yaml` and `*.yml` file of a folder (not its subfolders), in name order.
    ///
    /// A bad file leaves the others usable: its problems are returned and it is left out,
    /// as is a file whose bot name or account another file already uses.
    public static func loadDirectory(_ path: String,
                                     environment: [String: String]) -> (bots: [BotDefinition], errors: BotConfigErrors) {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            return ([], BotConfigErrors([BotConfigError(code: .unreadableFile,
                location: SourceLocation(file: path, line: 0, column: 0), message: "cannot list the bot folder")]))
        }
        var bots: [BotDefinition] = []
        var errors: [BotConfigError] = []
        for name in names.sorted() where name.hasSuffix(".yaml") || name.hasSuffix(".yml") {
            let file = URL(fileURLWithPath: path).appendingPathComponent(name).path
            do {
                let bot = try load(file: file, environment: environment)
                if let other = bots.first(where: { $0.name == bot.name }) {
                    errors.append(BotConfigError(code: .duplicateBot, location: SourceLocation(file: file, line: 0, column: 0),
                                                 message: "bot '\(bot.name)' is also defined in \(other.file)"))
                } else if let other = bots.first(where: { $0.account.username == bot.account.username }) {
                    errors.append(BotConfigError(code: .duplicateBot, location: SourceLocation(file: file, line: 0, column: 0),
                        message: "account '\(bot.account.username)' is also used by bot '\(other.name)' in \(other.file)"))
                } else {
                    bots.append(bot)
                }
            } catch {
                errors += error.errors
            }
        }
        return (bots, BotConfigErrors(errors))
    }

    private static func load(text: String, file: String, directory: String, environment: [String: String],
                             version: String) throws(BotConfigErrors) -> BotDefinition {
        let context = BotDecoding(file: file, text: text)
        let decoder = YAMLDecoder(interpolation: .environment(environment),
                                  keyDecodingStrategy: .convertFromSnakeCase,
                                  userInfo: [BotDecoding.key: context])
        var problems: [YAMLError] = []
        var parsed: BotFile?
        do {
            parsed = try decoder.decode(BotFile.self, from: text, file: file)
        } catch {
            problems = error.errors
            // Unknown keys make the decoder throw after the file was read whole: the
            // checks across the file still run, so their problems come in the same report.
            parsed = context.kept
        }
        var errors = (problems + context.reportedErrors).map { convert($0, file: file, context: context) }
        guard let parsed else { throw BotConfigErrors(errors) }
        do {
            let definition = try BotDefinition(parsed, file: file, directory: directory, version: version)
            if errors.isEmpty { return definition }
        } catch {
            errors += error.errors
        }
        throw BotConfigErrors(errors)
    }

    /// The first 12 hex digits of the SHA-256 of the file's bytes.
    static func version(of data: Data) -> String {
        String(Digest.hex(Digest.sha256(data)).prefix(12))
    }

    private static func convert(_ error: YAMLError, file: String, context: BotDecoding) -> BotConfigError {
        let code: BotConfigError.Code = context.code(for: error) ?? {
            switch error.code {
            case .syntax, .multipleDocuments, .undefinedAlias, .sizeLimit, .depthLimit, .duplicateKey,
                 .invalidMerge, .invalidTaggedValue:
                return .syntax
            case .unsetVariable: return .unsetVariable
            case .invalidInterpolation: return .invalidInterpolation
            case .typeMismatch, .outOfRange: return .typeMismatch
            case .missingKey: return .missingKey
            case .unknownKey: return .unknownKey
            case .invalidValue: return .invalidValue
            }
        }()
        return BotConfigError(code: code, location: SourceLocation(file: error.file ?? file, mark: error.mark),
                              message: error.message)
    }
}
