extension YAMLDecoder {
    /// How mapping keys in the text relate to the `CodingKey` names of the types.
    public enum KeyDecodingStrategy: Sendable, Hashable {
        /// Keys are used as written.
        case useDefaultKeys
        /// `per_conversation` in the text is `perConversation` in Swift, as with
        /// `JSONDecoder`'s strategy of the same name. Messages still name keys the way
        /// the text writes them.
        case convertFromSnakeCase
    }
}

extension YAMLDecoder.KeyDecodingStrategy {
    /// The Swift key name for a key as written in the text.
    func swiftName(_ text: String) -> String {
        guard self == .convertFromSnakeCase, text.contains("_") else { return text }
        // Leading and trailing underscores are kept, as JSONDecoder does.
        guard let first = text.firstIndex(where: { $0 != "_" }),
              let last = text.lastIndex(where: { $0 != "_" }) else { return text }
        let words = text[first...last].split(separator: "_")
        guard words.count > 1 else { return text }
        let joined = ([words[0].lowercased()] + words.dropFirst().map { $0.capitalized }).joined()
        return String(text[..<first]) + joined + String(text[text.index(after: last)...])
    }

    /// The key as the text would write it, for messages: `perConversation` is
    /// `per_conversation`.
    func textName(_ swiftName: String) -> String {
        guard self == .convertFromSnakeCase else { return swiftName }
        var text = ""
        for character in swiftName {
            if character.isUppercase, !text.isEmpty, text.last != "_" {
                text += "_"
            }
            text += character.lowercased()
        }
        return text
    }
}
