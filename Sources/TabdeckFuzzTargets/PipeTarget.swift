import PipeTable
import TabdeckProtocol

/// The pipe plugin's reader (format sniffer, delimited records, aligned-column splitter, JSON
/// lines), on a stream of any origin.
///
/// Invariants: the first byte of the input decides where the rest is cut into reads; the same
/// bytes read in those pieces and read at once give the same format, columns and rows (a pipe
/// may split anywhere); every row has one cell per column and the ids run 1, 2, 3...; every
/// aligned cell is a trimmed, non-empty piece of its line.
enum PipeTarget {
    static let target = FuzzTarget(
        name: "pipe",
        summary: "the pipe reader: any cut of the stream gives the same table; one cell per column; aligned cells are trimmed pieces of their line",
        check: check)

    static func check(_ bytes: [UInt8]) -> FuzzViolation? {
        var reader = FuzzReader(bytes)
        let piece = Int(reader.byte() % 16) + 1
        let data = reader.rest
        let whole = read(data, piece: data.count + 1)
        let cut = read(data, piece: piece)
        guard whole.format == cut.format, whole.columns == cut.columns, whole.rows == cut.rows else {
            return FuzzViolation("pipe", "reads of \(piece) bytes give the table read at once", excerpt(data))
        }
        for (i, row) in whole.rows.enumerated() {
            guard row.cells.count == whole.columns.count else {
                return FuzzViolation("pipe", "one cell per column", "\(excerpt(data)): row \(i + 1) has \(row.cells.count) of \(whole.columns.count)")
            }
            guard row.id == String(i + 1) else {
                return FuzzViolation("pipe", "ids run 1, 2, 3...", "\(excerpt(data)): row \(i + 1) has id \(row.id)")
            }
        }
        // The splitter on its own: the first line a header, the rest lines.
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        if let header = lines.first {
            let columns = AlignedColumns(header: header, sample: Array(lines.dropFirst().prefix(50)))
            for line in lines.dropFirst() {
                let cells = columns.split(line)
                guard cells.count == columns.names.count else {
                    return FuzzViolation("pipe", "one aligned cell per column", "\(excerpt(data)): \(cells.count) of \(columns.names.count)")
                }
                for case let cell? in cells where cell.isEmpty || cell.first == " " || cell.last == " " || !line.contains(cell) {
                    return FuzzViolation("pipe", "aligned cells are trimmed pieces of their line", "\(excerpt(data)): \(cell.debugDescription)")
                }
            }
        }
        return nil
    }

    static func read(_ data: [UInt8], piece: Int) -> (format: StreamFormat?, columns: [ColumnSpec], rows: [Row]) {
        let read = PipeTable.read(data, piece: piece, sampleLimit: 8)
        return (read.format, read.columns, read.rows)
    }
}
