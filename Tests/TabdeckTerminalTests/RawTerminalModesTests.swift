import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import TabdeckTerminal
@testable import TabdeckTerminalIO

/// The bytes ``RawTerminal`` writes to the terminal, read from the master side of a pseudo
/// terminal: mouse reporting (modes 1000, 1002, 1006) is off whenever the terminal is given
/// back (Ctrl-Z, the `:` prompt, a crash) and on again when Tabdeck takes it back.
/// Serialized: the saved terminal state is the process's (signal handlers restore it).
@Suite(.serialized) struct RawTerminalModesTests {
    /// A pseudo terminal: Tabdeck's side (`slave`) and what the terminal emulator reads (`master`).
    final class PTY {
        let master: Int32
        let slave: Int32

        init() throws {
            // posix_openpt and friends, as Linux's ioctls (Glibc's module leaves them out).
            let unlock: UInt = 0x4004_5431, number: UInt = 0x8004_5430  // TIOCSPTLCK, TIOCGPTN
            master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
            var locked: Int32 = 0, n: UInt32 = 0
            guard master >= 0, ioctl(master, unlock, &locked) == 0, ioctl(master, number, &n) == 0 else {
                throw CocoaError(.fileNoSuchFile)
            }
            slave = open("/dev/pts/\(n)", O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw CocoaError(.fileNoSuchFile) }
            _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)
        }

        deinit { close(slave); close(master) }

        /// What was written since the last read: read until `until` is in it, or until nothing
        /// more comes for half a second (the kernel hands the bytes over asynchronously).
        func written(until: String) -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !String(decoding: bytes, as: UTF8.self).contains(until) {
                var p = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                guard poll(&p, 1, 500) > 0 else { break }
                let n = read(master, &buffer, buffer.count)
                guard n > 0 else { break }
                bytes += buffer[0..<n]
            }
            return String(decoding: bytes, as: UTF8.self)
        }

        /// Whether Tabdeck's side is in canonical (cooked) mode.
        var canonical: Bool {
            var t = termios()
            tcgetattr(slave, &t)
            return t.c_lflag & tcflag_t(ICANON) != 0
        }
    }

    static let alternateOn = "\u{1b}[?1049h", alternateOff = "\u{1b}[?1049l"

    /// Entering writes the modes on; Ctrl-Z's stop writes them off (with the main screen and
    /// cooked mode) before the process stops, and on again (with the alternate screen and raw
    /// mode) once it is continued (`fg`).
    @Test func ctrlZTurnsTheMouseOffAndFgOnAgain() throws {
        let pty = try PTY()
        let terminal = RawTerminal(input: pty.slave, output: pty.slave)
        defer { terminal.leave() }
        terminal.setMouse(true)
        terminal.enter()
        let entered = pty.written(until: MouseModes.on)
        #expect(entered.contains(Self.alternateOn) && entered.hasSuffix(MouseModes.on))
        #expect(!pty.canonical)

        var whileStopped = ""
        var cookedWhileStopped = false
        terminal.stopProcess {
            whileStopped = pty.written(until: Self.alternateOff)
            cookedWhileStopped = pty.canonical
        }
        #expect(whileStopped.hasPrefix(MouseModes.off), "the mouse modes off first: \(whileStopped.debugDescription)")
        #expect(whileStopped.contains(Self.alternateOff))
        #expect(!whileStopped.contains(MouseModes.on))
        #expect(cookedWhileStopped)
        let continued = pty.written(until: MouseModes.on)
        #expect(continued.contains(Self.alternateOn) && continued.hasSuffix(MouseModes.on), "\(continued.debugDescription)")
        #expect(!pty.canonical)
    }

    /// With the mouse left to the terminal (`mouse off`), taking the terminal back after `fg`
    /// does not turn reporting on.
    @Test func fgKeepsTheMouseOffWhenItWasOff() throws {
        let pty = try PTY()
        let terminal = RawTerminal(input: pty.slave, output: pty.slave)
        defer { terminal.leave() }
        terminal.setMouse(true)
        terminal.enter()
        _ = pty.written(until: MouseModes.on)
        terminal.setMouse(false)
        #expect(pty.written(until: MouseModes.off) == MouseModes.off)
        terminal.stopProcess {}
        let bytes = pty.written(until: "\u{1b}[2J")
        #expect(bytes.contains(Self.alternateOn))
        #expect(!bytes.contains(MouseModes.on))
    }

    /// The `:` prompt (cooked mode for readline) turns reporting off, so no report is typed into
    /// the command line, and on again after it.
    @Test func thePromptTurnsTheMouseOffAndOnAgain() throws {
        let pty = try PTY()
        let terminal = RawTerminal(input: pty.slave, output: pty.slave)
        defer { terminal.leave() }
        terminal.setMouse(true)
        terminal.enter()
        _ = pty.written(until: MouseModes.on)
        terminal.suspend()
        #expect(pty.written(until: MouseModes.off).hasSuffix(MouseModes.off))
        #expect(pty.canonical)
        terminal.resume()
        #expect(pty.written(until: MouseModes.on).hasSuffix(MouseModes.on))
        #expect(!pty.canonical)
    }

    /// The restoration the fatal signals' handlers and `atexit` run (a crash of the host) turns
    /// the mouse modes off, with the main screen, the cursor and cooked mode; a second call
    /// writes nothing (the terminal is already restored).
    @Test func theCrashRestorationTurnsTheMouseOff() throws {
        let pty = try PTY()
        let terminal = RawTerminal(input: pty.slave, output: pty.slave)
        defer { terminal.leave() }
        terminal.setMouse(true)
        terminal.enter()
        _ = pty.written(until: MouseModes.on)
        restoreTerminal()
        let restored = pty.written(until: Self.alternateOff)
        #expect(restored == MouseModes.off + "\u{1b}[0m\u{1b}[?25h" + Self.alternateOff)
        #expect(pty.canonical)
        restoreTerminal()
        #expect(pty.written(until: "\u{1b}") == "")
    }
}
