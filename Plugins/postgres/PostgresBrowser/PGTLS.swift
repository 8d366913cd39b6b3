import Foundation
import TabdeckPluginKit
import TabdeckProtocol

/// How the plugin uses TLS, as libpq does (https://www.postgresql.org/docs/current/libpq-ssl.html).
///
/// Each setting comes from the tab's open args (`"sslmode": "require"`), else the URL's query
/// (`postgresql://u@h/db?sslmode=require`), else the environment (`PGSSLMODE`), else its default:
///
/// - `sslmode` (`PGSSLMODE`, default `prefer`): `disable` plaintext; `allow` plaintext, and TLS
///   only if the server refuses plaintext; `prefer` TLS if the server offers it, else plaintext
///   (also when the TLS handshake fails); `require` TLS; `verify-ca` TLS with the server's
///   certificate chain checked against the root certificate; `verify-full` that and the host
///   name too.
/// - `sslrootcert` (`PGSSLROOTCERT`, default `~/.postgresql/root.crt` if it exists): the CAs
///   trusted. When there is one, the chain is checked in every mode that uses TLS, as libpq does
///   (so `require` with `sslrootcert` is `verify-ca`); `verify-ca` and `verify-full` need one.
/// - `sslcert` and `sslkey` (`PGSSLCERT`, `PGSSLKEY`, default `~/.postgresql/postgresql.crt` and
///   `.key` if the certificate exists): the client certificate and its key.
///
/// A file that is named but missing is an error naming where it was named.
public struct PGTLS: Hashable, Sendable {
    /// libpq's `sslmode` values, weakest first.
    public enum Mode: String, CaseIterable, Hashable, Sendable {
        case disable, allow, prefer, require
        case verifyCA = "verify-ca"
        case verifyFull = "verify-full"
    }

    /// How the server's certificate is checked.
    public enum Verification: Hashable, Sendable {
        /// Not at all (any certificate, any name).
        case none
        /// Signed by a CA of ``PGTLS/rootCert``.
        case chain
        /// Signed by a CA of ``PGTLS/rootCert`` and made for the host connected to.
        case chainAndHost
    }

    public var mode: Mode
    /// The file of the CAs trusted, if any.
    public var rootCert: String?
    /// The client certificate's file, if any (then ``key`` is set too).
    public var cert: String?
    /// The client certificate's private key file.
    public var key: String?

    public init(mode: Mode, rootCert: String? = nil, cert: String? = nil, key: String? = nil) {
        self.mode = mode; self.rootCert = rootCert; self.cert = cert; self.key = key
    }

    /// The check of the server's certificate: none without a root certificate (`allow`,
    /// `prefer`, `require`), the chain with one or with `verify-ca`, the host name too with
    /// `verify-full`.
    public var verification: Verification {
        switch mode {
        case .verifyFull: return .chainAndHost
        case .verifyCA: return .chain
        case .disable, .allow, .prefer, .require: return rootCert == nil ? .none : .chain
        }
    }

    /// The names of the settings, as in the args, the URL's query and libpq.
    public static let keys = ["sslmode", "sslrootcert", "sslcert", "sslkey"]
    static let environmentNames = ["sslmode": "PGSSLMODE", "sslrootcert": "PGSSLROOTCERT", "sslcert": "PGSSLCERT", "sslkey": "PGSSLKEY"]

    /// One setting's value and where it came from, for messages.
    struct Setting {
        var value: String
        /// `params.args.sslmode`, `params.args.url` or `PGSSLMODE`.
        var place: String
        /// The JSON path for the error's data (nil for the environment).
        var path: String?
    }

    /// The settings from `args` (the open args' string values by key), else `url` (the URL's
    /// query, ``PGTarget/parameters(url:)``), else `environment`, else the defaults under
    /// `environment["HOME"]`. `fileExists` is asked about each file (a default is used only if
    /// it exists; a named one must exist). Errors name the setting's place.
    public static func resolve(args: [String: String], url: [String: String], environment: [String: String],
                               fileExists: (String) -> Bool) throws -> PGTLS {
        func setting(_ key: String) -> Setting? {
            if let v = args[key] { return Setting(value: v, place: "params.args.\(key)", path: "params.args.\(key)") }
            if let v = url[key] { return Setting(value: v, place: "params.args.url", path: "params.args.url") }
            if let name = environmentNames[key], let v = environment[name] { return Setting(value: v, place: name, path: nil) }
            return nil
        }
        func bad(_ s: Setting, _ key: String, _ why: String) -> RPCError {
            let what = s.place.hasSuffix(".\(key)") ? why : "\(key) \(why)"
            return RPCError.badParams("\(s.place): \(what)", path: s.path)
        }
        var mode = Mode.prefer
        if let s = setting("sslmode") {
            guard let m = Mode(rawValue: s.value) else {
                let valid = Mode.allCases.map(\.rawValue).joined(separator: ", ")
                throw RPCError.badParams("\(s.place): unknown sslmode \"\(s.value)\" (valid: \(valid))", path: s.path)
            }
            mode = m
        }
        if mode == .disable { return PGTLS(mode: .disable) }
        /// A named file, which must exist, else the default if it exists.
        func file(_ key: String, default name: String) throws -> String? {
            if let s = setting(key) {
                guard !s.value.isEmpty else { throw bad(s, key, "is empty (expected a file)") }
                guard fileExists(s.value) else { throw bad(s, key, "\(s.value) does not exist") }
                return s.value
            }
            let path = home(environment) + "/.postgresql/" + name
            return fileExists(path) ? path : nil
        }
        var tls = PGTLS(mode: mode, rootCert: try file("sslrootcert", default: "root.crt"))
        if tls.rootCert == nil && (mode == .verifyCA || mode == .verifyFull) {
            let root = home(environment) + "/.postgresql/root.crt"
            throw RPCError.badParams("sslmode \(mode.rawValue) checks the server's certificate against a root certificate, "
                + "but none is set and \(root) does not exist: give sslrootcert (in the args, the URL or PGSSLROOTCERT)",
                path: setting("sslmode")?.path)
        }
        tls.cert = try file("sslcert", default: "postgresql.crt")
        if let cert = tls.cert {
            tls.key = try file("sslkey", default: "postgresql.key")
            if tls.key == nil {
                throw RPCError.badParams("the client certificate \(cert) has no key: give sslkey (in the args, the URL or PGSSLKEY) "
                    + "or create \(home(environment))/.postgresql/postgresql.key", path: setting("sslcert")?.path)
            }
        }
        return tls
    }

    static func home(_ environment: [String: String]) -> String { environment["HOME"] ?? NSHomeDirectory() }

    /// `sslmode=prefer`, for messages.
    public var display: String { "sslmode=\(mode.rawValue)" }
}
