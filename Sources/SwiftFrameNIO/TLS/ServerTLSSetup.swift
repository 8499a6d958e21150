import NIOCore

#if TLS
import NIOSSL
#endif

/// What TLS adds to a server's connections (`ServerConfiguration.tls`): the TLS library's
/// context, made once per `run` (a certificate or key that does not load fails `run` with
/// `TLSFailure.badConfiguration`), and its handler in front of each connection's pipeline.
/// Without the `TLS` trait it adds nothing.
struct ServerTLSSetup: Sendable {
    #if TLS
    private let context: NIOSSLContext?
    #endif

    init(_ configuration: ServerConfiguration) throws(TLSFailure) {
        #if TLS
        context = try configuration.tls?.makeContext()
        #endif
    }

    func addHandlers(to pipeline: ChannelPipeline.SynchronousOperations) throws {
        #if TLS
        if let context { try pipeline.addHandler(NIOSSLServerHandler(context: context)) }
        #endif
    }
}
