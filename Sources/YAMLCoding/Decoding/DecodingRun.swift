/// The state of one decoding pass, shared by all its decoders and containers.
///
/// Failures travel as `DecodingError`s whose `underlyingError` is `YAMLErrors`, so user
/// code that probes with `try?` discards them like with any decoder; only errors that
/// reach the top are reported. Key use is tracked here for the strict-key check.
///
/// A lenient pass (run only after a strict one failed, to find more problems) goes on
/// past failures where it can: a field of a primitive, list, dictionary or enum type
/// gets a placeholder, an optional field gets nil, a bad list item is left out. What it
/// recovered from is collected in `recovered`. Every placeholder (0, "", false, empty,
/// an enum's first case) is a value real input could hold too, so a type that copes with
/// any valid input copes with a lenient pass.
final class DecodingRun {
    let file: String?
    let userInfo: [CodingUserInfoKey: Any]
    let lenient: Bool
    let keys: YAMLDecoder.KeyDecodingStrategy
    /// Marks of mapping keys some type asked for.
    var usedKeys: Set<YAMLMark> = []
    /// Every keyed container opened, for the unknown-key check.
    var mappings: [MappingUse] = []
    /// Errors a lenient pass went on past.
    private(set) var recovered: [YAMLError] = []
    /// The scopes of the values being decoded, innermost last.
    private var activeScopes: [Scope] = []

    init(file: String?, userInfo: [CodingUserInfoKey: Any], lenient: Bool,
         keys: YAMLDecoder.KeyDecodingStrategy) {
        self.file = file
        self.userInfo = userInfo
        self.lenient = lenient
        self.keys = keys
    }

    /// `rules[2].reply`, keys spelled as in the text.
    func path(_ path: [any CodingKey]) -> String {
        Describe.path(path, name: keys.textName)
    }

    /// ` for 'rules[2].reply'`, or nothing at the root.
    func forPath(_ path: [any CodingKey]) -> String {
        path.isEmpty ? "" : " for '\(self.path(path))'"
    }

    /// Notes a failure a lenient pass goes on past; the current value may now be built
    /// from placeholders.
    func recover(from error: any Error, node: YAMLNode, path: [any CodingKey]) {
        recovered += yamlErrors(from: error, node: node, path: path)
        activeScopes.last?.usedPlaceholder = true
    }

