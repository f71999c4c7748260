import YAMLCoding

/// One problem in a bot file, with where it is: what `switchboard check` prints.
public struct BotConfigError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The stable category of a problem, for tools and tests to match on.
    public enum Code: String, Sendable, Hashable {
        /// The file could not be read.
        case unreadableFile = "unreadable_file"
        /// The text is not valid YAML, or breaks a loader limit.
        case syntax
        /// `${VAR}` names an environment variable that is not set.
        case unsetVariable = "unset_variable"
        /// A malformed `${...}` reference.
        case invalidInterpolation = "invalid_interpolation"
        /// A key that no part of the bot language knows.
        case unknownKey = "unknown_key"
        /// A required key is absent.
        case missingKey = "missing_key"
        /// A value of the wrong shape or type.
        case typeMismatch = "type_mismatch"
        /// A value of the right type that is not acceptable (a bad rate, duration, name...).
        case invalidValue = "invalid_value"
        /// A regular expression that does not compile.
        case invalidRegex = "invalid_regex"
        /// A template with a syntax error.
        case invalidTemplate = "invalid_template"
        /// A template that names a variable no rule provides.
        case unknownVariable = "unknown_variable"
        /// Two rules with the same name in one bot.
        case duplicateRule = "duplicate_rule"
        /// An example that names a rule or an http result the bot does not have.
        case unknownReference = "unknown_reference"
        /// Two bot files that define the same bot or account.
        case duplicateBot = "duplicate_bot"
        /// A file the bot refers to (its avatar, an example's payload) does not exist.
        case missingFile = "missing_file"
    }

    /// What kind of problem this is.
    public var code: Code
    /// Where the problem is.
    public var location: SourceLocation
    /// A sentence a person can act on, without the location prefix.
    public var message: String

    /// Creates an error.
    public init(code: Code, location: SourceLocation, message: String) {
        self.code = code
        self.location = location
        self.message = message
    }

    /// The file as given to the loader.
    public var file: String { location.file }
    /// 1-based line; 0 when unknown.
    public var line: Int { location.line }
    /// 1-based column; 0 when unknown.
    public var column: Int { location.column }

    /// `file:line:column: message`, the form editors and compilers use.
    public var description: String { "\(location): \(message)" }
}

/// Every problem found in one or more bot files, in file and position order.
///
/// Thrown by ``BotLoader/load(file:environment:)`` (then never empty); ``BotCatalog``
/// keeps each file's as `file:line:column: message` lines.
public struct BotConfigErrors: Error, Sendable, Hashable, CustomStringConvertible, Sequence {
    /// The problems, sorted by file, line and column.
    public private(set) var errors: [BotConfigError]

    /// Wraps problems; sorts them by location and drops exact duplicates.
    public init(_ errors: [BotConfigError] = []) {
        var seen = Set<BotConfigError>()
        let unique = errors.filter { seen.insert($0).inserted }
        self.errors = unique.enumerated().sorted { lhs, rhs in
            lhs.element.location == rhs.element.location
                ? lhs.offset < rhs.offset : lhs.element.location < rhs.element.location
        }.map(\.element)
    }

    /// Whether there is no problem.
    public var isEmpty: Bool { errors.isEmpty }
    /// How many problems there are.
    public var count: Int { errors.count }

    /// Adds the problems of `other`, keeping the order.
    public mutating func append(contentsOf other: BotConfigErrors) {
        self = BotConfigErrors(errors + other.errors)
    }

    /// Iterates the problems in order.
    public func makeIterator() -> IndexingIterator<[BotConfigError]> { errors.makeIterator() }

    /// One problem per line.
    public var description: String { errors.map(\.description).joined(separator: "\n") }
}
