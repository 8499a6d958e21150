// Enum numbers against the .proto files: through protoc for enums a message field uses,
// directly for the ones no field uses (CommandEnum, Keyword_cases, Aliased).

import SwiftFrame
import SwiftFrameFixtures
import TestSupport
import Testing

/// One named enum value set on a field, with the text protoc reads for it.
struct EnumValueCase: Sendable, CustomTestStringConvertible {
    let name: String
    let run: @Sendable () throws -> Void
    var testDescription: String { name }

    init<M: Message, E: SwiftFrame.Enum>(
        _ text: String, _ value: E, number: Int32, file: String,
        _ make: @escaping @Sendable (E) -> M, read: @escaping @Sendable (M) -> E,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        self.name = "\(M.protoMessageName) \(text)"
        self.run = {
            #expect(value.rawValue == number, sourceLocation: sourceLocation)
            #expect(sameCase(E(rawValue: number), value), sourceLocation: sourceLocation)
            let message = make(value)
            try expectRoundTrip(
                message, text: text, file: file, expectEmpty: number == 0, sourceLocation: sourceLocation)
            let decoded = try M(serializedBytes: try Protoc.encode(text, as: M.protoMessageName, file: file))
            #expect(sameCase(read(decoded), value), "decoded \(read(decoded))", sourceLocation: sourceLocation)
        }
    }
}

@Suite("Enums")
struct EnumTests {
    static let fieldCases: [EnumValueCase] = [
        EnumValueCase(
            "sign: SIGN_ZERO", Sign.zero, number: 0, file: "everything.proto", { Everything(sign: $0) }, read: \.sign),
        EnumValueCase(
            "sign: SIGN_NEGATIVE", Sign.negative, number: -1, file: "everything.proto", { Everything(sign: $0) },
            read: \.sign),
        EnumValueCase(
            "sign: SIGN_MIN", Sign.min, number: .min, file: "everything.proto", { Everything(sign: $0) }, read: \.sign),
        EnumValueCase(
            "sign: SIGN_MAX", Sign.max, number: .max, file: "everything.proto", { Everything(sign: $0) }, read: \.sign),
        EnumValueCase(
            "sign: SIGN_MILLION", Sign.million, number: 1_000_000, file: "everything.proto", { Everything(sign: $0) },
            read: \.sign),
        EnumValueCase(
            "kind: KIND_UNSPECIFIED", Level3.Kind.unspecified, number: 0, file: "everything.proto",
            { Level3(kind: $0) }, read: \.kind),
        EnumValueCase(
            "kind: KIND_LEAF", Level3.Kind.leaf, number: 1, file: "everything.proto", { Level3(kind: $0) }, read: \.kind
        ),
        EnumValueCase(
            "method: common_method_user", CommonMethod.user, number: 0, file: "common.proto", { Common(method: $0) },
            read: \.method),
        EnumValueCase(
            "method: common_method_message", CommonMethod.message, number: 1, file: "common.proto",
            { Common(method: $0) }, read: \.method),
        EnumValueCase(
            "method: common_method_friend", CommonMethod.friend, number: 2, file: "common.proto",
            { Common(method: $0) }, read: \.method),
        EnumValueCase(
            "method: common_method_p2p_connect", CommonMethod.p2pConnect, number: 3, file: "common.proto",
            { Common(method: $0) }, read: \.method),
        EnumValueCase(
            "method: common_method_respond", CommonMethod.respond, number: 4, file: "common.proto",
            { Common(method: $0) }, read: \.method),
        EnumValueCase(
            "type: comom_err", ErrorType.comomErr, number: 0, file: "error.proto", { ErrorMsg(type: $0) }, read: \.type),
        EnumValueCase(
            "type: invalid_params", ErrorType.invalidParams, number: 2, file: "error.proto", { ErrorMsg(type: $0) },
            read: \.type),
        EnumValueCase(
            "cmd: User_cmd_sign_in", UserCmd.signIn, number: 0, file: "user.proto", { UserMsg(cmd: $0) }, read: \.cmd),
        EnumValueCase(
            "cmd: User_cmd_login", UserCmd.login, number: 2, file: "user.proto", { UserMsg(cmd: $0) }, read: \.cmd),
        EnumValueCase(
            "cmd: User_cmd_logout", UserCmd.logout, number: 3, file: "user.proto", { UserMsg(cmd: $0) }, read: \.cmd),
        EnumValueCase(
            "cmd: User_cmd_user_info", UserCmd.userInfo, number: 4, file: "user.proto", { UserMsg(cmd: $0) },
            read: \.cmd),
    ]

