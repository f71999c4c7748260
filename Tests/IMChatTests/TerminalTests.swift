import IMChat
import Testing

/// Keys from terminal bytes, and the bytes a redraw sends.
@Suite struct TerminalTests {
    static func decode(_ text: String) -> [Key] {
        var decoder = KeyDecoder()
        return decoder.feed(Array(text.utf8)) + decoder.flush()
    }

    @Test func textAndControlKeys() {
        #expect(Self.decode("a世\r\t\u{7F}\u{03}") == [.character("a"), .character("世"), .enter, .tab, .backspace, .control("c")])
    }

    @Test func sequencesOfXtermLikeTerminals() {
        #expect(Self.decode("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D") == [.up, .down, .right, .left])
        #expect(Self.decode("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[F\u{1B}[1~\u{1B}[4~") == [.pageUp, .pageDown, .home, .end, .home, .end])
        #expect(Self.decode("\u{1B}OP\u{1B}[11~\u{1B}[24~\u{1B}[3~\u{1B}[Z") == [.function(1), .function(1), .function(12), .delete, .backTab])
        #expect(Self.decode("\u{1B}[1;5A") == [.up])
        #expect(Self.decode("\u{1B}x") == [.alt("x")])
    }

    @Test func aLoneEscapeIsTheEscKeyOnceNothingFollows() {
        var decoder = KeyDecoder()
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [.escape])
    }

    @Test func sequencesSplitAcrossReadsStillDecode() {
        var decoder = KeyDecoder()
        let bytes = Array("\u{1B}[5~世".utf8)
        var keys: [Key] = []
        for byte in bytes { keys += decoder.feed([byte]) }
        #expect(keys == [.pageUp, .character("世")])
    }

    @Test func mouseWheelAndBracketedPaste() {
        #expect(Self.decode("\u{1B}[<64;10;5M\u{1B}[<65;10;5M\u{1B}[<0;1;1M") == [.wheelUp, .wheelDown])
        #expect(Self.decode("\u{1B}[200~hi\nthere\u{1B}[201~") == [.paste("hi\nthere")])
        var decoder = KeyDecoder()
        let parts = ["\u{1B}[200~one ", "two\u{1B}[2", "01~x"]
        let keys = parts.flatMap { decoder.feed(Array($0.utf8)) }
        #expect(keys == [.paste("one two"), .character("x")])
    }

    @Test func aPasteIsTextNeverKeys() {
        var field = TextField()
        field.edit(.paste("a\u{1B}[2Jb"))
        #expect(field.text == "a[2Jb")
    }

    @Test func theFirstFrameIsDrawnInFullAndLaterOnesOnlySendChanges() {
        var renderer = ScreenRenderer()
        var grid = CellGrid(width: 10, height: 3)
        grid.put("hello", column: 0, row: 0)
        grid.put("world", column: 0, row: 2)
        let first = renderer.render(grid)
        #expect(first.contains("\u{1B}[2J"))
        #expect(first.contains("hello") && first.contains("world"))
        grid.put("J", column: 0, row: 0)
        let second = renderer.render(grid)
        #expect(!second.contains("\u{1B}[2J"))
        #expect(second.contains("\u{1B}[1;1H\u{1B}[0mJ"))
        #expect(!second.contains("ello") && !second.contains("world"))
        #expect(renderer.render(grid) == "\u{1B}[?25l\u{1B}[0m")
    }

    @Test func afterAWideClusterTheCursorIsPlacedAnew() {
        var renderer = ScreenRenderer()
        var grid = CellGrid(width: 10, height: 1)
        grid.put("世x", column: 0, row: 0)
        let frame = renderer.render(grid)
        #expect(frame.contains("世\u{1B}[1;3Hx"))
    }

    @Test func aChangedRightHalfRedrawsTheWholeCluster() {
        var renderer = ScreenRenderer()
        var grid = CellGrid(width: 4, height: 1)
        grid.put("世", column: 0, row: 0)
        _ = renderer.render(grid)
        grid.put("界", column: 0, row: 0)
        #expect(renderer.render(grid).contains("界"))
    }
}
