// tabdeck-kit-example: a plugin on TabdeckPluginKit that uses every part of the protocol, as a
// model for Swift plugins (`tabdeck plugin check .build/debug/tabdeck-kit-example` passes).
//
// One table of 60 files in two sections (folders, then files, with counts and footers sent
// again under a filter and after every change); every column type; sorting by several keys
// (stable, within sections, nulls first, text by Unicode scalars); a filter over every cell's
// text; children (each folder opens its 3 entries, two levels deep) and `close`; actions: `rename`
// (one row, a form with a required field), `delete` (destructive, many rows) and `add` (the table
// itself, a form); rows that move (`move`); `invalidate` with the new total and sections
// after every change (and once after the first page); `progress` while it reads the sort keys
// (the slow part of a sort in a real file system), stopping early when the request is cancelled
// (`$/cancel`: the kit then answers -32800); `locate`, answered from the same sorted and filtered
// view as `rows`.
import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// One row of the table, and what sorting and filtering read from it.
struct Entry: Sendable {
    var id: String
    var cells: [JSONValue]
    var section: String
    var hasChildren: Bool

    var row: Row { Row(id: id, cells: cells, section: section, detail: "\(section == "dirs" ? "folder" : "file") \(id)", hasChildren: hasChildren) }
}

/// The plugin's state, behind a lock: the kit calls the data source from several threads.
final class Files: TableDataSource, @unchecked Sendable {
    let capabilities: PluginCapabilities = {
        var c = PluginCapabilities(sort: true, multiSort: true, filter: true, sections: true,
                                   children: true, actions: true, live: true, move: true)
        c.locate = true
        return c
    }()
    /// Sort keys are read in batches of this many entries, with a progress notification and a
    /// look at the cancel flag after each.
    static let batch = 20
    static let columns = [
        ColumnSpec(id: "name", title: "Name"), ColumnSpec(id: "size", title: "Size", type: .integer),
        ColumnSpec(id: "ratio", type: .decimal), ColumnSpec(id: "hidden", type: .bool),
        ColumnSpec(id: "modified", type: .date), ColumnSpec(id: "kind", type: .enumeration(["dir", "file"])),
    ]
    static let actions = [
        ActionSpec(id: "rename", title: "Rename", rows: .one, input: [ActionField(id: "name", title: "New name", required: true)]),
        ActionSpec(id: "delete", title: "Delete", destructive: true, rows: .many),
        ActionSpec(id: "add", title: "Add a file", rows: ActionRows.none, input: [ActionField(id: "name", title: "Name", required: true)]),
    ]

    private let lock = NSLock()
    private var entries: [Entry] = []
    private var added = 0
    private var openChildren: Set<String> = []
    private var notifier: Notifier?
    private var announced = false

    init() {
        entries = (0..<60).map { i in
            let dir = i < 20
            return Entry(id: "f\(i)", cells: [.string("\(["alpha", "Bravo", "charlie", "Delta", "echo"][i % 5])-\(i)"),
                                               i % 13 == 5 ? .null : .int(Int64((i * 37) % 11 * 100)),
                                               .double(Double(i % 7) / 4), .bool(i % 3 == 0),
                                               .string(String(format: "2024-%02d-%02d", 1 + i % 12, 1 + i % 28)),
                                               .string(dir ? "dir" : "file")],
                         section: dir ? "dirs" : "files", hasChildren: dir && i % 5 == 0)
        }
    }

    func attach(_ notifier: Notifier) { lock.withLock { self.notifier = notifier } }

    func open(args: JSONValue) throws -> TableDescription {
        lock.withLock {
            TableDescription(table: "root", title: "Files", columns: Self.columns, total: entries.count,
                             sections: sections(of: entries), actions: Self.actions, movable: true)
        }
    }

    /// The two sections with their counts and footers, for these entries.
    func sections(of entries: [Entry]) -> [SectionSpec] {
        let dirs = entries.count { $0.section == "dirs" }, files = entries.count - dirs
        return [SectionSpec(id: "dirs", title: "Folders", footer: "\(dirs) folders", count: dirs),
                SectionSpec(id: "files", title: "Files", footer: "\(files) files", count: files)]
    }

