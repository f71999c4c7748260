import YAMLCoding

/// A mistake on the command line: exit code 2 and a message that says what to type.
struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// A command's parsed arguments: `--name value` / `--name=value` options, `--flag`
/// switches, and positional words.
struct Arguments {
    private(set) var options: [String: String] = [:]
    private(set) var flags: Set<String> = []
    private(set) var positionals: [String] = []

    /// Parses `argv` (without the command name) against the options and flags a command
    /// knows; anything else is a usage error with a suggestion.
    static func parse(_ argv: [String], options known: Set<String>, flags knownFlags: Set<String>) throws -> Arguments {
        var result = Arguments()
        var index = 0
        var onlyPositionals = false
        while index < argv.count {
            let word = argv[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("--") || word == "-" {
                result.positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name = String(word.dropFirst(2))
            var value: String?
            if let equals = name.firstIndex(of: "=") {
                value = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if knownFlags.contains(name) {
                guard value == nil else { throw UsageError(message: "--\(name) takes no value") }
                result.flags.insert(name)
            } else if known.contains(name) {
                if value == nil {
                    guard index < argv.count else { throw UsageError(message: "--\(name) needs a value") }
                    value = argv[index]
                    index += 1
                }
                result.options[name] = value
            } else {
                let suggestion = Suggestion.closest(to: name, among: Array(known.union(knownFlags))).map { " (did you mean --\($0)?)" } ?? ""
                throw UsageError(message: "unknown option --\(name)\(suggestion)")
            }
        }
        return result
    }

    subscript(option name: String) -> String? { options[name] }

    func has(_ flag: String) -> Bool { flags.contains(flag) }
}
