import Templates
import YAMLCoding

/// What a template variable holds, as far as `check` can know before a value exists:
/// which names lie under it, down to the leaves.
///
/// `check` walks every name a template reads through the shapes of its roots, so that
/// `{{payload.commonLabels.severity}}` passes and `{{payload.commonLabel.severity}}` is
/// reported with the names that would do. Mustache's context stack is followed: inside
/// `{{#payload.alerts}}` a name resolves against one alert first, then outwards.
indirect enum TemplateShape: Sendable {
    /// A scalar: nothing under it.
    case leaf
    /// An object with these names.
    case object([String: TemplateShape])
    /// An object whose names are data (labels, annotations): any name, each a scalar.
    case labels
    /// A list of values of one shape (`.length` is its count; templates cannot index it).
    case list(TemplateShape)
    /// Not known before it is rendered (a `json` body, the rules' state): anything goes.
    case any

    /// What `name` under this shape holds; nil when it cannot hold it.
    func member(_ name: String) -> TemplateShape? {
        switch self {
        case .leaf: nil
        case .object(let members): members[name]
        case .labels: .leaf
        case .list: name == "length" ? .leaf : nil
        case .any: .any
        }
    }

    /// The names an object shape offers, for "did you mean".
    var names: [String] {
        if case .object(let members) = self { return members.keys.sorted() }
        return []
    }

    /// The context a section over this shape pushes: an element of a list, or the value.
    var sectionContext: TemplateShape {
        if case .list(let element) = self { return element }
        return self
    }
}

/// A name a template reads that no shape holds.
struct UnknownTemplatePath: Sendable {
    /// The reference, with its position in the template.
    let reference: TemplateReference
    /// The longest part of its name that does resolve, and the names offered there.
    let known: String
    let offered: [String]

    /// `payload.commonLabel` is not known under `payload` (it has: alerts, commonLabels, …).
    var message: String {
        let place = known.isEmpty ? "" : " under '\(known)'"
        let hint = Suggestion.hint(for: reference.path.dropFirst(known.split(separator: ".").count).first ?? "",
                                   among: offered)
        let list = offered.isEmpty ? "" : " (it has: " + offered.joined(separator: ", ") + ")"
        return "template variable '\(reference.name)' is not known\(place)\(hint)\(list)"
    }
}

extension Template {
    /// The names this template reads that cannot resolve against `roots`, the shapes of
    /// the root names its context will have.
    func unknownPaths(in roots: [String: TemplateShape]) -> [UnknownTemplatePath] {
        let root = TemplateShape.object(roots)
        return references.compactMap { reference -> UnknownTemplatePath? in
            guard reference.kind != .partial, !reference.path.isEmpty else { return nil }
            // The contexts the sections pushed, innermost first, then the root.
            var contexts: [TemplateShape] = [root]
            for section in reference.sectionStack where !section.inverted {
                let outer = contexts
                let resolved = section.path.isEmpty ? outer.last ?? root : Self.resolve(section.path, in: outer)
                contexts.append((resolved ?? .any).sectionContext)
            }
            let head = reference.path[0]
            guard let context = contexts.reversed().first(where: { $0.member(head) != nil }) else {
                return UnknownTemplatePath(reference: reference, known: "", offered: root.names)
            }
            var shape = context
            var walked: [String] = []
            for name in reference.path {
                guard let next = shape.member(name) else {
                    return UnknownTemplatePath(reference: reference, known: walked.joined(separator: "."),
                                               offered: shape.names)
                }
                walked.append(name)
                shape = next
            }
            return nil
        }
    }

    /// What a dotted name resolves to against a context stack (innermost last); nil
    /// when it resolves nowhere.
    private static func resolve(_ path: [String], in contexts: [TemplateShape]) -> TemplateShape? {
        guard let head = path.first, let start = contexts.reversed().first(where: { $0.member(head) != nil })
        else { return nil }
        var shape = start
        for name in path {
            guard let next = shape.member(name) else { return nil }
            shape = next
        }
        return shape
    }
}
