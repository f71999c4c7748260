/// A Mustache template, parsed once and rendered any number of times.
///
/// Implements the core Mustache specification: variables (`{{name}}` escaped,
/// `{{{name}}}` and `{{&name}}` not), dotted names, the implicit iterator `{{.}}`,
/// sections, inverted sections, comments, set delimiters, partials and the
/// standalone-line rules. Lambdas, inheritance and dynamic names are not supported.
///
/// Two extensions: `length` after a dot on a list is its element count, so
/// `{{alerts.length}}` renders `3` for three alerts, and a number after a dot is one
/// element, counting from 1, so `{{argv.1}}` is a list's first element (an object's own
/// keys always win). Both are only pseudo-properties in dotted position; a bare
/// `{{length}}` is an ordinary name.
///
/// ```swift
/// let template = try Template(source: "Hi {{sender.nickname}}!", name: "greet")
/// let text = template.render(["sender": ["nickname": "alice"]], escaping: .none)
/// ```
public struct Template: Sendable {
    /// The deepest section nesting a template may have; deeper is a parse error.
    public static let maximumNesting = 32
    /// The deepest chain of partials a render follows; deeper partials render nothing,
    /// which stops a partial that includes itself without a terminating section.
    public static let maximumPartialDepth = 16
    /// Tags and text runs one render visits at most. Past it the render stops and returns
    /// what it has: a partial that includes itself several times, or sections nested over
    /// long lists, multiply the work exponentially and would otherwise never finish.
    public static let maximumRenderSteps = 200_000
    /// Bytes one render writes at most (the render stops once past it), so that a loop
    /// over a long list of long values cannot fill memory.
    public static let maximumOutputBytes = 1 << 20

    /// The name given at parse time, used in error messages.
    public let name: String
    /// The source the template was parsed from.
    public let source: String
    /// Every variable, section and partial name the template uses, in source order.
    public let references: [TemplateReference]
    let nodes: [TemplateNode]

    /// Parses `source`, reporting the first syntax error with its position.
    public init(source: String, name: String = "template") throws(TemplateError) {
        var parser = TemplateParser(source: source, name: name)
        let parsed = try parser.parse()
        self.name = name
        self.source = source
        self.nodes = parsed.nodes
        self.references = parsed.references
    }

    /// Renders the template against `context`.
    ///
    /// Missing names render as nothing, and so do missing partials, as the
    /// specification requires. A render stops at ``maximumRenderSteps`` or
    /// ``maximumOutputBytes``, far beyond any message. Partials are parsed ahead of time so that their syntax
    /// errors surface when they are loaded, not while a message is being sent.
    /// - Parameters:
    ///   - context: The root value names are looked up in.
    ///   - partials: Templates `{{>name}}` can include, by name.
    ///   - escaping: `.html` (the Mustache default) or `.none` for plain-text output.
    public func render(
        _ context: TemplateValue,
        partials: [String: Template] = [:],
        escaping: TemplateEscaping = .html
    ) -> String {
        var renderer = TemplateRenderer(context: context, partials: partials, escaping: escaping)
        renderer.render(self, indentation: "", depth: 0)
        return renderer.output
    }
}
