/// The shortest decimal of a double that has few digits after its point (a price, a
/// coordinate, a score, `1.25`), found with a few multiplications and divisions: less work
/// than the standard library's shortest-form formatter and the writing of its text, whose cost
/// is the same for any double.
///
/// For k = 0, 1, 2, ... it rounds `value × 10^k` to an integer m and checks that m / 10^k
/// (both exact, the quotient correctly rounded, as reading the text back rounds it) is
/// `value` again. It gives up (nil: the caller takes the long way) after k = 9 or once
/// `value × 10^k` reaches 2^50. Below that, the doubles that round to `value`, scaled by 10^k, span less
/// than a quarter, so at most one integer lies among them and rounding the computed product
/// (off by less than an eighth) finds it when there is one. The first k that works is then
/// the fewest digits after the point any text reading back as `value` can have, and m the
/// only such digits: the shortest text, and the one the standard library's `description`
/// prints (which also prints decimals without an exponent from 0.0001 up, and these all lie
/// between 0.0001 and 2^50).
enum ShortDecimal {
    /// The digits m and the count k of them after the point, `value` being m / 10^k; nil
    /// for zero, NaN, infinities and doubles that need more digits than this finds.
    @inline(__always)
    static func digits(of value: Double) -> (digits: UInt64, fractionDigits: Int)? {
        let magnitude = value.magnitude
        // Not zero (its sign is the long way's to print), not below 0.0001 (printed with an
        // exponent), not NaN (which fails every comparison).
        guard magnitude >= 0.0001, magnitude < limit else { return nil }
        var scale = 1.0
        for fractionDigits in 0...maxFractionDigits {
            let scaled = magnitude * scale
            guard scaled < limit else { return nil }
            // Rounded to the nearest integer, half up (a tie never reads back as `value`):
            // exact, since `scaled` is below 2^50.
            let integer = Int64(scaled + 0.5)
            if Double(integer) / scale == magnitude {
                let digits = UInt64(integer)
                // Cannot happen by the argument above; kept so that a trailing zero could
                // never be printed.
                if fractionDigits > 0 && digits % 10 == 0 { return nil }
                return (digits, fractionDigits)
            }
            scale *= 10  // exact up to 10^22
        }
        return nil
    }

    /// 2^50: see the type's comment.
    private static let limit = 1_125_899_906_842_624.0
    /// How far it looks: a double with more digits after its point (one worked out, such as
    /// 0.1 + 0.2) takes the long way after ten tries, which adds the tries to the standard
    /// library's work; a short one saves most of that work.
    private static let maxFractionDigits = 9
}
