import SwiftFrame
import SwiftFrameWellKnownTypes
import TestSupport
import Testing

@Suite struct DurationTests {
    typealias Duration = Google_Protobuf_Duration

    @Test(arguments: [
        (0.0, 0 as Int64, 0 as Int32),
        (-0.0, 0, 0),
        (1.5, 1, 500_000_000),
        (-1.5, -1, -500_000_000),  // nanos take the sign of the seconds
        (0.25, 0, 250_000_000),
        (-0.25, 0, -250_000_000),
        (0.000_000_001, 0, 1),
        (-0.000_000_001, 0, -1),
        (0.999_999_999_9, 1, 0),  // rounds to the nearest nanosecond
        (-0.999_999_999_9, -1, 0),
        (-0.000_000_000_4, 0, 0),
        (315_576_000_000.0, 315_576_000_000, 0),
        (-315_576_000_000.0, -315_576_000_000, 0),
    ])
    func fromDoubleSeconds(value: Double, seconds: Int64, nanos: Int32) {
        let duration = Duration(totalSeconds: value)
        #expect(duration.seconds == seconds && duration.nanos == nanos, "\(value) gave \(duration)")
        #expect(duration == duration.normalized() && duration.isValid)
    }

    @Test func integralSecondsStayExact() {
        // Through a Double this would round to 9_007_199_254_740_992.
        #expect(Duration(seconds: 9_007_199_254_740_993).seconds == 9_007_199_254_740_993)
        #expect(Duration(seconds: 5) == Duration(seconds: 5, nanos: 0))
        let double = 2.0
        #expect(Duration(totalSeconds: double) == Duration(seconds: 2))
    }

    @Test func totalSeconds() throws {
        #expect(Duration(seconds: 1, nanos: 500_000_000).totalSeconds == 1.5)
        #expect(Duration(seconds: -1, nanos: -500_000_000).totalSeconds == -1.5)
        #expect(Duration(seconds: 0, nanos: -250_000_000).totalSeconds == -0.25)
        #expect(Duration(seconds: 1, nanos: -500_000_000).totalSeconds == 0.5)  // not normalized
        for value in [0.5, -3.75, 86_400.125, -315_576_000_000.0] {
            #expect(Duration(totalSeconds: value).totalSeconds == value)
        }
        var duration = try Duration(serializedBytes: [0x08, 0x01, 0x18, 0x07])  // seconds 1, field 3 = 7
        duration.totalSeconds = -2.75
        #expect(duration.seconds == -2 && duration.nanos == -750_000_000)
        #expect(duration.unknownFields.bytes == [0x18, 0x07])
    }

    @Test(arguments: [
        (1 as Int64, -1 as Int32, 0 as Int64, 999_999_999 as Int32),
        (-1, 1, 0, -999_999_999),
        (0, 1_500_000_000, 1, 500_000_000),
        (0, -1_500_000_000, -1, -500_000_000),
        (-3, 2_000_000_000, -1, 0),
        (-3, 2_147_483_647, 0, -852_516_353),
        (2, -2_000_000_000, 0, 0),
        (5, -999_999_999, 4, 1),
        (0, -5, 0, -5),
        (0, 5, 0, 5),
        (-7, -999_999_999, -7, -999_999_999),
        // The seconds would overflow Int64: saturate, and stay invalid.
        (Int64.max, 1_000_000_000, Int64.max, 999_999_999),
        (Int64.min, -1_000_000_000, Int64.min, -999_999_999),
        // At the edge but no overflow.
        (Int64.max, -1, Int64.max - 1, 999_999_999),
        (Int64.min, 1, Int64.min + 1, -999_999_999),
    ])
    func normalized(seconds: Int64, nanos: Int32, expectedSeconds: Int64, expectedNanos: Int32) {
        let result = Duration(seconds: seconds, nanos: nanos).normalized()
        #expect(result.seconds == expectedSeconds && result.nanos == expectedNanos, "gave \(result)")
        #expect(!(result.seconds > 0 && result.nanos < 0) && !(result.seconds < 0 && result.nanos > 0))
        #expect(abs(result.nanos) < 1_000_000_000)
    }

