import Glibc
import Testing
@testable import TabdeckSupervisor

/// The host-to-plugin queue is bounded: a plugin that stops reading its stdin gets lines
/// refused (ENOBUFS) instead of the host's memory growing, and takes lines again once it reads.
@Suite struct PipeWriterBoundTests {
    @Test func aPluginThatReadsNothingFillsTheQueueToItsBoundThenLinesAreRefused() {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let limit = 256 << 10
        let writer = PipeWriter(fd: fds[1], name: "bound-test", limit: limit)
        let line = [UInt8](repeating: UInt8(ascii: "x"), count: 4095) + [10]
        var accepted = 0
        var refusal: PipeWriter.State?
        // Far more than the pipe (64 KiB) and the bound together.
        for _ in 0..<1000 {
            if let refused = writer.enqueue(line) { refusal = refused; break }
            accepted += line.count
        }
        #expect(refusal == .closed(errno: ENOBUFS))
        // What was taken: at most the bound queued, plus what the thread holds (the pipe's 64 KiB,
        // and the batch it is writing, itself within the bound).
        #expect(accepted <= 2 * limit + (64 << 10) + line.count, "\(accepted) bytes taken")
        #expect(writer.state == .open, "a full queue does not close the pipe")
        // The plugin reads everything: lines are taken again.
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var drained = 0
        var taken = false
        while !taken {
            let n = read(fds[0], &buffer, buffer.count)
            #expect(n > 0)
            drained += n
            if drained >= accepted { taken = writer.enqueue(line) == nil }
        }
        #expect(taken)
        writer.abandonAndClose()
        close(fds[0])
    }
}
