/// `links:` and `mentions:`: how many links or `@mentions` a message holds.
///
/// `links: 1` holds for a message with at least one link; `links: {more_than: 2}` for one
/// with three or more. A link is a word with `://`, one that starts with `www.`, or a
/// bare domain with a common top-level domain (`bit.ly`, `example.com`); a mention is
/// `@name`, each name counted once.
final class CountCondition: Sendable {
    enum Counted: String, Sendable {
        case links, mentions
    }

    let counted: Counted
    /// The fewest that make the matcher hold.
    let atLeast: Int

    init(counted: Counted, atLeast: Int) {
        self.counted = counted
        self.atLeast = atLeast
    }

    func matches(_ facts: inout EventFacts) -> Bool {
        guard let text = facts.text else { return false }
        return count(in: text) >= atLeast
    }

    func failure(_ facts: inout EventFacts) -> String {
        guard let text = facts.text else { return "\(counted.rawValue): the event has no text" }
        return "\(counted.rawValue): the text has \(count(in: text)), rule wants at least \(atLeast)"
    }

    var summary: String { "the text has at least \(atLeast) \(counted.rawValue)" }

    static let cost = 25

    func count(in text: String) -> Int {
        switch counted {
        case .links: Self.links(in: text)
        case .mentions: Self.mentions(in: text)
        }
    }

    /// The links in `text`.
    static func links(in text: String) -> Int {
        var count = 0
        for word in text.split(whereSeparator: { $0.isWhitespace || $0 == "<" || $0 == ">" || $0 == "(" || $0 == ")" }) {
            let lowered = word.lowercased()
            if lowered.contains("://") || lowered.hasPrefix("www.") || isDomain(lowered) { count += 1 }
        }
        return count
    }

    /// The distinct `@names` in `text`.
    static func mentions(in text: String) -> Int {
        var names: Set<String> = []
        let bytes = Array(text.utf8)
        var index = 0
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "@") else { continue }
            if index > 0, isNameByte(bytes[index - 1]) { continue }
            var end = index + 1
            while end < bytes.count, isNameByte(bytes[end]) { end += 1 }
            guard end > index + 1 else { continue }
            names.insert(String(decoding: bytes[(index + 1)..<end], as: UTF8.self).lowercased())
            index = end - 1
        }
        return names.count
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        ByteText.isASCIIAlphanumeric(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }

    /// `name.tld` or `sub.name.tld/path` with a top-level domain spam uses; not `e.g.` or `file.txt`.
    private static func isDomain(_ word: String) -> Bool {
        let host = word.split(separator: "/", maxSplits: 1).first.map(String.init) ?? word
        let trimmed = host.trimmingCharacters(in: [".", ",", "!", "?", ";", ":", "'", "\""])
        guard !trimmed.contains("@") else { return false }
        let labels = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), let tld = labels.last else { return false }
        return topLevelDomains.contains(String(tld))
    }

    private static let topLevelDomains: Set<String> = [
        "com", "net", "org", "io", "co", "me", "ly", "gg", "xyz", "info", "biz", "ru", "cn", "tk", "ml", "ga", "cf",
        "top", "app", "dev", "link", "click", "site", "online", "shop", "live", "store", "club", "vip", "to", "su",
    ]
}
