import IMProtocol

extension ConversationPattern: Decodable {
    /// Decodes the written form; a bad one is reported with the forms that work.
    public init(from decoder: any Decoder) throws {
        let text = try decoder.decodeValue(String.self)
        if let keyword = ConversationPattern(keyword: text) {
            self = keyword
            return
        }
        guard let address = try decoder.botDecoding.conversation(text, at: decoder.mark, path: decoder.codingPath)
        else {
            throw decoder.botDecoding.failure(
                .invalidValue,
                "'\(text)' is not a conversation (write direct, user:NAME, group:NAME, room:NAME, "
                    + "group:*, room:* or a conversation id; on Matrix '!id:server', '#alias:server' or '@user:server')",
                at: decoder.mark, path: decoder.codingPath)
        }
        self = ConversationPattern(address)
    }
}

/// One value or a list of them: `in: group:ops` and `in: [group:ops, direct]` both work.
struct OneOrMany<Element: Decodable>: Decodable {
    var items: [Element]

    init(from decoder: any Decoder) throws {
        if try decoder.node().sequence != nil {
            items = try decoder.decodeValue([Element].self)
        } else {
            items = [try decoder.decodeValue(Element.self)]
        }
    }
}
