import Testing
import TabdeckPluginKit
import TabdeckProtocol
@testable import PostgresBrowser

/// The TLS settings (``PGTLS``) read from the open args, the URL's query and the environment,
/// without a server or files (the server-backed checks are Scripts/test-postgres).
@Suite struct PGTLSTests {
    let home = ["HOME": "/home/ann"]
    /// Files that exist, for `fileExists`.
    var files: Set<String> = ["/ca.pem", "/other-ca.pem", "/client.crt", "/client.key"]

    func resolve(args: [String: String] = [:], url: [String: String] = [:], env: [String: String] = [:],
                 files extra: Set<String> = []) throws -> PGTLS {
        let all = files.union(extra)
        return try PGTLS.resolve(args: args, url: url, environment: home.merging(env) { $1 }, fileExists: { all.contains($0) })
    }

    /// The error's message, or nil when `body` does not throw an `RPCError`.
    func message(_ body: () throws -> PGTLS) -> String? {
        do { _ = try body(); return nil } catch let e as RPCError { return e.message } catch { return nil }
    }

    @Test func defaultIsPreferWithoutFilesOrChecks() throws {
        let tls = try resolve()
        #expect(tls == PGTLS(mode: .prefer))
        #expect(tls.verification == .none)
    }

    @Test func everyModeAndItsCheckOfTheServerCertificate() throws {
        let expected: [PGTLS.Mode: PGTLS.Verification] = [.disable: .none, .allow: .none, .prefer: .none, .require: .none,
                                                          .verifyCA: .chain, .verifyFull: .chainAndHost]
        #expect(Set(PGTLS.Mode.allCases.map(\.rawValue)) == ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"])
        for mode in PGTLS.Mode.allCases {
            let root = mode == .verifyCA || mode == .verifyFull ? ["sslrootcert": "/ca.pem"] : [:]
            let tls = try resolve(args: ["sslmode": mode.rawValue].merging(root) { $1 })
            #expect(tls.mode == mode)
            #expect(tls.verification == expected[mode])
        }
    }

    @Test func aRootCertificateMakesRequireCheckTheChainAsLibpqDoes() throws {
        let tls = try resolve(args: ["sslmode": "require", "sslrootcert": "/ca.pem"])
        #expect(tls.rootCert == "/ca.pem" && tls.verification == .chain)
        // The default root certificate too, when it exists.
        let byDefault = try resolve(args: ["sslmode": "require"], files: ["/home/ann/.postgresql/root.crt"])
        #expect(byDefault.rootCert == "/home/ann/.postgresql/root.crt" && byDefault.verification == .chain)
        #expect(try resolve(args: ["sslmode": "require"]).verification == .none)
    }

    @Test func argsWinOverTheURLWhichWinsOverTheEnvironment() throws {
        let env = ["PGSSLMODE": "allow", "PGSSLROOTCERT": "/other-ca.pem"]
        let url = ["sslmode": "require", "sslrootcert": "/ca.pem"]
        #expect(try resolve(env: env).mode == .allow)
        #expect(try resolve(env: env).rootCert == "/other-ca.pem")
        #expect(try resolve(url: url, env: env).mode == .require)
        #expect(try resolve(url: url, env: env).rootCert == "/ca.pem")
        let args = try resolve(args: ["sslmode": "verify-full", "sslrootcert": "/other-ca.pem"], url: url, env: env)
        #expect(args == PGTLS(mode: .verifyFull, rootCert: "/other-ca.pem"))
        // Each setting on its own: the mode from the args, the root certificate from the URL.
        #expect(try resolve(args: ["sslmode": "verify-ca"], url: url, env: env) == PGTLS(mode: .verifyCA, rootCert: "/ca.pem"))
    }

    @Test func anUnknownModeNamesItsPlaceAndTheValidValues() {
        let valid = "(valid: disable, allow, prefer, require, verify-ca, verify-full)"
        #expect(message { try resolve(args: ["sslmode": "on"]) } == "params.args.sslmode: unknown sslmode \"on\" \(valid)")
        #expect(message { try resolve(url: ["sslmode": "Require"]) } == "params.args.url: unknown sslmode \"Require\" \(valid)")
        #expect(message { try resolve(env: ["PGSSLMODE": "yes"]) } == "PGSSLMODE: unknown sslmode \"yes\" \(valid)")
        // The error's data names the field.
        do { _ = try resolve(args: ["sslmode": "on"]); Issue.record("no error") } catch let e as RPCError {
            #expect(e.data == ["path": "params.args.sslmode"])
        } catch { Issue.record("\(error)") }
    }

