import Templates

/// Reads and writes dotted state keys (`spam.count`) in a state dictionary.
enum StatePath {
    /// The value at `path`, if there is one; each step is the one a template takes.
    static func value(at path: [String], in state: [String: TemplateValue]) -> TemplateValue? {
        guard let first = path.first, var value = state[first] else { return nil }
        for key in path.dropFirst() {
            guard let next = value.member(key) else { return nil }
            value = next
        }
        return value
    }

    /// Sets the value at `path`; missing or non-object levels on the way become objects.
    static func set(_ value: TemplateValue, at path: [String], in state: inout [String: TemplateValue]) {
        guard let first = path.first else { return }
        if path.count == 1 {
            state[first] = value
            return
        }
        var inner: [String: TemplateValue] = [:]
        if case .object(let members)? = state[first] { inner = members }
        set(value, at: Array(path.dropFirst()), in: &inner)
        state[first] = .object(inner)
    }

    /// `text "abc"`, `a list`... for messages.
    static func describe(_ value: TemplateValue?) -> String {
        switch value {
        case nil, .null?: "nothing"
        case .bool(let flag)?: "the boolean \(flag)"
        case .string(let text)?: "the text \"\(text)\""
        case .array?: "a list"
        case .object?: "an object"
        case .int(let number)?: "the number \(number)"
        case .double(let number)?: "the number \(number)"
        }
    }
}