    func rows(_ request: RowsRequest, cancel: CancellationFlag) throws -> RowsResult {
        if request.table.hasPrefix("child:") { return try childRows(request) }
        guard request.table == "root" else { throw RPCError.unknown(table: request.table) }
        // A plugin that counts in the background announces the count once known; this one
        // knows it at once, and says so after the first page, for the example's sake.
        if lock.withLock({ () -> Bool in defer { announced = true }; return !announced }) { changed() }
        let data = try view(filter: request.filter, sort: request.sort, cancel: cancel)
        let page = data.dropFirst(request.offset).prefix(request.limit).map(\.row)
        return request.result(Array(page), total: data.count, sections: request.filter == nil ? nil : sections(of: data))
    }

    /// The entries kept by the filter, in the order of the sort keys: what `rows` pages through
    /// and `locate` looks in.
    func view(filter: String?, sort: [SortKey], cancel: CancellationFlag) throws -> [Entry] {
        var data = lock.withLock { entries }
        if let filter {
            let needle = filter.lowercased()
            data = data.filter { entry in entry.cells.contains { Self.text($0).lowercased().contains(needle) } }
        }
        guard !sort.isEmpty else { return data }
        // Reading the sort keys is the slow part in a real file system (a stat per file): it
        // goes in batches, each followed by a look at the cancel flag (a cancelled request
        // stops here, and the kit answers -32800) and a progress notification.
        let notifier = lock.withLock { self.notifier }
        var keyed: [Entry] = []
        keyed.reserveCapacity(data.count)
        for start in stride(from: 0, to: data.count, by: Self.batch) {
            try cancel.check()
            keyed += data[start..<min(start + Self.batch, data.count)]
            notifier?.progress(done: Double(keyed.count), total: Double(data.count), message: "reading sort keys")
        }
        return try Self.sorted(keyed, by: sort)
    }

    /// Where the first of the rows asked for is in the view (PROTOCOL.md 11.9).
    func locate(_ request: LocateRequest, cancel: CancellationFlag) throws -> LocateResult {
        let ids: [String]
        if request.table.hasPrefix("child:") {
            ids = try childRows(RowsRequest(table: request.table, offset: 0, limit: 3)).rows.map(\.id)
        } else {
            guard request.table == "root" else { throw RPCError.unknown(table: request.table) }
            ids = try view(filter: request.filter, sort: request.sort, cancel: cancel).map(\.id)
        }
        for id in request.rows {
            if let offset = ids.firstIndex(of: id) { return LocateResult(row: id, offset: offset) }
        }
        return LocateResult(row: nil, offset: nil)
    }

    /// A cell's text, as a filter matches it (PROTOCOL.md 11.3).
    static func text(_ cell: JSONValue) -> String {
        switch cell {
        case .string(let s): s
        case .null: ""
        default: JSONWriter.string(cell)
        }
    }

    /// Sorted by the keys, each section on its own, ties in the natural order (a stable sort).
    static func sorted(_ data: [Entry], by keys: [SortKey]) throws -> [Entry] {
        let resolved = try keys.map { key throws -> (Int, Bool) in
            guard let index = columns.firstIndex(where: { $0.id == key.column }) else {
                throw RPCError.badParams("unknown sort column \(key.column)")
            }
            return (index, key.direction == .descending)
        }
        let ranked = data.enumerated().map { ($0.offset, $0.element) }
        return ranked.sorted { a, b in
            if a.1.section != b.1.section { return a.1.section == "dirs" }
            for (index, descending) in resolved {
                let order = compare(a.1.cells[index], b.1.cells[index])
                if order != 0 { return descending ? order > 0 : order < 0 }
            }
            return a.0 < b.0
        }.map(\.1)
    }

