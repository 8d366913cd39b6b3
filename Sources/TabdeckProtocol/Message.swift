/// A JSON-RPC request id: an integer or a string.
public enum RequestID: Hashable, Sendable, CustomStringConvertible {
    case int(Int64)
    case string(String)

    public var description: String {
        switch self {
        case .int(let i): String(i)
        case .string(let s): "\"\(s)\""
        }
    }

    /// The id as a JSON value.
    public var json: JSONValue {
        switch self {
        case .int(let i): .int(i)
        case .string(let s): .string(s)
        }
    }
}

/// A JSON-RPC error object.
public struct RPCError: Error, Hashable, Sendable, CustomStringConvertible {
    public var code: Int
    public var message: String
    public var data: JSONValue?

    public init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code; self.message = message; self.data = data
    }

    public var description: String { "\(message) (code \(code))" }

    /// Malformed JSON.
    public static let parseError = -32700
    /// Not a valid request object.
    public static let invalidRequest = -32600
    /// The method does not exist.
    public static let methodNotFound = -32601
    /// Bad parameters.
    public static let invalidParams = -32602
    /// The plugin failed internally.
    public static let internalError = -32603
    /// The request was cancelled with `$/cancel`.
    public static let requestCancelled = -32800
    /// The `table` handle is not known to the plugin.
    public static let unknownTable = -32001
    /// The plugin does not support what was asked (e.g. sorting a column).
    public static let notSupported = -32002
    /// An action failed.
    public static let actionFailed = -32003
}

/// One protocol message: a line on the wire.
public enum Message: Hashable, Sendable {
    case request(id: RequestID, method: String, params: JSONValue)
    case notification(method: String, params: JSONValue)
    case response(id: RequestID, result: JSONValue)
    case failure(id: RequestID?, error: RPCError)
}

/// What is wrong with a line received on the protocol.
public struct ProtocolError: Error, Equatable, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
