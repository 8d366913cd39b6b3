import Testing
@testable import TabdeckTerminal

/// Mouse reports in raw terminal bytes: SGR (1006), urxvt (1015) and legacy X10 (1000), past
/// column 223, split across reads, buttons Tabdeck does not use, and Esc still a key.
@Suite struct MouseDecoderTests {
    func keys(_ chunks: [UInt8]...) -> [Key] {
        var d = KeyDecoder()
        return chunks.flatMap { d.feed($0) } + d.flush()
    }

    func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }

    @Test func sgrPressReleaseDragAndModifiers() {
        #expect(keys(bytes("\u{1b}[<0;10;5M")) == [.mouse(MouseEvent(.press, .left, x: 9, y: 4))])
        #expect(keys(bytes("\u{1b}[<0;10;5m")) == [.mouse(MouseEvent(.release, .left, x: 9, y: 4))])
        #expect(keys(bytes("\u{1b}[<2;1;1M")) == [.mouse(MouseEvent(.press, .right, x: 0, y: 0))])
        #expect(keys(bytes("\u{1b}[<32;11;5M")) == [.mouse(MouseEvent(.drag, .left, x: 10, y: 4))])
        #expect(keys(bytes("\u{1b}[<28;1;2M")) == [.mouse(MouseEvent(.press, .left, x: 0, y: 1, shift: true, alt: true, ctrl: true))])
    }

    @Test func sgrWheelNotchesVerticalHorizontalAndWithShift() {
        #expect(keys(bytes("\u{1b}[<64;3;4M\u{1b}[<65;3;4M\u{1b}[<66;3;4M\u{1b}[<67;3;4M")) == [
            .mouse(MouseEvent(.wheelUp, .unknown, x: 2, y: 3)), .mouse(MouseEvent(.wheelDown, .unknown, x: 2, y: 3)),
            .mouse(MouseEvent(.wheelLeft, .unknown, x: 2, y: 3)), .mouse(MouseEvent(.wheelRight, .unknown, x: 2, y: 3)),
        ])
        #expect(keys(bytes("\u{1b}[<69;3;4M")) == [.mouse(MouseEvent(.wheelDown, .unknown, x: 2, y: 3, shift: true))])
    }

    @Test func sgrPastColumn223() {
        #expect(keys(bytes("\u{1b}[<0;300;2M")) == [.mouse(MouseEvent(.press, .left, x: 299, y: 1))])
    }

    @Test func x10PressAndRelease() {
        #expect(keys([0x1b, 0x5b, 0x4d, 32, 32 + 10, 32 + 5]) == [.mouse(MouseEvent(.press, .left, x: 9, y: 4))])
        #expect(keys([0x1b, 0x5b, 0x4d, 35, 32 + 10, 32 + 5]) == [.mouse(MouseEvent(.release, .unknown, x: 9, y: 4))])
        #expect(keys([0x1b, 0x5b, 0x4d, 32 + 64 + 1, 33, 33]) == [.mouse(MouseEvent(.wheelDown, .unknown, x: 0, y: 0))])
        // Raw bytes 0x80–0xFF (columns 96 to 223) are plain values.
        #expect(keys([0x1b, 0x5b, 0x4d, 32, 0xFF, 0x90]) == [.mouse(MouseEvent(.press, .left, x: 222, y: 111))])
    }

    /// Past column 223 a terminal in UTF-8 mode writes the value as a UTF-8 character.
    @Test func x10PastColumn223AsUTF8() {
        let column = Array(String(Unicode.Scalar(300 + 32)!).utf8)  // C5 8C
        #expect(column.count == 2)
        #expect(keys([0x1b, 0x5b, 0x4d, 32] + column + [32 + 7]) == [.mouse(MouseEvent(.press, .left, x: 299, y: 6))])
        #expect(keys([0x1b, 0x5b, 0x4d, 32] + column + [32 + 7] + bytes("j")) == [.mouse(MouseEvent(.press, .left, x: 299, y: 6)), .char("j")])
    }

    @Test func urxvtReport() {
        #expect(keys(bytes("\u{1b}[32;10;5M")) == [.mouse(MouseEvent(.press, .left, x: 9, y: 4))])
    }

    /// A report cut anywhere between two reads decodes as if it came whole.
    @Test func aReportSplitAcrossTwoReads() {
        let reports: [[UInt8]] = [
            bytes("\u{1b}[<0;10;5M"), bytes("\u{1b}[<65;120;40M"),
            [0x1b, 0x5b, 0x4d, 32, 32 + 10, 32 + 5],
            [0x1b, 0x5b, 0x4d, 32] + Array(String(Unicode.Scalar(400 + 32)!).utf8) + [40],
        ]
        for report in reports {
            let whole = keys(report)
            #expect(whole.count == 1)
            for cut in 1..<report.count {
                #expect(keys(Array(report[..<cut]), Array(report[cut...])) == whole, "cut at \(cut)")
            }
        }
    }

    /// Mouse reports mixed with keys, cut at every point: the same keys as in one read (the
    /// `keys` fuzz target's invariant, on inputs made of report fragments; seeded, so it replays).
    @Test func mixedInputSplitAnywhereGivesTheSameKeys() {
        let pieces: [[UInt8]] = [
            bytes("\u{1b}[<0;10;5M"), bytes("\u{1b}[<32;300;2M"), bytes("\u{1b}[<65;1;1M"), bytes("\u{1b}[<128;1;1m"),
            [0x1b, 0x5b, 0x4d, 32, 0xC5, 0x8C, 40], [0x1b, 0x5b, 0x4d, 35, 0xC2], [0x1b, 0x5b, 0x4d], [0x1b], [0xC3, 0xA9],
            bytes("j"), bytes("\u{1b}[A"), bytes("\u{1b}[32;1;1M"), [0x1b, 0x5b, 0x3c],
        ]
        var seed: UInt64 = 16
        func next(_ n: Int) -> Int {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            return Int((seed >> 33) % UInt64(n))
        }
        for _ in 0..<200 {
            let input = (0..<(1 + next(6))).flatMap { _ in pieces[next(pieces.count)] }
            let whole = keys(input)
            for cut in 0...input.count {
                #expect(keys(Array(input[..<cut]), Array(input[cut...])) == whole, "\(input) cut at \(cut)")
            }
        }
    }

    /// Buttons 8 and beyond (back, forward), motion without a button and malformed reports are
    /// passed over: no key, and what follows is decoded.
    @Test func unknownButtonsAreIgnored() {
        #expect(keys(bytes("\u{1b}[<128;1;1Mj")) == [.char("j")])
        #expect(keys(bytes("\u{1b}[<129;1;1mj")) == [.char("j")])
        #expect(keys(bytes("\u{1b}[<35;4;4Mj")) == [.char("j")])
        #expect(keys([0x1b, 0x5b, 0x4d, 32 + 128, 33, 33] + bytes("j")) == [.char("j")])
        #expect(keys(bytes("\u{1b}[<0;0;1Mj")) == [.char("j")])  // no column 0
    }

    /// A lone Esc is still the Esc key, after a report too; an Esc that starts a report waits
    /// for the rest of it.
    @Test func aLoneEscIsStillAKey() {
        var d = KeyDecoder()
        #expect(d.feed(bytes("\u{1b}[<0;1;1M")) == [.mouse(MouseEvent(.press, .left, x: 0, y: 0))])
        #expect(d.feed([0x1b]) == [])
        #expect(d.isPending)
        #expect(d.flush() == [.escape])
        #expect(d.feed([0x1b, 0x5b, 0x4d]) == [])
        #expect(d.isPending)
        #expect(d.feed([32, 33, 33]) == [.mouse(MouseEvent(.press, .left, x: 0, y: 0))])
    }
}
