/// The entities the server finds in a message's plain text, as Telegram's servers do
/// for every message: commands (`/start`, `/ban@modbot`), mentions (`@alice`), hashtags
/// and links. Some frameworks need them: python-telegram-bot's `CommandHandler` takes a
/// message only when it starts with a `bot_command` entity.
///
/// Offsets and lengths count UTF-16 code units.
enum TelegramEntityScanner {
    /// One character of the text with where it starts, in UTF-16 code units.
    private struct Character {
        var scalar: Unicode.Scalar
        var offset: Int
    }

    static func entities(in text: String) -> [TGEntity] {
        guard text.utf8.contains(where: { [0x2F, 0x40, 0x23, 0x3A].contains($0) }) else { return [] }
        var characters: [Character] = []
        var offset = 0
        for scalar in text.unicodeScalars {
            characters.append(Character(scalar: scalar, offset: offset))
            offset += scalar.utf16.count
        }
        let end = offset
        func position(_ index: Int) -> Int { index < characters.count ? characters[index].offset : end }

        var found: [TGEntity] = []
        var index = 0
        while index < characters.count {
            let scalar = characters[index].scalar
            let atBoundary = index == 0 || !isWordCharacter(characters[index - 1].scalar)
            var stop = index
            var type: String?
            if scalar == "/", atBoundary, index == 0 || characters[index - 1].scalar.properties.isWhitespace {
                // A command: letters, digits and '_', up to 32, then optionally @botname.
                stop = run(from: index + 1, in: characters, while: isCommandCharacter)
                if stop > index + 1, stop - index - 1 <= 32 {
                    if stop < characters.count, characters[stop].scalar == "@" {
                        let name = run(from: stop + 1, in: characters, while: isUsernameCharacter)
                        if name > stop + 1 { stop = name }
                    }
                    if stop == characters.count || !isWordCharacter(characters[stop].scalar) { type = "bot_command" }
                }
            } else if scalar == "@", atBoundary {
                stop = trimmed(run(from: index + 1, in: characters, while: isUsernameCharacter), from: index + 1, characters)
                if stop > index + 1 { type = "mention" }
            } else if scalar == "#", atBoundary {
                stop = run(from: index + 1, in: characters, while: isWordCharacter)
                if stop > index + 1, characters[(index + 1)..<stop].contains(where: { !("0"..."9").contains($0.scalar) }) {
                    type = "hashtag"
                }
            } else if scalar == "h" || scalar == "H", atBoundary, let length = schemeLength(at: index, characters) {
                stop = trimmed(
                    run(from: index + length, in: characters, while: { !$0.properties.isWhitespace }),
                    from: index + length, characters, punctuation: true)
                if stop > index + length { type = "url" }
            }
            if let type {
                found.append(TGEntity(type: type, offset: position(index), length: position(stop) - position(index)))
                index = stop
            } else {
                index += 1
            }
        }
        return found
    }

    /// The end of the run of characters from `start` that pass `test`.
    private static func run(from start: Int, in characters: [Character], while test: (Unicode.Scalar) -> Bool) -> Int {
        var index = start
        while index < characters.count, test(characters[index].scalar) { index += 1 }
        return index
    }

    /// `stop` moved back over the characters a name or link does not end with.
    private static func trimmed(_ stop: Int, from start: Int, _ characters: [Character], punctuation: Bool = false) -> Int {
        var stop = stop
        let closing: Set<Unicode.Scalar> = punctuation ? [".", ",", ";", ":", "!", "?", ")", "]", "'", "\""] : [".", "-"]
        while stop > start, closing.contains(characters[stop - 1].scalar) { stop -= 1 }
        return stop
    }

    /// The length of `http://` or `https://` at `index`, in any case.
    private static func schemeLength(at index: Int, _ characters: [Character]) -> Int? {
        for scheme in ["https://", "http://"] {
            let scalars = Array(scheme.unicodeScalars)
            guard index + scalars.count <= characters.count else { continue }
            let matches = zip(characters[index...], scalars).allSatisfy {
                $0.scalar.properties.lowercaseMapping == String($1)
            }
            if matches { return scalars.count }
        }
        return nil
    }

    private static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic || scalar.properties.numericType != nil
    }

    private static func isCommandCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (scalar == "_" || scalar.properties.isAlphabetic || ("0"..."9").contains(scalar))
    }

    /// Switchboard's usernames: letters, digits, '.', '_' and '-'.
    private static func isUsernameCharacter(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCII && (isCommandCharacter(scalar) || scalar == "." || scalar == "-")
    }
}
