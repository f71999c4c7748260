/// The bot files the benchmark evaluates, generated so that their size is exact.
enum RuleSets {
    static let header = """
        bot: bench
        account: { username: bench, password: bench-password }
        listen: [direct, "group:*", "room:lobby"]
        timezone: Europe/Berlin
        rules:

        """

    /// 100 rules shaped like real bots: commands, literal and word filters, a share of
    /// regexes (most scoped to a conversation or sender), member events, time windows
    /// and combinations.
    static var mixed: String {
        var rules: [String] = []
        for index in 0..<30 {
            let args = index % 3 == 0 ? ", args: required" : ""
            rules.append("  - { name: cmd\(index), when: { command: { name: [cmd\(index), c\(index)]\(args) } }, "
                         + "do: [ { reply: \"{{args}}\" }, { stop: true } ] }")
        }
        let literals = ["printer", "password", "vpn", "invoice", "refund", "deadline", "meeting", "lunch",
                        "deploy", "outage", "coffee", "holiday", "report", "budget", "laptop"]
        for (index, word) in literals.enumerated() {
            let test = ["contains", "starts_with", "equals"][index % 3]
            let scope = ["", ", direct: true", ", in: group:support"][index % 3]
            let folding = index % 2 == 0 ? ", ignore_case: true" : ""
            rules.append("  - { name: text\(index), when: { text: { \(test): \(word)\(folding) }\(scope) }, "
                         + "do: [ { reply: \"{{message.text}}\" } ] }")
        }
        for index in 0..<10 {
            let words = (0..<5).map { "w\(index)x\($0)" } + ["free money", "scam\(index)"]
            let normalize = index < 5 ? ", normalize: true" : ", ignore_case: true"
            rules.append("  - { name: words\(index), when: { text: { any_word: [\(words.joined(separator: ", "))]"
                         + "\(normalize) } }, do: [ { reply: blocked } ] }")
        }
        let regexes = [
            #"'\border #?(?<id>[0-9]+)'"#, #"'^(hi|hello|hey)\b'"#, #"'(?<amount>[0-9]+(\.[0-9][0-9])?) ?(eur|usd)'"#,
            #"'ticket[- ]?(?<n>[0-9]{3,})'"#, #"'https?://[^ ]+\.example\.com'"#, #"'(?i)urgent|asap'"#,
            #"'\b[A-Z]{2,}-[0-9]+\b'"#, #"'^/\w+@bench\b'"#, #"'call me at (?<phone>[0-9 ]{6,})'"#,
            #"'\bbuild (?<id>[0-9]+) (failed|passed)'"#, #"'(?<user>@[a-z]+) please'"#, #"'\?\s*$'"#,
            #"'room [0-9]+'"#, #"'\b(ETA|eta) [0-9]+ ?min'"#, #"'version ([0-9]+)\.([0-9]+)'"#,
        ]
        for (index, pattern) in regexes.enumerated() {
            let scope = ["", ", direct: true", ", from: [alice, bob, carol]"][index % 3]
            rules.append("  - { name: regex\(index), when: { text: { regex: \(pattern) }\(scope) }, "
                         + "do: [ { reply: \"{{match.0}}\" } ] }")
        }
        let places = ["{ from: [mallory, trudy] }", "{ in: group:ops }", "{ room: lobby }", "{ mentions_me: true }",
                      "{ from: { bots: true } }", "{ in: [group:dev, group:qa], from: alice }", "{ direct: false }",
                      "{ group: support, mentions_me: true }", "{ from: { role: admin } }", "{ in: user:carol }"]
        for (index, when) in places.enumerated() {
            rules.append("  - { name: place\(index), when: \(when), do: [ { reply: here } ] }")
        }
        let events = ["member_joined", "member_left", "member_kicked", "member_muted", "message_deleted",
                      "conversation_updated", "profile_updated", "contact_added", "read", "[member_joined, member_left]"]
        for (index, event) in events.enumerated() {
            rules.append("  - { name: event\(index), when: { event: \(event) }, do: [ { send: event } ] }")
        }
        for index in 0..<5 {
            let hours = ["09:00-17:00", "22:00-06:00", "12:00-13:00", "00:00-24:00", "18:00-20:00"][index]
            rules.append("  - { name: time\(index), when: { hours: \"\(hours)\", days: mon-fri, direct: true }, "
                         + "do: [ { reply: time } ] }")
        }
        for index in 0..<5 {
            rules.append("  - { name: combo\(index), when: { any: [ { text: { contains: zz\(index) } }, "
                         + "{ from: dave\(index) } ], not: { text: { contains: ignore } } }, do: [ { reply: combo } ] }")
        }
        return header + rules.joined(separator: "\n") + "\n"
    }

    /// The worst case: 100 unscoped regexes that every message reaches.
    static var regexOnly: String {
        let rules = (0..<100).map { index in
            "  - { name: rx\(index), when: { text: { regex: '\\b(word\(index)|term\(index))\\s+(?<n>[0-9]+)', "
                + "ignore_case: true } }, do: [ { reply: \"{{match.n}}\" } ] }"
        }
        return header + rules.joined(separator: "\n") + "\n"
    }
}
