// Conveniences for google.protobuf.Timestamp: conversion from and to seconds since the Unix
// epoch as a Double, normalization, validity, ordering, and arithmetic with Duration.

import SwiftFrame

extension Google_Protobuf_Timestamp {
    /// 0001-01-01T00:00:00Z, the earliest second protobuf allows.
    static let minSeconds: Int64 = -62_135_596_800
    /// 9999-12-31T23:59:59Z, the latest second protobuf allows.
    static let maxSeconds: Int64 = 253_402_300_799

    /// The point in time `secondsSince1970` seconds after 1970-01-01T00:00:00Z (before it when
    /// negative), rounded to the nearest nanosecond. The result is normalized: `nanos` is
    /// within `0..<1_000_000_000`, so 1.5 seconds before the epoch is `(seconds: -2, nanos:
    /// 500_000_000)`.
    /// - Precondition: `secondsSince1970` is finite and its whole part fits in Int64.
    public init(secondsSince1970: Double) {
        let parts = splitSeconds(secondsSince1970, rounding: .down)
        // 0 <= nanos <= 1e9 and the whole part is exact, so this cannot overflow.
        let normal = splitFlooring(seconds: parts.seconds, nanos: parts.nanos)!
        self.init(seconds: normal.seconds, nanos: normal.nanos)
    }

    /// Seconds since 1970-01-01T00:00:00Z (`seconds + nanos / 1e9`). A Double holds only
    /// about microseconds for present-day times. Setting it works as
    /// `init(secondsSince1970:)` does, and keeps `unknownFields`.
    public var secondsSince1970: Double {
        get { Double(seconds) + Double(nanos) / 1e9 }
        set {
            let value = Self(secondsSince1970: newValue)
            seconds = value.seconds
            nanos = value.nanos
        }
    }

    /// The same point in time with `nanos` in `0..<1_000_000_000` and `seconds` adjusted.
    /// Never traps: a value whose seconds would overflow Int64 saturates at `Int64.max` or
    /// `Int64.min` (and stays invalid).
    public func normalized() -> Self {
        var copy = self
        if let normal = splitFlooring(seconds: seconds, nanos: Int64(nanos)) {
            (copy.seconds, copy.nanos) = normal
        } else if seconds > 0 {
            (copy.seconds, copy.nanos) = (.max, 999_999_999)
        } else {
            (copy.seconds, copy.nanos) = (.min, 0)
        }
        return copy
    }

    /// Whether protobuf accepts this timestamp: from 0001-01-01T00:00:00Z through
    /// 9999-12-31T23:59:59.999999999Z, with `nanos` in `0...999_999_999`.
    public var isValid: Bool {
        (Self.minSeconds...Self.maxSeconds).contains(seconds) && (0...999_999_999).contains(nanos)
    }

    /// The timestamp `rhs` later, normalized. Traps when the seconds overflow Int64.
    public static func + (lhs: Self, rhs: Google_Protobuf_Duration) -> Self {
        let (seconds, overflow) = lhs.seconds.addingReportingOverflow(rhs.seconds)
        guard !overflow, let sum = splitFlooring(seconds: seconds, nanos: Int64(lhs.nanos) + Int64(rhs.nanos)) else {
            preconditionFailure("Timestamp arithmetic overflow")
        }
        return Self(seconds: sum.seconds, nanos: sum.nanos)
    }

    /// The timestamp `lhs` later, normalized. Traps when the seconds overflow Int64.
    public static func + (lhs: Google_Protobuf_Duration, rhs: Self) -> Self {
        rhs + lhs
    }

    /// The timestamp `rhs` earlier, normalized. Traps when the seconds overflow Int64.
    public static func - (lhs: Self, rhs: Google_Protobuf_Duration) -> Self {
        let (seconds, overflow) = lhs.seconds.subtractingReportingOverflow(rhs.seconds)
        guard !overflow, let difference = splitFlooring(seconds: seconds, nanos: Int64(lhs.nanos) - Int64(rhs.nanos))
        else {
            preconditionFailure("Timestamp arithmetic overflow")
        }
        return Self(seconds: difference.seconds, nanos: difference.nanos)
    }

    /// The normalized duration from `rhs` to `lhs` (negative when `lhs` is earlier). Traps
    /// when the seconds overflow Int64.
    public static func - (lhs: Self, rhs: Self) -> Google_Protobuf_Duration {
        Google_Protobuf_Duration(seconds: lhs.seconds, nanos: lhs.nanos)
            - Google_Protobuf_Duration(seconds: rhs.seconds, nanos: rhs.nanos)
    }

    public static func += (lhs: inout Self, rhs: Google_Protobuf_Duration) {
        lhs = lhs + rhs
    }

    public static func -= (lhs: inout Self, rhs: Google_Protobuf_Duration) {
        lhs = lhs - rhs
    }
}

extension Google_Protobuf_Timestamp: Comparable {
    /// Orders by `seconds`, then `nanos`: chronological order for normalized values.
    /// (`==` also compares `unknownFields`.)
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
