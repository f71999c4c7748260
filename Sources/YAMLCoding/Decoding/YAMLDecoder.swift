/// Decodes `Decodable` values from YAML, strictly: unknown keys are errors.
///
/// ```swift
/// let bot = try YAMLDecoder().decode(BotFile.self, from: text, file: "bots/helpdesk.yaml")
/// ```
/// Every problem found is thrown together as `YAMLErrors`, each reading like
/// `bots/helpdesk.yaml:12:5: expected a number for 'limits.total', found "abc"`:
/// load problems (unset variables, duplicate keys), type and missing-key errors, and
/// every key that no type asked for (`unknown key 'repyl' (did you mean 'reply'?)`).
///
/// When decoding fails, a second pass that substitutes placeholders for bad primitive,
/// list, dictionary and enum fields (and nil for bad optional ones) looks for further
/// problems. A type that probes a keyed field with `try?` and falls back to another type
/// may get an extra error from that pass, but only in a document that is already invalid.
public struct YAMLDecoder: Sendable {
    /// How the text is loaded (interpolation, limits, merge keys).
    public var loader: YAMLLoader
    /// How keys in the text map to `CodingKey` names.
    public var keyDecodingStrategy: KeyDecodingStrategy
    /// Passed to `init(from:)` as `decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable]

    /// Creates a decoder; by default `${VAR}` is filled in from the process environment.
    public init(interpolation: Interpolation = .processEnvironment,
                limits: YAMLLoader.Limits = YAMLLoader.Limits(),
                keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys,
                userInfo: [CodingUserInfoKey: any Sendable] = [:]) {
        self.loader = YAMLLoader(interpolation: interpolation, limits: limits)
        self.keyDecodingStrategy = keyDecodingStrategy
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
        var (value, errors) = pass(type, root: root, file: file, lenient: false)
        if !errors.isEmpty {
            // A second, lenient pass goes on past failures to find the other problems.
            // It sees more of each mapping, so its unknown-key messages replace the first's.
            let more = pass(type, root: root, file: file, lenient: true).1
            let marks = Set(more.filter { $0.code == .unknownKey }.compactMap(\.mark))
            errors = errors.filter { $0.code != .unknownKey || $0.mark.map(marks.contains) != true }
                + more
        }
        errors = loadProblems + Self.withoutConsequences(errors, of: loadProblems)
        guard errors.isEmpty, let value else { throw YAMLErrors(errors) }
        return value
    }

    /// One decoding pass: the value if it succeeded, and the errors it found.
    private func pass<T: Decodable>(_ type: T.Type, root: YAMLNode, file: String?,
                                    lenient: Bool) -> (T?, [YAMLError]) {
        let run = DecodingRun(file: file, userInfo: userInfo.mapValues { $0 as Any },
                              lenient: lenient, keys: keyDecodingStrategy)
        var value: T?
        var errors: [YAMLError] = []
        do {
            value = try run.unbox(T.self, from: root, path: [])
        } catch {
            errors = run.yamlErrors(from: error, node: root, path: [])
        }
        return (value, run.recovered + errors + run.unknownKeyErrors())
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
