import Foundation
import NIOSSL
import PostgresNIO
import TabdeckPluginKit
import TabdeckProtocol

/// ``PGTLS`` made concrete for PostgresNIO: its files read once (when the tab opens), and the TLS
/// of each attempt to connect.
///
/// `allow` connects in plaintext and, if the server refuses that (its pg_hba.conf, SQLSTATE
/// 28000), again with TLS; `prefer` offers TLS and, if the handshake fails, connects again in
/// plaintext (libpq's fallbacks); the other modes make one attempt.
struct PGTLSClient: Sendable {
    let settings: PGTLS
    /// The TLS context for the attempts that use TLS; nil with `disable`.
    private let context: NIOSSLContext?

    /// Reads the certificates and the key; an unreadable one fails naming its file.
    init(_ settings: PGTLS) throws {
        self.settings = settings
        guard settings.mode != .disable else { context = nil; return }
        var config = TLSConfiguration.makeClientConfiguration()
        switch settings.verification {
        case .none: config.certificateVerification = .none
        case .chain: config.certificateVerification = .noHostnameVerification
        case .chainAndHost: config.certificateVerification = .fullVerification
        }
        if let root = settings.rootCert {
            config.trustRoots = .certificates(try Self.certificates(root, "sslrootcert"))
        }
        if let cert = settings.cert, let key = settings.key {
            config.certificateChain = try Self.certificates(cert, "sslcert").map { .certificate($0) }
            do {
                config.privateKey = .privateKey(try NIOSSLPrivateKey(file: key, format: .pem))
            } catch {
                throw Self.unreadable("sslkey", key, "not a PEM private key, or one protected by a passphrase")
            }
        }
        do {
            context = try NIOSSLContext(configuration: config)
        } catch {
            throw RPCError(code: RPCError.internalError, message: "TLS (\(settings.display)): cannot set up: \(error)")
        }
    }

    private static func certificates(_ file: String, _ key: String) throws -> [NIOSSLCertificate] {
        let certificates: [NIOSSLCertificate]
        do { certificates = try NIOSSLCertificate.fromPEMFile(file) } catch {
            throw unreadable(key, file, "not PEM certificates")
        }
        guard !certificates.isEmpty else { throw unreadable(key, file, "no certificate in it") }
        return certificates
    }

    private static func unreadable(_ key: String, _ file: String, _ why: String) -> RPCError {
        let readable = FileManager.default.isReadableFile(atPath: file)
        return RPCError(code: RPCError.internalError, message: "\(key) \(file): " + (readable ? why : "cannot be read"))
    }

    /// The TLS of the first attempt.
    var first: PostgresConnection.Configuration.TLS {
        guard let context else { return .disable }
        switch settings.mode {
        case .disable, .allow: return .disable
        case .prefer: return .prefer(context)
        case .require, .verifyCA, .verifyFull: return .require(context)
        }
    }

    /// The TLS of a second attempt after the first failed with `error`, if the mode has one.
    func retry(after error: any Error) -> PostgresConnection.Configuration.TLS? {
        guard let context else { return nil }
        switch settings.mode {
        case .allow: return Self.refusesPlaintext(error) ? .require(context) : nil
        case .prefer: return Self.tlsFailure(in: error) != nil ? .disable : nil
        case .disable, .require, .verifyCA, .verifyFull: return nil
        }
    }

    /// The server refused the connection by its pg_hba.conf (`no pg_hba.conf entry for …, no
    /// encryption`, `pg_hba.conf rejects connection …`): SQLSTATE 28000.
    static func refusesPlaintext(_ error: any Error) -> Bool {
        (error as? PSQLError)?.serverInfo?[.sqlState] == "28000"
    }

    /// The failure of the TLS handshake inside `error` (PostgresNIO wraps it), if it is one; not
    /// a TLS connection closed later (the server going away).
    static func tlsFailure(in error: any Error) -> (any Error)? {
        if error is NIOSSLExtraError { return error }
        if let e = error as? NIOSSLError {
            switch e {
            case .handshakeFailed, .noCertificateToValidate, .unableToValidateCertificate, .cannotFindPeerIP: return e
            default: return nil
            }
        }
        if let e = error as? PSQLError {
            if e.code == .sslUnsupported { return e }
            if let u = e.underlying { return tlsFailure(in: u) }
        }
        return nil
    }

    /// Why TLS failed, for the user, if `error` is a TLS failure: the certificate not trusted,
    /// made for another host, the server without TLS, or the handshake's own error.
    func reason(_ error: any Error, host: String) -> String? {
        guard let failure = Self.tlsFailure(in: error) else { return nil }
        let mode = settings.display
        if let e = failure as? PSQLError, e.code == .sslUnsupported { return "the server does not support TLS (\(mode))" }
        if let e = failure as? NIOSSLExtraError, e == .failedToValidateHostname {
            return "TLS: host name mismatch: the server's certificate is not for \(host) (\(mode))"
        }
        if case .handshakeFailed(let e) = failure as? NIOSSLError {
            if "\(e)".contains("CERTIFICATE_VERIFY_FAILED") {
                let root = settings.rootCert.map { " by \($0)" } ?? ""
                return "TLS: the server's certificate is not trusted\(root) (\(mode))"
            }
            return "TLS handshake failed (\(mode)): \(e)"
        }
        return "TLS failed (\(mode)): \(failure)"
    }
}
