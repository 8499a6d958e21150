// The soak: many requests from 64 tasks against the Python IM peer, which cuts its writes
// anywhere (1 to 3 pieces, frame tails glued to the next frame), shuffles its replies, stalls
// now and then, and drops the connection every few thousand frames. `make test` runs 20,000
// frames; `make soak` a million (SWIFTFRAME_SOAK_FRAMES), and then also holds resident memory
// to a bound.

import Foundation
import NIOConcurrencyHelpers
import SwiftFrame
import SwiftFrameFixtures
import SwiftFrameNIO
import Testing

@Suite(.serialized) struct SoakTests {
    static let environment = ProcessInfo.processInfo.environment
    static let frames = environment["SWIFTFRAME_SOAK_FRAMES"].flatMap { Int($0) } ?? 20_000
    static let dropEvery = 3_000
    static let tasks = 64

    /// What the run saw, counted across the tasks.
    struct Counts: Sendable {
        var delivered = 0
        var failed: [String: Int] = [:]
        var misdelivered = 0
        /// Requests still failing after 20 attempts.
        var abandoned = 0
    }

    @Test(.timeLimit(.minutes(30)))
    func requestsSurviveCutWritesStallsAndDrops() async throws {
        let peer = try await Peer.start(
            "im",
            [
                "--cut", "--stall-ms", "20", "--out-of-order", "16", "--drop-after", "\(Self.dropEvery)",
                "--lifetime", "3600",
            ])
        let counts = NIOLockedValueBox(Counts())
        let memory = MemorySampler()
        let start = ContinuousClock.now
        try await withClient(ImCommands.self, peer: peer, configuration: quickReconnect()) { client in
            let pushes = Task {
                var count = 0
                for await _ in client.pushes { count += 1 }
                return count
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<Self.tasks {
                    group.addTask {
                        // Each request is sent until it is delivered (at most 20 times); every failure
                        // is counted by its kind.
                        for index in stride(from: task, to: Self.frames, by: Self.tasks) {
                            var delivered = false
                            for _ in 1...20 where !delivered {
                                do {
                                    let reply = try await client.request(
                                        try userInfo(UInt32(index)), timeout: .seconds(10))
                                    let uid = try UserInfoRequest.Response(serializedBytes: reply.respon).userInfo?.uid
                                    counts.withLockedValue {
                                        $0.delivered += 1
                                        if uid != UInt32(index) { $0.misdelivered += 1 }
                                    }
                                    delivered = true
                                } catch let error as FrameClientError {
                                    counts.withLockedValue { $0.failed[Self.kind(of: error), default: 0] += 1 }
                                }
                            }
                            if !delivered { counts.withLockedValue { $0.abandoned += 1 } }
                            if task == 0 && index % 1_000 < Self.tasks { memory.sample() }
                        }
                    }
                }
                try await group.waitForAll()
            }
            pushes.cancel()
            #expect(client.droppedPushes == 0)
            let strays = await pushes.value
            #expect(strays == 0, "replies handed on as pushes")
        }
        let seconds = Double((ContinuousClock.now - start).components.seconds)
        let final = counts.withLockedValue { $0 }
        let connectionsLost = final.failed["connectionLost", default: 0]
        print(
            """
            soak: \(final.delivered) frames delivered in \(Int(seconds)) s; \
            failed requests (reported, then sent again): \(final.failed.sorted { $0.key < $1.key }); \
            misdelivered: \(final.misdelivered); \(memory.summary)
            """)
        #expect(final.delivered == Self.frames)
        #expect(final.misdelivered == 0)
        #expect(final.abandoned == 0)
        // Only the drops fail requests: nothing times out (a lost frame would), nothing else.
        #expect(Set(final.failed.keys).isSubset(of: ["connectionLost", "noConnection"]), "\(final.failed)")
        #expect(connectionsLost > 0, "the peer never dropped the connection")
        if Self.frames >= 200_000 {
            // Flat: from a tenth of the run to its end, resident memory grows by under 16 MiB.
            #expect(memory.growthAfterWarmUp < 16 << 20, "\(memory.summary)")
        }
    }

    static func kind(of error: FrameClientError) -> String {
        switch error {
        case .timedOut: "timedOut"
        case .noConnection: "noConnection"
        case .connectionLost: "connectionLost"
        case .tooManyPending: "tooManyPending"
        case .badReply: "badReply"
        case .stopped: "stopped"
        case .alreadyRunning: "alreadyRunning"
        case .gaveUp: "gaveUp"
        }
    }
}

/// Resident memory of this process (`/proc/self/statm`), sampled during the run.
final class MemorySampler: Sendable {
    private let samples = NIOLockedValueBox<[Int]>([])

    func sample() {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
            let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) })
        else { return }
        let bytes = pages * Int(sysconf(Int32(_SC_PAGESIZE)))
        samples.withLockedValue { $0.append(bytes) }
    }

    var growthAfterWarmUp: Int {
        samples.withLockedValue { samples in
            guard samples.count >= 10 else { return 0 }
            return samples.last! - samples[samples.count / 10]
        }
    }

    var summary: String {
        samples.withLockedValue { samples in
            guard let first = samples.first, let last = samples.last, let peak = samples.max() else {
                return "resident memory: not sampled"
            }
            let warm = samples[samples.count / 10]
            func mib(_ bytes: Int) -> String { String(format: "%.1f MiB", Double(bytes) / 1_048_576) }
            return "resident memory (\(samples.count) samples): first \(mib(first)), at a tenth \(mib(warm)), "
                + "peak \(mib(peak)), last \(mib(last))"
        }
    }
}
