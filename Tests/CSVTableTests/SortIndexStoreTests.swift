import Foundation
import SeededRandom
import Testing
@testable import CSVTable

/// The persisted sort orders (issue 14, point 3): reuse on reopen, invalidation when the
/// file changes, the disk bound (LRU on a virtual clock) and removal.
@Suite struct SortIndexStoreTests {
    /// A clock tests move by hand.
    final class VirtualClock: @unchecked Sendable {
        var seconds: Double = 1_000_000
        func now() -> Date { Date(timeIntervalSince1970: seconds) }
    }

    /// A folder of its own for the store, removed with the object.
    final class Folder {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sortidx-\(UUID().uuidString)").path
        deinit { try? FileManager.default.removeItem(atPath: path) }
    }

    static func csv(rows: Int, seed: UInt64) -> String {
        var rng = SplitMix(seed: seed)
        var text = "id,name,amount\n"
        for i in 0..<rows {
            text += "\(i + 1),n\(Int.random(in: 0..<50, using: &rng)),\(Int.random(in: 0..<1000, using: &rng)).\(Int.random(in: 10..<99, using: &rng))\n"
        }
        return text
    }

    static let sort = [CSVSortKey(column: 1), CSVSortKey(column: 2, descending: true)]

    func open(_ file: TempFile, _ store: SortIndexStore?) throws -> CSVTable {
        try CSVTable(path: file.path, options: .init(sortIndex: store))
    }

    @Test func aSortIsPersistedAndReadBackWithTheSameOrderAndRecords() throws {
        let folder = Folder(), file = TempFile(Self.csv(rows: 500, seed: 1))
        let store = SortIndexStore(directory: folder.path)
        let first = try open(file, store)
        let page = try first.page(offset: 0, limit: 500, sort: Self.sort)
        let plain = try open(file, nil).page(offset: 0, limit: 500, sort: Self.sort)
        #expect(page == plain)
        #expect(store.entries().count == 1)

        let again = try open(file, store)
        let head = try #require(again.persisted?.head(Self.sort))
        #expect(head.rowCount == 500)
        #expect(head.rows.map { Int($0) } == page.rows)
        let offsets = again.index.snapshot()
        #expect(head.starts == page.rows.map { offsets[$0] })
        #expect(head.ends == page.rows.map { $0 + 1 < offsets.count ? offsets[$0 + 1] : again.fileSize })
        #expect(again.persisted?.order(Self.sort, rowCount: 500)?.map { Int($0) } == page.rows)
    }

    @Test func reopeningServesThePersistedOrderInsteadOfSorting() throws {
        let folder = Folder(), file = TempFile(Self.csv(rows: 300, seed: 2))
        let store = SortIndexStore(directory: folder.path)
        let identity = try #require(SortIndexStore.FileIdentity.of(path: file.path))
        // An order no sort would give (reversed file order): served only if read from disk.
        let planted = (0..<300).reversed().map { UInt32($0) }
        let key = SortIndexStore.keyText(path: file.path, delimiter: Byte.comma, sort: Self.sort)
        #expect(store.save(order: planted, key: key, identity: identity) { ($0, $0 + 1) })
        let page = try open(file, store).page(offset: 0, limit: 10, sort: Self.sort)
        #expect(page.rows == Array((290..<300).reversed()))
        #expect(page.total == 300)
        // Without the store the same table sorts.
        #expect(try open(file, nil).page(offset: 0, limit: 10, sort: Self.sort).rows != page.rows)
    }

