import IMProtocol
import MatrixClient
import Synchronization
import YAMLCoding

/// The Matrix rooms a Matrix bot's file names: under `platform.matrix.rooms` by a name of
/// the file's own (`support: '#support:example.org'`, used as `group:support`), and
/// written as Matrix writes them where a conversation goes (`listen: ['#ops:example.org']`).
struct MatrixRoomsWritten: Sendable {
    /// `platform.matrix.rooms`, by lowercased name.
    var named: [String: MatrixRoomAddress]
    /// The rooms written as themselves that the bot is to be in (those of `listen`,
    /// `join`, `in`, a constant `to`, `moderation.log`), by their lowercased address: the
    /// runner joins them at start, as it joins the named ones.
    var written: [String: MatrixRoomAddress] = [:]
}

extension BotDecoding {
    /// What to say after a YAML syntax error at `mark` when its line or the one before
    /// writes a Matrix room or user unquoted (`to: #ops:example.org`): YAML reads `#` as a
    /// comment, `!` as a tag and `@` as reserved, so the value is lost or refused.
    func unquotedMatrixAddress(near mark: YAMLMark) -> String? {
        guard mark.isKnown else { return nil }
        for number in [mark.line, mark.line - 1] where number >= 1 && number <= lines.count {
            var quote: Character?
            var previous: Character = " "
            for (offset, character) in lines[number - 1].enumerated() {
                defer { previous = character }
                if let open = quote {
                    if character == open { quote = nil }
                    continue
                }
                if character == "\"" || character == "'" {
                    quote = character
                    continue
                }
                guard "#!@".contains(character), " [,{-:".contains(previous) else { continue }
                let word = lines[number - 1].dropFirst(offset).prefix { !" ,]}".contains($0) }
                guard ConversationAddress(written: String(word))?.isMatrixForm == true else { continue }
                return "line \(number) writes \(word) unquoted, and YAML reads a leading \(character) as "
                    + (character == "#" ? "a comment" : character == "!" ? "a tag" : "reserved")
                    + ": quote Matrix rooms and users ('\(word)')"
            }
        }
        return nil
    }

    /// Reports each value written with a tag of its own (`!name`): bot files use none, and
    /// YAML would drop the tag silently, so `to: !ops:example.org` (a Matrix room id left
    /// unquoted) would be an empty `to` instead of an error.
    func reportLocalTags(in node: YAMLNode) {
        if let tag = node.tag, tag.hasPrefix("!"), tag != "!" {
            let hint = ConversationAddress(written: tag)?.isMatrixForm == true
                ? "quote Matrix room ids ('\(tag)'), which YAML otherwise reads as a tag"
                : "quote the value if the ! belongs to it"
            report(.invalidValue, "'\(tag)' is a YAML tag, and bot files use none: \(hint)", at: node.mark)
        }
        switch node.content {
        case .scalar: break
        case .sequence(let items): for item in items { reportLocalTags(in: item) }
        case .mapping(let pairs):
            for pair in pairs {
                reportLocalTags(in: pair.key)
                reportLocalTags(in: pair.value)
            }
        }
    }

    /// Notes that the file is a Matrix bot's, with the rooms of `platform.matrix.rooms`.
    func useMatrix(rooms: [String: MatrixRoomAddress]) {
        matrixRooms.withLock { $0 = MatrixRoomsWritten(named: rooms) }
    }

    /// The Matrix rooms the file writes as themselves where the bot is to be (see
    /// ``MatrixRoomsWritten/written``).
    var writtenMatrixRooms: [String: MatrixRoomAddress] { matrixRooms.withLock { $0?.written ?? [:] } }

    /// A conversation the file writes at `mark` (``ConversationAddress/init(written:)``),
    /// or nil when the text is no address at all (the caller says what it wants there).
    ///
    /// A Matrix room or user is an error in a file that is not a Matrix bot's, and so is a
    /// room written as itself that `platform.matrix.rooms` names (one name per room, or a
    /// rule on one name would miss the events of the other). With `joins`, a room written
    /// as itself is one the bot joins at start; examples and expectations pass false.
    func conversation(_ text: String, at mark: YAMLMark, path: [any CodingKey], joins: Bool = true) throws
        -> ConversationAddress?
    {
        guard let address = ConversationAddress(written: text) else { return nil }
        guard address.isMatrixForm else { return address }
        let problem = matrixRooms.withLock { rooms -> String? in
            guard var known = rooms else {
                return "'\(text.trimmedWhitespace)' is a Matrix \(address.matrixRoom == nil ? "user" : "room"): "
                    + "a bot file names Matrix rooms and users only with platform: {matrix: …} (docs/matrix.md)"
            }
            guard let room = address.matrixRoom else { return nil }
            if let (name, _) = known.named.first(where: { $0.value.description.lowercased() == room.description.lowercased() }) {
                return "'\(room)' is the room of group:\(name) (platform.matrix.rooms): write group:\(name) here, "
                    + "so that the file has one name for it"
            }
            if joins {
                known.written[room.description.lowercased()] = room
                rooms = known
            }
            return nil
        }
        if let problem { throw failure(.invalidValue, problem, at: mark, path: path) }
        return address
    }
}
