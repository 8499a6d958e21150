// The machine a benchmark ran on, printed with every result: ratios between two contenders
// hold on one machine kind and can differ on another, and a busy machine spreads the runs.

import Foundation

public enum Machine {
    /// `CPU: MODEL, N cores; load A B C` (the 1, 5 and 15 minute load averages now), with
    /// `; pinned to CPU 0` when the process may run on fewer CPUs than are online (`taskset`).
    public static var line: String {
        "CPU: \(cpuModel), \(ProcessInfo.processInfo.activeProcessorCount) cores\(affinity.map { "; pinned to CPU \($0)" } ?? ""); \(load)"
    }

    /// The CPUs this process may run on (`Cpus_allowed_list` of /proc/self/status, "0" or
    /// "0,2-3"), when they are not all the CPUs online; nil when they are, or unknown.
    public static var affinity: String? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let online = try? String(contentsOfFile: "/sys/devices/system/cpu/online", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Cpus_allowed_list:") })
        else { return nil }
        let allowed = line.dropFirst("Cpus_allowed_list:".count).trimmingCharacters(in: .whitespaces)
        return allowed == online.trimmingCharacters(in: .whitespacesAndNewlines) ? nil : allowed
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