    @Test func aChangedFileInvalidatesItsEntry() throws {
        let folder = Folder(), file = TempFile(Self.csv(rows: 200, seed: 3))
        let store = SortIndexStore(directory: folder.path)
        _ = try open(file, store).page(offset: 0, limit: 5, sort: Self.sort)
        #expect(store.entries().count == 1)

        // Same size, another modification time: stale.
        var times = [timespec(tv_sec: 1_000, tv_nsec: 0), timespec(tv_sec: 1_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file.path, &times, 0) == 0)
        let touched = try open(file, store)
        #expect(touched.persisted?.head(Self.sort) == nil)
        #expect(store.entries().isEmpty)  // the stale entry was deleted
        _ = try touched.page(offset: 0, limit: 5, sort: Self.sort)
        #expect(store.entries().count == 1)

        // Other content (another size): stale too, and the fresh sort is the right one.
        let changed = Self.csv(rows: 210, seed: 4)
        try changed.write(toFile: file.path, atomically: false, encoding: .utf8)
        let reopened = try open(file, store)
        #expect(reopened.persisted?.head(Self.sort) == nil)
        let page = try reopened.page(offset: 0, limit: 210, sort: Self.sort)
        #expect(page == (try open(file, nil).page(offset: 0, limit: 210, sort: Self.sort)))
    }

    @Test func entriesAreBoundedLeastRecentlyUsedFirst() throws {
        let folder = Folder(), clock = VirtualClock(), file = TempFile(Self.csv(rows: 1000, seed: 5))
        let identity = try #require(SortIndexStore.FileIdentity.of(path: file.path))
        let order = (0..<1000).map { UInt32($0) }
        let keys = (0..<3).map { SortIndexStore.keyText(path: file.path, delimiter: Byte.comma, sort: [CSVSortKey(column: $0)]) }
        // One entry: 56 header bytes, the key, 1000 × 20 head bytes, 1000 × 4 order bytes.
        let entrySize = 56 + keys[0].utf8.count + 1000 * 24
        let store = SortIndexStore(directory: folder.path, capacity: entrySize * 2 + 100, now: { clock.now() })
        let names = keys.map { (store.entryPath($0) as NSString).lastPathComponent }

        #expect(store.save(order: order, key: keys[0], identity: identity) { ($0, $0 + 1) })
        clock.seconds += 10
        #expect(store.save(order: order, key: keys[1], identity: identity) { ($0, $0 + 1) })
        #expect(store.entries() == [names[0], names[1]])
        clock.seconds += 10
        #expect(store.head(key: keys[0], identity: identity) != nil)  // used: now the most recent
        #expect(store.entries() == [names[1], names[0]])
        clock.seconds += 10
        #expect(store.save(order: order, key: keys[2], identity: identity) { ($0, $0 + 1) })
        #expect(store.entries() == [names[0], names[2]])  // keys[1], least recently used, went
        #expect(store.head(key: keys[1], identity: identity) == nil)

        // An order larger than the whole bound is not written at all.
        let small = SortIndexStore(directory: folder.path + "-small", capacity: 1000)
        #expect(!small.save(order: order, key: keys[0], identity: identity) { ($0, $0 + 1) })
        #expect(small.entries().isEmpty)
    }

    @Test func clearDeletesEveryEntry() throws {
        let folder = Folder(), file = TempFile(Self.csv(rows: 100, seed: 6))
        let store = SortIndexStore(directory: folder.path)
        let table = try open(file, store)
        _ = try table.page(offset: 0, limit: 5, sort: Self.sort)
        _ = try table.page(offset: 0, limit: 5, sort: [CSVSortKey(column: 0, descending: true)])
        #expect(store.entries().count == 2)
        #expect(try SortIndexStore.clear(directory: folder.path) == 2)
        #expect(!FileManager.default.fileExists(atPath: folder.path))
        #expect(try open(file, store).persisted?.head(Self.sort) == nil)
        #expect(try SortIndexStore.clear(directory: folder.path) == 0)
    }

    @Test func theEnvironmentNamesTheFolderAndTheBound() {
        #expect(SortIndexStore.fromEnvironment([:]) == nil)
        #expect(SortIndexStore.fromEnvironment(["TABDECK_CACHE_DIR": ""]) == nil)
        let store = SortIndexStore.fromEnvironment(["TABDECK_CACHE_DIR": "/x/cache", "TABDECK_CSV_SORT_CACHE_MB": "5"])
        #expect(store?.directory == "/x/cache/csv-sort")
        #expect(store?.capacity == 5 << 20)
    }
}
