/// The phrases of an `any_word` matcher, compiled for matching at word boundaries.
final class WordList: Sendable {
    /// The phrases as written, for explanations.
    let phrases: [String]
    /// Whether phrases and text are normalised (see `TextNormalizer`).
    let normalized: Bool
    /// Whether case is ignored (always, when normalised).
    let ignoreCase: Bool
    private let encoded: [[UInt8]]
    /// Phrase indices by their first byte, so a word start only tries likely phrases.
    private let buckets: [[Int]]

    /// Compiles phrases; those that have no word characters are dropped (the loader
    /// reports them first).
    init(phrases: [String], normalize: Bool, ignoreCase: Bool) {
        self.phrases = phrases
        self.normalized = normalize
        self.ignoreCase = ignoreCase || normalize
        let encoded = phrases.map { phrase in
            normalize ? TextNormalizer.normalizedPhrase(phrase)
                : TextNormalizer.phraseWords(phrase, lowercase: ignoreCase)
        }
        var buckets = [[Int]](repeating: [], count: 256)
        for (index, bytes) in encoded.enumerated() {
            guard let first = bytes.first else { continue }
            buckets[Int(first)].append(index)
        }
        self.encoded = encoded
        self.buckets = buckets
    }

    /// The phrases that are empty once split into words (`"!!!"`): they can never match.
    static func emptyPhrases(_ phrases: [String], normalize: Bool) -> [String] {
        phrases.filter { phrase in
            normalize ? TextNormalizer.normalizedPhrase(phrase).isEmpty
                : TextNormalizer.phraseWords(phrase, lowercase: false).isEmpty
        }
    }

    /// The first phrase (as written) found in `tokens`, starting and ending at word
    /// boundaries.
    func firstMatch(in tokens: TokenText) -> String? {
        tokens.bytes.withUnsafeBufferPointer { text -> String? in
            for start in tokens.starts {
                let first = text[start]
                if let found = match(bucket: Int(first), at: start, in: text, tokens: tokens) {
                    return phrases[found]
                }
                // A `1` in normalised text stands for `i` or `l`.
                if normalized, first == ByteText.wildcardOne {
                    for letter in [UInt8(ascii: "i"), UInt8(ascii: "l")] {
                        if let found = match(bucket: Int(letter), at: start, in: text, tokens: tokens) {
                            return phrases[found]
                        }
                    }
                }
            }
            return nil
        }
    }

    private func match(bucket: Int, at start: Int, in text: UnsafeBufferPointer<UInt8>,
                       tokens: TokenText) -> Int? {
        for index in buckets[bucket] {
            let matched = encoded[index].withUnsafeBufferPointer { phrase -> Bool in
                guard normalized else {
                    return ByteText.matches(text, at: start, phrase, wildcard: false) && tokens.isEnd[start + phrase.count]
                }
                // Normalised text may stretch letters (`scaaam`); the match must still end a word.
                guard let ends = ByteText.matchEnds(text, at: start, phrase, wildcard: true) else { return false }
                return ends.contains { tokens.isEnd[$0] }
            }
            if matched { return index }
        }
        return nil
    }
}
