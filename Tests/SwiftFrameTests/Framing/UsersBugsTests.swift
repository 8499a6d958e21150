@testable import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

/// One test per bug that hand-written framing code is known to hit (sticky and split reads,
/// lengths that count different things, byte order, ...), where the framing layer owns it.
@Suite struct UsersBugsTests {
    // MARK: TCP is a stream: sticky and split reads

    @Test func oneReadHoldingSeveralFramesLosesNone() throws {
        let encoder = FrameEncoder(layout: .im)
        var read: [UInt8] = []
        for seq in 1...20 as ClosedRange<UInt64> {
            try encoder.append(
                header: FrameHeader(sequence: seq, type: seq % 4 + 1), payload: payloadBytes(Int(seq), seed: 0),
                to: &read)
        }
        var decoder = FrameDecoder(layout: .im)
        decoder.feed(read)
        var seqs: [UInt64] = []
        while let frame = try decoder.nextFrame() { seqs.append(frame.header.sequence!) }
        #expect(seqs == Array(1...20))
        try decoder.finish()
    }

    @Test func aReadEndingInsideTheHeaderIsNotAFrame() throws {
        let frame = try FrameEncoder(layout: .gameTCP).encode(
            header: FrameHeader(command: GameCommands.ID.test.rawValue), payload: [9, 9])
        for cut in 1..<12 {
            var decoder = FrameDecoder(layout: .gameTCP)
            decoder.feed(Array(frame[..<cut]))
            #expect(try decoder.nextFrame() == nil, "cut at \(cut)")
            #expect(
                frameError { () throws(FrameError) in try decoder.finish() } == .truncated(offset: 0, buffered: cut))
            decoder.feed(Array(frame[cut...]))
            #expect(try decoder.nextFrame()?.payload == [9, 9])
        }
    }

    // MARK: Wrong width or the host's byte order

    @Test func widthAndByteOrderAreWhatTheLayoutSays() throws {
        let payload: [UInt8] = [0xAA, 0xBB, 0xCC]
        #expect(
            try FrameEncoder(layout: .u32le).encode(header: FrameHeader(), payload: payload)
                == [0x03, 0x00, 0x00, 0x00, 0xAA, 0xBB, 0xCC])
        let bigEndian32 = try FrameLayout(description: "length:u32:body")
        #expect(
            try FrameEncoder(layout: bigEndian32).encode(header: FrameHeader(), payload: payload)
                == [0x00, 0x00, 0x00, 0x03, 0xAA, 0xBB, 0xCC])
        // An 8-byte length only where the layout says so.
        let long = try FrameLayout(description: "length:u64:body")
        #expect(
            try FrameEncoder(layout: long).encode(header: FrameHeader(), payload: payload)
                == [0, 0, 0, 0, 0, 0, 0, 0x03, 0xAA, 0xBB, 0xCC])
        #expect(
            try FrameEncoder(layout: .u16u16LE).encode(header: FrameHeader(command: 0x0102), payload: payload)
                == [0x03, 0x00, 0x02, 0x01, 0xAA, 0xBB, 0xCC])
        #expect(
            try FrameEncoder(layout: .u16u16).encode(header: FrameHeader(command: 0x0102), payload: payload)
                == [0x00, 0x03, 0x01, 0x02, 0xAA, 0xBB, 0xCC])
    }

    @Test func bytesInTheOtherByteOrderAreRejectedNotMisread() {
        // A big-endian length of 3 read as little-endian is 50331648: over the 16 MiB limit.
        var decoder = FrameDecoder(layout: .u32le)
        decoder.feed([0x00, 0x00, 0x00, 0x03, 0xAA, 0xBB, 0xCC])
        #expect(
            frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
                == .frameTooLarge(offset: 0, size: 4 + 0x0300_0000, limit: 16 << 20))
    }

    // MARK: A 16-bit length written as signed

    @Test func signedSixteenBitLengthStopsAt32767WhileUnsignedTakes65535() throws {
        let signed = try FrameLayout(description: "length:i16:body")
        let encoder = FrameEncoder(layout: signed)
        let largest = try encoder.encode(header: FrameHeader(), payload: [UInt8](repeating: 7, count: 32767))
        #expect(largest.prefix(2) == [0x7F, 0xFF])
        #expect(try FrameDecoder.decodeAll(largest, layout: signed).first?.payload.count == 32767)
        #expect(
            frameError { () throws(FrameError) in
                _ = try encoder.encode(header: FrameHeader(), payload: [UInt8](repeating: 7, count: 32768))
            } == .payloadTooLarge(size: 32768, limit: 32767))
        // What a signed reader sees in an unsigned writer's 32768: a negative length, reported.
        var decoder = FrameDecoder(layout: signed)
        decoder.feed([0x80, 0x00, 1, 2, 3])
        #expect(
            frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
                == .negativeLength(offset: 0, value: -32768))
        var minusOne = FrameDecoder(layout: signed)
        minusOne.feed([0xFF, 0xFF])
        #expect(
            frameError { () throws(FrameError) in _ = try minusOne.nextFrame() }
                == .negativeLength(offset: 0, value: -1))

        // The IM header's length is unsigned: 0...65535 bytes of body.
        let imEncoder = FrameEncoder(layout: .im)
        let full = try imEncoder.encode(
            header: FrameHeader(sequence: 1, type: 3), payload: [UInt8](repeating: 1, count: 65535))
        #expect(full[6..<8] == [0xFF, 0xFF])
        let decoded = try FrameDecoder.decodeAll(full, layout: .im)
        #expect(decoded.count == 1)
        #expect(decoded.first?.payload.count == 65535)
        #expect(
            frameError { () throws(FrameError) in
                _ = try imEncoder.encode(
                    header: FrameHeader(sequence: 1, type: 3), payload: [UInt8](repeating: 1, count: 65536))
            } == .payloadTooLarge(size: 65536, limit: 65535))
    }

    // MARK: Magic never checked; unknown type byte

    @Test func magicIsChecked() {
        var decoder = FrameDecoder(layout: .im)
        decoder.feed([0x82, 0, 0, 0, 1, 1, 0, 0])
        #expect(
            frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
                == .badMagic(offset: 0, found: 0x82, expected: 0x81))
        // A bad magic is reported from its own bytes, before the rest of the header arrives.
        var early = FrameDecoder(layout: .gameTCP)
        early.feed([0x00, 0x00, 0x01, 0xFF])
        #expect(
            frameError { () throws(FrameError) in _ = try early.nextFrame() }
                == .badMagic(offset: 0, found: 0x1FF, expected: 0xFF))
    }

    @Test func unknownTypeByteIsATypedErrorNotACrash() throws {
        let bad: [UInt8] = [0x81, 0, 0, 0, 1, 9, 0, 0]
        var failing = FrameDecoder(layout: .im)
        failing.feed(bad)
        #expect(
            frameError { () throws(FrameError) in _ = try failing.nextFrame() } == .unknownType(offset: 5, value: 9))

        var resync = FrameLayout.im
        resync.badHeaderPolicy = .resynchronize(maxSkip: 64)
        let good = try FrameEncoder(layout: .im).encode(header: FrameHeader(sequence: 2, type: 4), payload: [5])
        #expect(
            events([bad[...], good[...]], layout: resync) == [
                .error(.unknownType(offset: 5, value: 9)),
                .frame(Frame(header: FrameHeader(sequence: 2, type: 4), payload: [5], offset: 8)),
            ])

        #expect(
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: .im).encode(header: FrameHeader(sequence: 1, type: 9), payload: [])
            } == .unlistedType(value: 9))
    }

    // MARK: A bad magic throws away the rest of the buffer

    static func gameStream() throws -> (frames: [[UInt8]], garbage: [UInt8]) {
        let encoder = FrameEncoder(layout: .gameTCP)
        let frames = try (1...3).map { (index: Int) throws(FrameError) -> [UInt8] in
            try encoder.encode(
                header: FrameHeader(command: UInt32(index)), payload: payloadBytes(index * 3, seed: index))
        }
        // Looks almost like a header: a partial magic, then junk.
        let garbage: [UInt8] = [0x00, 0x00, 0x00, 0xFE, 0x00, 0x00, 0x13, 0x00, 0x00]
        return (frames, garbage)
    }

    @Test func badMagicUnderResynchronizeKeepsTheGoodFramesAfterIt() throws {
        let (frames, garbage) = try Self.gameStream()
        let stream = frames[0] + garbage + frames[1] + frames[2]
        let layout = try FrameLayout(description: "magic:u32=0xFF length:u32:cmd+body cmd:u32 resync=64")
        let garbageAt = frames[0].count
        let expected: [Event] = [
            .frame(Frame(header: FrameHeader(command: 1), payload: payloadBytes(3, seed: 1)[...], offset: 0)),
            .error(.badMagic(offset: garbageAt, found: 0xFE, expected: 0xFF)),
            .frame(
                Frame(
                    header: FrameHeader(command: 2), payload: payloadBytes(6, seed: 2)[...],
                    offset: garbageAt + garbage.count)),
            .frame(
                Frame(
                    header: FrameHeader(command: 3), payload: payloadBytes(9, seed: 3)[...],
                    offset: garbageAt + garbage.count + frames[1].count)),
        ]
        #expect(events([stream[...]], layout: layout) == expected)
        // The same whatever the reads look like.
        for cut in 0...stream.count {
            #expect(events(chunks(stream, cuttingAt: [cut]), layout: layout) == expected, "cut at \(cut)")
        }
        for seed in 0..<20 as Range<UInt64> {
            #expect(events(randomChunks(stream, seed: seed, maxChunk: 5), layout: layout) == expected, "seed \(seed)")
        }
    }

    @Test func resynchronizingLooksAtEveryByteAfterTheBadHeader() throws {
        let (frames, _) = try Self.gameStream()
        let layout = try FrameLayout(description: "magic:u32=0xFF length:u32:cmd+body cmd:u32 resync=8")
        for junk in 1...3 {
            // The magic starts 1, 2 or 3 bytes after the bad header, inside what it claimed.
            let stream = [UInt8](repeating: 0x00, count: junk) + frames[0]
            #expect(
                events([stream[...]], layout: layout) == [
                    .error(.badMagic(offset: 0, found: 0, expected: 0xFF)),
                    .frame(
                        Frame(header: FrameHeader(command: 1), payload: payloadBytes(3, seed: 1)[...], offset: junk)),
                ], "\(junk) junk bytes")
        }
        // One-byte magic: a stray byte between two IM frames.
        var im = FrameLayout.im
        im.badHeaderPolicy = .resynchronize(maxSkip: 1)
        let heartbeat: [UInt8] = [0x81, 0, 0, 0, 1, 1, 0, 0]
        #expect(
            events([(heartbeat + [0x7F] + heartbeat)[...]], layout: im) == [
                .frame(Frame(header: FrameHeader(sequence: 1, type: 1), payload: [], offset: 0)),
                .error(.badMagic(offset: 8, found: 0x7F, expected: 0x81)),
                .frame(Frame(header: FrameHeader(sequence: 1, type: 1), payload: [], offset: 9)),
            ])
    }

    @Test func badMagicUnderFailEndsTheStreamWithTheSameError() throws {
        let (frames, garbage) = try Self.gameStream()
        var decoder = FrameDecoder(layout: .gameTCP)
        decoder.feed(frames[0] + garbage + frames[1])
        #expect(try decoder.nextFrame()?.header.command == 1)
        let error = FrameError.badMagic(offset: frames[0].count, found: 0xFE, expected: 0xFF)
        #expect(frameError { () throws(FrameError) in _ = try decoder.nextFrame() } == error)
        decoder.feed(frames[2])
        #expect(frameError { () throws(FrameError) in _ = try decoder.nextFrame() } == error)
        #expect(frameError { () throws(FrameError) in try decoder.finish() } == error)
        #expect(decoder.failure == error)
    }

    @Test func resynchronizingGivesUpAfterMaxSkipBytes() throws {
        let (frames, _) = try Self.gameStream()
        let layout = try FrameLayout(description: "magic:u32=0xFF length:u32:cmd+body cmd:u32 resync=16")
        let junk = [UInt8](repeating: 0x55, count: 40)
        let expected: [Event] = [
            .error(.badMagic(offset: 0, found: 0x5555_5555, expected: 0xFF)),
            .error(.magicNotFound(offset: 0, skipped: 16)),
        ]
        #expect(events([(junk + frames[0])[...]], layout: layout) == expected)
        #expect(events(randomChunks(junk + frames[0], seed: 7, maxChunk: 3), layout: layout) == expected)
        // Within the limit it is found: 16 bytes skipped, the magic's frame starts at 16.
        let near = [UInt8](repeating: 0x55, count: 16) + frames[0]
        #expect(
            events([near[...]], layout: layout) == [
                .error(.badMagic(offset: 0, found: 0x5555_5555, expected: 0xFF)),
                .frame(Frame(header: FrameHeader(command: 1), payload: payloadBytes(3, seed: 1)[...], offset: 16)),
            ])
        // The stream ending while still looking is reported at finish.
        let tail = frames[0] + [UInt8](repeating: 0x55, count: 14)
        #expect(
            events([tail[...]], layout: layout) == [
                .frame(Frame(header: FrameHeader(command: 1), payload: payloadBytes(3, seed: 1)[...], offset: 0)),
                .error(.badMagic(offset: frames[0].count, found: 0x5555_5555, expected: 0xFF)),
                .error(.magicNotFound(offset: frames[0].count, skipped: 14)),
            ])
    }

    // MARK: An absurd length: allocating gigabytes or waiting forever

    @Test func absurdLengthIsRejectedAsSoonAsItIsReadWithoutAllocating() {
        let header: [UInt8] = [0x00, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01]
        var decoder = FrameDecoder(layout: .gameTCP)
        for (index, byte) in header.enumerated() {
            decoder.feed([byte])
            let error = frameError { () throws(FrameError) in
                let frame = try decoder.nextFrame()
                #expect(frame == nil)
            }
            if index < 7 {
                #expect(error == nil, "byte \(index)")
            } else {
                // The length is complete at byte 8: no waiting for the 4 GiB body.
                #expect(error == .frameTooLarge(offset: 4, size: 0xFFFF_FFFF + 8, limit: 16 << 20))
                break
            }
        }
        #expect(decoder.buffer.capacity < 1024)
        #expect(decoder.failure != nil)
    }

    @Test func aLargeLegalLengthAllocatesOnlyWhatArrives() throws {
        // 15 MiB announced, within the 16 MiB limit: the decoder waits, holding only the header.
        let announced = 15 << 20
        var decoder = FrameDecoder(layout: .gameTCP)
        decoder.feed([0, 0, 0, 0xFF] + bigEndian(UInt64(announced + 4), 4) + [0, 0, 0, 1])
        #expect(try decoder.nextFrame() == nil)
        decoder.feed([1, 2, 3])
        #expect(try decoder.nextFrame() == nil)
        #expect(decoder.bufferedByteCount == 15)
        #expect(decoder.buffer.capacity < 1024)
        #expect(frameError { () throws(FrameError) in try decoder.finish() } == .truncated(offset: 0, buffered: 15))
    }

    @Test func varintLengthsAreBoundedToo() {
        var decoder = FrameDecoder(layout: .varint)
        decoder.feed([UInt8](repeating: 0xFF, count: 10) + [0x01])
        #expect(frameError { () throws(FrameError) in _ = try decoder.nextFrame() } == .malformedVarint(offset: 0))
        var overflow = FrameDecoder(layout: .varint)
        overflow.feed([UInt8](repeating: 0xFF, count: 9) + [0x02])
        #expect(frameError { () throws(FrameError) in _ = try overflow.nextFrame() } == .malformedVarint(offset: 0))
        var huge = FrameDecoder(layout: .varint)
        huge.feed([0xFF, 0xFF, 0xFF, 0xFF, 0x0F])  // 2^32 - 1
        #expect(
            frameError { () throws(FrameError) in _ = try huge.nextFrame() }
                == .frameTooLarge(offset: 0, size: 0xFFFF_FFFF + 5, limit: 16 << 20))
    }

    @Test func lengthsBelowWhatTheirSpanCountsAreRejected() throws {
        func firstError(_ layout: FrameLayout, _ bytes: [UInt8]) -> FrameError? {
            var decoder = FrameDecoder(layout: layout)
            decoder.feed(bytes)
            return frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
        }
        // Erlang, whole-frame length: at least the 6-byte header.
        #expect(firstError(.erlangTotal, [0, 0, 0, 3, 0, 1]) == .lengthTooSmall(offset: 0, length: 3, minimum: 6))
        // Erlang {packet,4}: at least the 2-byte protocol number after the length.
        #expect(firstError(.erlang, [0, 0, 0, 1, 0, 1]) == .lengthTooSmall(offset: 0, length: 1, minimum: 2))
        // Game: size counts the 4-byte command.
        #expect(firstError(.gameTCP, [0, 0, 0, 0xFF, 0, 0, 0, 3]) == .lengthTooSmall(offset: 4, length: 3, minimum: 4))
        // The smallest legal values give empty frames.
        #expect(try FrameDecoder.decodeAll([0, 0, 0, 6, 0, 1], layout: .erlangTotal).first?.payload.isEmpty == true)
        #expect(try FrameDecoder.decodeAll([0, 0, 0, 2, 0, 1], layout: .erlang).first?.payload.isEmpty == true)
    }

    // MARK: Sequence numbers are echoed: they must survive exactly

    @Test func sequenceNumbersSurviveAndNeverWrapSilently() throws {
        let encoder = FrameEncoder(layout: .im)
        let frame = try encoder.encode(header: FrameHeader(sequence: 0xFFFF_FFFF, type: 2), payload: [1])
        #expect(try FrameDecoder.decodeAll(frame, layout: .im).first?.header.sequence == 0xFFFF_FFFF)
        #expect(
            frameError { () throws(FrameError) in
                _ = try encoder.encode(header: FrameHeader(sequence: 0x1_0000_0000, type: 2), payload: [1])
            } == .valueOutOfRange(field: "seq", value: 0x1_0000_0000, width: 4))
    }
}