    @Test("Every named value of every enum a field uses", arguments: fieldCases)
    func fieldEnums(_ testCase: EnumValueCase) throws {
        try testCase.run()
    }

    @Test("allCases lists the declared values in order")
    func allCases() {
        // `==` on these enums compares numbers (RawRepresentable): none may be `.unrecognized`.
        #expect(Sign.allCases.allSatisfy { !isUnrecognized($0) })
        #expect(CommandEnum.allCases.allSatisfy { !isUnrecognized($0) })
        #expect(KeywordCases.allCases.allSatisfy { !isUnrecognized($0) })
        #expect(Aliased.allCases.allSatisfy { !isUnrecognized($0) })
        #expect(Sign.allCases == [.zero, .negative, .min, .max, .million])
        #expect(Level3.Kind.allCases == [.unspecified, .leaf])
        #expect(CommonMethod.allCases == [.user, .message, .friend, .p2pConnect, .respond])
        #expect(ErrorType.allCases == [.comomErr, .invalidParams])
        #expect(UserCmd.allCases == [.signIn, .login, .logout, .userInfo])
        #expect(
            CommandEnum.allCases == [.cmdDefault, .cmdTest, .cmdNotice, .cmdError, .cmdSystemLogout, .cmdHeartBeat])
        #expect(KeywordCases.allCases == [.default_, .self_, .unrecognized_, .keywordCases1st, .httpOk])
        #expect(Aliased.allCases == [.first, .one])
        // Defaults are the first declared value.
        #expect(sameCase(Sign(), .zero))
        #expect(sameCase(ErrorType(), .comomErr))
        #expect(sameCase(CommandEnum(), .cmdDefault))
        #expect(sameCase(KeywordCases(), .default_))
        #expect(sameCase(Aliased(), .first))
    }

    @Test("CommandEnum numbers (game.proto)")
    func commandEnum() {
        let expected: [(CommandEnum, Int32)] = [
            (.cmdDefault, 0), (.cmdTest, 1), (.cmdError, 100_000),
            (.cmdSystemLogout, 99_900_001), (.cmdHeartBeat, 99_900_002),
        ]
        for (value, number) in expected {
            #expect(value.rawValue == number)
            #expect(sameCase(CommandEnum(rawValue: number), value))
        }
        #expect(sameCase(CommandEnum(rawValue: 99_900_003), .unrecognized(99_900_003)))
    }

    @Test("Keyword_cases: keyword names and a value named UNRECOGNIZED")
    func keywordCases() {
        let expected: [(KeywordCases, Int32)] = [
            (.default_, 0), (.self_, 1), (.unrecognized_, 2), (.keywordCases1st, 3), (.httpOk, 4),
        ]
        for (value, number) in expected {
            #expect(value.rawValue == number)
            #expect(sameCase(KeywordCases(rawValue: number), value))
        }
        // The declared KEYWORD_CASES_UNRECOGNIZED is not the open-enum fallback.
        #expect("\(KeywordCases(rawValue: 2))" == "KEYWORD_CASES_UNRECOGNIZED")
        #expect("\(KeywordCases(rawValue: 5))" == "5")
        #expect(!sameCase(KeywordCases(rawValue: 2), .unrecognized(2)))
        #expect(sameCase(KeywordCases(rawValue: 5), .unrecognized(5)))
        #expect(KeywordCases.unrecognized(5).rawValue == 5)
    }

    @Test("Aliased: ALIASED_UNO is another name for ALIASED_ONE")
    func aliased() {
        #expect(Aliased.uno == .one)
        #expect(sameCase(Aliased.uno, .one))
        #expect(Aliased.uno.rawValue == 1)
        #expect(sameCase(Aliased(rawValue: 1), .uno))
        #expect(sameCase(Aliased(rawValue: 1), .one))
        #expect(Aliased.first.rawValue == 0)
        #expect(sameCase(Aliased(rawValue: 0), .first))
        #expect(sameCase(Aliased(rawValue: 2), .unrecognized(2)))
    }
}

/// `case(7)` for a declared value, `unrecognized(7)` for one the enum does not declare.
func caseName<E: SwiftFrame.Enum>(_ value: E) -> String {
    structure(of: value)
}

/// The same case, not just the same number: the enums' `==` comes from `RawRepresentable`
/// and compares numbers, so `.unrecognized(1) == .one` is true there.
func sameCase<E: SwiftFrame.Enum>(_ lhs: E, _ rhs: E) -> Bool {
    lhs.rawValue == rhs.rawValue && caseName(lhs) == caseName(rhs)
}
