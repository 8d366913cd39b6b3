import Foundation
import TabdeckProtocol
import TabdeckSupervisor

/// What a check needs in order to run.
enum Needs {
    /// A running plugin process.
    case process
    /// A successful handshake (the check may start a process of its own).
    case handshake
    /// A running plugin process that passed the handshake.
    case ready
    /// A running plugin whose `open` succeeded.
    case table
    /// ... and whose `rows` answers.
    case rows
}

/// The state shared by the checks of one run: the plugin session, what the plugin told us,
/// and the results so far.
final class CheckContext {
    let options: CheckOptions
    let session: PluginSession
    let tracer: ProtocolTracer?
    private let onResult: ((CheckResult) -> Void)?
    private(set) var results: [CheckResult] = []

    var identity: InitializeResult?
    var capabilities = PluginCapabilities()
    var handshakeOK = false
    /// Why the plugin could not be started, if it could not.
    var startFailure: String?
    var table: TableDescription?
    /// The row count as last reported (open, rows, invalidate).
    var total: Int?
    /// Why `rows` cannot be used (it timed out, or failed for every request).
    var rowsBroken: String?
    /// Replies the checker expects the supervisor to drop (to cancelled requests).
    var expectedDrops = 0
    /// The whole table in its natural order, if it has at most `wholeTableLimit` rows.
    var natural: TableRead?
    /// The invalidate count when `natural` was read.
    var naturalEpoch = -1
    private var generation = 0
    /// Row id → cells, from every page read since the last `invalidate`.
    private var seenCells: [String: [JSONValue]] = [:]
    private var seenCellsEpoch = 0
    /// Keys of the page warnings already reported (each kind once per run).
    private var reportedWarnings: Set<String> = []
    private var slowest: Duration?
    /// Pages sent ahead in batches, and how the batches were answered.
    var batches = RequestBatches()
    /// The whole table as each sort check read it (with the invalidate count then), for the
    /// checks that look at every sort order again (sections kept together under every sort).
    /// In the order the checks read them; a sort read again replaces its entry.
    private(set) var sortedReads: [(sort: [SortKey], read: TableRead, epoch: Int)] = []

    /// Keeps `read` as the whole table in the order `sort` (see ``sortedReads``).
    func keepSortedRead(_ sort: [SortKey], _ read: TableRead) {
        sortedReads.removeAll { $0.sort == sort }
        sortedReads.append((sort, read, session.invalidateCount))
    }
    /// The check during which the plugin died.
    private var goneDuring: String?
    /// Each failure and warning already reported, with the check that reported it: a later
    /// check that finds the same one does not report it again (one report per cause).
    private var reported: [String: String] = [:]
    /// Each named cause already reported (``Findings/causes``), with the check that reported it.
    private var reportedCauses: [String: String] = [:]

    init(options: CheckOptions, tracer: ProtocolTracer?, onResult: ((CheckResult) -> Void)?) {
        self.options = options
        self.tracer = tracer
        self.onResult = onResult
        session = PluginSession(timeout: options.timeout, handshakeTimeout: options.handshakeTimeout, clock: options.clock, tracer: tracer)
    }

    // MARK: Running checks

    /// Why a check with these needs cannot run, or nil.
    func skipReason(_ needs: Needs) -> String? {
        if needs == .handshake { return handshakeOK ? nil : "the handshake failed" }
        if let startFailure { return startFailure }
        if session.isGone { return goneReason }
        switch needs {
        case .process, .handshake: return nil
        case .ready: return handshakeOK ? nil : "the handshake failed"
        case .table: return table == nil ? "there is no table (open did not succeed)" : nil
        case .rows:
            if table == nil { return "there is no table (open did not succeed)" }
            return rowsBroken
        }
    }

    private var goneReason: String {
        let during = goneDuring.map { " during \"\($0)\"" } ?? ""
        if session.violationReason != nil { return "the plugin was stopped for a protocol violation\(during)" }
        return "the plugin \(session.exitStatus.map(describe) ?? "exited")\(during)"
    }