    @Test func verifyModesNeedARootCertificate() throws {
        let m = message { try resolve(args: ["sslmode": "verify-full"]) }
        #expect(m?.contains("/home/ann/.postgresql/root.crt does not exist") == true)
        #expect(m?.contains("give sslrootcert") == true)
        #expect(message { try resolve(args: ["sslmode": "verify-ca"]) } != nil)
        #expect(try resolve(args: ["sslmode": "verify-ca"], files: ["/home/ann/.postgresql/root.crt"]).rootCert
            == "/home/ann/.postgresql/root.crt")
    }

    @Test func aNamedFileMustExist() {
        #expect(message { try resolve(args: ["sslrootcert": "/nope.pem"]) } == "params.args.sslrootcert: /nope.pem does not exist")
        #expect(message { try resolve(url: ["sslcert": "/nope.crt"]) } == "params.args.url: sslcert /nope.crt does not exist")
        #expect(message { try resolve(env: ["PGSSLKEY": "/nope.key", "PGSSLCERT": "/client.crt"]) }
            == "PGSSLKEY: sslkey /nope.key does not exist")
        // Not read at all without TLS.
        #expect(message { try resolve(args: ["sslmode": "disable", "sslrootcert": "/nope.pem"]) } == nil)
    }

    @Test func clientCertificateAndKeyFromTheSettingsOrTheDefaults() throws {
        let named = try resolve(args: ["sslcert": "/client.crt", "sslkey": "/client.key"])
        #expect(named.cert == "/client.crt" && named.key == "/client.key")
        let defaults: Set<String> = ["/home/ann/.postgresql/postgresql.crt", "/home/ann/.postgresql/postgresql.key"]
        let byDefault = try resolve(files: defaults)
        #expect(byDefault.cert == "/home/ann/.postgresql/postgresql.crt" && byDefault.key == "/home/ann/.postgresql/postgresql.key")
        // A key alone is not used (libpq reads the key of a certificate only).
        #expect(try resolve(args: ["sslkey": "/client.key"]).key == nil)
        let noKey = message { try resolve(args: ["sslcert": "/client.crt"]) }
        #expect(noKey?.hasPrefix("the client certificate /client.crt has no key") == true)
    }

    @Test func disableReadsNothingElse() throws {
        let tls = try resolve(args: ["sslmode": "disable"], files: ["/home/ann/.postgresql/root.crt",
                                                                    "/home/ann/.postgresql/postgresql.crt"])
        #expect(tls == PGTLS(mode: .disable))
    }
}

/// The TLS settings in the URL's query.
@Suite struct PGURLParametersTests {
    @Test func queryParametersAreReadAndPercentDecoded() throws {
        let url = "postgresql://ann@db:5432/shop?sslmode=verify-full&sslrootcert=/etc/my%20ca.pem"
        #expect(try PGTarget.parameters(url: url) == ["sslmode": "verify-full", "sslrootcert": "/etc/my ca.pem"])
        #expect(try PGTarget(url: url) == PGTarget(user: "ann", host: "db", port: 5432, database: "shop"))
        #expect(try PGTarget.parameters(url: "postgresql://ann@db/shop") == [:])
    }

    @Test func unknownRepeatedOrEmptyParametersAreRefused() {
        func message(_ url: String) -> String? {
            do { _ = try PGTarget(url: url); return nil } catch let e as RPCError { return e.message } catch { return nil }
        }
        #expect(message("postgresql://ann@db/shop?sslmdoe=require")?.hasPrefix(
            "params.args.url: unknown parameter \"sslmdoe\" (known: sslmode, sslrootcert, sslcert, sslkey)") == true)
        #expect(message("postgresql://ann@db/shop?sslmode=require&sslmode=disable")?.contains("sslmode is given twice") == true)
        #expect(message("postgresql://ann@db/shop?sslmode")?.contains("sslmode has no value") == true)
        // A password stays refused, with or without a query.
        #expect(message("postgresql://ann:secret@db/shop?sslmode=require")?.contains("a password does not belong") == true)
    }
}
