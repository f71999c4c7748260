import IMBots
import Testing

/// The normaliser of `any_word` (`normalize: true`) against the disguises spammers use,
/// and against ordinary text it must leave alone. Both lists are the specification.
@Suite struct NormalizerEvasionTests {
    static let when = "{ text: { any_word: [scam, \"free money\", crypto, ass, bitcoin], normalize: true } }"

    /// Every one of these must be caught.
    static let evasions = [
        // case, accents and overlays
        "SCAM", "ScAm", "scám", "šçåm", "s̶c̶a̶m̶", "s̲c̲a̲m̲",
        // look-alike letters from other scripts
        "ѕсаm", "ЅСАМ", "frее money", "crурtо", "ѕcαm",
        // compatibility forms: full-width, mathematical, circled, squared, enclosed
        "ｓｃａｍ", "𝐬𝐜𝐚𝐦", "𝓈𝒸𝒶𝓂", "𝕤𝕔𝕒𝕞", "ⓢⓒⓐⓜ", "🅂🄲🄰🄼", "🅢🅒🅐🅜", "🆂🅲🅰🅼", "🇸🇨🇦🇲",
        // l33t and signs
        "sc4m", "5c@m", "$cam", "fr33 m0n3y", "fr€€ money", "crypt0", "¢rypto", "fr3e m0ney", "scam!", "a$$", "@ss",
        "b!tcoin", "b|tcoin", "b1tc01n", "BITC0IN", "8itcoin", "bitco!n",
        // spacing and punctuation between letters
        "s c a m", "s  c  a  m", "s.c.a.m", "s-c-a-m", "s_c_a_m", "s*c*a*m", "s/c/a/m", "sc am", "s\nc\na\nm",
        "f r e e m o n e y", "free-money", "FREE_MONEY", "freemoney", "free...money", "sc🔥am",
        // invisible characters
        "s\u{200B}cam", "sc\u{200C}am", "sca\u{200D}m", "s\u{2060}cam", "s\u{00AD}cam", "sc\u{FEFF}am",
        "s\u{3164}cam", "sc\u{115F}am", "s\u{FE0F}cam", "s\u{E0020}cam",
        // stretched letters
        "scaaaam", "sssscam", "scammmm", "frrreeeee moneyyyy", "s c a a a m", "asss",
        // mixed
        "Ｓ.Ｃ.４.Ｍ", "$ c @ m", "f.r.3.3 m.0.n.3.y", "ЅсAm!!!", "it is a sc4aam",
    ]

    /// None of these may match.
    static let ordinary = [
        "scampi for dinner", "the scamper of mice", "a cheap camera", "this cam is broken", "it's cam day",
        "that's campus news", "mascara", "escape", "Samsung phone", "scan a map", "discard",
        "money for free", "free of charge", "moneyfree", "carefree money", "freedom on monday", "a free moneybox",
        "cryptography lecture", "cryptic crossword", "encrypt it", "pass the salt", "class", "assistant",
        "assess", "bass guitar", "as is", "ask", "glass", "sass", "Kass",
        "bitcoins", "orbit coinage", "1234", "", "!!!", "🔥🔥", "s c a n", "scar", "s.c.a.n.",
    ]

    @Test(arguments: evasions)
    func anEvasionIsCaught(_ text: String) throws {
        #expect(try Bots.matches(Self.when, text), "\(text.debugDescription) should match")
    }

    @Test(arguments: ordinary)
    func ordinaryTextIsLeftAlone(_ text: String) throws {
        #expect(try !Bots.matches(Self.when, text), "\(text.debugDescription) should not match")
    }

    @Test func stretchedLettersStillEndAtAWordBoundary() throws {
        #expect(try Bots.matches("{ text: { any_word: [scam], normalize: true } }", "scam mad"))
        #expect(try !Bots.matches("{ text: { any_word: [scam], normalize: true } }", "scammad"))
        #expect(try !Bots.matches("{ text: { any_word: [scam] } }", "scaaam"))
    }
}