    /// Runs one check and records its line. The body returns the line's summary and adds
    /// failures and warnings to the findings; throwing `CheckAbort` fails (or skips) the check.
    /// With `retryOnChange`, a check that failed while the plugin sent `invalidate` is run
    /// again (up to 3 times), and then only warns: its data was changing under it.
    func check(_ name: String, needs: Needs, retryOnChange: Bool = false, _ body: (inout Findings) throws(CheckAbort) -> String) {
        if !options.selects(name) {
            let why = options.skip.contains(where: { name.hasPrefix($0) })
                ? "among --skip \(options.skip.joined(separator: ","))" : "not among --only \(options.only.joined(separator: ","))"
            record(CheckResult(name: name, status: .skipped, summary: "not run: \(why)"))
            return
        }
        if let reason = skipReason(needs) {
            record(CheckResult(name: name, status: .skipped, summary: "not run: \(reason)"))
            return
        }
        if let blocker = blocker(of: name) {
            record(CheckResult(name: name, status: .skipped, summary: "not run: \(blocker) failed, and its cause would fail this check too"))
            return
        }
        let started = options.clock.now()
        var attempts = 0
        var findings = Findings()
        var summary = ""
        var status = CheckStatus.passed
        var abortNotes: [String] = []
        while true {
            attempts += 1
            slowest = nil
            findings = Findings()
            abortNotes = []
            let invalidatesBefore = session.invalidateCount
            do {
                summary = try body(&findings)
                status = findings.status
            } catch {
                summary = error.reason
                status = error.skip ? .skipped : .failed
                abortNotes = error.notes
            }
            guard retryOnChange, status == .failed, !session.isGone,
                  session.invalidated(since: invalidatesBefore, within: .milliseconds(150)) else { break }
            if attempts < 3 { continue }
            findings.warnings = findings.failures + findings.warnings
            findings.failures = []
            findings.warn("the table changed while it was read (invalidate) in each of 3 attempts: order and id checks are not reliable")
            status = .warning
            break
        }
        if let slowest, slowest > options.timeout / 2, status != .failed, status != .skipped {
            findings.warn("an answer took \(Report.formatDuration(slowest)), more than half the request timeout of \(Report.formatDuration(options.timeout))")
            status = .warning
        }
        if status == .failed || status == .warning, abortNotes.isEmpty {
            let repeated = Set((findings.failures + findings.warnings).compactMap { reported[$0] })
            if !repeated.isEmpty {
                let failedBefore = !findings.failures.isEmpty
                findings.failures.removeAll { reported[$0] != nil }
                findings.warnings.removeAll { reported[$0] != nil }
                let by = repeated.sorted().joined(separator: ", ")
                findings.note("the same problem as \(by) reported (said there)")
                status = findings.status
                if failedBefore && findings.failures.isEmpty {
                    // Its only failure is a cause another check reported: not counted twice.
                    status = .skipped
                    summary = "not counted: its failure is the one \(by) reported"
                }
            }
        }
        if status == .failed, abortNotes.isEmpty, !findings.causes.isEmpty,
           findings.causes.allSatisfy({ reportedCauses[$0] != nil }) {
            // Every failure here follows from causes an earlier check reported: not counted twice.
            let by = Set(findings.causes.compactMap { reportedCauses[$0] }).sorted().joined(separator: ", ")
            status = .skipped
            summary = "not counted: \(findings.causes.sorted().joined(separator: ", ")), which \(by) reported"
            findings.failures = []
        }
        for cause in findings.causes where reportedCauses[cause] == nil { reportedCauses[cause] = name }
        for line in findings.failures + findings.warnings where reported[line] == nil { reported[line] = name }
        if goneDuring == nil && session.isGone { goneDuring = name }
        if attempts > 1 && status != .failed {
            findings.note("passed on attempt \(attempts): the table changed (invalidate) during the earlier ones")
        }
        // An abort's notes may list the findings that caused it: each line once.
        var notes = abortNotes + findings.lines().filter { !abortNotes.contains($0) }
        if status == .failed, !([summary] + notes).contains(where: { $0.contains("PROTOCOL.md") }), let sections = RuleSections.of(name) {
            notes.append("the rule: PROTOCOL.md \(sections)")
        }
        record(CheckResult(name: name, status: status, summary: summary, notes: notes,
                           duration: options.clock.since(started), slowestAnswer: slowest))
    }

    /// The failed check whose cause would fail check `name` too (``Cascade``), if any.
    func blocker(of name: String) -> String? {
        Cascade.blocker(of: name, failed: results.filter { $0.status == .failed }.map(\.name))
    }

    func record(_ result: CheckResult) {
        results.append(result)
        onResult?(result)
    }

    // MARK: Requests

    /// Sends a request and waits for its answer: a result or an error response. A timeout,
    /// an exit or a protocol violation aborts the check.
    func call(_ method: String, _ params: JSONValue) throws(CheckAbort) -> Result<JSONValue, RPCError> {
        let id = session.makeID()
        if let reason = session.post(id: id, method: method, params: params) {
            throw CheckAbort(reason: "could not send \(method): \(reason)")
        }
        return try answer(id, method)
    }

    /// Posts requests of `method` together (a batch, timed as one, PROTOCOL.md 4.3); their
    /// answers are then read with ``answer(_:_:)``, in any order.
    func post(_ method: String, together params: [JSONValue]) throws(CheckAbort) -> [RequestID] {
        var ids: [RequestID] = []
        for p in params {
            let id = session.makeID()
            if let reason = session.post(id: id, method: method, params: p) {
                throw CheckAbort(reason: "could not send \(method): \(reason)")
            }
            ids.append(id)
        }
        batches.record(ids: ids)
        return ids
    }

