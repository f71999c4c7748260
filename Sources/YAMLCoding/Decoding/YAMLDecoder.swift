/// Decodes `Decodable` values from YAML, strictly: unknown keys are errors.
///
/// ```swift
/// let bot = try YAMLDecoder().decode(BotFile.self, from: text, file: "bots/helpdesk.yaml")
/// ```
/// Every problem found is thrown together as `YAMLErrors`, each reading like
/// `bots/helpdesk.yaml:12:5: expected a number for 'limits.total', found "abc"`:
/// load problems (unset variables, duplicate keys), each bad item of a list or
/// dictionary, the first failure inside a struct, and every key that no type asked for
/// in a mapping that was otherwise decoded.
public struct YAMLDecoder: Sendable {
    /// How the text is loaded (interpolation, limits, merge keys).
    public var loader: YAMLLoader
    /// Passed to `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder; by default `${VAR}` is filled in from the process environment.
    public init(interpolation: Interpolation = .processEnvironment,
                limits: YAMLLoader.Limits = YAMLLoader.Limits(),
                userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.loader = YAMLLoader(interpolation: interpolation, limits: limits)
        self.userInfo = userInfo
    }

    /// Decodes a stream holding exactly one document.
    ///
    /// - Parameter file: the name used in error messages, e.g. `bots/helpdesk.yaml`.
    public func decode<T: Decodable>(_ type: T.Type, from text: String,
                                     file: String? = nil) throws(YAMLErrors) -> T {
        let (root, problems) = loader.loadSingle(text, file: file)
        guard let root else { throw YAMLErrors(problems) }
        return try decode(type, from: root, file: file, loadProblems: problems)
    }

    /// Decodes every document of a stream as a `T`.
    public func decodeAll<T: Decodable>(_ type: T.Type, from text: String,
                                        file: String? = nil) throws(YAMLErrors) -> [T] {
        let (documents, problems) = loader.loadDocuments(text, file: file)
        var values: [T] = []
        var errors = problems
        for document in documents {
            do {
                values.append(try decode(type, from: document, file: file, loadProblems: []))
            } catch {
                errors += error.errors
            }
        }
        guard errors.isEmpty else { throw YAMLErrors(Self.withoutConsequences(errors, of: problems)) }
        return values
    }

    /// Decodes an already loaded node (e.g. a `YAMLNode` field kept for later).
    public func decode<T: Decodable>(_ type: T.Type, from node: YAMLNode,
                                     file: String? = nil) throws(YAMLErrors) -> T {
        try decode(type, from: node, file: file, loadProblems: [])
    }

    private func decode<T: Decodable>(_ type: T.Type, from root: YAMLNode, file: String?,
                                      loadProblems: [YAMLError]) throws(YAMLErrors) -> T {
        let run = DecodingRun(file: file, userInfo: userInfo.mapValues { $0 as Any })
        var errors: [YAMLError] = []
        var value: T?
        do {
            value = try run.unbox(T.self, from: root, path: [])
        } catch {
            errors = run.yamlErrors(from: error, node: root, path: [])
        }
        errors += run.unknownKeyErrors()
        errors = loadProblems + Self.withoutConsequences(errors, of: loadProblems)
        guard errors.isEmpty, let value else { throw YAMLErrors(errors) }
        return value
    }

    /// Drops decoding errors at a node where loading already reported a problem (an unset
    /// variable makes its scalar empty, which then fails to decode as well).
    private static func withoutConsequences(_ errors: [YAMLError],
                                            of problems: [YAMLError]) -> [YAMLError] {
        let marks = Set(problems.compactMap(\.mark))
        return errors.filter { error in
            problems.contains(error) || !(error.mark.map(marks.contains) ?? false)
        }
    }
}
