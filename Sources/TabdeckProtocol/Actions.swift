/// Which rows an action applies to (PROTOCOL.md 10.7).
public enum ActionRows: String, Hashable, Sendable, CaseIterable {
    /// No rows: the action acts on the table (an insert); it is sent with `rows: []`.
    case none
    /// Exactly one row: the cursor row, or the one selected row.
    case one
    /// The selected rows (or the cursor row when none is selected).
    case many
}

/// The kind of value a field of an action's form takes.
public enum ActionFieldType: String, Hashable, Sendable, CaseIterable {
    case text, integer, number, boolean
    case enumeration = "enum"
}

/// One field of the form an action asks for before it runs (`input`).
public struct ActionField: Hashable, Sendable {
    /// The key of the value in the action's `input` (never contains `=`).
    public var id: String
    public var title: String
    public var type: ActionFieldType
    /// The allowed values of an `enum` field, in the order offered.
    public var values: [String]
    /// The form is not sent while this field is empty.
    public var required: Bool
    /// The value the form starts with (a string, a number or a boolean, of the field's type).
    public var defaultValue: JSONValue?

    public init(id: String, title: String? = nil, type: ActionFieldType = .text, values: [String] = [],
                required: Bool = false, defaultValue: JSONValue? = nil) {
        self.id = id; self.title = title ?? id; self.type = type; self.values = values
        self.required = required; self.defaultValue = defaultValue
    }

    public init(reader r: JSONReader) throws(JSONFieldError) {
        let id = try r.string("id")
        guard !id.isEmpty, !id.contains("=") else {
            throw JSONFieldError(path: r.pathOf("id"), reason: "a field id must be non-empty and without \"=\", got \"\(id)\"")
        }
        let typeName = try r.optionalString("type") ?? "text"
        guard let type = ActionFieldType(rawValue: typeName) else {
            throw JSONFieldError(path: r.pathOf("type"), reason: "unknown field type \"\(typeName)\" (expected text, integer, number, boolean or enum)")
        }
        let values = try r.optionalStrings("values") ?? []
        if type == .enumeration && values.isEmpty {
            throw JSONFieldError(path: r.pathOf("values"), reason: "an enum field needs a non-empty list of values")
        }
        self.init(id: id, title: try r.optionalString("title"), type: type, values: values,
                  required: try r.bool("required", default: false), defaultValue: nil)
        if let d = r.value("default"), d != .null {
            do {
                guard let value = try self.value(from: Self.text(of: d)), Self.sameKind(d, value) else {
                    throw ActionInputError(field: id, message: "")
                }
                defaultValue = value
            } catch {
                throw JSONFieldError(path: r.pathOf("default"), reason: "not a value of this \(typeName) field: \(d.typeDescription)")
            }
        }
    }

    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "title": .string(title), "type": .string(type.rawValue)]
        if !values.isEmpty { o["values"] = .array(values.map { .string($0) }) }
        if required { o["required"] = .bool(true) }
        if let defaultValue { o["default"] = defaultValue }
        return .object(o)
    }

    /// The text a form shows for the field's default (empty when it has none).
    public var defaultText: String {
        defaultValue.map(Self.text(of:)) ?? (type == .boolean ? "false" : type == .enumeration ? values.first ?? "" : "")
    }

    /// The JSON value of the text typed for this field; nil for an empty text (the field is
    /// then left out of `input`). Throws when the text is not a value of the field's type.
    public func value(from text: String) throws(ActionInputError) -> JSONValue? {
        let trimmed = String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
        if type != .text && trimmed.isEmpty || text.isEmpty { return nil }
        switch type {
        case .text: return .string(text)
        case .integer:
            guard let i = Int64(trimmed) else { throw ActionInputError(field: title, message: "expected a whole number, got \"\(text)\"") }
            return .int(i)
        case .number:
            if let i = Int64(trimmed) { return .int(i) }
            guard let d = Double(trimmed), d.isFinite else { throw ActionInputError(field: title, message: "expected a number, got \"\(text)\"") }
            return .double(d)
        case .boolean:
            switch trimmed.lowercased() {
            case "true", "yes", "y", "1", "on": return .bool(true)
            case "false", "no", "n", "0", "off": return .bool(false)
            default: throw ActionInputError(field: title, message: "expected yes or no, got \"\(text)\"")
            }
        case .enumeration:
            guard values.contains(trimmed) else {
                throw ActionInputError(field: title, message: "expected one of \(values.joined(separator: ", ")), got \"\(text)\"")
            }
            return .string(trimmed)
        }
    }

    static func text(of value: JSONValue) -> String {
        switch value {
        case .string(let s): s
        case .int(let i): String(i)
        case .double(let d): String(d)
        case .bool(let b): b ? "true" : "false"
        default: ""
        }
    }

    static func sameKind(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.string, .string), (.bool, .bool), (.int, .int), (.int, .double), (.double, .double), (.double, .int): true
        default: false
        }
    }
}

/// A value typed for an action's field that the field does not take.
public struct ActionInputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The field's title (or, for an unknown field, what was typed).
    public var field: String
    public var message: String
    public init(field: String, message: String) { self.field = field; self.message = message }
    public var description: String { "\(field): \(message)" }
}