    /// The answer to a request already posted.
    func answer(_ id: RequestID, _ method: String) throws(CheckAbort) -> Result<JSONValue, RPCError> {
        let limit = method == Method.initialize ? options.handshakeTimeout : options.timeout
        switch session.wait(for: id, limit: limit + .seconds(2)) {
        case .result(let value, let elapsed):
            note(elapsed)
            batches.answered(id, after: elapsed)
            return .success(value)
        case .error(let error, let elapsed):
            note(elapsed)
            batches.answered(id, after: elapsed)
            return .failure(error)
        case .timedOut:
            let reason = "no answer to \(method) (id \(id)) within \(Report.formatDuration(limit))"
            if method == Method.rows { rowsBroken = "rows did not answer in time" }
            throw CheckAbort(reason: reason)
        case .exited(let exit):
            throw CheckAbort(reason: "the plugin \(describe(exit)) while \(method) (id \(id)) was pending", notes: stderrNotes())
        case .violation(let reason):
            throw CheckAbort(reason: "the plugin wrote a line the host cannot accept (the host kills it)",
                             notes: [OrderCheck.clip(reason, 200)] + stderrNotes())
        case .notSent(let reason):
            throw CheckAbort(reason: "could not send \(method): \(reason)")
        case .misaddressed(let got):
            if rowsBroken == nil, method == Method.rows { rowsBroken = "rows answered with the wrong id" }
            throw CheckAbort(reason: "the answer to \(method) (id \(id)) came back with id \(got)\(Self.idHint(sent: id, got: got)): "
                             + "a response MUST carry the request's id exactly, of the same JSON type (PROTOCOL.md 4.2)")
        }
    }

    /// `, a string` when the id came back as the text of the number sent.
    static func idHint(sent: RequestID, got: RequestID) -> String {
        if case .int(let n) = sent, case .string(let s) = got, s == String(n) { return " (the number as a string)" }
        if case .string(let s) = sent, case .int(let n) = got, s == String(n) { return " (the string as a number)" }
        return ", which was never sent"
    }

    private func note(_ elapsed: Duration) {
        slowest = max(slowest ?? .zero, elapsed)
    }

    func stderrNotes() -> [String] {
        let tail = session.lastStderr
        return tail.isEmpty ? [] : ["stderr (last lines):"] + tail.map { "  " + OrderCheck.clip($0, 160) }
    }

    func describe(_ exit: PluginExit) -> String {
        switch exit {
        case .exited(let code): "exited with status \(code)"
        case .signalled(let signal): "was killed by signal \(signal)"
        }
    }

    // MARK: Rows

    /// Sends these pages of the root table together (at most ``RequestBatches/size``, PROTOCOL.md
    /// 4.3); a check that then asks for one of them reads its answer. Pages already sent ahead
    /// are not sent again; nothing is sent once the plugin is gone.
    func sendAhead(_ pages: [(offset: Int, limit: Int, sort: [SortKey])]) {
        guard let table else { return }
        sendAhead(pages.map { RowsRequest(table: table.table, offset: $0.offset, limit: $0.limit, sort: $0.sort) })
    }

    /// Sends these `rows` requests (of the root table, generations not set) together, as above.
    func sendAhead(_ requests: [RowsRequest]) {
        guard !session.isGone else { return }
        var requests = requests
        requests.removeAll { batches.isAhead($0) }
        let epoch = session.invalidateCount
        var sent: [RequestBatches.Sent] = []
        for var request in requests.prefix(RequestBatches.size) {
            request.generation = nextGeneration()
            let id = session.makeID()
            guard session.post(id: id, method: Method.rows, params: request.json) == nil else { break }
            sent.append(.init(id: id, request: request, epoch: epoch))
        }
        batches.record(sent)
    }

    func nextGeneration() -> Int {
        generation += 1
        return generation
    }

    /// Asks for one page and checks it against the request and the table; the checks' findings go to `f`.
    /// An error response or an invalid page aborts the check.
    /// `other` asks for the rows of another table than the root (a child table); its rows are
    /// not remembered with the root's.
    /// A page that comes short with `more` (PROTOCOL.md 11.3) is completed with requests for
    /// the rest, as the host does; the result is the whole page.
    /// `clause`: a structured filter (PROTOCOL.md 11.11), for plugins that declare `where`.
    func page(offset: Int, limit: Int, sort: [SortKey] = [], filter: String? = nil, where clause: WhereClause = [],
              of other: TableDescription? = nil, into f: inout Findings) throws(CheckAbort) -> RowsResult {
        var result = try onePage(offset: offset, limit: limit, sort: sort, filter: filter, where: clause, of: other, into: &f)
        while result.more && result.rows.count < limit {
            let rest = try onePage(offset: offset + result.rows.count, limit: limit - result.rows.count, sort: sort,
                                   filter: filter, where: clause, of: other, into: &f)
            if rest.totalSent { result.total = rest.total; result.totalSent = true }
            result.rows += rest.rows
            result.more = rest.more
            if rest.rows.isEmpty { break }
        }
        result.more = false
        return result
    }

