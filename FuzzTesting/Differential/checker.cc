// protobuf's C++ runtime as the arbiter of the differential run: parses each input as one of the
// conformance messages and answers with its deterministic serialization, or says it refused.
// Built with the messages' C++ code from `protoc --cpp_out`: generated code, as the conformance
// suite's own C++ testee uses. (protobuf's DynamicMessage is not a faithful stand-in: it keeps
// map keys as read, so `true` written as 1 and as 2^63 become two entries of a map<bool, ...>.)
//
//   checker                      (no arguments)
//
// Requests on stdin, until it ends:  u32 length (little endian), u8 operation, then its input.
//   parse   (operation = message type: 0 TestAllTypesProto3, 1 TestAllTypesProto2): the input is
//           the bytes to parse. Answer: u8 accepted (0 or 1), u32 length, then the message's
//           deterministic serialization (empty if refused).
//   compare (operation = 2 + message type): the input is u32 length, bytes A, then bytes B, both
//           A already accepted. Answer: u8 verdict, u32 0:
//             1  A and B parse to the same serialization;
//             2  they differ only in the order of unknown fields (equal for protobuf's
//                MessageDifferencer, which compares unknown fields sorted by number);
//             3  they differ only in maps with bool keys or values (equal once MessageDifferencer
//                ignores those: C++ reads a map entry's bool from the low 32 bits of its varint);
//             4  B does not parse;
//             0  otherwise.
//   json    (operation = 4, or 5 to skip unknown field names and enum names): the input is JSON
//           for TestAllTypesProto3, read with JsonStringToMessage. Answer: u8 status (0 refused,
//           1 read and printed, 2 read but MessageToJsonString failed), u32 length, then u32
//           length and the message's deterministic serialization, then its JSON as
//           MessageToJsonString prints it with the default options (empty if refused; the
//           serialization and no JSON for status 2). Each Any's bytes are made canonical first
//           (its message read and written again, recursively): JsonStringToMessage writes an
//           Any's fields in the order the JSON gives them.
//   compare (operation = 6): as operation 2, each Any's bytes made canonical in A and B first.
//   text    (operation = 7 + message type): the input is text format, read with
//           TextFormat::Parser (fields may be given by number: AllowFieldNumber). Answer: u8 status
//           (0 refused, 1 read), u32 length, then for status 1 u32 length and the message's
//           deterministic serialization (each Any's bytes made canonical, as for json), then the
//           message as TextFormat::PrintToString prints it
//           (the default Printer: multi-line, Any expanded, unknown fields by number); for status
//           0 the parser's first error ("line:column: message").
//   print   (operation = 9 + message type): the input is the binary encoding; answers status 1
//           and PrintToString's text when it parses, status 0 and nothing when not.
#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <google/protobuf/util/field_comparator.h>
#include <google/protobuf/util/json_util.h>
#include <google/protobuf/util/message_differencer.h>

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "test_messages_proto2.pb.h"
#include "test_messages_proto3.pb.h"

using google::protobuf::Descriptor;
using google::protobuf::DescriptorPool;
using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MessageFactory;
using google::protobuf::Reflection;
using google::protobuf::util::DefaultFieldComparator;
using google::protobuf::util::MessageDifferencer;

static bool readExactly(std::string& into, size_t count) {
    into.resize(count);
    return count == 0 || std::fread(&into[0], 1, count, stdin) == count;
}

static std::string serialize(const Message& message) {
    std::string output;
    google::protobuf::io::StringOutputStream stream(&output);
    google::protobuf::io::CodedOutputStream coded(&stream);
    coded.SetSerializationDeterministic(true);
    message.SerializeToCodedStream(&coded);
    return output;
}

/// Whether `a` and `b` are equal for MessageDifferencer (NaN equal to NaN, as the bytes are).
static bool equal(const Message& a, const Message& b, bool ignoringBoolMaps) {
    DefaultFieldComparator comparator;
    comparator.set_treat_nan_as_equal(true);
    MessageDifferencer differencer;
    differencer.set_field_comparator(&comparator);
    if (ignoringBoolMaps) {
        const Descriptor* descriptor = a.GetDescriptor();
        for (int i = 0; i < descriptor->field_count(); i++) {
            const FieldDescriptor* field = descriptor->field(i);
            if (!field->is_map()) continue;
            const Descriptor* entry = field->message_type();
            if (entry->map_key()->type() == FieldDescriptor::TYPE_BOOL
                || entry->map_value()->type() == FieldDescriptor::TYPE_BOOL) {
                differencer.IgnoreField(field);
            }
        }
    }
    return differencer.Compare(a, b);
}

static void writeAnswer(int status, const std::string& bytes) {
    unsigned char header[5] = {static_cast<unsigned char>(status)};
    for (int i = 0; i < 4; i++) header[1 + i] = static_cast<unsigned char>(bytes.size() >> (8 * i));
    std::fwrite(header, 1, sizeof header, stdout);
    std::fwrite(bytes.data(), 1, bytes.size(), stdout);
}

