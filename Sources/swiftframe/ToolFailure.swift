import ArgumentParser
import Foundation

/// A failure that ends a command with a message on stderr and an exit status of its own.
struct ToolFailure: Error, CustomStringConvertible {
    enum Status: Int32 {
        /// The command ran and what it read or was answered was an error.
        case failed = 1
        /// A network or transport failure.
        case transport = 2
        /// Bad arguments or input files (sysexits' EX_USAGE).
        case usage = 64
    }

    let status: Status
    let message: String

    var description: String { message }
}

/// Runs `body`; a `ToolFailure` is printed on stderr and ends the command with its status.
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let failure as ToolFailure {
        throw failure.reported()
    }
}

/// `reportingFailures` for async work.
func reportingFailures(_ body: () async throws -> Void) async throws {
    do {
        try await body()
    } catch let failure as ToolFailure {
        throw failure.reported()
    }
}

extension ToolFailure {
    /// Prints the message on stderr; the exit code to end with.
    func reported() -> ExitCode {
        FileHandle.standardError.write(Data(("swiftframe: " + message + "\n").utf8))
        return ExitCode(status.rawValue)
    }
}