    @Test(arguments: [
        (315_576_000_000 as Int64, 999_999_999 as Int32, true),
        (-315_576_000_000, -999_999_999, true),
        (315_576_000_001, 0, false),
        (-315_576_000_001, 0, false),
        (0, 0, true),
        (0, -999_999_999, true),
        (0, 999_999_999, true),
        (0, 1_000_000_000, false),
        (0, -1_000_000_000, false),
        (1, -1, false),  // signs disagree
        (-1, 1, false),
        (-1, 0, true),
    ])
    func isValid(seconds: Int64, nanos: Int32, valid: Bool) {
        #expect(Duration(seconds: seconds, nanos: nanos).isValid == valid)
    }

    @Test func comparable() {
        let sorted = [
            Duration(seconds: -315_576_000_000, nanos: -999_999_999),
            Duration(seconds: -1, nanos: -500_000_000),
            Duration(seconds: -1),
            Duration(seconds: 0, nanos: -500_000_000),
            Duration(seconds: 0, nanos: -1),
            Duration(),
            Duration(seconds: 0, nanos: 1),
            Duration(seconds: 1),
            Duration(seconds: 1, nanos: 500_000_000),
        ]
        #expect(sorted.reversed().sorted() == sorted)
        #expect(sorted.shuffled().sorted() == sorted)
        #expect(Duration(totalSeconds: -1.5) < Duration(totalSeconds: -1.25))
        #expect(!(Duration(seconds: 2) < Duration(seconds: 2)))
    }

    @Test func arithmetic() {
        #expect(Duration(totalSeconds: 1.5) + Duration(totalSeconds: -0.75) == Duration(seconds: 0, nanos: 750_000_000))
        #expect(Duration(totalSeconds: -1.5) - Duration(totalSeconds: 0.5) == Duration(seconds: -2))
        #expect(Duration(totalSeconds: 0.3) - Duration(seconds: 1) == Duration(seconds: 0, nanos: -700_000_000))
        #expect(Duration(seconds: 0, nanos: 999_999_999) + Duration(seconds: 0, nanos: 1) == Duration(seconds: 1))
        #expect(Duration(seconds: 0, nanos: -999_999_999) + Duration(seconds: 0, nanos: -1) == Duration(seconds: -1))
        #expect(Duration(seconds: 2) - Duration(seconds: 2) == Duration())
        // Operands that are not normalized still give a normalized result.
        #expect(Duration(seconds: 1, nanos: -1) + Duration(seconds: -1, nanos: 1) == Duration())
        #expect(Duration(seconds: 5, nanos: 1_500_000_000) + Duration() == Duration(seconds: 6, nanos: 500_000_000))

        #expect(-Duration(totalSeconds: 1.5) == Duration(seconds: -1, nanos: -500_000_000))
        #expect(-Duration(seconds: 0, nanos: -3) == Duration(seconds: 0, nanos: 3))
        #expect(-Duration() == Duration())
        #expect(-Duration(seconds: Int64.max) == Duration(seconds: -Int64.max))

        var total = Duration()
        total += Duration(totalSeconds: 0.75)
        total += Duration(totalSeconds: 0.75)
        #expect(total == Duration(totalSeconds: 1.5))
        total -= Duration(seconds: 2)
        #expect(total == Duration(totalSeconds: -0.5))
    }

    @Test func trapsOnOverflowAndNonFiniteSeconds() async {
        await #expect(processExitsWith: .failure) {
            _ = Google_Protobuf_Duration(seconds: .max) + Google_Protobuf_Duration(seconds: 1)
        }
        await #expect(processExitsWith: .failure) {
            _ =
                Google_Protobuf_Duration(seconds: .max, nanos: 999_999_999)
                + Google_Protobuf_Duration(seconds: 0, nanos: 1)
        }
        await #expect(processExitsWith: .failure) {
            _ = Google_Protobuf_Duration(seconds: .min) - Google_Protobuf_Duration(seconds: 1)
        }
        await #expect(processExitsWith: .failure) {
            _ = -Google_Protobuf_Duration(seconds: .min)
        }
        await #expect(processExitsWith: .failure) {
            _ = Google_Protobuf_Duration(totalSeconds: Double.infinity)
        }
    }
}
