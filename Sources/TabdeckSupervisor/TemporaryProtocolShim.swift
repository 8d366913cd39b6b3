// TEMPORARY: a stand-in for the TabdeckProtocol API the lead is writing on main.
// Delete this file before `git merge main`.
public typealias JSONObject = [String: JSONValue]
public enum JSONValue: Hashable, Sendable { case null, bool(Bool), int(Int64), double(Double), string(String), array([JSONValue]), object(JSONObject) }
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case int(Int64), string(String)
    public var description: String { switch self { case .int(let i): "\(i)"; case .string(let s): "\"\(s)\"" } }
}
public struct RPCError: Error, Equatable, Sendable { public var code: Int; public var message: String; public var data: JSONValue?
    public init(code: Int, message: String, data: JSONValue? = nil) { self.code = code; self.message = message; self.data = data } }
public enum Message: Equatable, Sendable {
    case request(id: RequestID, method: String, params: JSONValue)
    case notification(method: String, params: JSONValue)
    case response(id: RequestID, result: JSONValue)
    case failure(id: RequestID?, error: RPCError)
}
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible { public var message: String; public var description: String { message } }

public enum MessageCodec {
    public static func decode(_ line: [UInt8]) throws(ProtocolError) -> Message {
        var p = ShimParser(bytes: line)
        guard let v = p.parseDocument(), case .object(let o) = v else { throw ProtocolError(message: "malformed JSON") }
        func rid(_ v: JSONValue?) -> RequestID? {
            switch v { case .int(let i)?: return .int(i); case .string(let s)?: return .string(s); default: return nil }
        }
        if case .string(let m)? = o["method"] {
            if let id = rid(o["id"]) { return .request(id: id, method: m, params: o["params"] ?? .null) }
            return .notification(method: m, params: o["params"] ?? .null)
        }
        if let r = o["result"], let id = rid(o["id"]) { return .response(id: id, result: r) }
        if case .object(let e)? = o["error"], case .int(let c)? = e["code"], case .string(let msg)? = e["message"] {
            return .failure(id: rid(o["id"]), error: RPCError(code: Int(c), message: msg, data: e["data"]))
        }
        throw ProtocolError(message: "not a JSON-RPC message")
    }
    public static func encode(_ message: Message) -> [UInt8] {
        func enc(_ v: JSONValue) -> String {
            switch v {
            case .null: return "null"
            case .bool(let b): return b ? "true" : "false"
            case .int(let i): return "\(i)"
            case .double(let d): return "\(d)"
            case .string(let s):
                var r = "\""
                for u in s.unicodeScalars {
                    switch u { case "\"": r += "\\\""; case "\\": r += "\\\\"; case "\n": r += "\\n"
                    default: if u.value < 0x20 { r += "\\u00" + (u.value < 16 ? "0" : "") + String(u.value, radix: 16) } else { r.unicodeScalars.append(u) } }
                }
                return r + "\""
            case .array(let a): return "[" + a.map(enc).joined(separator: ",") + "]"
            case .object(let o): return "{" + o.sorted { $0.key < $1.key }.map { enc(.string($0.key)) + ":" + enc($0.value) }.joined(separator: ",") + "}"
            }
        }
        func id(_ i: RequestID?) -> JSONValue { switch i { case .int(let v)?: .int(v); case .string(let s)?: .string(s); case nil: .null } }
        var o: JSONObject = ["jsonrpc": .string("2.0")]
        switch message {
        case .request(let i, let m, let p): o["id"] = id(i); o["method"] = .string(m); if p != .null { o["params"] = p }
        case .notification(let m, let p): o["method"] = .string(m); if p != .null { o["params"] = p }
        case .response(let i, let r): o["id"] = id(i); o["result"] = r
        case .failure(let i, let e):
            o["id"] = id(i); var eo: JSONObject = ["code": .int(Int64(e.code)), "message": .string(e.message)]
            if let d = e.data { eo["data"] = d }
            o["error"] = .object(eo)
        }
        return Array(enc(.object(o)).utf8)
    }
}

