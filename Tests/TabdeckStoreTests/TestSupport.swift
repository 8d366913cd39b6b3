import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fresh folder under the system temp directory, removed by `remove()`.
struct TempDirectory {
    let path: String

    init(_ name: String = #function) {
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = NSTemporaryDirectory() + "tabdeck-store-\(safe)-\(UUID().uuidString)"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Makes a folder read-only for this process: `chmod 555`, and where that is not enough
/// (root ignores file modes) the immutable attribute via `chattr +i`.
enum ReadOnlyDirectory {
    /// Whether this machine can make a folder read-only for us at all (probed once).
    static let isSupported: Bool = {
        let dir = TempDirectory("probe")
        defer { dir.remove() }
        guard let undo = make(dir.path) else { return false }
        undo()
        return true
    }()

    /// Makes `path` read-only; returns how to undo it, or nil if this is impossible here.
    static func make(_ path: String) -> (() -> Void)? {
        chmod(path, 0o555)
        if !canWrite(in: path) { return { chmod(path, 0o755) } }
        if chattr("+i", path), !canWrite(in: path) {
            return { _ = chattr("-i", path); chmod(path, 0o755) }
        }
        _ = chattr("-i", path)
        chmod(path, 0o755)
        return nil
    }

    private static func canWrite(in path: String) -> Bool {
        let probe = path + "/.probe"
        guard FileManager.default.createFile(atPath: probe, contents: Data()) else { return false }
        unlink(probe)
        return true
    }

    private static func chattr(_ flag: String, _ path: String) -> Bool {
        for tool in ["/usr/bin/chattr", "/bin/chattr"] where FileManager.default.isExecutableFile(atPath: tool) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: tool)
            process.arguments = [flag, path]
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return false }
            process.waitUntilExit()
            return process.terminationStatus == 0
        }
        return false
    }
}