/// An action a plugin offers on rows of a table (PROTOCOL.md 10.7).
public struct ActionSpec: Hashable, Sendable {
    public var id: String
    public var title: String
    /// Ask the user before running it.
    public var confirm: Bool
    /// It destroys data: the host asks first (as for `confirm`), with No as the default answer.
    public var destructive: Bool
    /// Which rows it applies to.
    public var rows: ActionRows
    /// A key that runs it (one character); the host's own keys win over it.
    public var hotkey: Character?
    /// The form the user fills in before it runs; the values go in the request's `input`.
    public var input: [ActionField]

    /// Applies to many rows at once (the `multiple` of protocol 1's first actions).
    public var multiple: Bool { rows == .many }
    /// The user must say yes before it runs (`confirm` or `destructive`).
    public var asks: Bool { confirm || destructive }

    public init(id: String, title: String? = nil, confirm: Bool = false, multiple: Bool = true, destructive: Bool = false,
                rows: ActionRows? = nil, hotkey: Character? = nil, input: [ActionField] = []) {
        self.id = id; self.title = title ?? id; self.confirm = confirm; self.destructive = destructive
        self.rows = rows ?? (multiple ? .many : .one); self.hotkey = hotkey; self.input = input
    }

    public init(reader r: JSONReader) throws(JSONFieldError) {
        var rows: ActionRows?
        if let name = try r.optionalString("rows") {
            guard let value = ActionRows(rawValue: name) else {
                throw JSONFieldError(path: r.pathOf("rows"), reason: "expected none, one or many, got \"\(name)\"")
            }
            rows = value
        }
        var hotkey: Character?
        if let key = try r.optionalString("hotkey") {
            guard key.count == 1, let c = key.first, !c.isWhitespace, c.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value != 0x7F }) else {
                throw JSONFieldError(path: r.pathOf("hotkey"), reason: "expected one printable character, got \"\(Sanitizer.clean(key))\"")
            }
            hotkey = c
        }
        var fields: [ActionField] = []
        var seen = Set<String>()
        for f in try r.optionalObjects("input") {
            let field = try ActionField(reader: f)
            guard seen.insert(field.id).inserted else { throw JSONFieldError(path: f.pathOf("id"), reason: "duplicate field id \"\(field.id)\"") }
            fields.append(field)
        }
        self.init(id: try r.string("id"), title: try r.optionalString("title"), confirm: try r.bool("confirm", default: false),
                  multiple: try r.bool("multiple", default: true), destructive: try r.bool("destructive", default: false),
                  rows: rows, hotkey: hotkey, input: fields)
    }

    public var json: JSONValue {
        var o: JSONObject = ["id": .string(id), "title": .string(title), "confirm": .bool(confirm), "multiple": .bool(multiple)]
        if destructive { o["destructive"] = .bool(true) }
        if rows == .none { o["rows"] = .string(rows.rawValue) }
        if let hotkey { o["hotkey"] = .string(String(hotkey)) }
        if !input.isEmpty { o["input"] = .array(input.map(\.json)) }
        return .object(o)
    }

    /// The `input` of the request for these typed values (field id → text; a field not typed
    /// takes its default): each value checked against its field, empty ones left out. Throws
    /// for an unknown field, a value of the wrong type, or a required field left empty,
    /// naming the field.
    public func inputObject(_ typed: [String: String]) throws(ActionInputError) -> JSONObject {
        if let unknown = typed.keys.sorted().first(where: { id in !input.contains { $0.id == id } }) {
            let known = input.map(\.id)
            throw ActionInputError(field: unknown, message: known.isEmpty ? "action \(id) takes no input"
                                   : "no such field in action \(id) (fields: \(known.joined(separator: ", ")))")
        }
        var pairs: [(String, JSONValue)] = []
        for field in input {
            if let value = try field.value(from: typed[field.id] ?? field.defaultText) {
                pairs.append((field.id, value))
            } else if field.required {
                throw ActionInputError(field: field.title, message: "required")
            }
        }
        return JSONObject(pairs)
    }
}

/// Parameters of a `move` request: move `row` to just before or after its neighbour `target`.
public struct MoveRequest: Hashable, Sendable {
    /// Where the row goes relative to `target`.
    public enum Place: String, Hashable, Sendable { case before, after }
    public var table: String
    public var row: String
    public var place: Place
    public var target: String

    public init(table: String, row: String, place: Place, target: String) {
        self.table = table; self.row = row; self.place = place; self.target = target
    }

    public init(_ value: JSONValue, path: String = "params") throws(JSONFieldError) {
        let r = try JSONReader(value, path: path)
        let before = try r.optionalString("before"), after = try r.optionalString("after")
        guard (before == nil) != (after == nil) else {
            throw JSONFieldError(path: r.pathOf("before"), reason: "exactly one of before and after is required")
        }
        self.init(table: try r.string("table"), row: try r.string("row"), place: before != nil ? .before : .after,
                  target: before ?? after!)
    }

    public var json: JSONValue {
        .object(JSONObject([("table", .string(table)), ("row", .string(row)), (place.rawValue, .string(target))]))
    }
}
