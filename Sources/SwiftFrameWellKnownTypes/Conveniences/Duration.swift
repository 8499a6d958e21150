// Conveniences for google.protobuf.Duration: conversion from and to Double, normalization,
// validity, ordering and arithmetic.

import SwiftFrame

/// Nanoseconds in a second.
let nanosPerSecond: Int64 = 1_000_000_000

/// `seconds + nanos / 1e9` as a pair whose nanos lie in `0..<1e9` (a Timestamp's form),
/// or nil when the seconds do not fit in Int64.
func splitFlooring(seconds: Int64, nanos: Int64) -> (seconds: Int64, nanos: Int32)? {
    var carry = nanos / nanosPerSecond
    var rest = nanos % nanosPerSecond
    if rest < 0 {
        carry -= 1
        rest += nanosPerSecond
    }
    let (sum, overflow) = seconds.addingReportingOverflow(carry)
    return overflow ? nil : (sum, Int32(rest))
}

/// `seconds + nanos / 1e9` as a pair whose nanos lie in `-1e9 < nanos < 1e9` with the sign
/// of the seconds (a Duration's form), or nil when the seconds do not fit in Int64.
func splitTruncating(seconds: Int64, nanos: Int64) -> (seconds: Int64, nanos: Int32)? {
    var rest = nanos % nanosPerSecond
    let (sum, overflow) = seconds.addingReportingOverflow(nanos / nanosPerSecond)
    if overflow { return nil }
    var whole = sum
    if whole > 0, rest < 0 {
        whole -= 1
        rest += nanosPerSecond
    } else if whole < 0, rest > 0 {
        whole += 1
        rest -= nanosPerSecond
    }
    return (whole, Int32(rest))
}

/// Splits a finite Double number of seconds into whole seconds (rounded by `rule`) and
/// nanoseconds rounded to the nearest; traps when the seconds do not fit in Int64.
func splitSeconds(_ value: Double, rounding rule: FloatingPointRoundingRule) -> (seconds: Int64, nanos: Int64) {
    precondition(value.isFinite, "\(value) seconds is not a finite number")
    let whole = value.rounded(rule)
    // -2^63 is a Double; 2^63 is the first Double past Int64.max.
    precondition(
        whole >= -9_223_372_036_854_775_808.0 && whole < 9_223_372_036_854_775_808.0,
        "\(value) seconds does not fit in Int64")
    // `value - whole` is exact, so only the scaling by 1e9 rounds.
    return (Int64(whole), Int64(((value - whole) * 1e9).rounded()))
}

extension Google_Protobuf_Duration {
    /// The largest number of seconds protobuf allows in either direction: about 10,000 years.
    static let maxSeconds: Int64 = 315_576_000_000

    /// A duration of `seconds`, which may be fractional or negative, rounded to the nearest
    /// nanosecond. The result is normalized: `nanos` has the sign of `seconds`.
    /// (`init(seconds:nanos:)` is the exact, integral form.)
    /// - Precondition: `seconds` is finite and its whole part fits in Int64.
    public init(totalSeconds seconds: Double) {
        let parts = splitSeconds(seconds, rounding: .towardZero)
        // |nanos| <= 1e9 and the whole part is exact, so this cannot overflow.
        let normal = splitTruncating(seconds: parts.seconds, nanos: parts.nanos)!
        self.init(seconds: normal.seconds, nanos: normal.nanos)
    }

    /// The duration in seconds (`seconds + nanos / 1e9`). Beyond about 100 days a Double
    /// no longer holds every nanosecond. Setting it works as `init(seconds:)` does, and
    /// keeps `unknownFields`.
    public var totalSeconds: Double {
        get { Double(seconds) + Double(nanos) / 1e9 }
        set {
            let value = Self(totalSeconds: newValue)
            seconds = value.seconds
            nanos = value.nanos
        }
    }

    /// The same length of time in protobuf's canonical form: `nanos` within ±999,999,999 and
    /// of the same sign as `seconds` (either may be 0). Never traps: a value whose seconds
    /// would overflow Int64 saturates at `Int64.max` or `Int64.min` (and stays invalid).
    public func normalized() -> Self {
        var copy = self
        if let normal = splitTruncating(seconds: seconds, nanos: Int64(nanos)) {
            (copy.seconds, copy.nanos) = normal
        } else if seconds > 0 {
            (copy.seconds, copy.nanos) = (.max, 999_999_999)
        } else {
            (copy.seconds, copy.nanos) = (.min, -999_999_999)
        }
        return copy
    }

    /// Whether protobuf accepts this duration: seconds within ±315,576,000,000 (about
    /// 10,000 years), nanos within ±999,999,999, and the two not of opposite signs.
    public var isValid: Bool {
        (-Self.maxSeconds...Self.maxSeconds).contains(seconds)
            && (-999_999_999...999_999_999).contains(nanos)
            && !(seconds > 0 && nanos < 0) && !(seconds < 0 && nanos > 0)
    }

    /// Normalized `lhs + rhs`. Traps when the seconds overflow Int64, as integer `+` does.
    public static func + (lhs: Self, rhs: Self) -> Self {
        let (seconds, overflow) = lhs.seconds.addingReportingOverflow(rhs.seconds)
        guard !overflow, let sum = splitTruncating(seconds: seconds, nanos: Int64(lhs.nanos) + Int64(rhs.nanos)) else {
            preconditionFailure("Duration arithmetic overflow")
        }
        return Self(seconds: sum.seconds, nanos: sum.nanos)
    }

    /// Normalized `lhs - rhs`. Traps when the seconds overflow Int64, as integer `-` does.
    public static func - (lhs: Self, rhs: Self) -> Self {
        let (seconds, overflow) = lhs.seconds.subtractingReportingOverflow(rhs.seconds)
        guard !overflow, let difference = splitTruncating(seconds: seconds, nanos: Int64(lhs.nanos) - Int64(rhs.nanos))
        else {
            preconditionFailure("Duration arithmetic overflow")
        }
        return Self(seconds: difference.seconds, nanos: difference.nanos)
    }

    /// The opposite duration, normalized. Traps for seconds `Int64.min`.
    public static prefix func - (operand: Self) -> Self {
        Self() - operand
    }

    public static func += (lhs: inout Self, rhs: Self) {
        lhs = lhs + rhs
    }

    public static func -= (lhs: inout Self, rhs: Self) {
        lhs = lhs - rhs
    }
}

extension Google_Protobuf_Duration: Comparable {
    /// Orders by `seconds`, then `nanos`: the order of the lengths of time for normalized
    /// values. (`==` also compares `unknownFields`.)
    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.seconds, lhs.nanos) < (rhs.seconds, rhs.nanos)
    }
}