    /// -1, 0 or 1: nulls first, numbers numerically, false before true, text (and ISO dates, and
    /// the enum, whose values are in order) by Unicode scalars.
    static func compare(_ a: JSONValue, _ b: JSONValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.string(let x), .string(let y)):
            if x == y { return 0 }
            return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars) ? -1 : 1
        default:
            let x = a.doubleValue ?? 0, y = b.doubleValue ?? 0
            return x == y ? 0 : (x < y ? -1 : 1)
        }
    }

    func children(table: String, row: String) throws -> TableDescription {
        let known = lock.withLock { table == "root" ? entries.contains { $0.id == row && $0.hasChildren } : openChildren.contains(table) }
        guard table == "root" || table.hasPrefix("child:") else { throw RPCError.unknown(table: table) }
        guard known, table == "root" || row.hasSuffix("/0"), row.split(separator: "/").count < 3 else {
            throw RPCError.unsupported("row \(row) has no children")
        }
        let handle = "child:" + row
        lock.withLock { _ = openChildren.insert(handle) }
        return TableDescription(table: handle, title: "\(row) › entries",
                                columns: [ColumnSpec(id: "name", title: "Name"), ColumnSpec(id: "size", type: .integer)], total: 3)
    }

    func childRows(_ request: RowsRequest) throws -> RowsResult {
        guard lock.withLock({ openChildren.contains(request.table) }) else { throw RPCError.unknown(table: request.table) }
        let parent = String(request.table.dropFirst("child:".count))
        let rows = (0..<3).map { k in
            Row(id: "\(parent)/\(k)", cells: [.string("\(parent) entry \(k)"), .int(Int64(k * 10))],
                hasChildren: k == 0 && !parent.contains("/"))
        }
        return request.result(Array(rows.dropFirst(request.offset).prefix(request.limit)), total: rows.count)
    }

    func close(table: String) { lock.withLock { _ = openChildren.remove(table) } }

    func action(table: String, action: String, rows: [String], input: JSONObject) throws -> ActionResult {
        guard table == "root" else { throw RPCError.unknown(table: table) }
        guard let spec = Self.actions.first(where: { $0.id == action }) else { throw RPCError.badParams("unknown action \(action)") }
        for field in spec.input where field.required && input[field.id] == nil {
            throw RPCError.badParams("\(field.title): required", path: field.id)
        }
        let message: String = try lock.withLock {
            let ids = Set(entries.map(\.id))
            if let stray = rows.first(where: { !ids.contains($0) }) { throw RPCError.badParams("unknown row \(stray)") }
            switch action {
            case "rename":
                let index = entries.firstIndex { $0.id == rows[0] }!
                entries[index].cells[0] = input["name"] ?? .null
                return "renamed \(rows[0])"
            case "delete":
                entries.removeAll { rows.contains($0.id) }
                return "deleted \(rows.count)"
            default:
                added += 1
                entries.append(Entry(id: "new\(added)", cells: [input["name"] ?? .null, .int(0), .null, .bool(false), .null, .string("file")],
                                     section: "files", hasChildren: false))
                return "added new\(added)"
            }
        }
        changed()
        return ActionResult(message: message)
    }

    func move(_ request: MoveRequest) throws -> ActionResult {
        guard request.table == "root" else { throw RPCError.unknown(table: request.table) }
        try lock.withLock {
            guard let from = entries.firstIndex(where: { $0.id == request.row }),
                  entries.contains(where: { $0.id == request.target }) else { throw RPCError.badParams("unknown row") }
            let moved = entries.remove(at: from)
            let to = entries.firstIndex { $0.id == request.target }!
            guard entries[to].section == moved.section else {
                entries.insert(moved, at: from)
                throw RPCError.unsupported("rows move within their section")
            }
            entries.insert(moved, at: request.place == .before ? to : to + 1)
        }
        changed()
        return ActionResult(message: "moved \(request.row)")
    }

    /// Tells the host the table changed: the new total and sections (PROTOCOL.md 12.2).
    func changed() {
        lock.lock()
        let notifier = self.notifier, count = entries.count, now = sections(of: entries)
        lock.unlock()
        notifier?.invalidate(table: "root", total: count, sections: now)
    }
}

PluginRunner(name: "kit-example", version: "1.0.0", dataSource: Files(), clock: SystemClock()).run()
