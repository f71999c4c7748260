import IMProtocol
import YAMLCoding

extension MemberCondition: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case username, isBot, role, via
    }

    /// `member: dave`, `member: [dave, erin]` or `member: {username, is_bot, role, via}`.
    convenience init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            let users = try decoder.decodeValue(OneOrMany<String>.self).items
            self.init(users: users.map { $0.lowercased() }, isBot: nil, role: nil, via: nil)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        let users = try container.decodeIfPresent(OneOrMany<String>.self, forKey: .username)?.items
        let isBot = try container.decodeIfPresent(Bool.self, forKey: .isBot)
        let role = try container.decodeIfPresent(MemberRole.self, forKey: .role)
        let via = try container.decodeIfPresent(OneOrMany<JoinVia>.self, forKey: .via)?.items
        // A key written with a bad value has its own error already.
        guard Key.allCases.contains(where: { container.contains($0) }) else {
            throw decoder.botDecoding.failure(.invalidValue, "'member' needs one of: username, is_bot, role, via",
                                              at: decoder.mark, path: decoder.codingPath)
        }
        self.init(users: users?.map { $0.lowercased() }, isBot: isBot, role: role, via: via)
    }
}
