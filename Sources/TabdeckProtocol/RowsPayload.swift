/// The `result` of a `rows` reply as ``MessageCodec/decode(_:)-([UInt8])`` reads it on the
/// reader thread: the rows already as ``Row``s, the other members (`generation`, `offset`,
/// `total`) as parsed. It sits inside a ``JSONObject``, so a ``Message`` carries it unchanged;
/// ``RowsResult/init(_:path:)`` takes the rows as they are, and anyone reading the object as
/// JSON gets the members the generic parser would have made (built on demand).
///
/// The scanner builds one only for text whose JSON can be rebuilt exactly from it: a result
/// with no members but `generation`, `offset`, `rows` and `total`, each once; row objects with
/// no members but `id` (a string or an integer), `cells`, `section`, `detail` and
/// `hasChildren`, each once; each row's ``RowShape`` keeps its order of keys and the kind of
/// its id (see `JSONScanner+Rows.swift`).
final class RowsPayload: Sendable {
    /// The result object's keys, in order.
    let keys: [String]
    /// The values of the other members, in the order of `keys`; an empty array at `rowsIndex`.
    let others: [JSONValue]
    let rowsIndex: Int
    let rows: [Row]
    /// For each row, its keys in order and the kind of its id.
    let shapes: [RowShape]

    init(keys: [String], others: [JSONValue], rowsIndex: Int, rows: [Row], shapes: [RowShape]) {
        self.keys = keys; self.others = others; self.rowsIndex = rowsIndex; self.rows = rows; self.shapes = shapes
    }

    /// The result object without its rows (an empty array in their place), for reading the
    /// other members with the usual errors.
    var othersObject: JSONObject { JSONObject(uniqueKeys: keys, values: others) }

    /// The member at `index` as the generic parser makes it.
    func value(at index: Int) -> JSONValue {
        guard index == rowsIndex else { return others[index] }
        return .array(zip(rows, shapes).map { row, shape in
            var keys: [String] = [], values: [JSONValue] = []
            for position in 0..<shape.count {
                let key = shape.key(at: position)!
                keys.append(key.name)
                switch key {
                case .id: values.append(shape.idIsInteger ? .int(Int64(row.id)!) : .string(row.id))
                case .cells: values.append(.array(row.cells))
                case .section: values.append(row.section.map(JSONValue.string) ?? .null)
                case .detail: values.append(row.detail.map(JSONValue.string) ?? .null)
                case .hasChildren: values.append(.bool(row.hasChildren))
                case .nullHasChildren: values.append(.null)
                }
            }
            return .object(JSONObject(uniqueKeys: keys, values: values))
        })
    }
}

/// The keys of one row object in the order written (3 bits each), and whether its id was
/// an integer: enough, with the ``Row``, to rebuild the object exactly.
struct RowShape: Sendable, Equatable {
    static let maxKeys = 5
    private var bits: UInt16 = 0
    private var seen: UInt8 = 0
    private var keyCount: UInt8 = 0
    var idIsInteger = false

    /// How many keys the row has.
    var count: Int { Int(keyCount) }

    /// The key at `position`, nil past the last.
    func key(at position: Int) -> RowKey? {
        position < count ? RowKey(rawValue: UInt8(bits >> (3 * position) & 7)) : nil
    }

    /// Appends `key`; false if the row already has it.
    mutating func append(_ key: RowKey) -> Bool {
        let bit: UInt8 = 1 << (key == .nullHasChildren ? RowKey.hasChildren : key).rawValue
        if seen & bit != 0 { return false }
        seen |= bit
        bits |= UInt16(key.rawValue) << (3 * keyCount)
        keyCount += 1
        return true
    }
}

/// A member of a row object.
enum RowKey: UInt8, Sendable {
    case id = 1, cells, section, detail, hasChildren
    /// `hasChildren` written as null (which reads as false).
    case nullHasChildren

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
        case .hasChildren, .nullHasChildren: "\"hasChildren\""
        }
    }

    var name: String {
        switch self {
        case .id: "id"
        case .cells: "cells"
        case .section: "section"
        case .detail: "detail"
        case .hasChildren, .nullHasChildren: "hasChildren"
        }
    }
}
