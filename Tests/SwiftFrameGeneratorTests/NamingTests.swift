import TestSupport
import Testing

@testable import SwiftFrameGenerator

@Suite struct NamingTests {
    @Test(arguments: [
        ("login_request", "LoginRequest"), ("User_msg", "UserMsg"), ("Common_method", "CommonMethod"),
        ("Cs_20001", "Cs20001"), ("User_info_request", "UserInfoRequest"), ("CommonRespon", "CommonRespon"),
        ("error_type", "ErrorType"), ("HTTPRequest", "HTTPRequest"), ("Error", "Error"),
        ("Type", "Type_"), ("Protocol", "Protocol_"), ("Self", "Self_"), ("SwiftFrame", "SwiftFrame_"),
        ("_private", "Private"),
    ])
    func typeNames(proto: String, swift: String) {
        #expect(Naming.typeName(proto) == swift)
    }

    /// Top-level types named like a standard-library or Foundation type take a suffix; a package
    /// prefix or a keyword's underscore already makes the name another.
    @Test(arguments: [
        ("Error", false, "ErrorMessage"), ("Result", true, "ResultEnum"), ("Data", false, "DataMessage"),
        ("URL", true, "URLEnum"), ("u_r_l", false, "URLMessage"), ("Type", false, "Type_"), ("Any", false, "Any_"),
        ("ErrorMessage", false, "ErrorMessage"), ("Errors", false, "Errors"), ("error", false, "ErrorMessage"),
    ])
    func topLevelTypeNames(proto: String, isEnum: Bool, swift: String) {
        #expect(Naming.topLevelTypeName(proto, isEnum: isEnum) == swift)
    }

    /// The table states a `json_name` only when it is not protoc's own (each `_` dropped, the
    /// letter after it upper-cased, nothing else changed), which the runtime derives the same way.
    @Test(
        arguments: [
            ("nickName", "nick_name", nil), ("name", "display_name", "name"), ("FIELDNAME11", "FIELD_NAME11", nil),
            ("FieldName14", "FieldName14", nil), ("fieldName17", "field__name17", nil),
            ("Field_Name", "Field_Name", "Field_Name"),
            ("optionalgroup", "optionalgroup", nil), ("a b", "a_b", "a b"), ("aB", "a_b", nil),
        ] as [(String, String, String?)])
    func jsonNames(given: String, proto: String, stated: String?) {
        #expect(Naming.jsonName(given, of: proto) == stated)
    }

    @Test func packagePrefixes() {
        #expect(Naming.packagePrefix("") == "")
        #expect(Naming.packagePrefix("im") == "Im_")
        #expect(Naming.packagePrefix("google.protobuf") == "Google_Protobuf_")
        #expect(Naming.packagePrefix("my_game.net") == "MyGame_Net_")
        #expect(Naming.typeName("Any", prefix: "Google_Protobuf_") == "Google_Protobuf_Any")
        #expect(Naming.topLevelTypeName("Error", prefix: "Im_") == "Im_Error")
    }

    @Test(arguments: [
        ("nick_name", "nickName"), ("isSuc", "isSuc"), ("user_info", "userInfo"), ("PLAYER_ID", "playerId"),
        ("URLPath", "urlPath"), ("HTTP_status", "httpStatus"), ("Name", "name"), ("p2p_connect", "p2pConnect"),
        ("type", "type"), ("default", "default_"), ("self", "self_"), ("description", "description_"),
        ("unknown_fields", "unknownFields_"), ("hash_value", "hashValue_"), ("decode_field", "decodeField_"),
        ("size", "size"),
        ("param1", "param1"), ("_leading", "leading"), ("a__b", "aB"),
        ("2fa_code", "_2faCode"), ("ABC", "abc"), ("A", "a"), ("x_URL_id", "xUrlId"),
        ("get_HTTPServer", "getHTTPServer"),
        // Names with non-ASCII letters take the general (Character by Character) path.
        ("größe_wert", "größeWert"), ("ÜBER_alles", "überAlles"), ("x_ÉTÉ", "xÉté"),
    ])
    func fieldNames(proto: String, swift: String) {
        #expect(Naming.fieldName(proto) == swift)
    }

    @Test(arguments: [
        ("User_cmd_login", "User_cmd", "login"), ("User_cmd_sign_in", "User_cmd", "signIn"),
        ("common_method_user", "Common_method", "user"), ("common_method_p2p_connect", "Common_method", "p2pConnect"),
        ("CMD_TEST", "CommandEnum", "cmdTest"), ("CMD_HEART_BEAT", "CommandEnum", "cmdHeartBeat"),
        ("comom_err", "error_type", "comomErr"), ("SIGN_ZERO", "Sign", "zero"),
        ("KIND_LEAF", "Kind", "leaf"), ("ColorRed", "Color", "red"), ("COLORFUL", "Color", "colorful"),
        ("KEYWORD_CASES_1ST", "Keyword_cases", "keywordCases1st"), ("SIGN", "Sign", "sign"),
        ("KEYWORD_CASES_DEFAULT", "Keyword_cases", "default_"),
        ("KEYWORD_CASES_UNRECOGNIZED", "Keyword_cases", "unrecognized_"),
    ])
    func caseNames(value: String, enumName: String, swift: String) {
        #expect(Naming.caseName(value, enumName: enumName) == swift)
    }
}
