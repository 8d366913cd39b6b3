import Foundation
import TabdeckCore
import TabdeckProtocol
import TabdeckStore

/// The state database as a crash, a full disk or another program may leave it: a real
/// database file cut short or overwritten with noise where the input says.
///
/// Invariants: opening gives a usable database (layout and views load), or a recovery that
/// moved the file aside byte for byte (never deleted, so nothing is silently lost), or a
/// ``StoreError`` that names the file; never a crash.
enum StateTarget {
    static let target = FuzzTarget(
        name: "state",
        summary: "a state database cut short or overwritten: usable, moved aside intact, or a clear error",
        check: check)

    /// A database with a layout and a view, made once per process: what the inputs damage.
    static let template: [UInt8] = {
        let folder = scratch("template")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            let (db, _) = try AppDatabase.open(stateDirectory: folder)
            try db.saveView(TableViewState(sort: [SortKey("name", .descending)], cursor: 7, selection: ["a", "b"], filter: "x"),
                            tab: "t", table: "root")
            try db.close()
        } catch { fatalError("cannot make the template database: \(error)") }
        return Array(FileManager.default.contents(atPath: folder + "/tabdeck.sqlite") ?? Data())
    }()

    static func scratch(_ name: String) -> String {
        NSTemporaryDirectory() + "/tabdeck-fuzz-state-\(getpid())-\(name)"
    }

    static func check(_ input: [UInt8]) -> FuzzViolation? {
        var reader = FuzzReader(input)
        let mode = reader.byte()
        let at = reader.uint16() * 8 % max(template.count, 1)
        let noise = reader.rest
        var file = template
        switch mode % 3 {
        case 0: file = Array(file.prefix(at))  // cut short
        case 1:  // overwritten with noise at `at`
            for (i, b) in noise.enumerated() where at + i < file.count { file[at + i] = b }
        default: file = noise  // not a database at all
        }
        let folder = scratch("db")
        try? FileManager.default.removeItem(atPath: folder)
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/tabdeck.sqlite"
        FileManager.default.createFile(atPath: path, contents: Data(file))
        do {
            let (db, recovery) = try AppDatabase.open(stateDirectory: folder)
            defer { try? db.close() }
            if let recovery {
                guard let moved = FileManager.default.contents(atPath: recovery.movedTo), Array(moved) == file else {
                    return FuzzViolation("state", "a broken database is moved aside byte for byte",
                                         "mode \(mode % 3) at \(at): \(recovery.movedTo) is missing or changed")
                }
            }
            do {
                _ = try db.loadLayout()
                _ = try db.loadAllViews()
            } catch {
                // A database that opened but cannot be read is an error the app reports; it names the file.
                guard "\(error)".contains(folder) else {
                    return FuzzViolation("state", "an error names the file", "mode \(mode % 3) at \(at): \(error)")
                }
            }
            return nil
        } catch {
            guard "\(error)".contains(folder) else {
                return FuzzViolation("state", "an error names the file", "mode \(mode % 3) at \(at): \(error)")
            }
            guard let left = FileManager.default.contents(atPath: path), Array(left) == file else {
                return FuzzViolation("state", "a database that cannot be opened is left as it was", "mode \(mode % 3) at \(at): \(error)")
            }
            return nil
        }
    }
}
