/// Encoding and decoding of protocol lines (JSON-RPC 2.0 shapes, one object per line).
public enum MessageCodec {
    /// Decodes one line (without its `\n`) into a message.
    ///
    /// The `result` of a `rows` reply and the `params` of a `rows/chunk` notification are
    /// decoded straight to ``Row``s here (the supervisor's reader thread), so
    /// ``RowsResult/init(_:path:)`` takes them as they are; the message is
    /// equal to the one the generic parser gives, and errors are the same.
    public static func decode(_ line: [UInt8]) throws(ProtocolError) -> Message {
        try decode(line, rowsFastPath: true)
    }

    /// ``decode(_:)-([UInt8])`` with the `rows` fast path on or off (the tests compare both).
    static func decode(_ line: [UInt8], rowsFastPath: Bool) throws(ProtocolError) -> Message {
        let value: JSONValue
        do { value = try JSONParser.parse(line, rowsFastPath: rowsFastPath) } catch {
            throw ProtocolError("malformed JSON at column \(error.column): \(error.reason); line starts \(preview(line))")
        }
        return try decode(value)
    }

    /// Decodes a parsed JSON value into a message.
    public static func decode(_ value: JSONValue) throws(ProtocolError) -> Message {
        guard case .object(let object) = value else {
            throw ProtocolError("a message must be a JSON object, got \(value.typeDescription)")
        }
        var id: RequestID?
        if let rawID = object["id"] {
            switch rawID {
            case .int(let i): id = .int(i)
            case .string(let s): id = .string(s)
            case .null: id = nil
            default: throw ProtocolError("field \"id\" must be an integer or a string, got \(rawID.typeDescription)")
            }
        }
        if let method = object["method"] {
            guard case .string(let name) = method else {
                throw ProtocolError("field \"method\" must be a string, got \(method.typeDescription)")
            }
            let params = object["params"] ?? .null
            if let id { return .request(id: id, method: name, params: params) }
            return .notification(method: name, params: params)
        }
        if let error = object["error"] {
            guard case .object(let e) = error, let code = e["code"]?.intValue, let message = e["message"]?.stringValue else {
                throw ProtocolError("field \"error\" must be an object with an integer \"code\" and a string \"message\"")
            }
            return .failure(id: id, error: RPCError(code: Int(code), message: message, data: e["data"]))
        }
        if let result = object["result"] {
            guard let id else { throw ProtocolError("a response needs an \"id\"") }
            return .response(id: id, result: result)
        }
        throw ProtocolError("a message needs \"method\", \"result\" or \"error\"")
    }

    /// Encodes a message as one compact JSON object (no trailing newline).
    public static func encode(_ message: Message) -> [UInt8] {
        JSONWriter.bytes(.object(envelope(message)))
    }

    /// The JSON object for a message.
    public static func envelope(_ message: Message) -> JSONObject {
        var o: JSONObject = ["jsonrpc": "2.0"]
        switch message {
        case .request(let id, let method, let params):
            o["id"] = id.json; o["method"] = .string(method); o["params"] = params
        case .notification(let method, let params):
            o["method"] = .string(method); o["params"] = params
        case .response(let id, let result):
            o["id"] = id.json; o["result"] = result
        case .failure(let id, let error):
            o["id"] = id?.json ?? .null
            var e: JSONObject = ["code": .int(Int64(error.code)), "message": .string(error.message)]
            if let data = error.data { e["data"] = data }
            o["error"] = .object(e)
        }
        return o
    }

    /// A short, printable preview of a line for error messages.
    public static func preview(_ line: [UInt8], limit: Int = 60) -> String {
        let head = String(decoding: line.prefix(limit), as: UTF8.self)
        let escaped = head.unicodeScalars.map { s -> String in
            s.value < 0x20 || s.value == 0x7F ? "\\u{\(String(s.value, radix: 16))}" : String(s)
        }.joined()
        return "\"\(escaped)\"" + (line.count > limit ? "…" : "")
    }
}
