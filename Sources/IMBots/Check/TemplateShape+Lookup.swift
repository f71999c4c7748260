import Templates

extension TemplateShape {
    /// What a dotted path finds in the tree.
    enum Finding {
        /// The path exists; the node says what it holds.
        case found(TemplateShape)
        /// The path goes below a value of any shape (a JSON body): not checked.
        case open
        /// `path[index]` is not a field of `node`, an object.
        case unknownField(index: Int, node: TemplateShape)
        /// `path[..<index]` holds a value without fields.
        case noFields(index: Int, type: TemplateType)
        /// `path[index]` is a list position that does not count from 1 (`argv.0`).
        case badPosition(index: Int)
    }

    /// Follows `path` from this node the way the renderer does; with `fanOut`, as a
    /// `match:` path does, where a name on a list applies to each of its items.
    func find(_ path: [String], fanOut: Bool = false) -> Finding {
        var node = self
        for (index, part) in path.enumerated() {
            if fanOut, case .list = node.type, TemplateValue.position(part) == nil {
                guard let item = node.item else { return .open }
                node = item
            }
            switch node.type {
            case .any:
                return .open
            case .list(let item):
                if part == "length" {
                    node = TemplateShape(type: .number, source: node.source)
                } else if TemplateValue.position(part) != nil {
                    node = node.item ?? TemplateShape(type: item, source: node.source)
                } else if Int(part) != nil {
                    return .badPosition(index: index)
                } else {
                    return .noFields(index: index, type: node.type)
                }
            case .object:
                guard let next = node.field(part) else { return .unknownField(index: index, node: node) }
                node = next
            case .text, .number, .boolean, .time:
                return .noFields(index: index, type: node.type)
            }
        }
        return .found(node)
    }

    /// A field to name in "e.g. '{{sender.nickname}}'": the first of the table.
    var exampleField: String? {
        guard let first = fields.first else { return anyName == nil ? nil : "NAME" }
        return first.shape.type == .object ? first.shape.exampleField.map { "\(first.name).\($0)" } : first.name
    }
}
