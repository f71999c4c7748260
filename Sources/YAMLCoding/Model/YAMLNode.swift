/// One node of a loaded YAML document: a scalar, a sequence or a mapping, with its
/// tag and where it starts.
///
/// Aliases are already expanded and `<<` merge keys already applied, so a tree never
/// contains references. Equality includes marks; compare `value` to ignore them.
public struct YAMLNode: Sendable, Hashable {
    /// What the node holds.
    public enum Content: Sendable, Hashable {
        /// Text with its style; resolve it with `YAMLNode.value`.
        case scalar(Scalar)
        /// Items in order.
        case sequence([YAMLNode])
        /// Key/value pairs in source order; keys are unique.
        case mapping([Pair])
    }

    /// The text of a scalar as written (after `${VAR}` interpolation for values).
    public struct Scalar: Sendable, Hashable {
        /// How the scalar was written; only plain scalars are resolved to null, bool or numbers.
        public enum Style: Sendable, Hashable {
            case plain, singleQuoted, doubleQuoted, literal, folded
        }

        /// The scalar's content, with escapes and folding already applied by libyaml.
        public var text: String
        /// How the scalar was written.
        public var style: Style

        /// Creates a scalar.
        public init(_ text: String, style: Style = .plain) {
            self.text = text
            self.style = style
        }
    }

    /// One entry of a mapping.
    public struct Pair: Sendable, Hashable {
        /// The key node; usually a scalar.
        public var key: YAMLNode
        /// The value node.
        public var value: YAMLNode

        /// Creates a pair.
        public init(key: YAMLNode, value: YAMLNode) {
            self.key = key
            self.value = value
        }
    }

    /// What the node holds.
    public var content: Content
    /// The full tag as libyaml resolved it (`tag:yaml.org,2002:str`, `!local`, `!`), or nil.
    public var tag: String?
    /// Where the node starts (its anchor or tag if it has one).
    public var mark: YAMLMark

    /// Creates a node.
    public init(_ content: Content, tag: String? = nil, mark: YAMLMark = .unknown) {
        self.content = content
        self.tag = tag
        self.mark = mark
    }

    /// A scalar node.
    public static func scalar(_ text: String, style: Scalar.Style = .plain, tag: String? = nil,
                              mark: YAMLMark = .unknown) -> YAMLNode {
        YAMLNode(.scalar(Scalar(text, style: style)), tag: tag, mark: mark)
    }

    /// A sequence node.
    public static func sequence(_ items: [YAMLNode], tag: String? = nil,
                                mark: YAMLMark = .unknown) -> YAMLNode {
        YAMLNode(.sequence(items), tag: tag, mark: mark)
    }

    /// A mapping node.
    public static func mapping(_ pairs: [Pair], tag: String? = nil,
                               mark: YAMLMark = .unknown) -> YAMLNode {
        YAMLNode(.mapping(pairs), tag: tag, mark: mark)
    }

    /// The scalar, if this node is one.
    public var scalar: Scalar? {
        if case .scalar(let scalar) = content { return scalar }
        return nil
    }

    /// The items, if this node is a sequence.
    public var sequence: [YAMLNode]? {
        if case .sequence(let items) = content { return items }
        return nil
    }

    /// The pairs, if this node is a mapping.
    public var mapping: [Pair]? {
        if case .mapping(let pairs) = content { return pairs }
        return nil
    }

    /// The value for the scalar key with this text, if this node is a mapping that has it.
    public subscript(key: String) -> YAMLNode? {
        mapping?.first { $0.key.scalar?.text == key }?.value
    }

    /// Whether this node resolves to null (`~`, `null`, an empty plain scalar, or `!!null`).
    public var isNull: Bool {
        if case .null = scalarValue { return true }
        return false
    }
}
