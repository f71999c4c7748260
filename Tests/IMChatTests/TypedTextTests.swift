import IMChat
import IMProtocol
import Testing

/// Issue 27, item 1 and the input half of item 2: what is typed or pasted is the text
/// sent, scalar for scalar; keys the way terminals send them (Alt as Meta, Alt-Enter and
/// Shift-Enter, a paste without brackets); the input line growing with its text.
@Suite struct TypedTextTests {
    static func decode(_ chunks: String...) -> [Key] {
        var decoder = KeyDecoder()
        return chunks.flatMap { decoder.feed(Array($0.utf8)) } + decoder.flush()
    }

    /// Feeds `text` one Unicode scalar at a time, as an unbracketed emoji picker or IME
    /// commit arrives through the decoder.
    static func typeScalars(_ text: String, into field: inout TextField) {
        for key in decode(text) { field.edit(key) }
    }

    @Test(arguments: [
        "👨\u{200D}👩\u{200D}👧", "❤\u{FE0F}", "cafe\u{301}", "🏳\u{FE0F}\u{200D}🌈", "👍🏽", "🇩🇪", "\u{200D}alone", "\u{301}first",
        "नमस्ते", "a\u{200F}b",
    ])
    func scalarsTypedOneByOneAreKeptExactly(_ text: String) {
        var field = TextField(multiline: true)
        Self.typeScalars(text, into: &field)
        #expect(Array(field.text.unicodeScalars) == Array(text.unicodeScalars))
        #expect(!field.text.unicodeScalars.contains("\u{25CC}") || text.unicodeScalars.contains("\u{25CC}"))
    }

    @Test func theDottedCircleIsOnlyOnScreen() {
        var field = TextField()
        field.edit(.character("\u{301}"))
        field.edit(.character("x"))
        #expect(field.text == "\u{301}x")
        #expect(field.visible(width: 20, layout: TextLayout()).text == "\u{25CC}\u{301}x")
    }

    @Test func aJoinerTypedAfterACharacterJoinsIt() {
        var field = TextField()
        for scalar in ["👨", "\u{200D}", "👩"] { field.edit(.character(Character(scalar))) }
        #expect(field.characters.count == 1)
        #expect(field.caret == 1)
        field.edit(.backspace)
        #expect(field.text.isEmpty)
    }

    @Test func aTypedMessageIsSentAsTyped() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .enter, .character("m"))
        for key in Self.decode("family 👨\u{200D}👩\u{200D}👧 cafe\u{301}") { model.press(key) }
        let effects = model.press(.enter)
        guard case .send(_, let text, _, _)? = effects.first else {
            Issue.record("no send: \(effects)")
            return
        }
        #expect(Array(text.unicodeScalars) == Array("family 👨\u{200D}👩\u{200D}👧 cafe\u{301}".unicodeScalars))
    }

    @Test func altWithAKeyIsOneKeyAndEscAloneIsEsc() {
        #expect(Self.decode("\u{1B}b") == [.alt("b")])
        #expect(Self.decode("\u{1B}", "b") == [.alt("b")])  // the rest of the sequence in the next read
        #expect(Self.decode("\u{1B}") == [.escape])
        #expect(Self.decode("\u{1B}\r") == [.newline])  // Alt-Enter
        #expect(Self.decode("\u{1B}[13;2u") == [.newline])  // Shift-Enter, CSI u
        #expect(Self.decode("\u{1B}[27;2;13~") == [.newline])  // Shift-Enter, modifyOtherKeys
        #expect(Self.decode("\u{1B}\u{7F}") == [.control("w")])  // Alt-Backspace
    }

    @Test func aPasteWithoutBracketsIsOneMessage() {
        // Text after an Enter in one read: no one types that fast.
        #expect(Self.decode("first line\rsecond line\rthird\r") == [.paste("first line\nsecond line\nthird\n")])
        // The rest of it in the next reads belongs to it until the input goes quiet.
        var decoder = KeyDecoder()
        let start = decoder.feed(Array("one\rtwo".utf8))
        let rest = decoder.feed(Array("\rthree\r".utf8))
        #expect(start == [.paste("one\ntwo")] && rest == [.paste("\nthree\n")])
        #expect(decoder.flush().isEmpty)
        #expect(decoder.feed(Array("\r".utf8)) == [.enter])  // typed afterwards: Enter again
        // Typing ends with Enter: it sends.
        #expect(Self.decode("hello\r") == [.character("h"), .character("e"), .character("l"), .character("l"), .character("o"), .enter])
        #expect(Self.decode("x\r\ny") == [.paste("x\ny")])  // CR LF is one line end
    }

    @Test func aPastedBlockWaitsInTheGrowingInputUntilEnter() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .enter, .character("m"))
        for key in Self.decode("line one\rline two\rline three\rline four\r") { #expect(model.press(key) == []) }
        #expect(model.dialogue?.compose.text == "line one\nline two\nline three\nline four\n")
        #expect(model.composeRows(model.dialogue!) == 5)
        let text = model.screenText
        #expect(text.contains("> line one\n  line two\n  line three\n  line four"))
        model.press(.newline)
        model.type("and five")
        let effects = model.press(.enter)
        #expect(effects.count == 1)
        guard case .send(_, let sent, _, _)? = effects.first else { return }
        #expect(sent == "line one\nline two\nline three\nline four\n\nand five")
    }

    @Test func theInputGrowsToAThirdOfTheScreenAndScrollsToTheCaret() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .enter, .character("m"))
        for index in 1...20 {
            model.type("row \(index)")
            model.press(.newline)
        }
        let state = model.dialogue!
        #expect(model.composeRows(state) == 8)  // 24 rows / 3
        #expect(model.messageRows == 24 - 4 - 8)
        let text = model.screenText
        #expect(text.contains("  row 20") && !text.contains("row 5\n"))
        // ↑ moves between the lines of the text, not through the history.
        model.press(.up)
        #expect(model.dialogue?.compose.caret == state.compose.text.count - "row 20\n".count)
    }

    @Test func theInputLineSaysWhenAPasteDoesNotFit() {
        var model = Fixture.loggedIn()
        model.press(.character("2"), .enter, .character("m"))
        let limit = model.dialogue!.compose.limit
        model.press(.paste(String(repeating: "x", count: limit + 10)))
        #expect(model.dialogue?.compose.text.count == limit)
        #expect(model.screenText.contains("10 characters did not fit"))
    }
}
