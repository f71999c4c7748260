/// Builds `YAMLNode` trees from libyaml events.
///
/// Here live the parts of loading that libyaml leaves to its caller: alias expansion
/// (bounded in size and depth), `<<` merge keys, duplicate-key detection, checking
/// explicitly tagged scalars, and `${VAR}` interpolation of values. Structural errors
/// are thrown; the rest are collected in `problems` so a caller can report them all.
struct Composer {
    /// A composed subtree with its expanded size (nodes) and height (levels).
    private struct Composed {
        var node: YAMLNode
        var size: Int
        var height: Int
    }

    private let reader: EventReader
    private let options: YAMLLoader
    var mergeKeys: Bool { options.mergeKeys }
    private var anchors: [String: Composed] = [:]
    /// Anchors whose node is still being composed, to explain self-referencing aliases.
    private var openAnchors: Set<String> = []
    private var nodeCount = 0
    private var started = false
    /// Problems that do not stop composition, in the order found.
    private(set) var problems: [YAMLError] = []

    init(text: String, options: YAMLLoader) {
        reader = EventReader(text)
        self.options = options
    }

    /// Reads up to the next document start; returns its mark, or nil at the end of the stream.
    mutating func nextDocumentStart() throws(YAMLError) -> YAMLMark? {
        if !started {
            started = true
            guard case .streamStart = try reader.next() else {
                throw YAMLError(.syntax, "the parser did not start a stream")
            }
        }
        switch try reader.next() {
        case .streamEnd: return nil
        case .documentStart(let mark): return mark
        default: throw YAMLError(.syntax, "the parser did not start a document")
        }
    }

    /// Composes the document whose start was just read, through its end.
    mutating func composeDocument() throws(YAMLError) -> YAMLNode {
        anchors = [:]
        openAnchors = []
        nodeCount = 0
        let root = try compose(try reader.next(), depth: 1, isKey: false)
        guard case .documentEnd = try reader.next() else {
            throw YAMLError(.syntax, "the parser did not end the document", mark: root.node.mark)
        }
        return root.node
    }

    private mutating func compose(_ event: Event, depth: Int,
                                  isKey: Bool) throws(YAMLError) -> Composed {
        switch event {
        case .alias(let name, let mark):
            return try resolveAlias(name, mark: mark, depth: depth)
        case .scalar(var scalar, let tag, let anchor, let mark):
            try count(1, at: mark)
            if !isKey {
                switch options.interpolation.expand(scalar.text) {
                case .success(let text): scalar.text = text
                case .failure(var error):
                    error.mark = mark
                    report(error)
                }
            }
            if let problem = YAMLNode.tagProblem(scalar, tag: tag) {
                report(YAMLError(.invalidTaggedValue, problem, mark: mark))
            }
            let composed = Composed(node: .scalar(scalar.text, style: scalar.style, tag: tag,
                                                  mark: mark), size: 1, height: 1)
            if let anchor { anchors[anchor] = composed }
            return composed
        case .sequenceStart(let tag, let anchor, let mark):
            try enter(depth: depth, at: mark, anchor: anchor)
            var items: [YAMLNode] = []
            var size = 1, height = 0
            while true {
                let next = try reader.next()
                if case .sequenceEnd = next { break }
                let item = try compose(next, depth: depth + 1, isKey: isKey)
                items.append(item.node)
                size += item.size
                height = max(height, item.height)
            }
            return finish(Composed(node: .sequence(items, tag: tag, mark: mark), size: size,
                                   height: height + 1), anchor: anchor)
        case .mappingStart(let tag, let anchor, let mark):
            try enter(depth: depth, at: mark, anchor: anchor)
            var pairs: [YAMLNode.Pair] = []
            var size = 1, height = 0
            while true {
                let next = try reader.next()
                if case .mappingEnd = next { break }
                let key = try compose(next, depth: depth + 1, isKey: true)
                let value = try compose(try reader.next(), depth: depth + 1, isKey: isKey)
                pairs.append(YAMLNode.Pair(key: key.node, value: value.node))
                size += key.size + value.size
                height = max(height, key.height, value.height)
            }
            let node = YAMLNode.mapping(finishMapping(pairs), tag: tag, mark: mark)
            return finish(Composed(node: node, size: size, height: height + 1), anchor: anchor)
        default:
            throw YAMLError(.syntax, "the parser produced an event out of place")
        }
    }

    private mutating func resolveAlias(_ name: String, mark: YAMLMark,
                                       depth: Int) throws(YAMLError) -> Composed {
        guard let anchored = anchors[name] else {
            let message = openAnchors.contains(name)
                ? "alias '*\(name)' refers to a node that contains it; recursive aliases are not supported"
                : "alias '*\(name)' has no anchor '&\(name)' before it in this document"
            throw YAMLError(.undefinedAlias, message, mark: mark)
        }
        guard nodeCount + anchored.size <= options.limits.maxNodes else {
            throw YAMLError(.sizeLimit,
                "alias '*\(name)' expands the document beyond \(options.limits.maxNodes) nodes; "
                + "aliases that repeat each other multiply (an alias bomb?)", mark: mark)
        }
        guard depth - 1 + anchored.height <= options.limits.maxDepth else {
            throw YAMLError(.depthLimit,
                "alias '*\(name)' nests the document deeper than \(options.limits.maxDepth) levels",
                mark: mark)
        }
        nodeCount += anchored.size
        return anchored
    }

    private mutating func enter(depth: Int, at mark: YAMLMark,
                                anchor: String?) throws(YAMLError) {
        guard depth <= options.limits.maxDepth else {
            throw YAMLError(.depthLimit,
                "the document nests deeper than \(options.limits.maxDepth) levels", mark: mark)
        }
        try count(1, at: mark)
        if let anchor { openAnchors.insert(anchor) }
    }

    private mutating func count(_ nodes: Int, at mark: YAMLMark) throws(YAMLError) {
        nodeCount += nodes
        guard nodeCount <= options.limits.maxNodes else {
            throw YAMLError(.sizeLimit,
                "the document has more than \(options.limits.maxNodes) nodes", mark: mark)
        }
    }

    mutating func report(_ problem: YAMLError) {
        problems.append(problem)
    }

    private mutating func finish(_ composed: Composed, anchor: String?) -> Composed {
        if let anchor {
            openAnchors.remove(anchor)
            anchors[anchor] = composed
        }
        return composed
    }
}
