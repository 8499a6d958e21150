// How the side-by-side benchmarks share this machine between their contenders. A run is cut
// into blocks, and in each block every contender takes its turn, the first one changing from
// block to block: whatever slows the machine for a moment (another guest on the host, a timer,
// a virtual machine's change of speed) then falls on every contender of the run alike, not on
// one contender's run.

import Foundation

public enum Turns {
    /// Blocks a run is cut into: `usual` (10 unless a table says otherwise), or `BLOCKS` from
    /// the environment for every table (`BLOCKS=1`: each contender's run whole, as the
    /// benchmarks measured before blocks).
    public static func blocks(usual: Int = 10) -> Int {
        fromEnvironment ?? usual
    }

    private static let fromEnvironment = Int(ProcessInfo.processInfo.environment["BLOCKS"] ?? "").map { max(1, $0) }

    /// `items` in the order of turn `turn`: each goes first in turn, the others after it in
    /// their order.
    public static func order<Item>(_ items: [Item], turn: Int) -> [Item] {
        let first = turn % items.count
        return Array(items[first...] + items[..<first])
    }
}
