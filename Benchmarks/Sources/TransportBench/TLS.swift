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
        let newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try openssl(["req", "-x509"] + newKey + [
            "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=swiftframe benchmark CA",
            "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign",
        ], in: directory)
        try openssl(["req", "-new"] + newKey + ["-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=\(serverName)"],
                    in: directory)
        try Data("""
            basicConstraints=critical,CA:FALSE
            keyUsage=critical,digitalSignature
            extendedKeyUsage=serverAuth
            subjectAltName=DNS:\(serverName),IP:127.0.0.1

            """.utf8).write(to: directory.appendingPathComponent("server.ext"))
        try openssl([
            "x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-days", "2",
            "-extfile", "server.ext", "-out", "server.pem",
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

/// Runs openssl in `directory`, within 30 s.
private func openssl(_ arguments: [String], in directory: URL) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["openssl"] + arguments
    process.currentDirectoryURL = directory
    let errors = Pipe()
    process.standardError = errors
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    let deadline = now() + 30
    while process.isRunning && now() < deadline { usleep(10_000) }
    if process.isRunning {
        process.terminate()
        throw ToolError(description: "openssl \(arguments[0]) took longer than 30 s")
    }
    guard process.terminationStatus == 0 else {
        let text = String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        throw ToolError(description: "openssl \(arguments.joined(separator: " ")) failed (status \(process.terminationStatus); "
            + "status 127: no openssl, which Debian's openssl package installs): \(text)")
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