/// Rewrites the bytes of every Any in `message` (at any depth) as the deterministic serialization
/// of the message they hold, when its type is known and they parse.
static void canonicalAnys(Message& message) {
    const Descriptor* descriptor = message.GetDescriptor();
    const Reflection* reflection = message.GetReflection();
    if (descriptor->full_name() == "google.protobuf.Any") {
        const FieldDescriptor* urlField = descriptor->FindFieldByNumber(1);
        const FieldDescriptor* valueField = descriptor->FindFieldByNumber(2);
        std::string url = reflection->GetString(message, urlField);
        size_t slash = url.rfind('/');
        if (slash == std::string::npos) return;
        const Descriptor* inner = DescriptorPool::generated_pool()->FindMessageTypeByName(url.substr(slash + 1));
        if (inner == nullptr) return;
        std::unique_ptr<Message> held(MessageFactory::generated_factory()->GetPrototype(inner)->New());
        if (!held->ParseFromString(reflection->GetString(message, valueField))) return;
        canonicalAnys(*held);
        reflection->SetString(&message, valueField, serialize(*held));
        return;
    }
    std::vector<const FieldDescriptor*> fields;
    reflection->ListFields(message, &fields);
    for (const FieldDescriptor* field : fields) {
        if (field->cpp_type() != FieldDescriptor::CPPTYPE_MESSAGE) continue;
        if (field->is_repeated()) {
            for (int i = 0; i < reflection->FieldSize(message, field); i++)
                canonicalAnys(*reflection->MutableRepeatedMessage(&message, field, i));
        } else {
            canonicalAnys(*reflection->MutableMessage(&message, field));
        }
    }
}

/// Reads `json` into `message` (cleared first) and answers as the json operation says.
static void answerJSON(Message& message, const std::string& json, bool ignoringUnknown) {
    message.Clear();
    google::protobuf::util::JsonParseOptions options;
    options.ignore_unknown_fields = ignoringUnknown;
    if (!google::protobuf::util::JsonStringToMessage(json, &message, options).ok()) {
        writeAnswer(0, std::string());
        return;
    }
    canonicalAnys(message);
    std::string binary = serialize(message), printed;
    bool printable = google::protobuf::util::MessageToJsonString(message, &printed).ok();
    std::string body(4, '\0');
    for (int i = 0; i < 4; i++) body[i] = static_cast<char>(binary.size() >> (8 * i));
    body += binary;
    if (printable) body += printed;
    writeAnswer(printable ? 1 : 2, body);
}

/// Keeps the first error the text-format parser reports.
class FirstError : public google::protobuf::io::ErrorCollector {
public:
    std::string text;
    void AddError(int line, int column, const std::string& message) override {
        if (text.empty()) text = std::to_string(line + 1) + ":" + std::to_string(column + 1) + ": " + message;
    }
};

/// Reads `text` into `message` (cleared first) and answers as the text operation says.
static void answerText(Message& message, const std::string& text) {
    message.Clear();
    FirstError errors;
    google::protobuf::TextFormat::Parser parser;
    parser.AllowFieldNumber(true);
    parser.RecordErrorsTo(&errors);
    if (!parser.ParseFromString(text, &message)) {
        writeAnswer(0, errors.text);
        return;
    }
    canonicalAnys(message);
    std::string binary = serialize(message), printed;
    google::protobuf::TextFormat::PrintToString(message, &printed);
    std::string body(4, '\0');
    for (int i = 0; i < 4; i++) body[i] = static_cast<char>(binary.size() >> (8 * i));
    writeAnswer(1, body + binary + printed);
}

int main() {
    protobuf_test_messages::proto3::TestAllTypesProto3 proto3, otherProto3;
    protobuf_test_messages::proto2::TestAllTypesProto2 proto2, otherProto2;
    Message* messages[2] = {&proto3, &proto2};
    Message* others[2] = {&otherProto3, &otherProto2};
    std::string header, input;
    while (readExactly(header, 4)) {
        uint32_t length = 0;
        for (int i = 0; i < 4; i++) length |= uint32_t(static_cast<unsigned char>(header[i])) << (8 * i);
        if (length == 0 || !readExactly(input, length)) return 1;
        unsigned operation = static_cast<unsigned char>(input[0]);
        if (operation > 10) return 1;
        if (operation >= 7) {
            Message& message = *messages[(operation - 7) % 2];
            if (operation <= 8) {
                answerText(message, input.substr(1));
            } else {
                std::string printed;
                bool parsed = message.ParseFromArray(input.data() + 1, static_cast<int>(length - 1));
                if (parsed) google::protobuf::TextFormat::PrintToString(message, &printed);
                writeAnswer(parsed, printed);
            }
            std::fflush(stdout);
            continue;
        }
        bool anysCanonical = operation == 6;
        if (operation == 6) operation = 2;
        if (operation >= 4) {
            answerJSON(proto3, input.substr(1), operation == 5);
            std::fflush(stdout);
            continue;
        }
        Message& message = *messages[operation % 2];
        if (operation < 2) {
            bool accepted = message.ParseFromArray(input.data() + 1, static_cast<int>(length - 1));
            writeAnswer(accepted, accepted ? serialize(message) : std::string());
        } else {
            if (length < 5) return 1;
            uint32_t first = 0;
            for (int i = 0; i < 4; i++) first |= uint32_t(static_cast<unsigned char>(input[1 + i])) << (8 * i);
            if (first > length - 5) return 1;
            Message& other = *others[operation % 2];
            if (!message.ParseFromArray(input.data() + 5, static_cast<int>(first))) return 1;
            bool readable = other.ParseFromArray(input.data() + 5 + first, static_cast<int>(length - 5 - first));
            if (anysCanonical) {
                canonicalAnys(message);
                if (readable) canonicalAnys(other);
            }
            int verdict = !readable                               ? 4
                : serialize(message) == serialize(other)          ? 1
                : equal(message, other, false)                    ? 2
                : equal(message, other, true)                     ? 3
                                                                  : 0;
            writeAnswer(verdict, std::string());
        }
        std::fflush(stdout);
    }
    return 0;
}