struct ShimParser {
    let bytes: [UInt8]; var i = 0
    init(bytes: [UInt8]) { self.bytes = bytes }
    mutating func ws() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }
    mutating func parseDocument() -> JSONValue? { ws(); guard let v = value() else { return nil }; ws(); return i == bytes.count ? v : nil }
    mutating func lit(_ s: String) -> Bool { let u = Array(s.utf8); if bytes.count - i >= u.count, Array(bytes[i..<i+u.count]) == u { i += u.count; return true }; return false }
    mutating func value() -> JSONValue? {
        ws(); guard i < bytes.count else { return nil }
        switch bytes[i] {
        case UInt8(ascii: "n"): return lit("null") ? .null : nil
        case UInt8(ascii: "t"): return lit("true") ? .bool(true) : nil
        case UInt8(ascii: "f"): return lit("false") ? .bool(false) : nil
        case UInt8(ascii: "\""): return string().map { .string($0) }
        case UInt8(ascii: "["):
            i += 1; var a: [JSONValue] = []; ws()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
            while true { guard let v = value() else { return nil }; a.append(v); ws()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "]") { i += 1; return .array(a) }
                return nil }
        case UInt8(ascii: "{"):
            i += 1; var o: JSONObject = [:]; ws()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
            while true { ws(); guard let k = string() else { return nil }; ws()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }; i += 1
                guard let v = value() else { return nil }; o[k] = v; ws()
                guard i < bytes.count else { return nil }
                if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
                if bytes[i] == UInt8(ascii: "}") { i += 1; return .object(o) }
                return nil }
        default:
            let s = i
            while i < bytes.count, "+-0123456789.eE".utf8.contains(bytes[i]) { i += 1 }
            let t = String(decoding: bytes[s..<i], as: UTF8.self)
            if let n = Int64(t) { return .int(n) }; if let d = Double(t) { return .double(d) }; return nil
        }
    }
    mutating func string() -> String? {
        guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else { return nil }; i += 1
        var out: [UInt8] = []
        while i < bytes.count {
            let c = bytes[i]; i += 1
            if c == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            if c == UInt8(ascii: "\\") {
                guard i < bytes.count else { return nil }; let e = bytes[i]; i += 1
                switch e {
                case UInt8(ascii: "n"): out.append(0x0A); case UInt8(ascii: "t"): out.append(0x09); case UInt8(ascii: "r"): out.append(0x0D)
                case UInt8(ascii: "u"):
                    guard i + 4 <= bytes.count, let v = UInt32(String(decoding: bytes[i..<i+4], as: UTF8.self), radix: 16) else { return nil }
                    i += 4; out.append(contentsOf: Array(String(UnicodeScalar(v) ?? "?").utf8))
                default: out.append(e)
                }
            } else if c < 0x20 { return nil } else { out.append(c) }
        }
        return nil
    }
}

public struct LineSplitter: Sendable {
    public static let defaultMaxLineLength = 4 * 1024 * 1024
    public enum Piece: Equatable, Sendable { case line([UInt8]); case overlong(byteCount: Int) }
    let max: Int; var buffer: [UInt8] = []; var discarding = 0; var isDiscarding = false
    public init(maxLineLength: Int = LineSplitter.defaultMaxLineLength) { max = maxLineLength }
    public mutating func push(_ chunk: UnsafeRawBufferPointer) -> [Piece] {
        var out: [Piece] = []
        for b in chunk {
            if b == 0x0A {
                if isDiscarding { out.append(.overlong(byteCount: discarding)); isDiscarding = false; discarding = 0 }
                else { out.append(.line(buffer)) }
                buffer.removeAll(keepingCapacity: true)
            } else if isDiscarding { discarding += 1 }
            else { buffer.append(b); if buffer.count > max { isDiscarding = true; discarding = buffer.count; buffer.removeAll() } }
        }
        return out
    }
    public mutating func finish() -> [Piece] {
        defer { buffer = []; isDiscarding = false; discarding = 0 }
        if isDiscarding { return [.overlong(byteCount: discarding)] }
        return buffer.isEmpty ? [] : [.line(buffer)]
    }
}
