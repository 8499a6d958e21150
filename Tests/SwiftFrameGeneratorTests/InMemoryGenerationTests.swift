import SwiftFrame
import SwiftFrameDescriptors
import Testing

@testable import SwiftFrameGenerator

/// The resolver and the emitters run in memory on requests built here, as values: no protoc,
/// no swiftc. Diagnostics are checked as values (code, element, line), the model by its names.
@Suite struct InMemoryGenerationTests {
    // MARK: Diagnostics

    @Test func aTypeNoFileDeclaresIsAnUnknownTypeAtItsField() throws {
        var file = Proto.file(
            "p.proto", package: "im",
            messages: [
                Proto.message("Box", [Proto.field("inner", 1, .message, typeName: ".im.Missing")])
            ])
        // The field's declaration: line 7, column 3 (SourceCodeInfo counts from 0).
        file.locate(.message(0).field(0), line: 6, column: 2)
        let diagnostics = try Proto.problems(Proto.request([file]))
        #expect(diagnostics.map(\.code) == [.unknownType])
        let diagnostic = try #require(diagnostics.first)
        #expect(diagnostic.severity == .error)
        #expect(diagnostic.file == "p.proto")
        #expect(diagnostic.element == "im.Box.inner")
        #expect(diagnostic.line == 7 && diagnostic.column == 3)
        #expect(
            diagnostic.description
                == "p.proto:7:3: error: message im.Box: field inner: unknown message type .im.Missing")
        // The same text is what protoc shows from the response.
        #expect(Generator.generate(Proto.request([file])).error == diagnostic.description)
    }

    @Test func aDiagnosticWithoutSourceInfoNamesTheFileOnly() throws {
        let file = Proto.file(
            "p.proto", messages: [Proto.message("Box", [Proto.field("kind", 1, .enum_, typeName: ".Nope")])])
        let diagnostic = try #require(try Proto.problems(Proto.request([file])).first)
        #expect(diagnostic.code == .unknownType && diagnostic.element == "Box.kind" && diagnostic.line == nil)
        #expect(diagnostic.description == "p.proto: error: message Box: field kind: unknown enum type .Nope")
    }

    @Test func aFieldNumberOutOfRangeIsAMalformedRequest() throws {
        var file = Proto.file(
            "p.proto",
            messages: [
                Proto.message("Big", [Proto.field("ok", 1, .int32), Proto.field("huge", 1 << 29, .int32)])
            ])
        file.locate(.message(0).field(1), line: 3, column: 4)
        let diagnostics = try Proto.problems(Proto.request([file]))
        #expect(diagnostics.map(\.code) == [.malformedRequest])
        #expect(diagnostics.first?.element == "Big.huge")
        #expect(diagnostics.first?.line == 4)
        #expect(
            diagnostics.first?.message
                == "malformed request: message Big: field huge: number 536870912 is out of range 1...536870911")
    }

    @Test func aTypeDeclaredTwiceIsAMalformedRequest() throws {
        let file = Proto.file("p.proto", messages: [Proto.message("Twice", []), Proto.message("Twice", [])])
        let diagnostics = try Proto.problems(Proto.request([file]))
        #expect(diagnostics.map(\.code) == [.malformedRequest])
        #expect(diagnostics.first?.message == "malformed request: type Twice is declared twice")
    }

    /// A configured table name that a message already has fails, as a name collision.
    @Test func aTableNameTakenByAMessageIsANameCollision() throws {
        let file = Proto.file(
            "p.proto", messages: [Proto.message("Login_Req", [])],
            enums: [Proto.enumeration("Cmd", [("CMD_NONE", 0), ("CMD_LOGIN", 1)])])
        var table = Swiftframe_Table()
        table.file = "p.proto"
        table.layout = "u16-u16"
        table.idEnum = ["Cmd"]
        table.tableName = "LoginReq"
        var options = GeneratorOptions()
        options.config.table = [table]
        let diagnostics = try Proto.problems(Proto.request([file]), options: options)
        #expect(diagnostics.map(\.code) == [.nameCollision])
        #expect(diagnostics.first?.file == "p.proto")
        #expect(
            diagnostics.first?.message
                == "config table: table_name \"LoginReq\" is already the name of message Login_Req of p.proto; choose another"
        )
    }

    @Test func aCommandWithoutAMessageIsAWarningAtItsValue() throws {
        var commands = Proto.enumeration("Cmd", [("CMD_NONE", 0), ("CMD_LOGIN", 1), ("CMD_LOGOUT", 2)])
        commands.options = Google_Protobuf_EnumOptions()
        commands.options?[extension: Swiftframe_OptionsExtensions.commandTable] = true
        var file = Proto.file("p.proto", messages: [Proto.message("LoginReq", [])], enums: [commands])
        file.options = Google_Protobuf_FileOptions()
        file.options?[extension: Swiftframe_OptionsExtensions.layout] = "u16-u16"
        file.locate(.enumType(0).enumValue(2), line: 9, column: 4)
        let resolution = try Resolver.resolve(Proto.request([file]), options: GeneratorOptions())
        #expect(resolution.warnings.map(\.code) == [.commandWithoutMessage])
        let warning = try #require(resolution.warnings.first)
        #expect(warning.severity == .warning && warning.element == "Cmd.CMD_LOGOUT" && warning.line == 10)
        #expect(
            warning.description
                == "p.proto:10:5: warning: command table Cmd: CMD_LOGOUT (2) matches no message; it gets a case without a typed payload"
        )
    }

    /// Two requests that claim one id: the second is the one reported, where it is declared.
    @Test func twoRequestsOfOneIDAreADuplicateCommand() throws {
        var login = Proto.message("Login", [])
        login.options = Google_Protobuf_MessageOptions()
        login.options?[extension: Swiftframe_OptionsExtensions.requestId] = 5
        var logout = login
        logout.name = "Logout"
        var file = Proto.file("p.proto", package: "im", messages: [login, logout])
        file.options = Google_Protobuf_FileOptions()
        file.options?[extension: Swiftframe_OptionsExtensions.layout] = "u16-u16"
        file.locate(.message(1), line: 11, column: 0)
        let diagnostics = try Proto.problems(Proto.request([file]))
        #expect(diagnostics.map(\.code) == [.duplicateCommand])
        #expect(diagnostics.first?.element == "im.Logout")
        #expect(
            diagnostics.first?.description == "p.proto:12:1: error: command 5: requests Login and Logout both claim it")
    }

    /// A field may not name a type of a file this generator cannot generate: one of an edition
    /// it has no defaults for (protoc sends none such, as the plugin declares its editions).
    @Test func aTypeFromAFileOfAnUnknownEditionIsUngeneratable() throws {
        var editions = Proto.file("e.proto", syntax: "editions", messages: [Proto.message("E", [])])
        editions.edition = .max
        var file = Proto.file(
            "p.proto", messages: [Proto.message("M", [Proto.field("e", 1, .message, typeName: ".E")])])
        file.dependency = ["e.proto"]
        var request = Proto.request([editions, file])
        request.fileToGenerate = ["p.proto"]
        let diagnostics = try Proto.problems(request)
        #expect(diagnostics.map(\.code) == [.ungeneratableType])
        #expect(diagnostics.first?.element == "M.e")
        #expect(
            diagnostics.first?.message
                == "message M: field e: type E comes from e.proto (edition MAX), which cannot be generated")
        // Generating the file itself is what fails then.
        request.fileToGenerate = ["e.proto"]
        let problems = try Proto.problems(request)
        #expect(problems.map(\.code) == [.unsupportedEdition])
        #expect(
            problems.first?.message
                == "edition MAX is not supported (swiftframe generates proto2, proto3, editions 2023 and 2024, and UNSTABLE as protoc 35.1 defines it)"
        )
    }

    // MARK: The model

    /// Messages named a prefix and a number are commands of that id; the request and the
    /// response of one id are a pair.
    @Test func idsInNamesMakeTheCommandTable() throws {
        var file = Proto.file(
            "p.proto", package: "game",
            messages: [
                Proto.message("Cs_20001", [Proto.field("x", 1, .int32)]),
                Proto.message("Sc_20001", [Proto.field("ok", 1, .bool)]),
                Proto.message("Cs_7", []),
                Proto.message("Other", []),
            ])
        file.options = Google_Protobuf_FileOptions()
        file.options?[extension: Swiftframe_OptionsExtensions.layout] = "u16-u16"
        file.options?[extension: Swiftframe_OptionsExtensions.requestPrefix] = "Cs_"
        file.options?[extension: Swiftframe_OptionsExtensions.responsePrefix] = "Sc_"
        let resolution = try Resolver.resolve(Proto.request([file]), options: GeneratorOptions())
        #expect(resolution.warnings.isEmpty)
        let table = try #require(resolution.files.first?.commandTable)
        #expect(table.swiftName == "Game_PCommands")
        #expect(table.entries.map(\.id) == [20001, 7])
        #expect(table.entries.map { $0.request?.fullName } == ["game.Cs_20001", "game.Cs_7"])
        #expect(table.entries.map { $0.response?.fullName } == ["game.Sc_20001", nil])
    }

    /// Values lose the enum's name; when that makes two the same, all keep it.
    @Test func enumCasesDropTheEnumsNameUnlessTwoWouldCollide() throws {
        let file = Proto.file(
            "p.proto",
            enums: [
                Proto.enumeration("Color", [("COLOR_UNSPECIFIED", 0), ("COLOR_DARK_RED", 1), ("COLOR_BLUE", 2)]),
                Proto.enumeration("Mode", [("MODE_FAST", 0), ("FAST", 1)]),
            ])
        let resolution = try Resolver.resolve(Proto.request([file]), options: GeneratorOptions())
        let enums = try #require(resolution.files.first?.enums)
        #expect(enums.map(\.swiftName) == ["Color", "Mode"])
        #expect(enums[0].cases.map(\.swiftName) == ["unspecified", "darkRed", "blue"])
        #expect(enums[1].cases.map(\.swiftName) == ["modeFast", "fast"])
    }

    // MARK: Emitting

    @Test func aSmallMessageIsEmitted() throws {
        let file = Proto.file(
            "p.proto",
            messages: [
                Proto.message("Point", [Proto.field("x", 1, .int32), Proto.field("label", 2, .string)])
            ])
        let resolution = try Resolver.resolve(Proto.request([file]), options: GeneratorOptions())
        let protoFile = try #require(resolution.files.first)
        #expect(protoFile.messages.map(\.swiftName) == ["Point"])
        #expect(protoFile.messages.first?.fields.map(\.swiftName) == ["x", "label"])
        let text = FileEmitter(file: protoFile, options: GeneratorOptions()).emit()
        #expect(
            text.contains(
                """
                public struct Point: SwiftFrame.Message {
                    public var x: Swift.Int32 = 0
                    public var label: Swift.String = ""
                    public var unknownFields = SwiftFrame.UnknownFields()

                    public init() {}

                    public init(x: Swift.Int32 = 0, label: Swift.String = "") {
                        self.x = x
                        self.label = label
                    }
                }
                """), "\(text)")
        #expect(
            text.contains(
                """
                            case 8: self.x = try reader.readVarint(SwiftFrame.ProtoInt32.self) // x = 1
                            case 18: self.label = try reader.readString() // label = 2
                """), "\(text)")
    }
}

