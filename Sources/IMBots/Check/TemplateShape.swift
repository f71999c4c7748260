/// The variables one place in a rule can read, as a tree: the rows of
/// ``TemplateVariables`` with the rule's own names filled in (its regex groups, the bot's
/// state keys, the `as` names of its earlier `http` actions, a webhook rule's payload).
///
/// A class: the tree is built once per action and only read afterwards.
final class TemplateShape {
    /// What the node holds.
    private(set) var type: TemplateType
    /// Where the node's value comes from (its row's source).
    private(set) var source: TemplateVariable.Source
    /// Named fields, in table order.
    private(set) var fields: [(name: String, shape: TemplateShape)] = []
    /// The shape of any other name (`attrs.*`, `headers.*`).
    private(set) var anyName: TemplateShape?
    /// The shape of one item of a list whose items have fields (`payload.alerts.#`).
    private(set) var item: TemplateShape?

    init(type: TemplateType = .object, source: TemplateVariable.Source = .always) {
        self.type = type
        self.source = source
    }

    /// The field called `name`.
    func field(_ name: String) -> TemplateShape? {
        fields.first { $0.name == name }?.shape ?? anyName
    }

    /// The field names, as docs write them (`attrs.NAME` for a field of any name).
    var fieldNames: [String] {
        fields.map { field in
            field.shape.anyName != nil && field.shape.fields.isEmpty ? "\(field.name).NAME" : field.name
        }
    }

    /// The tree for one place of a rule: `rows` with each placeholder filled from `names`.
    static func make(_ rows: [TemplateVariable], names: Names) -> TemplateShape {
        let root = TemplateShape()
        for row in rows {
            let parts = row.parts
            for prefix in expand(parts, names) {
                root.add(prefix.parts, row: row, below: prefix.below)
            }
            // A root whose placeholder has no names (a rule without a regex has no
            // groups) is still there, empty, so that reading it says why it is empty.
            if let first = parts.first, !first.hasPrefix("{"), root.field(first) == nil {
                root.fields.append((first, TemplateShape(source: row.source)))
            }
        }
        return root
    }

    /// What fills a rule's placeholders.
    struct Names {
        /// `{group}`: the regex groups (`0`, `1`, names); nil when not known, so that any
        /// group is accepted.
        var groups: [String]? = []
        /// `{key}`: the state's declared keys with their shapes; nil when not known, so
        /// any key is accepted.
        var state: TemplateShape?
        /// `{as}`: the `as` names of the earlier `http` actions.
        var results: [String] = []
        /// `{payload}`: the body of a webhook rule's route (``AlertTemplatePaths``); nil
        /// when not known, so that anything below `payload` is accepted.
        var payload: TemplateShape?
    }

    /// Every concrete path a row stands for; `below` is a shape to graft at its end.
    private static func expand(_ parts: [String], _ names: Names) -> [(parts: [String], below: TemplateShape?)] {
        var paths: [(parts: [String], below: TemplateShape?)] = [([], nil)]
        for part in parts {
            switch part {
            case "{group}":
                guard let groups = names.groups else {
                    paths = paths.map { ($0.parts, TemplateShape(type: .any, source: .regex)) }
                    continue
                }
                paths = paths.flatMap { path in groups.map { (path.parts + [$0], nil) } }
            case "{as}":
                paths = paths.flatMap { path in names.results.map { (path.parts + [$0], nil) } }
            case "{key}":
                // The state node itself carries the declared keys.
                let state = names.state ?? TemplateShape(type: .any, source: .state)
                paths = paths.map { ($0.parts, state) }
            case "{payload}":
                let payload = names.payload ?? TemplateShape(type: .any, source: .webhook)
                paths = paths.map { ($0.parts, payload) }
            default:
                paths = paths.map { ($0.parts + [part], $0.below) }
            }
        }
        return paths
    }

    private func add(_ parts: [String], row: TemplateVariable, below: TemplateShape?) {
        guard let first = parts.first else { return }
        let rest = Array(parts.dropFirst())
        let node: TemplateShape
        if first == "*" {
            node = anyName ?? TemplateShape(source: row.source)
            anyName = node
        } else if first == "#" {
            node = item ?? TemplateShape(source: row.source)
            item = node
        } else if let existing = fields.first(where: { $0.name == first })?.shape {
            node = existing
        } else {
            node = TemplateShape(source: row.source)
            fields.append((first, node))
        }
        if rest.isEmpty {
            if let below {
                node.type = below.type
                node.fields = below.fields
                node.anyName = below.anyName
                node.item = below.item
            } else {
                node.type = row.type
            }
            node.source = row.source
        } else {
            node.add(rest, row: row, below: below)
        }
    }

    /// A node for state keys: `.object` with fields, or a leaf.
    static func state(_ type: TemplateType, fields: [(String, TemplateShape)] = []) -> TemplateShape {
        let node = TemplateShape(type: type, source: .state)
        node.fields = fields.map { (name: $0.0, shape: $0.1) }
        return node
    }

    /// Adds (or merges) `shape` at `path` under this state node; two different kinds at one
    /// key make it accept anything.
    func merge(_ shape: TemplateShape, at path: [String]) {
        guard let first = path.first else { return }
        if type != .object { type = .any }
        guard type == .object else { return }
        let existing = fields.first { $0.name == first }?.shape
        if path.count > 1 {
            let node = existing ?? TemplateShape.state(.object)
            if existing == nil { fields.append((first, node)) }
            node.merge(shape, at: Array(path.dropFirst()))
            return
        }
        guard let existing else {
            fields.append((first, shape))
            return
        }
        if existing.type == .object, shape.type == .object {
            for field in shape.fields { existing.merge(field.shape, at: [field.name]) }
        } else if existing.type != shape.type {
            existing.type = .any
            existing.fields = []
        }
    }
}
