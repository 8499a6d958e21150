// The queue between the callers of a connection and its event loop, on its own.

import NIOCore
import NIOEmbedded
import SwiftFrame
@testable import SwiftFrameNIO
import Testing

@Suite struct OutboundQueueTests {
    let loop = EmbeddedEventLoop()

    func send(_ bytes: Int, tag: UInt32) -> ClientWrite {
        ClientWrite(
            frame: OutboundFrame(header: FrameHeader(command: tag), payload: [UInt8](repeating: 0, count: bytes)),
            kind: .send)
    }

    func tags(_ entries: [OutboundQueue<ClientWrite>.Entry]) -> [UInt32?] {
        entries.map(\.write.frame.header.command)
    }

    @Test func onlyTheFirstFrameAfterATakeAsksForADrain() {
        let queue = OutboundQueue<ClientWrite>()
        var drains: [Bool] = []
        for tag: UInt32 in 1...3 {
            guard
                case let .queued(drain) = queue.enqueue(
                    send(10, tag: tag), whenFull: .waits, channelWritable: true, eventLoop: loop
                ).0
            else {
                Issue.record("refused")
                return
            }
            drains.append(drain)
        }
        #expect(drains == [true, false, false])
        #expect(tags(queue.take()) == [1, 2, 3])  // in the order queued
        #expect(queue.take().isEmpty)
        guard
            case .queued(drain: true) = queue.enqueue(
                send(10, tag: 4), whenFull: .waits, channelWritable: true, eventLoop: loop
            ).0
        else {
            Issue.record("the first frame after a take did not ask for a drain")
            return
        }
        #expect(tags(queue.take()) == [4])
    }

    @Test func aSendWaitsWhenTheChannelOrTheQueueIsFull() throws {
        let queue = OutboundQueue<ClientWrite>()
        // Writable, queue empty: no wait. Not writable: a wait. Requests never wait.
        #expect(
            queue.enqueue(send(10, tag: 1), whenFull: .waits, channelWritable: true, eventLoop: loop).written == nil)
        let unwritable = try #require(
            queue.enqueue(send(10, tag: 2), whenFull: .waits, channelWritable: false, eventLoop: loop).written)
        #expect(
            queue.enqueue(send(10, tag: 3), whenFull: .queues, channelWritable: false, eventLoop: loop).written == nil)
        // Above `waitAbove` bytes queued, a send on a writable channel waits too.
        _ = queue.enqueue(
            send(OutboundQueue<ClientWrite>.waitAbove, tag: 4), whenFull: .waits, channelWritable: true, eventLoop: loop
        )
        let overfull = try #require(
            queue.enqueue(send(1, tag: 5), whenFull: .waits, channelWritable: true, eventLoop: loop).written)
        let entries = queue.take()
        #expect(entries.map { $0.written != nil } == [false, true, false, false, true])
        for entry in entries { entry.written?.succeed() }
        #expect(throws: Never.self) { try unwritable.wait() }
        #expect(throws: Never.self) { try overfull.wait() }
        // The take emptied the byte count: no wait again.
        #expect(
            queue.enqueue(send(10, tag: 6), whenFull: .waits, channelWritable: true, eventLoop: loop).written == nil)
    }

    /// A frame that refuses to wait is not queued while the channel or the queue is full.
    @Test func aFrameThatRefusesToWaitIsLeftOutWhenFull() {
        let queue = OutboundQueue<ClientWrite>()
        func refusing(_ size: Int, tag: UInt32, writable: Bool) -> Bool {
            if case .full = queue.enqueue(
                send(size, tag: tag), whenFull: .refuses, channelWritable: writable, eventLoop: loop
            ).0 {
                return false
            }
            return true
        }
        #expect(refusing(10, tag: 1, writable: true))
        #expect(!refusing(10, tag: 2, writable: false))
        _ = queue.enqueue(
            send(OutboundQueue<ClientWrite>.waitAbove, tag: 3), whenFull: .waits, channelWritable: true, eventLoop: loop
        )
        #expect(!refusing(1, tag: 4, writable: true))
        #expect(tags(queue.take()) == [1, 3])
        #expect(refusing(10, tag: 5, writable: true))
    }

    @Test func aClosedQueueRefusesFramesAndGivesBackThoseItHeld() {
        let queue = OutboundQueue<ClientWrite>()
        _ = queue.enqueue(send(10, tag: 1), whenFull: .waits, channelWritable: true, eventLoop: loop)
        _ = queue.enqueue(send(10, tag: 2), whenFull: .queues, channelWritable: true, eventLoop: loop)
        #expect(tags(queue.close()) == [1, 2])
        guard case .closed = queue.enqueue(send(10, tag: 3), whenFull: .waits, channelWritable: true, eventLoop: loop).0
        else {
            Issue.record("a closed queue took a frame")
            return
        }
        #expect(queue.take().isEmpty)
    }
}
