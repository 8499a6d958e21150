@testable import SwiftFrame
import Synchronization
import SwiftFrameFixtures
import TestSupport
import Testing

/// Exact bytes written by hand from each format's description, and every encoding error.
@Suite struct FrameEncoderTests {
    // MARK: Exact bytes

    @Test func gameHeartbeat() throws {
        // magic 0xFF | size = 0 + 4 | CMD_HEART_BEAT = 99900002 = 0x05F45A62 | empty Empty_Req
        let bytes = try FrameEncoder(layout: .gameTCP).encode(
            header: FrameHeader(command: GameCommands.ID.heartBeat.rawValue), payload: [])
        #expect(bytes == [0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x04, 0x05, 0xF4, 0x5A, 0x62])
    }

    @Test func gameTestRequest() throws {
        // Test_Req { param1: "hi", param2: 7 } = 0A 02 68 69 10 07; size = 6 + 4.
        let expected: [UInt8] = [
            0x00, 0x00, 0x00, 0xFF, 0x00, 0x00, 0x00, 0x0A, 0x00, 0x00, 0x00, 0x01,
            0x0A, 0x02, 0x68, 0x69, 0x10, 0x07,
        ]
        let encoder = FrameEncoder(layout: .gameTCP)
        let header = FrameHeader(command: GameCommands.ID.test.rawValue)
        #expect(try encoder.encode(header: header, message: TestReq(param1: "hi", param2: 7)) == expected)
        #expect(try encoder.encode(header: header, payload: [0x0A, 0x02, 0x68, 0x69, 0x10, 0x07]) == expected)
        let frame = try #require(try FrameDecoder.decodeAll(expected, layout: .gameTCP).first)
        #expect(frame.header.command == GameCommands.ID.test.rawValue)
        #expect(try TestReq(serializedBytes: frame.payload) == TestReq(param1: "hi", param2: 7))
    }

