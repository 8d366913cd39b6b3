import Foundation
import Testing
import TabdeckCore
@testable import TabdeckStore

/// One Tabdeck per state folder.
@Suite struct StateLockTests {
    @Test func aSecondOpenIsRefusedNamingTheFirst() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let owner = StateLockOwner(pid: getpid(), started: 1_795_560_000, mode: "full screen")  // 2026-11-24 22:40 UTC
        let (first, _) = try AppDatabase.open(stateDirectory: dir.path, owner: owner)
        #expect(StateLock.holder(directory: dir.path) == owner)
        do {
            _ = try AppDatabase.open(stateDirectory: dir.path, owner: .current(mode: "line mode"))
            Issue.record("a second open of the same folder succeeded")
        } catch {
            guard case .inUse(let path, _) = error else { Issue.record("wrong error: \(error)"); return }
            #expect(path == dir.path)
            #expect(error.description == "the state folder \(dir.path) is in use by tabdeck pid \(getpid()) "
                    + "(started 2026-11-24 22:40 UTC, full screen); quit that one first, "
                    + "or start this one with another state folder (--state-dir)")
        }
        // The refused open changed nothing: the first one still works.
        try first.saveView(TableViewState(cursor: 5), tab: "t", table: "")
        try first.close()
        #expect(StateLock.holder(directory: dir.path) == nil)
        let (second, _) = try AppDatabase.open(stateDirectory: dir.path)
        #expect(try second.loadView(tab: "t", table: "")?.cursor == 5)
        #expect(StateLock.holder(directory: dir.path)?.mode == "line mode")
        try second.close()
    }

    @Test func theLockGoesWithTheDatabaseObject() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        do {
            let (db, _) = try AppDatabase.open(stateDirectory: dir.path)
            #expect(StateLock.holder(directory: dir.path)?.pid == getpid())
            _ = db
        }
        #expect(StateLock.holder(directory: dir.path) == nil)
        let (again, _) = try AppDatabase.open(stateDirectory: dir.path)
        try again.close()
    }

    /// A lock file left by a process that died (`kill -9`) holds its text but no lock.
    @Test func aStaleLockFileDoesNotBlock() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        try "pid 999999\nstarted 1\nmode full screen\n".write(toFile: dir.file(StateLock.fileName), atomically: true, encoding: .utf8)
        #expect(StateLock.holder(directory: dir.path) == nil)
        let (db, _) = try AppDatabase.open(stateDirectory: dir.path, owner: .current(mode: "line mode"))
        #expect(StateLock.holder(directory: dir.path)?.pid == getpid())
        try db.close()
    }

    @Test func ownerTextRoundTripsAndIsSanitized() {
        let owner = StateLockOwner(pid: 42, started: 0, mode: "full\u{1b}[2J screen\nx")
        let parsed = StateLockOwner.parse(owner.fileText)
        #expect(parsed?.pid == 42 && parsed?.started == 0)
        #expect(owner.description.contains("\u{1b}") == false)
        #expect(StateLockOwner.parse("") == nil)
        #expect(StateLockOwner.parse("garbage") == nil)
    }
}
