// Sample messages shared by several tests, each with its text-format twin.

import SwiftFrame
import SwiftFrameFixtures

typealias Level1 = Everything.Level1
typealias Level2 = Everything.Level1.Level2
typealias Level3 = Everything.Level1.Level2.Level3

enum Samples {
    /// An `Everything` with every field set (singular, repeated, nested, enums, optionals,
    /// unpacked, the three- and five-byte tags), including edge values.
    static let full = Everything(
        fDouble: -0.0,
        fFloat: -.infinity,
        fInt64: .min,
        fUint64: .max,
        fInt32: -1,
        fFixed64: .max,
        fFixed32: .max,
        fBool: true,
        fString: "héllo wörld ✓ 😀",
        fBytes: [0x00, 0xFF, 0x80, 0x7F],
        fUint32: .max,
        fSfixed32: .min,
        fSfixed64: .min,
        fSint32: .min,
        fSint64: .max,
        rDouble: [1.5, -0.0, .nan, .infinity],
        rFloat: [0.25, -.infinity, .nan],
        rInt64: [.min, -1, 0, .max],
        rUint64: [0, 300, .max],
        rInt32: [.min, -1, 0, 1, .max],
        rFixed64: [0, 1, .max],
        rFixed32: [.max, 0, 7],
        rBool: [true, false, true],
        rString: ["", "ascii", "日本語", "🎉"],
        rBytes: [[], [0x00], [0xFF, 0x00, 0x0A]],
        rUint32: [0, 128, .max],
        rSfixed32: [.min, -1, .max],
        rSfixed64: [.min, -1, .max],
        rSint32: [.min, -1, 0, .max],
        rSint64: [.min, -1, 0, .max],
        nested: Level1(
            name: "outer",
            child: Level2(value: -7, child: Level3(tags: ["a", "ß"], sign: .min, kind: .leaf))
        ),
        nestedList: [Level1(name: "first"), Level1(), Level1(child: Level2(value: 2))],
        sign: .negative,
        signs: [.zero, .negative, .min, .max, .million],
        owner: UserInfo(uid: 42, nickName: "ówner", avatar: "a.png", lastLogin: -1),
        deepest: Level3(tags: ["deep"], sign: .million, kind: .leaf),
        oInt32: 0,
        oString: "",
        oSign: .zero,
        oDouble: -0.0,
        oBool: false,
        unpackedInt32: [-1, 0, .max],
        unpackedFixed32: [1, .max],
        unpackedSigns: [.min, .zero, .million],
        field2048: 2048,
        maxField: .min
    )

    static let fullText = #"""
        f_double: -0
        f_float: -inf
        f_int64: -9223372036854775808
        f_uint64: 18446744073709551615
        f_int32: -1
        f_fixed64: 18446744073709551615
        f_fixed32: 4294967295
        f_bool: true
        f_string: "héllo wörld ✓ 😀"
        f_bytes: "\x00\xff\x80\x7f"
        f_uint32: 4294967295
        f_sfixed32: -2147483648
        f_sfixed64: -9223372036854775808
        f_sint32: -2147483648
        f_sint64: 9223372036854775807
        r_double: [1.5, -0, nan, inf]
        r_float: [0.25, -inf, nan]
        r_int64: [-9223372036854775808, -1, 0, 9223372036854775807]
        r_uint64: [0, 300, 18446744073709551615]
        r_int32: [-2147483648, -1, 0, 1, 2147483647]
        r_fixed64: [0, 1, 18446744073709551615]
        r_fixed32: [4294967295, 0, 7]
        r_bool: [true, false, true]
        r_string: ["", "ascii", "日本語", "🎉"]
        r_bytes: ["", "\000", "\377\000\n"]
        r_uint32: [0, 128, 4294967295]
        r_sfixed32: [-2147483648, -1, 2147483647]
        r_sfixed64: [-9223372036854775808, -1, 9223372036854775807]
        r_sint32: [-2147483648, -1, 0, 2147483647]
        r_sint64: [-9223372036854775808, -1, 0, 9223372036854775807]
        nested {
          name: "outer"
          child { value: -7 child { tags: ["a", "ß"] sign: SIGN_MIN kind: KIND_LEAF } }
        }
        nested_list { name: "first" }
        nested_list { }
        nested_list { child { value: 2 } }
        sign: SIGN_NEGATIVE
        signs: [SIGN_ZERO, SIGN_NEGATIVE, SIGN_MIN, SIGN_MAX, SIGN_MILLION]
        owner { uid: 42 nick_name: "ówner" avatar: "a.png" last_login: -1 }
        deepest { tags: "deep" sign: SIGN_MILLION kind: KIND_LEAF }
        o_int32: 0
        o_string: ""
        o_sign: SIGN_ZERO
        o_double: -0
        o_bool: false
        unpacked_int32: [-1, 0, 2147483647]
        unpacked_fixed32: [1, 4294967295]
        unpacked_signs: [SIGN_MIN, SIGN_ZERO, SIGN_MILLION]
        field_2048: 2048
        max_field: -2147483648
        """#

    /// A second `Everything` overlapping `full`, for merge tests.
    static let other = Everything(
        fDouble: 2.5,
        fInt32: 77,
        fString: "second",
        rInt32: [10, 20],
        rString: ["x"],
        nested: Level1(child: Level2(child: Level3(tags: ["c"], kind: .unspecified))),
        nestedList: [Level1(name: "appended")],
        sign: .max,
        signs: [.million],
        owner: UserInfo(nickName: "renamed"),
        deepest: Level3(tags: ["deeper"], sign: .negative),
        oInt32: 5,
        oString: "set",
        oBool: true,
        unpackedInt32: [3],
        maxField: 1
    )

    static let otherText = #"""
        f_double: 2.5
        f_int32: 77
        f_string: "second"
        r_int32: [10, 20]
        r_string: "x"
        nested { child { child { tags: "c" } } }
        nested_list { name: "appended" }
        sign: SIGN_MAX
        signs: SIGN_MILLION
        owner { nick_name: "renamed" }
        deepest { tags: "deeper" sign: SIGN_NEGATIVE }
        o_int32: 5
        o_string: "set"
        o_bool: true
        unpacked_int32: 3
        max_field: 1
        """#

    /// A binary tree several levels deep, using left, right and children at every level.
    static let tree = TreeNode(
        label: "root",
        left: TreeNode(
            label: "L",
            left: TreeNode(label: "LL", right: TreeNode(label: "LLR", children: [TreeNode(label: "LLR0")])),
            right: TreeNode()
        ),
        right: TreeNode(
            label: "R",
            children: [TreeNode(label: "R0"), TreeNode(), TreeNode(label: "R2", left: TreeNode(label: "R2L"))]
        ),
        children: [
            TreeNode(label: "c0", children: [TreeNode(label: "c00", children: [TreeNode(label: "c000")])]),
            TreeNode(label: "c1", right: TreeNode(label: "c1R", left: TreeNode(label: "c1RL"))),
        ]
    )

    static let treeText = """
        label: "root"
        left {
          label: "L"
          left { label: "LL" right { label: "LLR" children { label: "LLR0" } } }
          right { }
        }
        right {
          label: "R"
          children { label: "R0" }
          children { }
          children { label: "R2" left { label: "R2L" } }
        }
        children { label: "c0" children { label: "c00" children { label: "c000" } } }
        children { label: "c1" right { label: "c1R" left { label: "c1RL" } } }
        """
}
