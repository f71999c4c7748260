import IMProtocol

import YAMLCoding

extension TextCondition: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case equals, contains, startsWith, endsWith, regex, anyWord, ignoreCase, normalize
    }

    /// `text: "hello"` (equals) or a mapping of tests and options.
    convenience init(from decoder: any Decoder) throws {
        let context = decoder.botDecoding
        if try decoder.node().mapping == nil {
            let text = try decoder.decodeValue(String.self)
            self.init(tests: [.equals([Self.literal(text, ignoreCase: false, normalize: false)])],
                      ignoreCase: false, normalize: false)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        let normalize = try container.decodeIfPresent(Bool.self, forKey: .normalize) ?? false
        let ignoreCase = try container.decodeIfPresent(Bool.self, forKey: .ignoreCase) ?? false || normalize
        func literals(_ key: Key) throws -> [Literal] {
            try container.decode(OneOrMany<String>.self, forKey: key).items.map {
                Self.literal($0, ignoreCase: ignoreCase, normalize: normalize)
            }
        }
        var tests: [Test] = []
        for key in container.allKeys {
            switch key {
            case .equals: tests.append(.equals(try literals(key)))
            case .contains: tests.append(.contains(try literals(key)))
            case .startsWith: tests.append(.startsWith(try literals(key)))
            case .endsWith: tests.append(.endsWith(try literals(key)))
            case .regex:
                let pattern = try container.decode(Located<String>.self, forKey: key)
                if let problem = Self.quotingProblem(try container.decode(YAMLNode.self, forKey: key), pattern.value) {
                    throw context.failure(.invalidRegex, problem, at: pattern.mark, path: container.codingPath + [key])
                }
                if normalize {
                    throw context.failure(.invalidValue,
                        "'normalize' does not apply to 'regex' (use ignore_case, or any_word with normalize)",
                        at: pattern.mark, path: container.codingPath + [key])
                }
                do {
                    tests.append(.regex(try RegexMatcher(pattern: pattern.value, ignoreCase: ignoreCase)))
                } catch {
                    throw context.failure(.invalidRegex, error.message, at: pattern.mark,
                                          path: container.codingPath + [key])
                }
            case .anyWord:
                let node = try container.decode(YAMLNode.self, forKey: key)
                let phrases = try container.decode(OneOrMany<String>.self, forKey: key).items
                let empty = WordList.emptyPhrases(phrases, normalize: normalize)
                if phrases.isEmpty || !empty.isEmpty {
                    let message = phrases.isEmpty ? "'any_word' needs at least one word or phrase"
                        : "'any_word' entry '\(empty[0])' has no letters or digits, so it can never match"
                    throw context.failure(.invalidValue, message, at: node.mark,
                                          path: container.codingPath + [key])
                }
                tests.append(.anyWord(WordList(phrases: phrases, normalize: normalize, ignoreCase: ignoreCase)))
            case .ignoreCase, .normalize:
                break
            }
        }
        guard !tests.isEmpty else {
            throw context.failure(.invalidValue,
                "'text' needs one of: equals, contains, starts_with, ends_with, regex, any_word",
                at: decoder.mark, path: decoder.codingPath)
        }
        self.init(tests: tests, ignoreCase: ignoreCase, normalize: normalize)
    }
}

extension TextCondition {
    /// What YAML's double quotes did to a regex before it was read: `"\b"` is a
    /// backspace there (and `"\N"`, `"\_"`, `"\L"`, `"\P"` other characters), where the
    /// regex meant a word boundary, a property or a class. Nil when nothing was changed.
    static func quotingProblem(_ node: YAMLNode, _ pattern: String) -> String? {
        guard node.scalar?.style == .doubleQuoted else { return nil }
        let escapes: [Unicode.Scalar: String] = ["\u{08}": "\\b", "\u{85}": "\\N", "\u{A0}": "\\_",
                                                 "\u{2028}": "\\L", "\u{2029}": "\\P"]
        guard let first = pattern.unicodeScalars.first(where: { escapes[$0] != nil }), let escape = escapes[first] else {
            return nil
        }
        var written = ""
        for scalar in pattern.unicodeScalars {
            if let escape = escapes[scalar] { written += escape } else { written.unicodeScalars.append(scalar) }
        }
        let quoted = written.replacingOccurrences(of: "'", with: "''")
        return "use single quotes for regexes: in double quotes YAML reads '\(escape)' itself (as a control "
            + "character) before the regex sees it; write regex: '\(quoted)'"
    }
}

extension CommandCondition: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case name, args
    }

    /// `command: ticket`, `command: [ticket, t]` or `command: {name, args}`.
    convenience init(from decoder: any Decoder) throws {
        let names: [Located<String>]
        var arguments = Arguments.any
        if try decoder.node().mapping != nil {
            let container = try decoder.container(keyedBy: Key.self)
            names = try container.decode(OneOrMany<Located<String>>.self, forKey: .name).items
            arguments = try container.decodeIfPresent(Arguments.self, forKey: .args) ?? .any
        } else {
            names = try decoder.decodeValue(OneOrMany<Located<String>>.self).items
        }
        var cleaned: [String] = []
        for name in names {
            var text = name.value.trimmedWhitespace.lowercased()
            if text.hasPrefix("/") { text.removeFirst() }
            guard !text.isEmpty, text.utf8.allSatisfy(ParsedCommand.isNameByte) else {
                throw decoder.botDecoding.failure(
                    .invalidValue,
                    "'\(name.value)' is not a command name (use letters, digits, '_' and '-', e.g. ticket)",
                    at: name.mark, path: decoder.codingPath)
            }
            cleaned.append(text)
        }
        guard !cleaned.isEmpty else {
            throw decoder.botDecoding.failure(.invalidValue, "'command' needs at least one name",
                                              at: decoder.mark, path: decoder.codingPath)
        }
        self.init(names: cleaned, arguments: arguments)
    }
}

extension SenderCondition: Decodable {
    enum Key: String, CodingKey, CaseIterable {
        case users, bots, role, joinedWithin
    }

    /// `from: alice`, `from: [alice, bob]` or `from: {users, bots, role, joined_within}`.
    convenience init(from decoder: any Decoder) throws {
        guard try decoder.node().mapping != nil else {
            let users = try decoder.decodeValue(OneOrMany<String>.self).items
            self.init(users: users.map { $0.lowercased() }, bots: nil, role: nil)
            return
        }
        let container = try decoder.container(keyedBy: Key.self)
        let users = try container.decodeIfPresent(OneOrMany<String>.self, forKey: .users)?.items
        let bots = try container.decodeIfPresent(Bool.self, forKey: .bots)
        let role = try container.decodeIfPresent(MemberRole.self, forKey: .role)
        let joinedWithin = try container.decodeIfPresent(ConfigDuration.self, forKey: .joinedWithin)
        // A key written with a bad value has its own error already.
        guard Key.allCases.contains(where: { container.contains($0) }) else {
            throw decoder.botDecoding.failure(.invalidValue, "'from' needs one of: users, bots, role, joined_within",
                                              at: decoder.mark, path: decoder.codingPath)
        }
        self.init(users: users?.map { $0.lowercased() }, bots: bots, role: role, joinedWithin: joinedWithin)
    }
}
