/// Writing a `rows` reply straight to bytes, without building a ``JSONValue`` per row.
///
/// The bytes are exactly those of `MessageCodec.encode(.response(id:, result: result.json))`
/// (same member order, same escaping); `Tests/TabdeckProtocolTests` checks that on random
/// rows. The plugin kit uses it for every `rows` reply.
extension MessageCodec {
    /// The line (without `\n`) of a response carrying a `rows` result.
    public static func encodeRowsResponse(id: RequestID, _ result: RowsResult, writtenRows: [UInt8]? = nil) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64 + (writtenRows?.count ?? result.rows.count * 128))
        appendASCII(#"{"jsonrpc":"2.0","id":"#, to: &out)
        JSONWriter.write(id.json, into: &out)
        appendASCII(#","result":"#, to: &out)
        result.write(into: &out, writtenRows: writtenRows)
        out.append(UInt8(ascii: "}"))
        return out
    }

    @inline(__always) static func appendASCII(_ text: StaticString, to out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }
}

extension RowsResult {
    /// Appends the compact JSON of ``json`` to `out`; with `writtenRows` (rows a plugin wrote
    /// as JSON itself, each as ``Row/write(into:)`` writes it, joined by commas) in place of `rows`.
    public func write(into out: inout [UInt8], writtenRows: [UInt8]? = nil) {
        MessageCodec.appendASCII(#"{"generation":"#, to: &out)
        JSONWriter.writeInteger(Int64(generation), into: &out)
        MessageCodec.appendASCII(#","offset":"#, to: &out)
        JSONWriter.writeInteger(Int64(offset), into: &out)
        MessageCodec.appendASCII(#","rows":["#, to: &out)
        if let writtenRows { out.append(contentsOf: writtenRows) }
        for (i, row) in rows.enumerated() where writtenRows == nil {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            row.write(into: &out)
        }
        out.append(UInt8(ascii: "]"))
        if totalSent {
            MessageCodec.appendASCII(#","total":"#, to: &out)
            if let total { JSONWriter.writeInteger(Int64(total), into: &out) } else { MessageCodec.appendASCII("null", to: &out) }
        }
        if let sections {
            MessageCodec.appendASCII(#","sections":"#, to: &out)
            JSONWriter.write(.array(sections.map(\.json)), into: &out)
        }
        if totalIsEstimate { MessageCodec.appendASCII(#","totalIsEstimate":true"#, to: &out) }
        if more { MessageCodec.appendASCII(#","more":true"#, to: &out) }
        out.append(UInt8(ascii: "}"))
    }
}

extension Row {
    /// Appends the compact JSON of ``json`` to `out`.
    public func write(into out: inout [UInt8]) {
        MessageCodec.appendASCII(#"{"id":"#, to: &out)
        JSONWriter.writeString(id, into: &out)
        MessageCodec.appendASCII(#","cells":["#, to: &out)
        for (i, cell) in cells.enumerated() {
            if i > 0 { out.append(UInt8(ascii: ",")) }
            JSONWriter.write(cell, into: &out)
        }
        out.append(UInt8(ascii: "]"))
        if let section {
            MessageCodec.appendASCII(#","section":"#, to: &out)
            JSONWriter.writeString(section, into: &out)
        }
        if let detail {
            MessageCodec.appendASCII(#","detail":"#, to: &out)
            JSONWriter.writeString(detail, into: &out)
        }
        if hasChildren { MessageCodec.appendASCII(#","hasChildren":true"#, to: &out) }
        if !cut.isEmpty {
            MessageCodec.appendASCII(#","cut":{"#, to: &out)
            for (i, key) in cut.keys.sorted().enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                JSONWriter.writeString(key, into: &out)
                out.append(UInt8(ascii: ":"))
                JSONWriter.writeInteger(Int64(cut[key]!), into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
        out.append(UInt8(ascii: "}"))
    }
}
