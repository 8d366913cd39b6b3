import TabdeckPluginKit
import TabdeckProtocol

/// A column of a browsed PostgreSQL table or view, as read from the catalog, and how it maps
/// onto the protocol: its type, the order the server sorts it in, how its value is read.
///
/// The server sorts every column by its own operators (`ORDER BY "col"`, never a cast), so an
/// index on it serves the order; the column then tells the host which of the protocol's orders
/// that is (`ColumnSpec.order`, `nulls`). PostgreSQL puts nulls after every value ascending and
/// before every value descending: every column declares `nulls: largest`.
public struct PGColumn: Hashable, Sendable {
    public var name: String
    /// `format_type` of the column (`integer`, `character varying(20)`, `timestamp with time zone`):
    /// binds are cast to it.
    public var sqlType: String
    public var notNull: Bool
    /// The base type's name (`int4`, `numeric`, `timestamptz`, `inet`; a domain's base type).
    public let typeName: String
    /// An enum's labels in their declared order.
    public let enumLabels: [String]?
    /// The column's collation when the protocol's byte order is not its order (nil: bytes).
    public var collation: String?
    /// An array's element type name (`_int4` → `int4`), for the types that cannot be sorted.
    public var elementTypeName: String?

    public init(name: String, sqlType: String, notNull: Bool, typeName: String? = nil,
                enumLabels: [String]? = nil, collation: String? = nil, elementTypeName: String? = nil) {
        self.name = name; self.sqlType = sqlType; self.notNull = notNull
        self.typeName = typeName ?? Self.typeName(of: sqlType)
        self.enumLabels = enumLabels; self.collation = collation; self.elementTypeName = elementTypeName
        self.type = Self.type(typeName: self.typeName, enumLabels: enumLabels)
        self.cellKind = Self.cellKind(type, typeName: self.typeName)
    }

    /// How a cell's text becomes its protocol value.
    let cellKind: CellKind

    /// The base type name of a few `format_type` spellings (for columns made without the catalog).
    static func typeName(of sqlType: String) -> String {
        switch sqlType {
        case "smallint": "int2"
        case "integer": "int4"
        case "bigint": "int8"
        case "real": "float4"
        case "double precision": "float8"
        case "boolean": "bool"
        case "timestamp with time zone": "timestamptz"
        case "timestamp without time zone": "timestamp"
        case _ where sqlType.hasPrefix("numeric"): "numeric"
        case _ where sqlType.hasPrefix("character varying"): "varchar"
        case _ where sqlType.hasPrefix("character"): "bpchar"
        default: sqlType
        }
    }

    /// Types with no ordering operator: not sortable.
    static let unordered: Set<String> = ["json", "xml", "point", "line", "lseg", "box", "path", "polygon", "circle", "aclitem"]

    /// The protocol type: integers, exact decimals, booleans, dates and timestamps, enums; the
    /// rest text. Made once: ``cell(_:)`` reads it for every cell of every page.
    public let type: ColumnType

    static func type(typeName: String, enumLabels: [String]?) -> ColumnType {
        if let enumLabels { return .enumeration(enumLabels) }
        switch typeName {
        case "int2", "int4", "int8": return .integer
        case "numeric", "float4", "float8": return .decimal
        case "bool": return .bool
        case "date", "timestamp", "timestamptz": return .date
        default: return .text
        }
    }

    /// Whether the server can sort the column (`ORDER BY` needs a btree operator class).
    public var sortable: Bool {
        !Self.unordered.contains(typeName) && !(elementTypeName.map(Self.unordered.contains) ?? false)
    }

    /// The order the server sorts the column in, in the protocol's terms: its own where its text
    /// order is not its order (network addresses, intervals, money, ranges, arrays, a locale
    /// collation, blank-padded `char`), the protocol's otherwise.
    public var order: ColumnOrder {
        switch type {
        case .integer, .decimal, .bool, .date, .enumeration: return .protocol
        case .text:
            switch typeName {
            case "text", "varchar", "name", "uuid": return collation == nil ? .protocol : .source
            default: return .source
            }
        }
    }

    /// The SQL of the cell's value as text, as psql shows it: the type's output function (an
    /// `inet`'s `::text` adds `/32`), a `bytea` in hex cut after 32 bytes.
    public var valueExpression: String {
        let q = PGSQL.quote(name)
        switch typeName {
        case "inet", "cidr": return "CASE WHEN \(q) IS NULL THEN NULL ELSE format('%s', \(q)) END"
        case "bytea":
            return "CASE WHEN \(q) IS NULL THEN NULL WHEN length(\(q)) > 32 THEN '\\x' || encode(substring(\(q) FROM 1 FOR 32), 'hex') || '… ('"
                + " || length(\(q)) || ' bytes)' ELSE '\\x' || encode(\(q), 'hex') END"
        default: return "\(q)::text"
        }
    }

    /// The expression the server sorts and compares the column by: the column itself.
    public var sortExpression: String { PGSQL.quote(name) }

    /// A bind parameter `$n` as the column's type (values travel as text).
    public func parameter(_ n: Int) -> String { "$\(n)::\(sqlType)" }

    /// The protocol column (id and title are the column's name).
    public var spec: ColumnSpec {
        let width: ColumnWidth? = switch type {
        case .integer, .decimal: .flexible(min: 4, ideal: 12, max: 40)
        case .bool: .fixed(5)
        case .date: typeName == "date" ? .flexible(min: 10, ideal: 10, max: 13) : .flexible(min: 10, ideal: 22, max: 32)
        default: nil
        }
        let right = ["money", "interval"].contains(typeName)
        return ColumnSpec(id: name, title: name, type: type, width: width, alignment: right ? .right : nil, sortable: sortable,
                          nulls: .largest, order: order, collation: collation)
    }

    /// A cell from the server's text of a value: integers as JSON integers, exact decimals as
    /// their text (PROTOCOL.md 10.3, *Exact numbers*), floats as JSON numbers when finite; text
    /// whole (the table cuts long cells with the protocol's marker, ``PGTable``).
    func cell(_ text: String?) -> JSONValue { Self.cell(text, cellKind) }

    /// ``cell(_:)`` for a column whose ``cellKind`` is `kind`.
    static func cell(_ text: String?, _ kind: CellKind) -> JSONValue {
        guard let text else { return .null }
        switch kind {
        case .integer: return Int64(text).map(JSONValue.int) ?? .string(text)
        case .float:
            if let d = Double(text), d.isFinite { return .double(d) }
            return .string(text)
        case .bool: return .bool(text == "true")
        case .text: return .string(text)
        }
    }

    /// How ``cell(_:)`` reads the column's text: made once, it runs for every cell of every page.
    enum CellKind: Hashable, Sendable { case integer, float, bool, text }

    static func cellKind(_ type: ColumnType, typeName: String) -> CellKind {
        switch type {
        case .integer: .integer
        case .decimal: typeName == "numeric" ? .text : .float  // numeric: its exact digits, as text
        case .bool: .bool
        default: .text
        }
    }
}
