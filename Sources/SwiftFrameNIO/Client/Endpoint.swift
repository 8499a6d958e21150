/// Where a server listens: a host name or address, and a TCP port. A client given several
/// races them when it connects (`ClientConfiguration.connectStagger`).
public struct Endpoint: Sendable, Hashable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
