import Foundation
import GRDB
import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import SQLiteBrowser

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func bump() { lock.lock(); value += 1; lock.unlock() }
    var count: Int { lock.lock(); defer { lock.unlock() }; return value }
}

@Suite struct ChangeTests {
    @Test func commitsByAnotherProcessDropCountsAndAnchors() throws {
        let db = try deepDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let changes = Flag()
        file.onChange = { changes.bump() }
        let table = try file.table(named: "deep")
        file.requestCount(table: "deep", urgent: true)
        #expect(file.waitForCount(table: "deep", timeout: 10) == 20_000)
        _ = try table.page(offset: 0, limit: 100, sort: [asc("s")])
        #expect(try table.page(offset: 100, limit: 100, sort: [asc("s")]).plan == .keyset(anchor: 100, skip: 0))

        try db.write { db in try db.execute(sql: "INSERT INTO deep (k, s) VALUES (1, 'a'), (2, 'a')") }
        let after = try table.page(offset: 100, limit: 100, sort: [asc("s")])
        #expect(changes.count == 1)
        #expect(after.plan == .offset(100))  // the anchor belonged to the old data
        #expect(after.rows == (try table.page(offset: 100, limit: 100, sort: [asc("s")], mode: .offsetOnly)).rows)
        #expect(table.cachedCount(filter: nil) == nil)
        file.requestCount(table: "deep")
        #expect(file.waitForCount(table: "deep", timeout: 10) == 20_002)
    }

    @Test func cancelledAndOverlongQueriesStop() throws {
        let db = try deepDatabase()
        let file = try DatabaseFile(path: db.path)
        defer { file.close() }
        let table = try file.table(named: "deep")
        let flag = CancellationFlag()
        flag.cancel()
        #expect(throws: CancellationError.self) {
            try table.page(offset: 19_000, limit: 10, sort: [asc("m")], watch: QueryGuard(cancel: flag))
        }
        #expect(throws: QueryTimeout.self) {
            try table.page(offset: 19_000, limit: 10, sort: [asc("s"), desc("m")], watch: QueryGuard(seconds: 0))
        }
        // The connection is fine afterwards.
        #expect(try table.page(offset: 0, limit: 3, sort: [asc("k")]).rows.count == 3)
    }
}