    private func onePage(offset: Int, limit: Int, sort: [SortKey] = [], filter: String? = nil, where clause: WhereClause = [],
                         of other: TableDescription? = nil, into f: inout Findings) throws(CheckAbort) -> RowsResult {
        guard let table = other ?? table else { throw CheckAbort(reason: "there is no table", skip: true) }
        var request = RowsRequest(table: table.table, offset: offset, limit: limit, sort: sort, filter: filter, where: clause)
        let answer: Result<JSONValue, RPCError>
        if let sent = batches.take(request, epoch: session.invalidateCount) {
            request = sent.request
            answer = try self.answer(sent.id, Method.rows)
        } else {
            request.generation = nextGeneration()
            answer = try call(Method.rows, request.json)
        }
        let value: JSONValue
        switch answer {
        case .success(let v): value = v
        case .failure(let error):
            let which = other.map { " of table \($0.table)" } ?? ""
            let whereText = clause.isEmpty ? "" : ", where " + JSONWriter.string(Where.json(clause))
            throw CheckAbort(reason: "rows\(which) (offset \(offset), limit \(limit)\(Self.sortText(sort))\(filter.map { ", filter \"\($0)\"" } ?? "")\(whereText)) answered error \(error.code): \(OrderCheck.clip(error.message, 80))")
        }
        var local = Findings()
        var warnings: [String: String] = [:]
        let parsed = Validate.rowsResult(value, request: request, table: table, capabilities: capabilities,
                                         into: &local, warnings: &warnings)
        for (key, text) in warnings.sorted(by: { $0.key < $1.key }) where reportedWarnings.insert(key).inserted {
            local.warn(text)
        }
        guard let result = parsed else {
            f.merge(local)
            throw CheckAbort(reason: "invalid rows answer (offset \(offset), limit \(limit)\(Self.sortText(sort))): see PROTOCOL.md 11.3",
                             notes: local.lines() + Self.exchange(request.json, value))
        }
        f.merge(local)
        if other != nil { return result }
        if result.totalSent && filter == nil && clause.isEmpty { total = result.total }  // a filtered total counts fewer rows
        remember(result.rows, offset: offset, into: &f)
        return result
    }

    /// Keeps every row's cells, and fails when the same id comes back with other cells while
    /// the plugin said nothing changed.
    private func remember(_ rows: [Row], offset: Int, into f: inout Findings) {
        let epoch = session.invalidateCount
        if epoch != seenCellsEpoch {
            seenCells = [:]
            seenCellsEpoch = epoch
        }
        var reported = 0
        for (i, row) in rows.enumerated() {
            if let before = seenCells[row.id], before != row.cells {
                if reported < 3 {
                    f.fail("row id \(row.id) (position \(offset + i)) came back with other cells: \(OrderCheck.clip(JSONWriter.string(.array(row.cells)), 80)), before \(OrderCheck.clip(JSONWriter.string(.array(before)), 80)) (PROTOCOL.md 10.5: an id names one row)")
                }
                reported += 1
            } else {
                seenCells[row.id] = row.cells
            }
        }
        if reported > 3 { f.fail("… \(reported - 3) more rows came back with other cells") }
    }

    /// Two note lines: the request sent and an excerpt of the answer, for a message that says where.
    static func exchange(_ request: JSONValue, _ answer: JSONValue) -> [String] {
        ["request: " + OrderCheck.clip(JSONWriter.string(request), 160), "answer: " + OrderCheck.clip(JSONWriter.string(answer), 200)]
    }

    static func sortText(_ sort: [SortKey]) -> String {
        sort.isEmpty ? "" : ", sort " + sort.map { "\($0.column) \($0.direction.rawValue)" }.joined(separator: ", ")
    }

    /// The sortable columns as sort keys resolved against the table.
    func sortColumn(_ key: SortKey) -> SortColumn? {
        guard let table, let index = table.columns.firstIndex(where: { $0.id == key.column }) else { return nil }
        let column = table.columns[index]
        return SortColumn(id: key.column, index: index, type: column.type, descending: key.direction == .descending,
                          nulls: column.nulls, order: column.order)
    }
}
