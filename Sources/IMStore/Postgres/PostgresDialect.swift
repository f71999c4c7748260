/// How PostgreSQL reads the store's shared SQL (`StoreConnection`): once, when a
/// statement is prepared, SQLite's placeholders become PostgreSQL's: `?N` is `$N`, and a
/// bare `?` takes the number after the highest so far, as SQLite numbers it. Text in
/// quotes ('…', "…") and comments are left as they are; SQL already written with `$N`
/// has nothing to translate.
enum PostgresDialect {
    static func translate(_ sql: String) -> String {
        guard sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        var result = ""
        result.reserveCapacity(sql.utf8.count + 8)
        var highest = 0
        var quote: Character?
        var characters = sql.makeIterator()
        var pending: Character? = characters.next()
        while let character = pending {
            pending = characters.next()
            if let open = quote {
                result.append(character)
                if character == open { quote = nil }
                continue
            }
            switch character {
            case "'", "\"":
                quote = character
                result.append(character)
            case "-" where pending == "-":
                // A comment to the end of the line.
                result.append(character)
                while let next = pending, next != "\n" {
                    result.append(next)
                    pending = characters.next()
                }
            case "?":
                var digits = ""
                while let next = pending, next.isASCII, next.isNumber {
                    digits.append(next)
                    pending = characters.next()
                }
                let number = Int(digits) ?? highest + 1
                highest = max(highest, number)
                result += "$\(number)"
            default:
                result.append(character)
            }
        }
        return result
    }
}