    @Test func gameHTTPRequest() throws {
        let header = FrameHeader(command: 1, extras: ["playerId": 0x0102_0304_0506_0708, "sessionId": 9])
        let bytes = try FrameEncoder(layout: .gameHTTPRequest).encode(header: header, payload: [0xAB])
        #expect(
            bytes == [
                0x00, 0x00, 0x00, 0xFF,
                0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x09,
                0x00, 0x00, 0x00, 0x05,
                0x00, 0x00, 0x00, 0x01,
                0xAB,
            ])
        #expect(try FrameDecoder.decodeAll(bytes, layout: .gameHTTPRequest).first?.header == header)
    }

    @Test func imHeartbeatAndRequest() throws {
        let encoder = FrameEncoder(layout: .im)
        // magic 0x81 | seq 7 | type 1 (heartbeat) | length 0
        #expect(
            try encoder.encode(header: FrameHeader(sequence: 7, type: 1), payload: [])
                == [0x81, 0x00, 0x00, 0x00, 0x07, 0x01, 0x00, 0x00])
        // A request (type 2) whose Common body is 08 01.
        #expect(
            try encoder.encode(header: FrameHeader(sequence: 0x0102_0304, type: 2), payload: [0x08, 0x01])
                == [0x81, 0x01, 0x02, 0x03, 0x04, 0x02, 0x00, 0x02, 0x08, 0x01])
    }

    @Test func erlangBothLengthConventions() throws {
        // Cs_20001 { scene_id: 1, line: 2 } = 08 01 10 02; protocol 20001 = 0x4E21.
        let body: [UInt8] = [0x08, 0x01, 0x10, 0x02]
        let header = FrameHeader(command: 20001)
        #expect(
            try FrameEncoder(layout: .erlang).encode(header: header, payload: body)
                == [0x00, 0x00, 0x00, 0x06, 0x4E, 0x21] + body)
        #expect(
            try FrameEncoder(layout: .erlangTotal).encode(header: header, payload: body)
                == [0x00, 0x00, 0x00, 0x0A, 0x4E, 0x21] + body)
    }

    @Test func ecosystemFormats() throws {
        #expect(
            try FrameEncoder(layout: .grpc).encode(header: FrameHeader(extras: ["compressed": 0]), payload: [1, 2, 3])
                == [0x00, 0x00, 0x00, 0x00, 0x03, 1, 2, 3])
        #expect(
            try FrameEncoder(layout: .u32idU32len).encode(header: FrameHeader(command: 0x0A0B_0C0D), payload: [1, 2])
                == [0x0A, 0x0B, 0x0C, 0x0D, 0x00, 0x00, 0x00, 0x02, 1, 2])
        let long = payloadBytes(300, seed: 1)
        #expect(try FrameEncoder(layout: .varint).encode(header: FrameHeader(), payload: long) == [0xAC, 0x02] + long)
        #expect(try FrameEncoder(layout: .varint).encode(header: FrameHeader(), payload: []) == [0x00])
        let encoder = FrameEncoder(layout: .varint)
        #expect(try encoder.headerSize(payloadCount: 127) == 1)
        #expect(try encoder.headerSize(payloadCount: 128) == 2)
    }

    @Test func eachSpanCountsWhatItSays() throws {
        // length u16 | cmd u16 = 7 | payload 01 02 03: the four spans give 3, 5, 5 and 7.
        let expected: [(String, UInt8)] = [("body", 3), ("cmd+body", 5), ("after", 5), ("frame", 7)]
        for (span, length) in expected {
            let layout = try FrameLayout(description: "length:u16:\(span) cmd:u16")
            let bytes = try FrameEncoder(layout: layout).encode(header: FrameHeader(command: 7), payload: [1, 2, 3])
            #expect(bytes == [0x00, length, 0x00, 0x07, 1, 2, 3], "\(span)")
            #expect(
                try FrameDecoder.decodeAll(bytes, layout: layout) == [
                    Frame(header: FrameHeader(command: 7), payload: [1, 2, 3], offset: 0)
                ], "\(span)")
        }
        // A one-byte command before the length: cmd+body counts it, after does not.
        let before = try FrameLayout(description: "cmd:u8 length:u8:cmd+body")
        #expect(try FrameEncoder(layout: before).encode(header: FrameHeader(command: 9), payload: [1]) == [9, 2, 1])
        let after = try FrameLayout(description: "cmd:u8 length:u8:after")
        #expect(try FrameEncoder(layout: after).encode(header: FrameHeader(command: 9), payload: [1]) == [9, 1, 1])
    }

    @Test func adjustedLengths() throws {
        let plusTwo = try FrameLayout(description: "length:u16:body:adj=+2")
        #expect(try FrameEncoder(layout: plusTwo).encode(header: FrameHeader(), payload: [9]) == [0x00, 0x03, 9])
        #expect(try FrameDecoder.decodeAll([0x00, 0x03, 9], layout: plusTwo).first?.payload == [9])
        #expect(
            frameError { () throws(FrameError) in _ = try FrameDecoder.decodeAll([0x00, 0x01], layout: plusTwo) }
                == .lengthTooSmall(offset: 0, length: 1, minimum: 2))
        let minusOne = try FrameLayout(description: "length:u8:frame:adj=-1")
        #expect(try FrameEncoder(layout: minusOne).encode(header: FrameHeader(), payload: [7, 7]) == [0x02, 7, 7])
        #expect(try FrameDecoder.decodeAll([0x02, 7, 7], layout: minusOne).first?.payload == [7, 7])
    }

    @Test func anyCollectionIsAPayload() throws {
        let encoder = FrameEncoder(layout: .u16u16)
        let array: [UInt8] = [0, 1, 2, 3, 4]
        #expect(try encoder.encode(header: FrameHeader(command: 1), payload: array[2...]) == [0, 3, 0, 1, 2, 3, 4])
        #expect(
            try encoder.encode(header: FrameHeader(command: 1), payload: repeatElement(UInt8(8), count: 2)) == [
                0, 2, 0, 1, 8, 8,
            ])
        #expect(try encoder.encode(header: FrameHeader(command: 1), payload: "hi".utf8) == [0, 2, 0, 1, 0x68, 0x69])
    }

    @Test func appendWritesFramesBackToBack() throws {
        let encoder = FrameEncoder(layout: .gameTCP)
        var bytes: [UInt8] = []
        try encoder.append(header: FrameHeader(command: 1), payload: [1], to: &bytes)
        try encoder.append(header: FrameHeader(command: 2), message: TestRsp(result1: "ok", result2: 1), to: &bytes)
        try encoder.append(header: FrameHeader(command: 3), payload: [], to: &bytes)
        #expect(
            bytes == (try encoder.encode(header: FrameHeader(command: 1), payload: [1]))
                + (try encoder.encode(
                    header: FrameHeader(command: 2), payload: TestRsp(result1: "ok", result2: 1).serializedBytes()))
                + (try encoder.encode(header: FrameHeader(command: 3), payload: [])))
        #expect(try FrameDecoder.decodeAll(bytes, layout: .gameTCP).map { $0.header.command } == [1, 2, 3])
    }

    @Test func aMessageFrameSizesTheMessageOnce() throws {
        let message = CountingMessage(value: 300)
        CountingMessage.sizeCalls.withLock { $0 = 0 }
        let bytes = try FrameEncoder(layout: .gameTCP).encode(header: FrameHeader(command: 5), message: message)
        #expect(CountingMessage.sizeCalls.withLock { $0 } == 1)
        #expect(bytes == [0, 0, 0, 0xFF, 0, 0, 0, 7, 0, 0, 0, 5, 0x08, 0xAC, 0x02])
    }

    @Test func valuesTheHeaderDoesNotUseAreIgnored() throws {
        let encoder = FrameEncoder(layout: .gameTCP)
        #expect(
            try encoder.encode(header: FrameHeader(command: 1, sequence: 5, type: 9, extras: ["x": 1]), payload: [])
                == encoder.encode(header: FrameHeader(command: 1), payload: []))
    }

    // MARK: Errors

    @Test func missingValuesNameTheirField() {
        func error(_ layout: FrameLayout, _ header: FrameHeader) -> FrameError? {
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: layout).encode(header: header, payload: [])
            }
        }
        #expect(error(.gameTCP, FrameHeader()) == .missingValue(field: "cmd"))
        #expect(error(.im, FrameHeader(type: 1)) == .missingValue(field: "seq"))
        #expect(error(.im, FrameHeader(sequence: 1)) == .missingValue(field: "type"))
        #expect(
            error(.gameHTTPRequest, FrameHeader(command: 1, extras: ["playerId": 1]))
                == .missingValue(field: "sessionId"))
        #expect(error(.grpc, FrameHeader()) == .missingValue(field: "compressed"))
    }

    @Test func valuesWiderThanTheirFieldAreRejected() {
        func error(_ layout: FrameLayout, _ header: FrameHeader) -> FrameError? {
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: layout).encode(header: header, payload: [])
            }
        }
        #expect(
            error(.u16u16, FrameHeader(command: 0x1_0000)) == .valueOutOfRange(field: "cmd", value: 0x1_0000, width: 2))
        #expect(
            error(.grpc, FrameHeader(extras: ["compressed": 256]))
                == .valueOutOfRange(field: "compressed", value: 256, width: 1))
        #expect(error(.u16u16, FrameHeader(command: 0xFFFF)) == nil)
    }

    @Test func payloadsOverTheMaximumAreRejected() throws {
        let small = try FrameLayout(description: "length:u32:body max=100")
        let encoder = FrameEncoder(layout: small)
        #expect(try encoder.encode(header: FrameHeader(), payload: [UInt8](repeating: 0, count: 96)).count == 100)
        #expect(
            frameError { () throws(FrameError) in
                _ = try encoder.encode(header: FrameHeader(), payload: [UInt8](repeating: 0, count: 97))
            } == .payloadTooLarge(size: 97, limit: 96))
        // ... and the decoder refuses the same frame from a peer.
        var decoder = FrameDecoder(layout: small)
        decoder.feed([0, 0, 0, 97])
        #expect(
            frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
                == .frameTooLarge(offset: 0, size: 101, limit: 100))
        // A one-byte length holds at most 255, whatever the maximum.
        let u8 = try FrameLayout(description: "length:u8:after cmd:u8")
        #expect(
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: u8).encode(
                    header: FrameHeader(command: 1), payload: [UInt8](repeating: 0, count: 255))
            } == .payloadTooLarge(size: 255, limit: 254))
        let negative = try FrameLayout(description: "length:u32:body:adj=-2")
        #expect(
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: negative).encode(header: FrameHeader(), payload: [1])
            } == .payloadTooSmall(size: 1, minimum: 2))
    }

    @Test func aFailedAppendLeavesTheBufferAsItWas() {
        var bytes: [UInt8] = [1, 2, 3]
        let error = frameError { () throws(FrameError) in
            // The magic and playerId are written before sessionId turns out to be missing.
            try FrameEncoder(layout: .gameHTTPRequest).append(
                header: FrameHeader(command: 1, extras: ["playerId": 5]), message: TestReq(param1: "x", param2: 1),
                to: &bytes)
        }
        #expect(error == .missingValue(field: "sessionId"))
        #expect(bytes == [1, 2, 3])
    }

    @Test func aHeaderWrittenIntoMemoryIsTheArraysHeader() throws {
        // Every preset (big- and little-endian, varint length, magic, extras), with payload
        // sizes that change a varint length's width.
        let header = FrameHeader(
            command: 0x1234, sequence: 7, type: 1, extras: ["playerId": 5, "sessionId": 6, "compressed": 1])
        var checked = 0
        for name in FrameLayout.presetNames {
            let layout = try #require(FrameLayout.preset(named: name))
            let encoder = FrameEncoder(layout: layout)
            for payloadCount in [0, 1, 127, 128, 300] {
                guard let expected = try? encoder.header(header, payloadCount: payloadCount) else { continue }
                let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
                defer { memory.deallocate() }
                let written = try encoder.writeHeader(header, payloadCount: payloadCount, into: memory)
                #expect(Array(memory[..<written]) == expected, "\(name), \(payloadCount) B")
                checked += 1
            }
        }
        #expect(checked >= 5 * FrameLayout.presetNames.count - 5)
        // The errors are the array's.
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { memory.deallocate() }
        #expect(
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: .gameHTTPRequest).writeHeader(
                    FrameHeader(command: 1, extras: ["playerId": 5]), payloadCount: 0, into: memory)
            } == .missingValue(field: "sessionId"))
        #expect(
            frameError { () throws(FrameError) in
                _ = try FrameEncoder(layout: .u16u16).writeHeader(
                    FrameHeader(command: 1), payloadCount: 0x1_0000, into: memory)
            } == .payloadTooLarge(size: 0x1_0000, limit: 0xFFFF))
    }

    /// Headers of fixed-width layouts are written by a path of their own (`QuickHeader`) when
    /// written into memory; on 20,000 random layouts, headers and payload sizes (fields
    /// missing, values one bit too wide, payloads at and past the limits), it writes what the
    /// general path writes, and fails with the general path's error.
    @Test func theQuickHeaderWritesWhatTheGeneralPathWrites() throws {
        var random = SeededGenerator(seed: 0x5EED)
        let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: 64, alignment: 1)
        defer { memory.deallocate() }
        var quick = 0
        var refused = 0
        for _ in 0..<20_000 {
            guard let layout = randomFixedLayout(&random) else { continue }
            let encoder = FrameEncoder(layout: layout)
            if encoder.quick != nil { quick += 1 }
            var header = FrameHeader()
            func value(bits: Int) -> UInt64 {
                // Mostly in range; one in four a bit too wide for a field of `bits`.
                let top = min(bits + (random.next() % 4 == 0 ? 1 : 0), 64)
                return top >= 64 ? random.next() : random.next() & ((1 << UInt64(top)) - 1)
            }
            if random.next() % 8 != 0 {
                header.command = UInt32(truncatingIfNeeded: value(bits: 8 * [1, 2, 4][Int(random.next() % 3)]))
            }
            if random.next() % 8 != 0 { header.sequence = value(bits: 8 * [1, 2, 4, 8][Int(random.next() % 4)]) }
            if random.next() % 8 != 0 { header.type = value(bits: 8 * [1, 2][Int(random.next() % 2)]) }
            let limit = layout.maxFrameSize
            let payloadCount = [
                0, 1, 200, 255, 256, 65_535, 65_536, limit - 20, limit - 8, limit, Int(random.next() % 70_000),
            ][Int(random.next() % 11)]
            let expected = Result { () throws(FrameError) in try encoder.header(header, payloadCount: payloadCount) }
            let written = Result { () throws(FrameError) in
                Array(memory[..<(try encoder.writeHeader(header, payloadCount: payloadCount, into: memory))])
            }
            #expect(written == expected, "\(layout) \(header) \(payloadCount) B")
            if case .failure = expected { refused += 1 }
        }
        // Both paths and both outcomes were exercised.
        #expect(quick > 5_000)
        #expect(refused > 2_000)
    }

    @Test func errorDescriptions() {
        #expect(
            FrameError.badMagic(offset: 12, found: 0xFE, expected: 0xFF).description
                == "bad magic 0xFE, expected 0xFF at offset 12")
        #expect(
            FrameError.truncated(offset: 3, buffered: 1).reason == "truncated frame: the stream ends after 1 byte of it"
        )
        #expect(FrameError.missingValue(field: "cmd").description == "the header has no value for the cmd field")
        #expect(FrameError.missingValue(field: "cmd").offset == nil)
        #expect(FrameError.frameTooLarge(offset: 4, size: 10, limit: 9).offset == 4)
    }
}

