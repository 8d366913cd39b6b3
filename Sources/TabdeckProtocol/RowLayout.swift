/// Where the members of a row object are, for one list of keys: worked out once and used for
/// every row with the same keys, so reading a page does not compare key strings per row.
struct RowLayout {
    let keys: [String]
    private var id = -1, cells = -1, section = -1, detail = -1, hasChildren = -1, cut = -1

    init(keys: [String]) {
        self.keys = keys
        for (i, key) in keys.enumerated() {
            switch key {
            case "id": id = i
            case "cells": cells = i
            case "section": section = i
            case "detail": detail = i
            case "hasChildren": hasChildren = i
            case "cut": cut = i
            default: continue  // unknown members are ignored
            }
        }
    }

    /// The row for the object's values, or nil when a member is missing or of the wrong type
    /// (``Row/init(reader:)`` then says which). Same semantics: an integer id becomes a
    /// string, null counts as missing for the optional members.
    func row(_ values: [JSONValue]) -> Row? {
        guard id >= 0, cells >= 0 else { return nil }
        let rowID: String
        switch values[id] {
        case .string(let s): rowID = s
        case .int(let i): rowID = String(i)
        default: return nil
        }
        guard case .array(let items) = values[cells] else { return nil }
        var row = Row(id: rowID, cells: items)
        if section >= 0 {
            switch values[section] {
            case .string(let s): row.section = s
            case .null: break
            default: return nil
            }
        }
        if detail >= 0 {
            switch values[detail] {
            case .string(let s): row.detail = s
            case .null: break
            default: return nil
            }
        }
        if hasChildren >= 0 {
            switch values[hasChildren] {
            case .bool(let b): row.hasChildren = b
            case .null: break
            default: return nil
            }
        }
        if cut >= 0 && values[cut] != .null {
            // Read by the reader, which checks the sizes (rare: only rows with cut cells).
            guard let reader = try? JSONReader(.object(JSONObject(uniqueKeys: ["cut"], values: [values[cut]]))),
                  let sizes = try? Row.cutSizes(reader) else { return nil }
            row.cut = sizes
        }
        return row
    }
}
