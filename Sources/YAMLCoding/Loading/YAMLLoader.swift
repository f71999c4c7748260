/// Loads YAML text into `YAMLNode` trees with libyaml.
///
/// ```swift
/// let root = try YAMLLoader().load(text, file: "config.yaml")
/// ```
public struct YAMLLoader: Sendable {
    /// Bounds that keep hostile or broken input from exhausting memory or the stack.
    public struct Limits: Sendable, Hashable {
        /// Most nodes one document may have once aliases are expanded.
        public var maxNodes: Int
        /// Deepest nesting of sequences and mappings, aliases included.
        public var maxDepth: Int

        /// Creates limits; the defaults are far beyond any hand-written config.
        public init(maxNodes: Int = 100_000, maxDepth: Int = 100) {
            self.maxNodes = maxNodes
            self.maxDepth = maxDepth
        }
    }

    /// How `${VAR}` references in values are filled in.
    public var interpolation: Interpolation
    /// Size and depth bounds.
    public var limits: Limits
    /// Whether `<<` keys merge mappings into the mapping that holds them.
    public var mergeKeys: Bool

    /// Creates a loader; by default it interpolates from the process environment.
    public init(interpolation: Interpolation = .processEnvironment, limits: Limits = Limits(),
                mergeKeys: Bool = true) {
        self.interpolation = interpolation
        self.limits = limits
        self.mergeKeys = mergeKeys
    }

    /// Loads a stream that must hold exactly one document; an empty stream gives an empty
    /// (null) scalar at 1:1.
    public func load(_ text: String, file: String? = nil) throws(YAMLErrors) -> YAMLNode {
        let (root, problems) = loadSingle(text, file: file)
        guard problems.isEmpty, let root else { throw YAMLErrors(problems) }
        return root
    }

    /// Loads every document of a stream, in order.
    public func loadAll(_ text: String, file: String? = nil) throws(YAMLErrors) -> [YAMLNode] {
        let (documents, problems) = loadDocuments(text, file: file)
        guard problems.isEmpty else { throw YAMLErrors(problems) }
        return documents
    }

    /// The documents composed before any fatal problem, and every problem found.
    func loadDocuments(_ text: String, file: String?) -> ([YAMLNode], [YAMLError]) {
        var composer = Composer(text: text, options: self)
        var documents: [YAMLNode] = []
        do {
            while try composer.nextDocumentStart() != nil {
                documents.append(try composer.composeDocument())
            }
        } catch {
            return (documents, Self.located(composer.problems + [error], file: file))
        }
        return (documents, Self.located(composer.problems, file: file))
    }

    /// The single document and every problem found; the root is nil only when a problem
    /// stopped composition.
    func loadSingle(_ text: String, file: String?) -> (YAMLNode?, [YAMLError]) {
        var composer = Composer(text: text, options: self)
        var root: YAMLNode?
        do {
            if try composer.nextDocumentStart() == nil {
                root = .scalar("", mark: YAMLMark(line: 1, column: 1))
            } else {
                root = try composer.composeDocument()
                if let second = try composer.nextDocumentStart() {
                    composer.report(YAMLError(.multipleDocuments,
                        "expected a single YAML document, but another one starts here "
                        + "(remove the '---' or split the file)", mark: second))
                }
            }
        } catch {
            return (nil, Self.located(composer.problems + [error], file: file))
        }
        return (root, Self.located(composer.problems, file: file))
    }

    static func located(_ errors: [YAMLError], file: String?) -> [YAMLError] {
        errors.map { error in
            var error = error
            if error.file == nil { error.file = file }
            return error
        }
    }
}