/// `message Counting { uint32 value = 1; }`, counting its size passes.
struct CountingMessage: Message {
    static let protoMessageName = "Counting"
    static let sizeCalls = Mutex(0)
    var value: UInt32 = 0
    var unknownFields = UnknownFields()

    init() {}
    init(value: UInt32) { self.value = value }

    mutating func decodeMessage(from reader: inout ProtoReader) throws(WireError) {
        while reader.hasRemaining {
            let tag = try reader.readTag()
            switch tag {
            case 8: value = try reader.readVarint(ProtoUInt32.self)
            default: try reader.skipField(tag: tag, into: &unknownFields)
            }
        }
    }

    func computeSize(into cache: inout SizeCache) -> Int {
        Self.sizeCalls.withLock { $0 += 1 }
        return value == 0 ? 0 : 1 + ProtoUInt32.size(value)
    }

    func encodeMessage(to writer: inout ProtoWriter) {
        if value != 0 {
            writer.writeTag(8)
            writer.writeVarint(ProtoUInt32.self, value)
        }
    }
}

/// A fixed-width layout of random fields in a random order, or nil when the draw breaks a
/// layout rule.
private func randomFixedLayout(_ random: inout SeededGenerator) -> FrameLayout? {
    let orders: [FrameLayout.ByteOrder] = [.bigEndian, .littleEndian]
    func order() -> FrameLayout.ByteOrder { orders[Int(random.next() % 2)] }
    let spans: [FrameLayout.LengthSpan] = [.body, .commandAndBody, .afterLength, .wholeFrame]
    var fields: [FrameLayout.Field] = [
        .length(
            width: [1, 2, 4, 8][Int(random.next() % 4)], span: spans[Int(random.next() % 4)],
            adjustment: Int(random.next() % 7) - 3, byteOrder: order(), isSigned: random.next() % 4 == 0)
    ]
    if random.next() % 3 == 0 { fields.append(.magic(random.next() & 0xFF, width: 1)) }
    if random.next() % 4 != 0 { fields.append(.command(width: [1, 2, 4][Int(random.next() % 3)], byteOrder: order())) }
    if random.next() % 2 == 0 {
        fields.append(.sequence(width: [1, 2, 4, 8][Int(random.next() % 4)], byteOrder: order()))
    }
    if random.next() % 3 == 0 {
        fields.append(
            .type(
                width: [1, 2][Int(random.next() % 2)], known: random.next() % 3 == 0 ? [1, 2] : [], byteOrder: order()))
    }
    for index in fields.indices.reversed() where index > 0 {
        fields.swapAt(index, Int(random.next() % UInt64(index + 1)))
    }
    let maxFrameSize = [64, 300, 70_000, FrameLayout.defaultMaxFrameSize][Int(random.next() % 4)]
    return try? FrameLayout(fields: fields, maxFrameSize: maxFrameSize)
}
