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
        let read = read(file: file, environment: environment)
        guard let bot = read.bot else { throw read.errors }
        return bot
    }

    /// One file read: its bot, or its problems with the name the file gives its bot (when
    /// it can be read), and the hash of its bytes.
    struct FileRead {
        var bot: BotDefinition? = nil
        var errors: BotConfigErrors
        var name: String? = nil
        var version: String? = nil
    }

    static func read(file: String, environment: [String: String]) -> FileRead {
        let file = displayPath(file)
        let location = SourceLocation(file: file, line: 0, column: 0)
        guard let data = FileManager.default.contents(atPath: file) else {
            return FileRead(errors: BotConfigErrors([BotConfigError(code: .unreadableFile, location: location,
                message: "cannot read the file (does it exist, and may it be read?)")]))
        }
        guard let text = String(data: data, encoding: .utf8) else {
            return FileRead(errors: BotConfigErrors([BotConfigError(code: .unreadableFile, location: location,
                                                                    message: "the file is not UTF-8 text")]), version: version(of: data))
        }
        let directory = URL(fileURLWithPath: file).deletingLastPathComponent().path
        var read = load(text: text, file: file, directory: directory, environment: environment, version: version(of: data))
        read.version = version(of: data)
        return read
    }

    /// Loads and checks a bot from text, e.g. for tests or standard input.
    ///
    /// - Parameters:
    ///   - file: the name used in error messages and in the definition.
    ///   - directory: where a relative `profile.avatar` is looked up.
    public static func load(text: String, file: String, directory: String,
                            environment: [String: String]) throws(BotConfigErrors) -> BotDefinition {
        let read = load(text: text, file: file, directory: directory, environment: environment,
                        version: version(of: Data(text.utf8)))
        guard let bot = read.bot else { throw read.errors }
        return bot
    }

    private static func load(text: String, file: String, directory: String, environment: [String: String],
                             version: String) -> FileRead {
        let context = BotDecoding(file: file, text: text, directory: directory)
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
        let all = problems + context.reportedErrors
        let paths = all.contains { $0.message.contains("'rules[") } ? ReadablePaths(text: text) : nil
        var errors = all.map { convert($0, file: file, context: context, paths: paths) }
        let name = parsed.flatMap { $0.bot.mark.isKnown ? $0.bot.value : nil }
        guard let parsed else { return FileRead(errors: BotConfigErrors(errors), name: name) }
        do {
            let definition = try BotDefinition(parsed, file: file, directory: directory, version: version)
            if errors.isEmpty { return FileRead(bot: definition, errors: BotConfigErrors(), name: name) }
        } catch {
            errors += error.errors
        }
        return FileRead(errors: BotConfigErrors(errors), name: name)
    }

    /// The first 12 hex digits of the SHA-256 of the file's bytes.
    static func version(of data: Data) -> String {
        String(Digest.hex(Digest.sha256(data)).prefix(12))
    }

    /// A path as people read it: `./bots/x.yaml` and `bots/./x.yaml` are `bots/x.yaml`.
    public static func displayPath(_ path: String) -> String {
        let absolute = path.hasPrefix("/")
        var parts: [Substring] = []
        for part in path.split(separator: "/") where part != "." { parts.append(part) }
        let joined = parts.joined(separator: "/")
        if absolute { return "/" + joined }
        return joined.isEmpty ? "." : joined
    }

    private static func convert(_ error: YAMLError, file: String, context: BotDecoding,
                                paths: ReadablePaths?) -> BotConfigError {
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
        var message = paths?.rewrite(error.message) ?? error.message
        if code == .syntax, message.hasPrefix("found unknown escape character"), let mark = error.mark {
            message = context.unknownEscape(at: mark) ?? message
        } else if code == .syntax, let mark = error.mark, let hint = context.unquotedMatrixAddress(near: mark) {
            message += "; \(hint)"
        }
        return BotConfigError(code: code, location: SourceLocation(file: error.file ?? file, mark: error.mark),
                              message: message)
    }
}
