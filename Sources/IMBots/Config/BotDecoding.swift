import Synchronization
import YAMLCoding

/// What the bot-file types need to know while they decode: the file name and text (for
/// positions inside scalars) and a book of the precise codes of the errors they raise.
///
/// Passed through `YAMLDecoder.userInfo`; one instance per file load.
final class BotDecoding: Sendable {
    /// The `userInfo` key under which the loader stores the instance.
    // A literal key: the initializer fails only for keys the standard library rejects.
    static let key = CodingUserInfoKey(rawValue: "switchboard.bot-decoding")!

    /// The file as given to the loader.
    let file: String
    /// The folder files the bot file names are read from (examples' `payload_file:`).
    let directory: String
    /// The source text split into lines, without line terminators.
    let lines: [Substring]
    /// Precise codes of errors raised by bot types, by where and what; the YAML layer
    /// only knows its own broader codes.
    private let codes = Mutex<[CodeKey: BotConfigError.Code]>([:])
    /// Problems that did not stop decoding (see ``report(_:_:at:)``).
    private let reported = Mutex<[YAMLError]>([])
    /// The file as read, kept even when the decoder then throws (for unknown keys), so
    /// that the checks across the file run in the same pass.
    private let file_ = Mutex<BotFile?>(nil)
    /// A Matrix bot's rooms, once `platform:` is read (see BotDecoding+Conversations).
    let matrixRooms = Mutex<MatrixRoomsWritten?>(nil)

    private struct CodeKey: Hashable {
        var mark: YAMLMark
        var message: String
    }

    init(file: String, text: String, directory: String = ".") {
        self.file = file
        self.directory = directory
        self.lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { line in
            line.last == "\r" ? line.dropLast() : line
        }
    }

    /// A YAML error for this file, remembering its precise code.
    func error(_ code: BotConfigError.Code, _ message: String, at mark: YAMLMark) -> YAMLError {
        codes.withLock { $0[CodeKey(mark: mark, message: message)] = code }
        return YAMLError(.invalidValue, message, file: file, mark: mark)
    }

    /// Records a problem with a value that does not keep the rest of the file from being
    /// read (a too short password, a bad name): decoding goes on, so the problems further
    /// down are found in the same run, and the loader reports this one with them.
    func report(_ code: BotConfigError.Code, _ message: String, at mark: YAMLMark) {
        let problem = error(code, message, at: mark)
        reported.withLock { $0.append(problem) }
    }

    /// Records a problem made with ``error(_:_:at:)``, like ``report(_:_:at:)``.
    func record(_ problem: YAMLError) {
        reported.withLock { $0.append(problem) }
    }

    /// Runs one part of a value's decoding: a failure is recorded, to be reported with
    /// the rest, and nil returned, so that the parts after it are read (and checked) too.
    /// A failure that carries no located problem is thrown on.
    func attempt<T>(_ body: () throws -> T) throws -> T? {
        do {
            return try body()
        } catch let error as DecodingError {
            guard let problems = Self.problems(in: error) else { throw error }
            reported.withLock { $0 += problems.errors }
            return nil
        }
    }

    private static func problems(in error: DecodingError) -> YAMLErrors? {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
             .dataCorrupted(let context):
            return context.underlyingError as? YAMLErrors
        @unknown default:
            return nil
        }
    }

    /// Keeps the file as read (the last complete read wins).
    func keep(_ file: BotFile) { file_.withLock { $0 = file } }

    /// The file as read, if it was read to the end.
    var kept: BotFile? { file_.withLock { $0 } }

    /// The problems recorded with ``report(_:_:at:)``.
    var reportedErrors: [YAMLError] { reported.withLock { $0 } }

    /// `NAME` when the scalar at `mark` is written `${NAME}` or `${NAME:-…}` in the file.
    func variable(at mark: YAMLMark) -> String? {
        guard mark.isKnown, mark.line >= 1, mark.line <= lines.count else { return nil }
        let line = lines[mark.line - 1].unicodeScalars
        var rest = line.dropFirst(max(0, mark.column - 1))
        while let start = rest.firstIndex(of: "$") {
            rest = rest[rest.index(after: start)...]
            guard rest.first == "{" else { continue }
            let name = rest.dropFirst().prefix { $0 == "_" || ($0.isASCII && $0.properties.isAlphabetic)
                || ("0"..."9").contains($0) }
            if !name.isEmpty { return String(String.UnicodeScalarView(name)) }
        }
        return nil
    }

    /// What to say for YAML's "unknown escape character" at `mark`: a backslash in double
    /// quotes, nearly always a regex (`"\w+"`), which YAML reads first.
    func unknownEscape(at mark: YAMLMark) -> String? {
        guard mark.isKnown, mark.line >= 1, mark.line <= lines.count else { return nil }
        let line = Array(lines[mark.line - 1].unicodeScalars)
        let start = mark.column - 1
        guard start >= 0, start + 1 < line.count, line[start] == "\\" else { return nil }
        let escape = "\\\(line[start + 1])"
        return "in double quotes YAML reads '\(escape)' as an escape, and it is none: use single quotes for regexes "
            + "(regex: '...'), where a backslash stays as it is"
    }

    /// The code recorded for an error raised by `error(_:_:at:)`, if it was.
    func code(for error: YAMLError) -> BotConfigError.Code? {
        guard let mark = error.mark else { return nil }
        return codes.withLock { $0[CodeKey(mark: mark, message: error.message)] }
    }

    /// The failure to throw from `init(from:)` for one or more problems.
    ///
    /// It carries the errors the way `YAMLDecoder` expects, so each is reported as is.
    func failure(_ errors: [YAMLError], path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(
            codingPath: path, debugDescription: errors.map(\.description).joined(separator: "\n"),
            underlyingError: YAMLErrors(errors)))
    }

    /// The failure for one problem.
    func failure(_ code: BotConfigError.Code, _ message: String, at mark: YAMLMark,
                 path: [any CodingKey]) -> DecodingError {
        failure([error(code, message, at: mark)], path: path)
    }

    /// A failure that reports nothing itself: for a mapping whose only problem is a key
    /// the strict-key check reports anyway ("unknown key ... did you mean ...").
    static func silentFailure(path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: path, debugDescription: "",
                                             underlyingError: YAMLErrors([])))
    }
}

extension Decoder {
    /// The bot-file decoding context; a stand-in when decoded outside ``BotLoader``.
    var botDecoding: BotDecoding {
        userInfo[BotDecoding.key] as? BotDecoding ?? BotDecoding(file: "<bot>", text: "")
    }

    /// Where the value being decoded starts; unknown outside `YAMLDecoder`.
    var mark: YAMLMark { yamlMark ?? .unknown }

    /// The raw node being decoded (with marks, styles and key order).
    func node() throws -> YAMLNode { try YAMLNode(from: self) }

    /// Decodes the current value as `T` through the decoder, so failures are located.
    func decodeValue<T: Decodable>(_ type: T.Type) throws -> T {
        try singleValueContainer().decode(type)
    }
}
