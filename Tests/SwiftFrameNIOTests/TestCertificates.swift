// A certificate authority and certificates made by openssl (Debian's) for this test run, in a
// temporary directory removed when the test process exits: nothing checked in, nothing that
// expires between runs.

#if TLS
import Foundation
import TestSupport

/// The files of the test PKI, made once per test process.
struct TestCertificates: Sendable {
    let directory: String

    /// The CA that signs every certificate below but `selfSigned`.
    var ca: String { path("ca.pem") }
    /// For localhost and 127.0.0.1, valid now.
    var server: (certificate: String, key: String) { pair("server") }
    /// For localhost and 127.0.0.1, valid only in January 2020.
    var expired: (certificate: String, key: String) { pair("expired") }
    /// For other.example only.
    var otherName: (certificate: String, key: String) { pair("other") }
    /// For the IP address 127.0.0.1 only (no DNS name).
    var addressOnly: (certificate: String, key: String) { pair("address-only") }
    /// CN=localhost, without subject alternative names.
    var commonNameOnly: (certificate: String, key: String) { pair("cn-only") }
    /// For `*.example.com`.
    var wildcard: (certificate: String, key: String) { pair("wildcard") }
    /// For `g*.example.com`, a partial wildcard.
    var partialWildcard: (certificate: String, key: String) { pair("partial-wildcard") }
    /// For localhost and 127.0.0.1, signed by its own key.
    var selfSigned: (certificate: String, key: String) { pair("self") }
    /// A client certificate (clientAuth).
    var client: (certificate: String, key: String) { pair("client") }
    /// For game.example.com, with the key checked in as Tests/Peers/tls/example-server.key,
    /// whose pin the README's TLS example prints.
    var example: (certificate: String, key: String) { (path("example-server.pem"), Repository.exampleServerKey) }
    /// `server`'s key pin (sha256/BASE64), computed by openssl.
    let serverPin: String
    /// The pin of another key (`selfSigned`'s).
    let otherPin: String

    func path(_ name: String) -> String { directory + "/" + name }
    private func pair(_ name: String) -> (certificate: String, key: String) {
        (path(name + ".pem"), path(name + ".key"))
    }

    /// The certificates of this process (made on first use).
    static func shared() throws -> TestCertificates { try made.get() }

    /// `shared()`, made off the task pool.
    static func load() async throws -> TestCertificates { try await offThePool { try shared() } }

    private static let made = Result { try TestCertificates.make() }

    private static func make() throws -> TestCertificates {
        let directory = processDirectory
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: TestCertificates.processDirectory) }
        try configuration.write(toFile: directory + "/openssl.cnf", atomically: true, encoding: .utf8)
        try "".write(toFile: directory + "/index.txt", atomically: true, encoding: .utf8)
        try "01\n".write(toFile: directory + "/serial", atomically: true, encoding: .utf8)
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        func openssl(_ arguments: [String]) throws {
            _ = try Tool.run(["openssl"] + arguments, in: directory)
        }
        func selfSigned(_ name: String, subject: String, extensions: String) throws {
            try openssl(
                ["req", "-config", "openssl.cnf", "-x509"] + newKey + [
                    "-keyout", name + ".key", "-out", name + ".pem", "-days", "30", "-subj", subject,
                    "-extensions", extensions,
                ])
        }
        /// A key and a certificate for it signed by the CA, valid for 30 days or between `dates`.
        func signed(
            _ name: String, subject: String, extensions: String, dates: (String, String)? = nil,
            key: String? = nil
        ) throws {
            let keyArguments = key.map { ["-key", $0] } ?? newKey + ["-keyout", name + ".key"]
            try openssl(
                ["req", "-config", "openssl.cnf", "-new"] + keyArguments + ["-out", name + ".csr", "-subj", subject])
            let validity = dates.map { ["-startdate", $0.0, "-enddate", $0.1] } ?? ["-days", "30"]
            try openssl(
                [
                    "ca", "-config", "openssl.cnf", "-batch", "-notext", "-cert", "ca.pem", "-keyfile", "ca.key",
                    "-in", name + ".csr", "-out", name + ".pem", "-extensions", extensions,
                ] + validity)
        }
        try selfSigned("ca", subject: "/CN=swiftframe test CA", extensions: "ca_ext")
        try signed("server", subject: "/CN=localhost", extensions: "server_ext")
        try signed(
            "expired", subject: "/CN=localhost", extensions: "server_ext",
            dates: ("20200101000000Z", "20200201000000Z"))
        try signed("other", subject: "/CN=other.example", extensions: "other_ext")
        try signed("address-only", subject: "/CN=game.example.com", extensions: "address_only_ext")
        try signed("cn-only", subject: "/CN=localhost", extensions: "cn_only_ext")
        try signed("wildcard", subject: "/CN=wildcard", extensions: "wildcard_ext")
        try signed("partial-wildcard", subject: "/CN=partial wildcard", extensions: "partial_wildcard_ext")
        try signed("client", subject: "/CN=swiftframe test client", extensions: "client_ext")
        try selfSigned("self", subject: "/CN=localhost", extensions: "self_ext")
        try signed(
            "example-server", subject: "/CN=game.example.com", extensions: "example_ext",
            key: Repository.exampleServerKey)
        func pin(_ name: String) throws -> String {
            let digest = try Tool.run(
                [
                    "sh", "-c",
                    "openssl x509 -in \(name).pem -noout -pubkey | openssl pkey -pubin -outform der"
                        + " | openssl dgst -sha256 -binary | openssl base64 -A",
                ], in: directory)
            return "sha256/" + digest.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return TestCertificates(directory: directory, serverPin: try pin("server"), otherPin: try pin("self"))
    }

    /// This process's directory.
    private static var processDirectory: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("swiftframe-tls-\(getpid())").path
    }

    private static let configuration = """
        [ req ]
        distinguished_name = dn
        prompt = no
        [ dn ]
        CN = unused
        [ ca_ext ]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        [ server_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        [ other_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:other.example
        [ address_only_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = IP:127.0.0.1
        [ cn_only_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        [ wildcard_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:*.example.com
        [ partial_wildcard_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:g*.example.com
        [ example_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:game.example.com
        [ client_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = clientAuth
        [ self_ext ]
        basicConstraints = CA:FALSE
        keyUsage = critical, digitalSignature
        extendedKeyUsage = serverAuth
        subjectAltName = DNS:localhost, IP:127.0.0.1
        [ ca ]
        default_ca = test_ca
        [ test_ca ]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = any
        unique_subject = no
        copy_extensions = none
        [ any ]
        commonName = supplied

        """
}

/// A command-line tool run to its end.
enum Tool {
    /// Runs `command` in `directory` (killed after 30 s); its stdout, or an error with its stderr.
    static func run(_ command: [String], in directory: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = command
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let exit: ProcessExit
        do {
            exit = try process.start()
        } catch {
            throw PeerError(
                description: "\(command[0]) does not start (\(error)); it comes with Debian's openssl package")
        }
        let stdout = LineBox()
        let stderr = LineBox()
        Thread { stdout.set(String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) }
            .start()
        Thread { stderr.set(String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) }
            .start()
        guard let text = stdout.wait(seconds: 30) else {
            process.terminate()
            throw PeerError(description: "\(command.joined(separator: " ")) did not finish within 30 s")
        }
        exit.wait()
        guard process.terminationStatus == 0 else {
            throw PeerError(description: "\(command.joined(separator: " ")) failed: \(stderr.wait(seconds: 5) ?? "")")
        }
        return text
    }
}
#endif