    /// Decodes `type` from `node`: the entry point for every value, at every level.
    func unbox<T: Decodable>(_ type: T.Type, from node: YAMLNode,
                             path: [any CodingKey]) throws -> T {
        if T.self == YAMLNode.self, let node = node as? T { return node }
        if T.self == YAMLValue.self, let value = node.value as? T { return value }
        if let scalarType = T.self as? any ScalarDecodable.Type,
           let value = try unboxScalar(scalarType, from: node, path: path) as? T {
            return value
        }
        if let collectionType = T.self as? any CollectionDecodable.Type,
           let value = try collectionType.decodeYAML(from: node, path: path, run: self) as? T {
            return value
        }
        let child = Scope()
        let decoder = NodeDecoder(node: node, codingPath: path, run: self, scope: child,
                                  knownKeys: (T.self as? any YAMLKnownKeys.Type)?.yamlKnownKeys ?? [])
        activeScopes.append(child)
        defer {
            activeScopes.removeLast()
            if child.usedPlaceholder { activeScopes.last?.usedPlaceholder = true }
        }
        do {
            let value = try T(from: decoder)
            child.complete()
            return value
        } catch {
            if let enumError = enumMismatch(T.self, node: node, path: path) { throw enumError }
            if child.usedPlaceholder, Self.carried(error) == nil {
                // The type's own check most likely tripped over a placeholder; the
                // problem behind it is already recorded.
                throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: path,
                    debugDescription: "", underlyingError: YAMLErrors([])))
            }
            throw wrap(error, node: node, path: path)
        }
    }

    private func unboxScalar<S: ScalarDecodable>(_ type: S.Type, from node: YAMLNode,
                                                 path: [any CodingKey]) throws -> S {
        switch S.decodeYAML(node) {
        case .value(let value):
            return value
        case .mismatch:
            throw typeMismatch(S.self, expected: S.yamlExpectation, node: node, path: path)
        case .outOfRange:
            let error = YAMLError(.outOfRange,
                "\(Describe.found(node))\(forPath(path)) is out of range for \(S.self)",
                file: file, mark: node.mark)
            throw DecodingError.dataCorrupted(context(path, error))
        }
    }

    // MARK: Failures

    /// A type mismatch at `node`, as a `DecodingError` carrying the YAML error.
    func typeMismatch(_ type: Any.Type, expected: String, node: YAMLNode,
                      path: [any CodingKey]) -> DecodingError {
        let error = YAMLError(.typeMismatch,
            "expected \(expected)\(forPath(path)), found \(Describe.found(node))",
            file: file, mark: node.mark)
        return .typeMismatch(type, context(path, error))
    }

    /// A failure carrying several YAML errors (e.g. from several list items).
    func combined(_ errors: [YAMLError], path: [any CodingKey]) -> DecodingError {
        .dataCorrupted(DecodingError.Context(codingPath: path,
            debugDescription: errors.map(\.description).joined(separator: "\n"),
            underlyingError: YAMLErrors(errors)))
    }

    func context(_ path: [any CodingKey], _ error: YAMLError) -> DecodingError.Context {
        DecodingError.Context(codingPath: path, debugDescription: error.description,
                              underlyingError: YAMLErrors(error))
    }

    /// The YAML errors an error stands for; `node` at `path` is where it was thrown from.
    func yamlErrors(from error: any Error, node: YAMLNode, path: [any CodingKey]) -> [YAMLError] {
        if let carried = Self.carried(error) { return carried.errors }
        switch error {
        case var error as YAMLError:
            if error.mark == nil { error.mark = node.mark }
            if error.file == nil { error.file = file }
            return [error]
        case let errors as YAMLErrors:
            return errors.errors
        case let error as DecodingError:
            return [convert(error, node: node, path: path)]
        default:
            return [YAMLError(.invalidValue, "invalid value\(forPath(path)): \(error)",
                              file: file, mark: node.mark)]
        }
    }

    /// The error to rethrow: unchanged if it already carries YAML errors, else the same
    /// kind of `DecodingError` now carrying them.
    private func wrap(_ error: any Error, node: YAMLNode, path: [any CodingKey]) -> any Error {
        if Self.carried(error) != nil { return error }
        let errors = yamlErrors(from: error, node: node, path: path)
        let underlying = YAMLErrors(errors)
        func with(_ context: DecodingError.Context) -> DecodingError.Context {
            DecodingError.Context(codingPath: context.codingPath,
                                  debugDescription: underlying.description,
                                  underlyingError: underlying)
        }
        switch error {
        case DecodingError.typeMismatch(let type, let context):
            return DecodingError.typeMismatch(type, with(context))
        case DecodingError.valueNotFound(let type, let context):
            return DecodingError.valueNotFound(type, with(context))
        case DecodingError.keyNotFound(let key, let context):
            return DecodingError.keyNotFound(key, with(context))
        default:
            return DecodingError.dataCorrupted(DecodingError.Context(codingPath: path,
                debugDescription: underlying.description, underlyingError: underlying))
        }
    }

    static func carried(_ error: any Error) -> YAMLErrors? {
        guard let decodingError = error as? DecodingError else { return nil }
        switch decodingError {
        case .typeMismatch(_, let context), .valueNotFound(_, let context),
             .keyNotFound(_, let context), .dataCorrupted(let context):
            return context.underlyingError as? YAMLErrors
        @unknown default:
            return nil
        }
    }

    /// A `DecodingError` thrown by a type's own code, pointed at the node its path names.
    private func convert(_ error: DecodingError, node: YAMLNode, path: [any CodingKey]) -> YAMLError {
        switch error {
        case .keyNotFound(let key, let context):
            let target = locate(context.codingPath, from: node, at: path)
            return YAMLError(.missingKey,
                "missing required key '\(keys.textName(key.stringValue))'"
                + (context.codingPath.isEmpty ? "" : " in '\(self.path(context.codingPath))'"),
                file: file, mark: target.mark)
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            let target = locate(context.codingPath, from: node, at: path)
            return YAMLError(.typeMismatch,
                "invalid value\(forPath(context.codingPath)): \(context.debugDescription)",
                file: file, mark: target.mark)
        case .dataCorrupted(let context):
            let target = locate(context.codingPath, from: node, at: path)
            return YAMLError(.invalidValue,
                "invalid value\(forPath(context.codingPath)): \(context.debugDescription)",
                file: file, mark: target.mark)
        @unknown default:
            return YAMLError(.invalidValue, "invalid value\(forPath(path)): \(error)",
                             file: file, mark: node.mark)
        }
    }

    /// The node at `codingPath`, walking down from `node` (which sits at `path`).
    private func locate(_ codingPath: [any CodingKey], from node: YAMLNode,
                        at path: [any CodingKey]) -> YAMLNode {
        guard codingPath.count >= path.count,
              zip(codingPath, path).allSatisfy({ $0.stringValue == $1.stringValue }) else {
            return node
        }
        var current = node
        for key in codingPath.dropFirst(path.count) {
            if let pairs = current.mapping,
               let pair = pairs.first(where: {
                   $0.key.keyText == key.stringValue || keys.swiftName($0.key.keyText) == key.stringValue
               }) {
                current = pair.value
            } else if let items = current.sequence, let index = key.intValue,
                      items.indices.contains(index) {
                current = items[index]
            } else {
                break
            }
        }
        return current
    }

    /// A clearer error for an enum with raw values whose text is none of its cases.
    private func enumMismatch<T>(_ type: T.Type, node: YAMLNode,
                                 path: [any CodingKey]) -> DecodingError? {
        guard let enumType = T.self as? any (CaseIterable & RawRepresentable).Type,
              let scalar = node.scalar else { return nil }
        let names = Self.rawValues(enumType)
        guard !names.isEmpty, !names.contains(scalar.text) else { return nil }
        var message = "expected one of " + names.map { "'\($0)'" }.joined(separator: ", ")
            + forPath(path) + ", found " + Describe.found(node)
        if let suggestion = Suggestion.closest(to: scalar.text, among: names) {
            message += " (did you mean '\(suggestion)'?)"
        }
        return .dataCorrupted(context(path, YAMLError(.invalidValue, message, file: file,
                                                      mark: node.mark)))
    }

    /// A stand-in value for a lenient pass: empty, zero, false, or an enum's first case.
    static func placeholder<T>(_ type: T.Type) -> T? {
        if let scalarType = T.self as? any ScalarDecodable.Type {
            return scalarType.yamlPlaceholder as? T
        }
        if let collectionType = T.self as? any CollectionDecodable.Type {
            return collectionType.yamlPlaceholder as? T
        }
        if let enumType = T.self as? any CaseIterable.Type {
            return firstCase(enumType) as? T
        }
        return nil
    }

    private static func firstCase<E: CaseIterable>(_ type: E.Type) -> E? {
        E.allCases.first
    }

    private static func rawValues<E: CaseIterable & RawRepresentable>(_ type: E.Type) -> [String] {
        E.allCases.map { "\($0.rawValue)" }
    }
}

/// The keyed containers opened while decoding one value; they are complete once that
/// value's `init(from:)` returned, and only complete mappings are checked for unknown keys.
final class Scope {
    var mappings: [MappingUse] = []
    /// Whether this value, or one inside it, was built with a lenient placeholder.
    var usedPlaceholder = false

    func complete() {
        for mapping in mappings { mapping.complete = true }
    }
}

/// One keyed container over a mapping: the keys asked for and the keys known.
final class MappingUse {
    let pairs: [YAMLNode.Pair]
    /// Keys asked for, in the order first asked.
    private(set) var asked: [String] = []
    private var askedSet: Set<String> = []
    /// Keys the type declared (`YAMLKnownKeys`, `CaseIterable` coding keys).
    let known: [String]
    var complete = false

    init(pairs: [YAMLNode.Pair], known: [String]) {
        self.pairs = pairs
        self.known = known
    }

    func ask(_ key: String) {
        if askedSet.insert(key).inserted { asked.append(key) }
    }
}
