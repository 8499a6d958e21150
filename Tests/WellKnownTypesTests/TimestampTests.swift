import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

@Suite struct TimestampTests {
    typealias Timestamp = Google_Protobuf_Timestamp

    @Test(arguments: [
        (0.0, 0 as Int64, 0 as Int32),
        (1.5, 1, 500_000_000),
        (-1.5, -2, 500_000_000),  // nanos stay positive before the epoch
        (-0.25, -1, 750_000_000),
        (-1.0, -1, 0),
        (-0.0, 0, 0),
        (0.000_000_001, 0, 1),
        (-0.000_000_001, -1, 999_999_999),
        (1.999_999_999_9, 2, 0),  // rounds up into the next second
        (-0.000_000_000_1, 0, 0),  // rounds up to the epoch itself
        (1_700_000_000.25, 1_700_000_000, 250_000_000),
        (-62_135_596_800.0, -62_135_596_800, 0),
    ])
    func fromSecondsSince1970(value: Double, seconds: Int64, nanos: Int32) {
        let timestamp = Timestamp(secondsSince1970: value)
        #expect(timestamp.seconds == seconds && timestamp.nanos == nanos, "\(value) gave \(timestamp)")
        #expect(timestamp == timestamp.normalized())
    }

    @Test func toSecondsSince1970() {
        #expect(Timestamp(seconds: 1, nanos: 500_000_000).secondsSince1970 == 1.5)
        #expect(Timestamp(seconds: -2, nanos: 500_000_000).secondsSince1970 == -1.5)
        #expect(Timestamp(seconds: -1, nanos: 750_000_000).secondsSince1970 == -0.25)
        #expect(Timestamp().secondsSince1970 == 0)
        // Not normalized: still seconds + nanos / 1e9.
        #expect(Timestamp(seconds: 1, nanos: -500_000_000).secondsSince1970 == 0.5)
        for value in [0.5, -3.75, 1_234.125, -62_135_596_800.0, 253_402_300_799.5] {
            #expect(Timestamp(secondsSince1970: value).secondsSince1970 == value)
        }
    }

    @Test func settingSecondsSince1970KeepsUnknownFields() throws {
        var timestamp = try Timestamp(serializedBytes: [0x08, 0x01, 0x18, 0x07])  // seconds 1, field 3 = 7
        timestamp.secondsSince1970 = -1.5
        #expect(timestamp.seconds == -2 && timestamp.nanos == 500_000_000)
        #expect(timestamp.unknownFields.bytes == [0x18, 0x07])
    }

    @Test(arguments: [
        (0 as Int64, 1_500_000_000 as Int32, 1 as Int64, 500_000_000 as Int32),
        (0, -1, -1, 999_999_999),
        (0, -1_000_000_000, -1, 0),
        (3, -1_500_000_000, 1, 500_000_000),
        (-5, Int32.min, -8, 852_516_352),
        (7, Int32.max, 9, 147_483_647),
        (42, 999_999_999, 42, 999_999_999),
        (-42, 0, -42, 0),
        // The seconds would overflow Int64: saturate, and stay invalid.
        (Int64.max, 1_000_000_000, Int64.max, 999_999_999),
        (Int64.min, -1, Int64.min, 0),
        // At the edge but no overflow.
        (Int64.max, 999_999_999, Int64.max, 999_999_999),
        (Int64.min + 1, -1, Int64.min, 999_999_999),
    ])
    func normalized(seconds: Int64, nanos: Int32, expectedSeconds: Int64, expectedNanos: Int32) {
        let result = Timestamp(seconds: seconds, nanos: nanos).normalized()
        #expect(result.seconds == expectedSeconds && result.nanos == expectedNanos, "gave \(result)")
        #expect((0..<1_000_000_000).contains(result.nanos))
    }

    @Test func normalizedKeepsUnknownFields() throws {
        var timestamp = try Timestamp(serializedBytes: [0x18, 0x07])
        timestamp.nanos = -1
        #expect(timestamp.normalized().unknownFields.bytes == [0x18, 0x07])
    }

    @Test(arguments: [
        (-62_135_596_800 as Int64, 0 as Int32, true),  // 0001-01-01T00:00:00Z
        (-62_135_596_800, 999_999_999, true),
        (-62_135_596_801, 999_999_999, false),
        (253_402_300_799, 999_999_999, true),  // 9999-12-31T23:59:59.999999999Z
        (253_402_300_800, 0, false),
        (0, 0, true),
        (0, -1, false),
        (0, 1_000_000_000, false),
        (-1, 999_999_999, true),
        (Int64.min, 0, false),
        (Int64.max, 0, false),
    ])
    func isValid(seconds: Int64, nanos: Int32, valid: Bool) {
        #expect(Timestamp(seconds: seconds, nanos: nanos).isValid == valid)
    }

