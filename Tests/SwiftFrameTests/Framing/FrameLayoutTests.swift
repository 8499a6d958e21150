@testable import SwiftFrame
import TestSupport
import Testing

/// Presets, the text form (parse, print, round trip) and the layout rules.
@Suite struct FrameLayoutTests {
    typealias Field = FrameLayout.Field

    /// The canonical text of every preset, written from each format's description.
    static let presetTexts: [String: String] = [
        "game-tcp": "magic:u32=0xFF length:u32:cmd+body cmd:u32",
        "game-http-request": "magic:u32=0xFF extra.playerId:u64 extra.sessionId:u64 length:u32:cmd+body cmd:u32",
        "erlang": "length:u32:after cmd:u16",
        "erlang-total": "length:u32:frame cmd:u16",
        "im": "magic:u8=0x81 seq:u32 type:u8:known=1,2,3,4 length:u16:body max=65543",
        "u32le": "length:u32le:body",
        "varint": "length:varint:body",
        "grpc": "extra.compressed:u8 length:u32:body",
        "u16-u16": "length:u16:body cmd:u16",
        "u16-u16-le": "length:u16le:body cmd:u16le",
        "u32id-u32len": "cmd:u32 length:u32:body",
    ]

    @Test func presetNamesAreExactlyTheDocumentedOnes() {
        #expect(
            FrameLayout.presetNames == [
                "game-tcp", "game-http-request", "erlang", "erlang-total", "im", "u32le", "varint", "grpc",
                "u16-u16", "u16-u16-le", "u32id-u32len",
            ])
        #expect(FrameLayout.preset(named: "game-tcp") == .gameTCP)
        #expect(FrameLayout.preset(named: "u16-u16-le") == .u16u16LE)
        #expect(FrameLayout.preset(named: "GAME-TCP") == nil)
        #expect(FrameLayout.preset(named: "") == nil)
    }

    @Test(arguments: FrameLayout.presetNames)
    func presetPrintsItsCanonicalTextAndParsesBack(name: String) throws {
        let preset = try #require(FrameLayout.preset(named: name))
        #expect(preset.description == Self.presetTexts[name])
        let parsed = try FrameLayout(description: preset.description)
        #expect(parsed == preset)
        #expect(parsed.description == preset.description)
        #expect(FrameLayout(checkedDescription: preset.description) == preset)
    }

    @Test func presetsHoldTheFieldsOfPROTOCOLS() {
        #expect(
            FrameLayout.gameTCP.fields == [
                Field(kind: .magic(0xFF), width: 4),
                Field(kind: .length(span: .commandAndBody, adjustment: 0), width: 4),
                Field(kind: .command, width: 4),
            ])
        #expect(
            FrameLayout.im.fields == [
                Field(kind: .magic(0x81), width: 1),
                Field(kind: .sequence, width: 4),
                Field(kind: .type(known: [1, 2, 3, 4]), width: 1),
                Field(kind: .length(span: .body, adjustment: 0), width: 2, isSigned: false),
            ])
        #expect(FrameLayout.im.maxFrameSize == 8 + 65535)
        #expect(
            FrameLayout.u32le.fields == [
                Field(kind: .length(span: .body, adjustment: 0), width: 4, byteOrder: .littleEndian)
            ])
        #expect(FrameLayout.varint.fields == [Field(kind: .length(span: .body, adjustment: 0), width: 0)])
        #expect(FrameLayout.erlangTotal.fields[0].kind == .length(span: .wholeFrame, adjustment: 0))
        #expect(FrameLayout.u32idU32len.fields.map(\.name) == ["cmd", "length"])
        #expect(FrameLayout.gameHTTPRequest.fields.map(\.name) == ["magic", "playerId", "sessionId", "length", "cmd"])
        #expect(FrameLayout.gameTCP.fixedHeaderSize == 12)
        #expect(FrameLayout.gameHTTPRequest.fixedHeaderSize == 28)
        #expect(FrameLayout.varint.fixedHeaderSize == nil)
        for name in FrameLayout.presetNames {
            #expect(FrameLayout.preset(named: name)?.badHeaderPolicy == .fail)
        }
    }

    // MARK: Parsing

    @Test func parsesTheExamples() throws {
        let im = try FrameLayout(description: "magic:u8=0x81 seq:u32 type:u8:known=1,2,3,4 length:u16:body")
        #expect(im.fields == FrameLayout.im.fields)
        #expect(im.maxFrameSize == FrameLayout.defaultMaxFrameSize)

        #expect(try FrameLayout(description: "length:u32le:body") == .u32le)

        let settings = try FrameLayout(description: "magic:u32=0xFF length:u32:after cmd:u32 max=65536 resync=4096")
        #expect(
            settings.fields == [
                .magic(0xFF, width: 4), .length(width: 4, span: .afterLength), .command(width: 4),
            ])
        #expect(settings.maxFrameSize == 65536)
        #expect(settings.badHeaderPolicy == .resynchronize(maxSkip: 4096))
        #expect(settings.description == "magic:u32=0xFF length:u32:after cmd:u32 max=65536 resync=4096")
    }

    @Test func equivalentSpellingsPrintOneCanonicalForm() throws {
        let layout = try FrameLayout(
            description: """
                # the IM header, one field per line
                magic:u8le=129      # byte order means nothing for one byte
                seq:u32be
                \ttype:u8:known=0x1,2,3,4
                length:u16:body:adj=0   max=0x10007
                """)
        #expect(layout == .im)
        #expect(layout.description == FrameLayout.im.description)
    }

    @Test func everyTypeAndOptionRoundTrips() throws {
        let texts = [
            "length:i16:body", "length:i32le:frame", "length:i8:body", "length:u64le:after cmd:u8",
            "length:u32:body:adj=+2", "length:u32:frame:adj=-4", "length:varint:after extra.flags:u16le",
            "seq:u64le type:u16 magic:u16le=0xCAFE length:varint:cmd+body cmd:u16le resync=1",
            "extra.a:u8 extra.b:u16 extra.c_1:u32le extra._d:u64 length:u8:body max=300",
            "type:u32:known=4294967295 length:u16:body",
        ]
        for text in texts {
            let layout = try FrameLayout(description: text)
            #expect(layout.description == text)
            #expect(try FrameLayout(description: layout.description) == layout)
        }
        let adjusted = try FrameLayout(description: "length:u32:frame:adj=-4")
        #expect(adjusted.fields[0].kind == .length(span: .wholeFrame, adjustment: -4))
        let signed = try FrameLayout(description: "length:i16le:body")
        #expect(
            signed.fields[0]
                == Field(kind: .length(span: .body, adjustment: 0), width: 2, byteOrder: .littleEndian, isSigned: true))
    }

    /// (text, token, line, column, part of the message)
    static let parseErrors: [(String, String?, Int?, Int?, String)] = [
        ("", nil, nil, nil, "at least a length field"),
        ("   # only a comment", nil, nil, nil, "at least a length field"),
        ("lenght:u32:body", "lenght:u32:body", 1, 1, "unknown field 'lenght'"),
        ("magic:u32=0xFF length:u33:body", "length:u33:body", 1, 16, "unknown type 'u33'"),
        ("length:u32", "length:u32", 1, 1, "needs its span"),
        ("length:u32:body:after", "length:u32:body:after", 1, 1, "one span"),
        ("length:u32:bdy", "length:u32:bdy", 1, 1, "unknown length option 'bdy'"),
        ("length:u32:body:adj=x", "length:u32:body:adj=x", 1, 1, "adj=-4"),
        ("length::body", "length::body", 1, 1, "empty part"),
        (":u8 length:u8:body", ":u8", 1, 1, "missing field role"),
        ("length:u32:body cmd", "cmd", 1, 17, "expected a field"),
        ("length:u32:body\n  bogus", "bogus", 2, 3, "expected a field"),
        ("length:u32:body cmd:u64", "cmd:u64", 1, 17, "1, 2 or 4 bytes"),
        ("length:u32:body seq:i32", "seq:i32", 1, 17, "only a length can be signed"),
        ("seq:varint length:u8:body", "seq:varint", 1, 1, "only a length can be a varint"),
        ("magic:u8=0x100 length:u8:body", "magic:u8=0x100", 1, 1, "does not fit in 1 byte"),
        ("magic:u8 length:u8:body", "magic:u8", 1, 1, "needs its value"),
        ("magic:u8=zz length:u8:body", "magic:u8=zz", 1, 1, "'zz' is not a number"),
        ("magic:u8=-1 length:u8:body", "magic:u8=-1", 1, 1, "'-1' is not a number"),
        ("cmd:u16=3 length:u8:body", "cmd:u16=3", 1, 1, "only a magic takes a value"),
        ("cmd:u16:x length:u8:body", "cmd:u16:x", 1, 1, "takes no option"),
        ("type:u8:known=1,x length:u8:body", "type:u8:known=1,x", 1, 1, "'x' is not a number"),
        ("type:u8:known=1,1 length:u8:body", "type:u8:known=1,1", 1, 1, "listed twice"),
        ("type:u8:known=256 length:u8:body", "type:u8:known=256", 1, 1, "does not fit"),
        ("extra.length:u8 length:u8:body", "extra.length:u8", 1, 1, "reserved"),
        ("extra.9x:u8 length:u8:body", "extra.9x:u8", 1, 1, "not an identifier"),
        ("extra.:u8 length:u8:body", "extra.:u8", 1, 1, "not an identifier"),
        ("extra.a:u8 extra.a:u8 length:u8:body", "extra.a:u8", 1, 12, "a second a field"),
        ("length:u32:body length:u16:body", "length:u16:body", 1, 17, "a second length field"),
        ("cmd:u32", nil, nil, nil, "exactly one length field"),
        ("length:varint:frame", "length:varint:frame", 1, 1, "cannot count the whole frame"),
        ("length:u32:cmd+body", "length:u32:cmd+body", 1, 1, "needs a cmd field"),
        ("length:u32:body max=0", "max=0", 1, 17, "positive"),
        ("length:u32:body max=3", "max=3", 1, 17, "smaller than an empty frame (4 bytes)"),
        ("length:u32:body max=10 max=20", "max=20", 1, 24, "set twice"),
        ("length:u32:body resync=16", "resync=16", 1, 17, "needs a magic field"),
        ("length:u32:body magic:u8=1 resync=0", "resync=0", 1, 28, "positive"),
        ("length:varint:body magic:u8=1 resync=4", "resync=4", 1, 31, "fixed position"),
        ("length:u32:body speed=3", "speed=3", 1, 17, "unknown setting 'speed'"),
    ]

    @Test func parseErrorsNameTheTokenAndItsPosition() {
        for (text, token, line, column, message) in Self.parseErrors {
            let error = layoutError { () throws(FrameLayoutError) in _ = try FrameLayout(description: text) }
            #expect(error?.token == token, "\(text)")
            #expect(error?.line == line, "\(text)")
            #expect(error?.column == column, "\(text)")
            #expect(error?.message.contains(message) == true, "\(text): \(String(describing: error))")
        }
    }

    @Test func parseErrorDescriptionReadsAsOneLine() {
        let error = layoutError { () throws(FrameLayoutError) in
            _ = try FrameLayout(description: "magic:u32=0xFF\n length:u16:bodyy")
        }
        #expect(
            error?.description
                == "'length:u16:bodyy' at line 2, column 2: unknown length option 'bodyy' (body, cmd+body, after, frame, adj=N)"
        )
        let noToken = layoutError { () throws(FrameLayoutError) in _ = try FrameLayout(description: "cmd:u8") }
        #expect(noToken?.description == "a layout needs exactly one length field")
    }

    // MARK: Rules on FrameLayout(fields:)

    @Test func initRejectsWhatTheRulesForbid() {
        func message(
            _ fields: [Field], max: Int = FrameLayout.defaultMaxFrameSize,
            policy: FrameLayout.BadHeaderPolicy = .fail
        ) -> String? {
            layoutError { () throws(FrameLayoutError) in
                _ = try FrameLayout(fields: fields, maxFrameSize: max, badHeaderPolicy: policy)
            }?.message
        }
        #expect(message([.command(width: 4)]) == "a layout needs exactly one length field")
        #expect(message([.length(width: 3, span: .body)]) == "width 3 is not 1, 2, 4 or 8 bytes")
        #expect(
            message([.length(width: 4, span: .body), .command(width: 8)])
                == "a command is 1, 2 or 4 bytes wide (it is a UInt32)")
        #expect(
            message([.length(width: 4, span: .body)], policy: .resynchronize(maxSkip: 10))
                == "resynchronizing needs a magic field to look for")
        #expect(
            message([.magic(1, width: 1), .length(width: 4, span: .body)], policy: .resynchronize(maxSkip: 0))
                == "resynchronizing needs a skip limit of at least 1 byte")
        #expect(
            message([.magic(1, width: 1), .length(width: 4, span: .body)], max: 4)
                == "max frame size 4 is smaller than an empty frame (5 bytes)")
        #expect(
            message([.length(width: 4, span: .body, adjustment: Int(Int32.max) + 1)])?.contains("out of range") == true)
        #expect(
            message([Field(kind: .command, width: 0), .length(width: 4, span: .body)])
                == "only a length can be a varint")
        #expect(message([.magic(1, width: 1), .length(width: 4, span: .body)], max: 5) == nil)
    }

    @Test func fieldsNormalizeMeaninglessByteOrder() {
        #expect(Field.command(width: 1, byteOrder: .littleEndian) == .command(width: 1))
        #expect(
            Field.varintLength(span: .body)
                == Field(kind: .length(span: .body, adjustment: 0), width: 0, byteOrder: .littleEndian))
        #expect(Field.command(width: 2, byteOrder: .littleEndian) != .command(width: 2))
        #expect(
            Field.length(width: 2, span: .body, byteOrder: .littleEndian, isSigned: true).description
                == "length:i16le:body")
    }

    @Test func aLayoutChangedIntoABrokenOneIsCaughtByValidate() throws {
        var layout = FrameLayout.gameTCP
        layout.maxFrameSize = 65536
        try layout.validate()
        #expect(layout.description == "magic:u32=0xFF length:u32:cmd+body cmd:u32 max=65536")
        layout.fields.removeLast()  // cmd+body without a cmd
        #expect(
            layoutError { () throws(FrameLayoutError) in try layout.validate() }?.message
                == "a cmd+body length needs a cmd field")
        layout.fields.append(.command(width: 4))
        try layout.validate()
        #expect(layout == FrameLayout.gameTCP.with(maxFrameSize: 65536))
        // A decoder made from the repaired layout uses the new maximum.
        var decoder = FrameDecoder(layout: layout)
        decoder.feed([0, 0, 0, 0xFF, 0, 1, 0, 0])
        #expect(
            frameError { () throws(FrameError) in _ = try decoder.nextFrame() }
                == .frameTooLarge(offset: 4, size: 65536 + 8, limit: 65536))
    }

    @Test func checkedDescriptionTrapsOnBadText() async {
        await #expect(processExitsWith: .failure) {
            _ = FrameLayout(checkedDescription: "length:u32:sideways")
        }
    }

    @Test func aDecoderOfABrokenLayoutTraps() async {
        await #expect(processExitsWith: .failure) {
            var layout = FrameLayout.u32le
            layout.fields = []
            _ = FrameDecoder(layout: layout)
        }
    }
}

extension FrameLayout {
    func with(maxFrameSize: Int) -> FrameLayout {
        var copy = self
        copy.maxFrameSize = maxFrameSize
        return copy
    }
}
