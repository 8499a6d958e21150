// TLS for the transport benchmark's TLS rows: a certificate authority and a server certificate
// for "localhost" made by openssl (Debian's) at every run, in a temporary directory that is
// removed once they are read, and valid for two days: nothing is checked in that expires.
// Both clients trust that CA alone and check the name "localhost" (SNI and the certificate);
// the servers offer TLS 1.2 and up, so both sides settle on the same TLS 1.3 suite.

import Foundation
import NIOCore
import NIOSSL
import NIOTLS

struct BenchCertificates: Sendable {
    /// PEM text.
    let authority: [UInt8]
    let certificate: [UInt8]
    let privateKey: [UInt8]

    /// The name the certificate is for, which both clients check.
    static let serverName = "localhost"

    static func make() throws -> BenchCertificates {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("swiftframe-bench-tls-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + newKey + [
            "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=swiftframe benchmark CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ], in: directory)
        try openssl(["req", "-new"] + newKey + [
            "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=\(serverName)",
        ], in: directory)
        try Data("""
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth
            subjectAltName=DNS:\(serverName),IP:127.0.0.1

            """.utf8).write(to: directory.appendingPathComponent("server.ext"))
        try openssl([
            "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
            "-set_serial", String(UInt32.random(in: 1...UInt32.max)), "-days", "2", "-extfile", path("server.ext"),
            "-out", path("server.pem"),
        ], in: directory)
        func read(_ name: String) throws -> [UInt8] {
            Array(try Data(contentsOf: directory.appendingPathComponent(name)))
        }
        return BenchCertificates(authority: try read("ca.pem"), certificate: try read("server.pem"), privateKey: try read("server.key"))
    }

    /// The servers' context: this certificate and key.
    func serverContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(certificate).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: privateKey, format: .pem)))
        configuration.minimumTLSVersion = .tlsv12
        return try NIOSSLContext(configuration: configuration)
    }

    /// The plain SwiftNIO client's context, set as swiftframe's `ClientTLS` sets its own: full
    /// verification against this CA alone, TLS 1.2 and up.
    func clientContext() throws -> NIOSSLContext {
        var configuration = TLSConfiguration.makeClientConfiguration()
        configuration.minimumTLSVersion = .tlsv12
        configuration.certificateVerification = .fullVerification
        configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(authority))
        return try NIOSSLContext(configuration: configuration)
    }
}

struct ToolError: Error, CustomStringConvertible {
    let description: String
}

/// Runs openssl, within 30 s, its errors going to `directory`/openssl.log. With posix_spawn itself: Foundation's Process
/// cannot start a program under valgrind 3.19 (EBADF), and `make transport-profile` runs there.
private func openssl(_ arguments: [String], in directory: URL) throws {
    let log = directory.appendingPathComponent("openssl.log").path
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    let argv = (["openssl"] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawnp(&pid, "openssl", &actions, nil, argv, environ)
    guard spawned == 0 else {
        throw ToolError(description: "openssl does not start (\(String(cString: strerror(spawned)))); Debian's openssl package has it")
    }
    var status: Int32 = 0
    let deadline = now() + 30
    while waitpid(pid, &status, WNOHANG) == 0 {
        guard now() < deadline else {
            kill(pid, SIGKILL)
            waitpid(pid, &status, 0)
            throw ToolError(description: "openssl \(arguments[0]) took longer than 30 s")
        }
        usleep(5_000)
    }
    guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {  // WIFEXITED, WEXITSTATUS
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        throw ToolError(description: "openssl \(arguments.joined(separator: " ")) failed (wait status \(status)): \(text)")
    }
}

/// Behind NIOSSLClientHandler in the plain SwiftNIO client: succeeds `done` when the handshake
/// has completed, then leaves the pipeline, so the client's requests pass the same handlers
/// as over plain TCP plus the TLS handler. (swiftframe's client waits for the handshake too:
/// a connection counts as made once its TLS checks are done.)
final class HandshakeWaiter: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = NIOAny

    let done: EventLoopPromise<Void>

    init(done: EventLoopPromise<Void>) {
        self.done = done
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? TLSUserEvent, case .handshakeCompleted = event {
            done.succeed()
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        done.fail(error)
        context.fireErrorCaught(error)
    }

    func channelInactive(context: ChannelHandlerContext) {
        done.fail(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }
}