    @Test func comparable() {
        let sorted = [
            Timestamp(seconds: -62_135_596_800),
            Timestamp(seconds: -2, nanos: 500_000_000),
            Timestamp(seconds: -1, nanos: 0),
            Timestamp(seconds: -1, nanos: 999_999_999),
            Timestamp(),
            Timestamp(seconds: 0, nanos: 1),
            Timestamp(seconds: 1),
            Timestamp(seconds: 253_402_300_799, nanos: 999_999_999),
        ]
        #expect(sorted.reversed().sorted() == sorted)
        #expect(sorted.shuffled().sorted() == sorted)
        #expect(Timestamp(secondsSince1970: -1.5) < Timestamp(secondsSince1970: -1.25))
        #expect(!(Timestamp(seconds: 3) < Timestamp(seconds: 3)))
        #expect(Timestamp(seconds: 3) <= Timestamp(seconds: 3))
        #expect(max(Timestamp(seconds: 3), Timestamp(seconds: 2, nanos: 999_999_999)) == Timestamp(seconds: 3))
    }

    @Test func arithmeticWithDuration() {
        typealias Duration = Google_Protobuf_Duration
        let noon = Timestamp(seconds: 100, nanos: 900_000_000)
        #expect(noon + Duration(seconds: 0, nanos: 200_000_000) == Timestamp(seconds: 101, nanos: 100_000_000))
        #expect(Duration(seconds: 0, nanos: 200_000_000) + noon == Timestamp(seconds: 101, nanos: 100_000_000))
        #expect(noon + Duration(seconds: -1, nanos: -950_000_000) == Timestamp(seconds: 98, nanos: 950_000_000))
        #expect(noon - Duration(seconds: 101) == Timestamp(seconds: -1, nanos: 900_000_000))
        #expect(noon - Duration(seconds: -1, nanos: -200_000_000) == Timestamp(seconds: 102, nanos: 100_000_000))
        // A non-normalized operand still gives a normalized result.
        #expect(
            Timestamp(seconds: 0, nanos: -1) + Duration(seconds: 0, nanos: -1)
                == Timestamp(seconds: -1, nanos: 999_999_998))

        // Timestamp - Timestamp is a normalized Duration, negative when the left is earlier.
        #expect(
            Timestamp(seconds: 5, nanos: 100) - Timestamp(seconds: 3, nanos: 200)
                == Duration(seconds: 1, nanos: 999_999_900))
        #expect(
            Timestamp(seconds: 3, nanos: 200) - Timestamp(seconds: 5, nanos: 100)
                == Duration(seconds: -1, nanos: -999_999_900))
        #expect(Timestamp(seconds: -1, nanos: 500_000_000) - Timestamp() == Duration(seconds: 0, nanos: -500_000_000))
        let earliest = Timestamp(seconds: -62_135_596_800),
            latest = Timestamp(seconds: 253_402_300_799, nanos: 999_999_999)
        let span = latest - earliest
        #expect(span == Duration(seconds: 315_537_897_599, nanos: 999_999_999) && span.isValid)
        #expect(earliest + span == latest)

        var moving = noon
        moving += Duration(seconds: 1, nanos: 100_000_000)
        #expect(moving == Timestamp(seconds: 102))
        moving -= Duration(seconds: 0, nanos: 1)
        #expect(moving == Timestamp(seconds: 101, nanos: 999_999_999))
    }

    @Test func trapsOnOverflowAndNonFiniteSeconds() async {
        await #expect(processExitsWith: .failure) {
            _ =
                Google_Protobuf_Timestamp(seconds: .max, nanos: 999_999_999)
                + Google_Protobuf_Duration(seconds: 0, nanos: 1)
        }
        await #expect(processExitsWith: .failure) {
            _ = Google_Protobuf_Timestamp(seconds: .min) - Google_Protobuf_Duration(seconds: 1)
        }
        await #expect(processExitsWith: .failure) {
            _ = Google_Protobuf_Timestamp(secondsSince1970: .nan)
        }
        await #expect(processExitsWith: .failure) {
            _ = Google_Protobuf_Timestamp(secondsSince1970: 1e19)
        }
    }
}
