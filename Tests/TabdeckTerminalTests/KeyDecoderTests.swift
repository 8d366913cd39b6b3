import Testing
@testable import TabdeckTerminal

@Suite struct KeyDecoderTests {
    func decode(_ s: String) -> [Key] {
        var d = KeyDecoder()
        return d.feed(Array(s.utf8)) + d.flush()
    }

    @Test func plainKeys() {
        #expect(decode("jk G?") == [.char("j"), .char("k"), .char(" "), .char("G"), .char("?")])
        #expect(decode("\r\n\t\u{7f}\u{8}") == [.enter, .enter, .tab, .backspace, .backspace])
        #expect(decode("\u{3}\u{12}\u{0}") == [.ctrl("c"), .ctrl("r"), .ctrl(" ")])
        #expect(decode("é日") == [.char("é"), .char("日")])
    }

    @Test func escapeSequences() {
        #expect(decode("\u{1b}[A\u{1b}[B\u{1b}[C\u{1b}[D") == [.up, .down, .right, .left])
        #expect(decode("\u{1b}OA\u{1b}OD") == [.up, .left])
        #expect(decode("\u{1b}[5~\u{1b}[6~") == [.pageUp, .pageDown])
        #expect(decode("\u{1b}[H\u{1b}[F\u{1b}[1~\u{1b}[4~\u{1b}[7~\u{1b}[8~\u{1b}OH\u{1b}OF") == [.home, .end, .home, .end, .home, .end, .home, .end])
        #expect(decode("\u{1b}[Z") == [.backTab])
        #expect(decode("\u{1b}[3~\u{1b}OP\u{1b}[15~") == [.delete, .function(1), .function(5)])
        #expect(decode("\u{1b}[1;5A") == [.up])
        #expect(decode("\u{1b}x") == [.alt("x")])
        #expect(decode("\u{1b}[<0;3;4M") == [.mouse(MouseEvent(.press, .left, x: 2, y: 3))])  // MouseDecoderTests
    }

    /// Every key config.json can name comes out of the decoder (issue 16, point 3): F1–F12 in
    /// both forms terminals send them, Shift-Tab, Alt with any character.
    @Test func theKeysConfigCanName() {
        #expect(decode("\u{1b}OP\u{1b}OQ\u{1b}OR\u{1b}OS") == (1...4).map { .function($0) })
        #expect(decode("\u{1b}[11~\u{1b}[12~\u{1b}[13~\u{1b}[14~") == (1...4).map { .function($0) })
        #expect(decode("\u{1b}[15~\u{1b}[17~\u{1b}[18~\u{1b}[19~\u{1b}[20~\u{1b}[21~\u{1b}[23~\u{1b}[24~") == (5...12).map { .function($0) })
        #expect(decode("\u{1b}[Z") == [.backTab])
        #expect(decode("\u{1b}X\u{1b}?\u{1b}1") == [.alt("X"), .alt("?"), .alt("1")])
        #expect(decode("\u{14}") == [.ctrl("t")])
        #expect(decode("\u{1b}[5~\u{1b}[6~ ") == [.pageUp, .pageDown, .char(" ")])
    }

    @Test func aLoneEscapeWaitsForFlush() {
        var d = KeyDecoder()
        #expect(d.feed([0x1B]) == [])
        #expect(d.isPending)
        #expect(d.flush() == [.escape])
        #expect(!d.isPending)
        #expect(d.feed([0x1B, 0x1B]) == [.escape])
        #expect(d.flush() == [.escape])
    }

    @Test func sequencesSplitAcrossReads() {
        var d = KeyDecoder()
        #expect(d.feed(Array("j\u{1b}".utf8)) == [.char("j")])
        #expect(d.feed(Array("[".utf8)) == [])
        #expect(d.feed(Array("5".utf8)) == [])
        #expect(d.feed(Array("~k".utf8)) == [.pageUp, .char("k")])
        #expect(d.feed([0xE6, 0x97]) == [])
        #expect(d.feed([0xA5]) == [.char("日")])
        #expect(!d.isPending)
    }

    @Test func everySplitOfAStreamDecodesTheSame() {
        let stream = Array("a\u{1b}[A日\u{1b}[6~\u{1b}[Z\u{1b}[200~pa\u{1b}[A\nste\u{1b}[201~q".utf8)
        let expected: [Key] = [.char("a"), .up, .char("日"), .pageDown, .backTab, .paste("pa\u{1b}[A\nste"), .char("q")]
        for cut in 0...stream.count {
            var d = KeyDecoder()
            let keys = d.feed(stream[..<cut]) + d.feed(stream[cut...])
            #expect(keys == expected, "cut at \(cut)")
        }
        // One byte at a time.
        var d = KeyDecoder()
        var keys: [Key] = []
        for byte in stream { keys += d.feed([byte]) }
        #expect(keys == expected)
    }

    @Test func anIncompleteSequenceFlushesAsEscapeAndText() {
        var d = KeyDecoder()
        #expect(d.feed(Array("\u{1b}[".utf8)) == [])
        #expect(d.flush() == [.escape, .char("[")])
    }

    @Test func invalidUTF8BecomesReplacementCharacters() {
        var d = KeyDecoder()
        #expect(d.feed([0xFF, 0x61]) == [.char("\u{FFFD}"), .char("a")])
        #expect(d.feed([0xE6, 0x61]) == [.char("\u{FFFD}"), .char("a")])
    }

    @Test func keysWithTheirBytesAndWhatIsPending() {
        var d = KeyDecoder()
        let decoded = d.feedKeepingBytes(Array(":so\u{1b}[Aé\u{1b}[".utf8))
        #expect(decoded.map(\.key) == [.char(":"), .char("s"), .char("o"), .up, .char("é")])
        #expect(decoded.map(\.bytes) == [[0x3A], [0x73], [0x6F], [0x1B, 0x5B, 0x41], [0xC3, 0xA9]])
        // An incomplete sequence is given up as bytes (for the prompt), leaving nothing pending.
        #expect(d.isPending)
        #expect(d.takePending() == [0x1B, 0x5B])
        #expect(!d.isPending && d.flush().isEmpty)
    }

    @Test func keyNames() {
        #expect([Key.down, .pageUp, .backTab, .char(" "), .ctrl("c"), .char("j"), .enter].map(\.name)
                == ["↓", "PgUp", "Shift-Tab", "Space", "Ctrl-C", "j", "Enter"])
    }
}
