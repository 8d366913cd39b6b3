/// The `result` of a `rows` reply as ``MessageCodec/decode(_:)-([UInt8])`` reads it on the
/// reader thread: the rows already as ``Row``s, the other members (`generation`, `offset`,
/// `total`) as parsed. It sits inside a ``JSONObject``, so a ``Message`` carries it unchanged;
/// ``RowsResult/init(_:path:)`` takes the rows as they are, and anyone reading the object as
/// JSON gets the members the generic parser would have made (built on demand).
///
/// The scanner builds one only for text whose JSON can be rebuilt exactly from it: every row
/// has the same keys in the same order, all of them row members, ids all integers or all
/// strings, `hasChildren` a boolean (see `JSONScanner+Rows.swift`).
final class RowsPayload: Sendable {
    /// The result object's keys, in order.
    let keys: [String]
    /// The values of the other members, in the order of `keys`; an empty array at `rowsIndex`.
    let others: [JSONValue]
    let rowsIndex: Int
    let rows: [Row]
    /// The keys of every row object, in order.
    let rowKeys: [RowKey]
    /// The ids were written as integers (else as strings).
    let idsAreIntegers: Bool

    init(keys: [String], others: [JSONValue], rowsIndex: Int, rows: [Row], rowKeys: [RowKey], idsAreIntegers: Bool) {
        self.keys = keys; self.others = others; self.rowsIndex = rowsIndex
        self.rows = rows; self.rowKeys = rowKeys; self.idsAreIntegers = idsAreIntegers
    }

    /// The result object without its rows (an empty array in their place), for reading the
    /// other members with the usual errors.
    var othersObject: JSONObject { JSONObject(uniqueKeys: keys, values: others) }

    /// The member at `index` as the generic parser makes it.
    func value(at index: Int) -> JSONValue {
        guard index == rowsIndex else { return others[index] }
        let names = rowKeys.map(\.name)
        return .array(rows.map { row in
            .object(JSONObject(uniqueKeys: names, values: rowKeys.map { key -> JSONValue in
                switch key {
                case .id: idsAreIntegers ? .int(Int64(row.id)!) : .string(row.id)
                case .cells: .array(row.cells)
                case .section: row.section.map(JSONValue.string) ?? .null
                case .detail: row.detail.map(JSONValue.string) ?? .null
                case .hasChildren: .bool(row.hasChildren)
                }
            }))
        })
    }
}

/// A member of a row object.
enum RowKey: UInt8, Sendable {
    case id, cells, section, detail, hasChildren

    init?(name: String) {
        switch name {
        case "id": self = .id
        case "cells": self = .cells
        case "section": self = .section
        case "detail": self = .detail
        case "hasChildren": self = .hasChildren
        default: return nil
        }
    }

    /// The key with its quotes, as every row but the first is matched against.
    var quoted: StaticString {
        switch self {
        case .id: "\"id\""
        case .cells: "\"cells\""
        case .section: "\"section\""
        case .detail: "\"detail\""
        case .hasChildren: "\"hasChildren\""
        }
    }

    var name: String {
        switch self {
        case .id: "id"
        case .cells: "cells"
        case .section: "section"
        case .detail: "detail"
        case .hasChildren: "hasChildren"
        }
    }
}
