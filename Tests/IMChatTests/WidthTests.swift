import IMChat
import Testing

/// Column widths per grapheme cluster, and wrapping that never splits one.
@Suite struct WidthTests {
    static let cases: [(String, Int, String)] = [
        ("hello", 5, "ASCII"),
        ("世界", 4, "CJK ideographs"),
        ("こんにちは", 10, "hiragana"),
        ("한국어", 6, "precomposed Hangul"),
        ("\u{1100}\u{1161}\u{11A8}", 2, "conjoining Hangul jamo: one cluster"),
        ("ＡＢＣ", 6, "fullwidth Latin"),
        ("ｱｲｳ", 3, "halfwidth katakana"),
        ("e\u{301}", 1, "e + combining acute"),
        ("a\u{300}\u{301}\u{302}", 1, "a with three combining marks"),
        ("Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇", 5, "zalgo"),
        ("😀", 2, "emoji with default emoji presentation"),
        ("👍🏽", 2, "emoji with a skin tone modifier"),
        ("❤️", 2, "heart with VS16"),
        ("❤︎", 1, "heart with VS15"),
        ("❤", 1, "heart without a selector (text by default)"),
        ("☺️", 2, "smiley with VS16"),
        ("1️⃣", 2, "keycap sequence"),
        ("🇩🇪", 2, "flag: a regional indicator pair"),
        ("👩‍💻", 2, "ZWJ sequence: woman technologist"),
        ("👨‍👩‍👧‍👦", 2, "ZWJ family of four"),
        ("🏳️‍🌈", 2, "rainbow flag: VS16 and ZWJ"),
        ("🏴󠁧󠁢󠁳󠁣󠁴󠁿", 2, "subdivision flag with tag characters"),
        ("a世😀b", 6, "mixed"),
    ]

    @Test(arguments: cases)
    func clustersHaveTheirTerminalWidth(_ text: String, _ width: Int, _ what: String) {
        let clean = TextLayout.sanitize(text)
        #expect(WidthTable.standard.width(of: clean) == width, "\(what)")
    }

    @Test func zwjAndCombiningSequencesAreOneClusterEach() {
        #expect("👨‍👩‍👧‍👦".count == 1)
        #expect("e\u{301}".count == 1)
        #expect(TextLayout.sanitize("👨‍👩‍👧‍👦") == "👨‍👩‍👧‍👦")
    }

    @Test func overridesWinForAClusterOrARange() throws {
        let overrides = try WidthTable.parseOverrides("1F1E6-1F1FF=1, U+2764=2, 👩‍💻=1")
        let table = WidthTable(overrides: overrides)
        #expect(table.width(of: "🇩🇪") == 1)
        #expect(table.width(of: "❤") == 2)
        #expect(table.width(of: "👩‍💻") == 1)
        #expect(table.width(of: "👨‍👩‍👧‍👦") == 2)
    }

    @Test(arguments: ["x", "2605", "2605=3", "FFFFFFF=1", "20-10=1", "xyz=1"])
    func badOverridesAreRefusedWithTheItem(_ text: String) {
        #expect(throws: WidthOverrideError.self) { try WidthTable.parseOverrides(text) }
    }

    @Test func wrappingBreaksAtSpacesAndNeverInsideACluster() {
        let layout = TextLayout()
        #expect(layout.wrap("the quick brown fox", width: 10) == ["the quick", "brown fox"])
        let cjk = layout.wrap("你好世界你好世界", width: 5)
        #expect(cjk == ["你好", "世界", "你好", "世界"])
        let family = String(repeating: "👨‍👩‍👧‍👦", count: 5)
        let lines = layout.wrap(family, width: 5)
        #expect(lines.allSatisfy { layout.width($0) <= 5 })
        #expect(lines.joined() == family)
        let marks = String(repeating: "e\u{301}", count: 12)
        #expect(layout.wrap(marks, width: 5).map(\.count) == [5, 5, 2])
        for line in layout.wrap("a 世界😀👍🏽 🇩🇪 e\u{301}x " + family, width: 7) { #expect(layout.width(line) <= 7) }
    }

    @Test func wrappingKeepsNewlinesAndLongWords() {
        let layout = TextLayout()
        #expect(layout.wrap("one\ntwo", width: 20) == ["one", "two"])
        #expect(layout.wrap("abcdefghij", width: 4) == ["abcd", "efgh", "ij"])
    }

    @Test func truncationEndsInAnEllipsisWithinTheWidth() {
        let layout = TextLayout()
        #expect(layout.truncate("hello world", width: 8) == "hello w…")
        #expect(layout.truncate("世界世界", width: 5) == "世界…")
        #expect(layout.width(layout.pad("世", width: 5)) == 5)
    }

    @Test func sanitizeTurnsControlsIntoVisibleCharactersAndDropsBidiOverrides() {
        #expect(TextLayout.sanitize("a\u{1B}[31mb") == "a�[31mb")
        #expect(TextLayout.sanitize("x\u{202E}y\u{2066}z") == "xyz")
        #expect(TextLayout.sanitize("tab\there") == "tab here")
        #expect(TextLayout.sanitize("\u{301}") == "\u{25CC}\u{301}")
        #expect(TextLayout.sanitize("line\nnext") == "line next")
        #expect(TextLayout.sanitize("line\r\nnext", keepNewlines: true) == "line\nnext")
        #expect(TextLayout.sanitize("\u{85}") == "�")
    }

    @Test func theGridNeverDrawsHalfAWideCluster() {
        var grid = CellGrid(width: 5, height: 1)
        grid.put("ab世界", column: 0, row: 0)
        #expect(grid.lines == ["ab世"])
        grid.put("x", column: 3, row: 0)  // over the right half of 世
        #expect(grid.lines == ["ab x"])
    }
}
