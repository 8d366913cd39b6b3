import CSVTable
import Foundation

/// `tabdeck-csv --floors FILE`: the floors the bench's breakdown of the sort task measures its
/// phases against (issue 28), timed in this process on one thread, one JSON line each:
///
/// - `read`: one pass over the mapped file, adding its 8-byte words (the least any parse costs);
/// - `newlines`: the file's newlines counted with `memchr` (what `wc -l` does);
/// - `loop`: a plain loop over one 64-bit key a row keeping the largest (the least a top-k
///   over the rows costs);
/// - `store`: one 64-bit key a row written to memory (the least storing a column's keys costs).
///
/// Each is the best of 3 tries. The file is read through `mmap` as the engine reads it.
enum Floors {
    static func run(path: String) throws {
        let fd = open(path, O_RDONLY)
        guard fd >= 0 else { throw CSVError("cannot open \(path)") }
        defer { close(fd) }
        var st = stat()
        fstat(fd, &st)
        let size = Int(st.st_size)
        guard size > 0, let map = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), map != MAP_FAILED else {
            throw CSVError("cannot map \(path)")
        }
        defer { munmap(map, size) }
        _ = madvise(map, size, MADV_SEQUENTIAL)
        let base = UnsafeRawPointer(map)
        var sum: UInt64 = 0
        report("read", best {
            var s: UInt64 = 0, i = 0
            while i + 8 <= size { s &+= base.loadUnaligned(fromByteOffset: i, as: UInt64.self); i += 8 }
            sum &+= s
        }, size: size)
        var lines = 0
        report("newlines", best {
            var n = 0, i = 0
            while i < size, let p = memchr(base + i, 0x0A, size - i) { n += 1; i = UnsafeRawPointer(p) - base + 1 }
            lines = n
        }, size: size)
        let rows = max(lines, 1)
        let keys = UnsafeMutablePointer<UInt64>.allocate(capacity: rows)
        defer { keys.deallocate() }
        report("store", best {
            var k: UInt64 = 0x9E37_79B9_7F4A_7C15
            for i in 0..<rows { k = k &* 6_364_136_223_846_793_005 &+ 1; keys[i] = k }
        }, size: size, rows: rows)
        report("loop", best {
            var m: UInt64 = 0
            for i in 0..<rows where keys[i] > m { m = keys[i] }
            sum &+= m
        }, size: size, rows: rows)
        if sum == 42 { print("") }  // keeps the loops from being optimised away
    }

    static func best(_ body: () -> Void) -> Double {
        var b = Double.infinity
        for _ in 0..<3 {
            let t0 = PhaseLog.now()
            body()
            b = min(b, PhaseLog.now() - t0)
        }
        return b
    }

    static func report(_ name: String, _ seconds: Double, size: Int, rows: Int? = nil) {
        var line = "{\"floor\":\"\(name)\",\"s\":\(String(format: "%.6f", seconds)),\"bytes\":\(size)"
        if let rows { line += ",\"rows\":\(rows)" }
        print(line + "}")
    }
}