/// Descriptors built as values, as protoc would send them.
private enum Proto {
    static func file(
        _ name: String, package: String? = nil, syntax: String = "proto3",
        messages: [Google_Protobuf_DescriptorProto] = [],
        enums: [Google_Protobuf_EnumDescriptorProto] = []
    ) -> Google_Protobuf_FileDescriptorProto {
        var file = Google_Protobuf_FileDescriptorProto()
        file.name = name
        file.package = package
        file.syntax = syntax
        file.messageType = messages
        file.enumType = enums
        return file
    }

    static func message(_ name: String, _ fields: [Google_Protobuf_FieldDescriptorProto])
        -> Google_Protobuf_DescriptorProto
    {
        var message = Google_Protobuf_DescriptorProto()
        message.name = name
        message.field = fields
        return message
    }

    static func field(
        _ name: String, _ number: Int32, _ type: Google_Protobuf_FieldDescriptorProto.Type_,
        typeName: String? = nil
    ) -> Google_Protobuf_FieldDescriptorProto {
        var field = Google_Protobuf_FieldDescriptorProto()
        field.name = name
        field.number = number
        field.type = type
        field.typeName = typeName
        field.label = .optional
        field.jsonName = name
        return field
    }

    static func enumeration(_ name: String, _ values: [(String, Int32)]) -> Google_Protobuf_EnumDescriptorProto {
        var enumType = Google_Protobuf_EnumDescriptorProto()
        enumType.name = name
        enumType.value = values.map { name, number in
            var value = Google_Protobuf_EnumValueDescriptorProto()
            value.name = name
            value.number = number
            return value
        }
        return enumType
    }

    static func request(_ files: [Google_Protobuf_FileDescriptorProto], parameter: String? = nil)
        -> CodeGeneratorRequest
    {
        var request = CodeGeneratorRequest()
        request.protoFile = files
        request.fileToGenerate = files.compactMap(\.name)
        request.parameter = parameter
        return request
    }

    /// The problems resolving `request` fails with; none when it resolves.
    static func problems(_ request: CodeGeneratorRequest, options: GeneratorOptions = GeneratorOptions())
        throws -> [Diagnostic]
    {
        do throws(GenerationError) {
            _ = try Resolver.resolve(request, options: options)
            return []
        } catch {
            return error.diagnostics
        }
    }
}

extension Google_Protobuf_FileDescriptorProto {
    /// Records where the element at `path` is declared (from 0, as SourceCodeInfo counts).
    fileprivate mutating func locate(_ path: SourcePath, line: Int32, column: Int32) {
        var location = Google_Protobuf_SourceCodeInfo.Location()
        location.path = path.components
        location.span = [line, column, column + 10]
        var info = sourceCodeInfo ?? Google_Protobuf_SourceCodeInfo()
        info.location.append(location)
        sourceCodeInfo = info
    }
}
