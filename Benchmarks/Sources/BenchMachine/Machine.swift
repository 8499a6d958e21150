// The machine a benchmark ran on, printed with every result: ratios between two contenders
// hold on one machine kind and can differ on another, and a busy machine spreads the runs.

import Foundation

public enum Machine {
    /// `CPU: MODEL, N cores; load A B C` (the 1, 5 and 15 minute load averages now).
    public static var line: String {
        "CPU: \(cpuModel), \(ProcessInfo.processInfo.activeProcessorCount) cores; \(load)"
    }

    /// `load A B C` now, to print again when a run ends.
    public static var load: String {
        let averages = (try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8))?
            .split(separator: " ").prefix(3).joined(separator: " ")
        return "load \(averages ?? "unknown")"
    }

    /// The processor's model name, as /proc/cpuinfo gives it.
    public static var cpuModel: String {
        guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8) else { return "unknown" }
        for line in info.split(separator: "\n") where line.hasPrefix("model name") {
            if let colon = line.firstIndex(of: ":") {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return "unknown"
    }
}
