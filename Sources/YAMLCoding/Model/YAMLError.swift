import Foundation

/// One problem found while loading or decoding YAML, with where it is.
///
/// `description` reads `file:line:column: message`, the form config authors see.
public struct YAMLError: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// A stable, machine-readable category of problem.
    public enum Code: String, Sendable, Hashable {
        /// libyaml rejected the text (bad indentation, tabs, unclosed quote, ...).
        case syntax = "syntax"
        /// A single document was expected but the stream holds more.
        case multipleDocuments = "multiple_documents"
        /// An alias names an anchor that is not defined (before it) in the document.
        case undefinedAlias = "undefined_alias"
        /// The document, with aliases expanded, has more than `YAMLLoader.Limits.maxNodes` nodes.
        case sizeLimit = "size_limit"
        /// Nesting goes deeper than `YAMLLoader.Limits.maxDepth`.
        case depthLimit = "depth_limit"
        /// A key appears twice in one mapping.
        case duplicateKey = "duplicate_key"
        /// A `<<` merge key whose value is not a mapping or a list of mappings.
        case invalidMerge = "invalid_merge"
        /// A scalar whose explicit tag (`!!int`, `!!bool`, ...) does not fit its text.
        case invalidTaggedValue = "invalid_tagged_value"
        /// `${VAR}` names an environment variable that is not set.
        case unsetVariable = "unset_variable"
        /// A malformed `${...}` reference.
        case invalidInterpolation = "invalid_interpolation"
        /// The value has the wrong shape or type for the field.
        case typeMismatch = "type_mismatch"
        /// A number does not fit the field's integer type.
        case outOfRange = "out_of_range"
        /// A required key is absent.
        case missingKey = "missing_key"
        /// A key that no decoded type asked for.
        case unknownKey = "unknown_key"
        /// The value was rejected by the type being decoded.
        case invalidValue = "invalid_value"
    }

    /// What kind of problem this is.
    public var code: Code
    /// The file name as given by the caller, if any.
    public var file: String?
    /// Where in the text the problem is, if known.
    public var mark: YAMLMark?
    /// A sentence a person can act on, without the location prefix.
    public var message: String

    /// Creates an error; `file` and `mark` may be filled in later by the loader or decoder.
    public init(_ code: Code, _ message: String, file: String? = nil, mark: YAMLMark? = nil) {
        self.code = code
        self.message = message
        self.file = file
        self.mark = mark
    }

    /// `file:line:column: message`, leaving out the parts that are unknown.
    public var description: String {
        var prefix = ""
        if let file { prefix = file + ":" }
        if let mark, mark.isKnown { prefix += "\(mark.line):\(mark.column):" }
        return prefix.isEmpty ? message : prefix + " " + message
    }

    /// The same as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}

/// Every problem found in one load or decode, in source order; never empty.
///
/// All throwing API of this module throws this type, so `switchboard check` can print
/// each problem on its own line.
public struct YAMLErrors: Error, Sendable, Hashable, CustomStringConvertible, LocalizedError {
    /// The problems, sorted by position.
    public var errors: [YAMLError]

    /// Wraps a list of problems; sorts them by position and drops exact duplicates.
    public init(_ errors: [YAMLError]) {
        var seen = Set<YAMLError>()
        let unique = errors.filter { seen.insert($0).inserted }
        self.errors = unique.enumerated().sorted { lhs, rhs in
            let l = lhs.element.mark ?? .unknown, r = rhs.element.mark ?? .unknown
            return l == r ? lhs.offset < rhs.offset : l < r
        }.map(\.element)
    }

    /// Wraps a single problem.
    public init(_ error: YAMLError) {
        self.errors = [error]
    }

    /// One problem per line.
    public var description: String {
        errors.map(\.description).joined(separator: "\n")
    }

    /// The same as `description`, for `localizedDescription`.
    public var errorDescription: String? { description }
}
