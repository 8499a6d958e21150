#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into a directory (default .build/corpus),
from the repository's own inputs: protoc encodings of the conformance messages and the
fixtures' descriptor sets, a frame stream per layout preset, the presets' layout texts, and
CodeGeneratorRequests protoc sends for the fixtures. Each input starts with the selector
byte its target reads (see Sources/FuzzChecks)."""

import os
import struct
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, ".build", "corpus")
conformance = os.path.join(root, "Protos", "conformance")
fixtures = os.path.join(root, "Fixtures", "protos")
options = os.path.join(root, "Protos")


def write(target, name, data):
    directory = os.path.join(out, target)
    os.makedirs(directory, exist_ok=True)
    with open(os.path.join(directory, name), "wb") as f:
        f.write(data)


def protoc(args, data=b""):
    return subprocess.run(["protoc"] + args, input=data, stdout=subprocess.PIPE, check=True).stdout


# FuzzMessage: 0 proto3, 1 proto2, 2 descriptor set, 3 conformance request.
messages = {
    0: ("protobuf_test_messages.proto3.TestAllTypesProto3", "test_messages_proto3.proto", [
        'optional_int32: -1 optional_string: "héllo" repeated_int64: [1, -2, 300] '
        'map_string_string { key: "k" value: "v" } oneof_uint32: 7 optional_nested_message { a: 5 }',
        'packed_sint32: [-3, 4] unpacked_double: [1.5, -0.0] repeated_nested_enum: [FOO, BAR] '
        'map_string_nested_message { key: "m" value { a: 2 } } optional_bytes: "\\x00\\xff"',
    ]),
    1: ("protobuf_test_messages.proto2.TestAllTypesProto2", "test_messages_proto2.proto", [
        'optional_int32: 5 repeated_string: ["a", "b"] Data { group_int32: 1 group_uint32: 2 } '
        '[protobuf_test_messages.proto2.extension_int32]: 9 optional_nested_enum: BAZ',
        'map_int32_int32 { key: 1 value: 2 } oneof_nested_message { a: 1 } default_int32: 3',
    ]),
}
for selector, (type_name, proto, texts) in messages.items():
    for index, text in enumerate(texts):
        data = protoc(["-I", conformance, "-I", "/usr/include", proto, "--encode=" + type_name], text.encode())
        write("FuzzMessage", "%d-%d" % (selector, index), bytes([selector]) + data)
    # The largest field number, then one above it (a tag past 32 bits, which must be refused).
    write("FuzzMessage", "%d-largest-field-number" % selector,
          bytes([selector]) + b"\x08\x01\xf8\xff\xff\xff\x0f\x01\x80\x80\x80\x80\x10\x01")

with tempfile.TemporaryDirectory() as temp:
    sets = []
    for proto in ["everything.proto", "legacy.proto", "game.proto"]:
        path = os.path.join(temp, proto + ".pb")
        protoc(["-I", fixtures, "-I", options, "-I", "/usr/include", "--include_imports",
                "--include_source_info", "--descriptor_set_out=" + path, proto])
        sets.append(open(path, "rb").read())
    for index, data in enumerate(sets):
        write("FuzzMessage", "2-%d" % index, b"\x02" + data)

    # FuzzPlugin: the requests protoc sends a plugin, captured by a stand-in.
    capture = os.path.join(temp, "protoc-gen-capture")
    with open(capture, "w") as f:
        f.write('#!/bin/sh\ncat > "$CAPTURE_TO"\n')
    os.chmod(capture, 0o755)
    for proto in ["user.proto", "game.proto", "legacy.proto", "im.proto"]:
        request = os.path.join(temp, proto + ".request")
        subprocess.run(["protoc", "-I", fixtures, "-I", options, "-I", "/usr/include",
                        "--plugin=protoc-gen-capture=" + capture, "--capture_out=" + temp, proto],
                       env=dict(os.environ, CAPTURE_TO=request), stderr=subprocess.DEVNULL)
        write("FuzzPlugin", proto, open(request, "rb").read())

write("FuzzMessage", "3-0", b"\x03" + protoc(["-I", conformance, "conformance.proto",
                                            "--encode=conformance.ConformanceRequest"],
                                           b'protobuf_payload: "\\x08\\x01" requested_output_format: PROTOBUF '
                                           b'message_type: "protobuf_test_messages.proto3.TestAllTypesProto3"'))

# FuzzFrames and FuzzLayoutText: the presets, in the order FrameLayout.presetNames lists them.
presets = [
    ("magic:u32=0xFF length:u32:cmd+body cmd:u32",
     b"\x00\x00\x00\xff\x00\x00\x00\x06\x00\x00\x00\x01\x08\x01" b"\x00\x00\x00\xff\x00\x00\x00\x04\x05\xf4\x5a\x62"),
    ("magic:u32=0xFF extra.playerId:u64 extra.sessionId:u64 length:u32:cmd+body cmd:u32",
     b"\x00\x00\x00\xff" + b"\x00" * 7 + b"\x05" + b"\x00" * 7 + b"\x09" + b"\x00\x00\x00\x06\x00\x00\x00\x01\x08\x01"),
    ("length:u32:after cmd:u16", b"\x00\x00\x00\x04\x4e\x21\x08\x01" b"\x00\x00\x00\x02\x4e\x22"),
    ("length:u32:frame cmd:u16", b"\x00\x00\x00\x08\x4e\x21\x08\x01"),
    ("magic:u8=0x81 seq:u32 type:u8:known=1,2,3,4 length:u16:body max=65543",
     b"\x81\x00\x00\x00\x07\x01\x00\x00" b"\x81\x00\x00\x00\x08\x02\x00\x02\x08\x01"),
    ("length:u32le:body", b"\x02\x00\x00\x00\x08\x01" b"\x00\x00\x00\x00"),
    ("length:varint:body", b"\x02\x08\x01" b"\x00" b"\x81\x01" + b"\x00" * 129),
    ("extra.compressed:u8 length:u32:body", b"\x00\x00\x00\x00\x02\x08\x01"),
    ("length:u16:body cmd:u16", b"\x00\x02\x03\xe9\x08\x01"),
    ("length:u16le:body cmd:u16le", b"\x02\x00\xe9\x03\x08\x01"),
    ("cmd:u32 length:u32:body", b"\x00\x00\x00\x01\x00\x00\x00\x02\x08\x01"),
]
for index, (text, stream) in enumerate(presets):
    write("FuzzLayoutText", "%02d" % index, text.encode())
    write("FuzzFrames", "preset-%02d" % index, bytes([index, index * 37 & 0xFF]) + stream)
    write("FuzzFrames", "text-%02d" % index, b"\x80\x05" + text.encode() + b"\n" + stream)
    write("FuzzDecoderHandler", "preset-%02d" % index, bytes([index, index * 37 & 0xFF]) + stream)
    write("FuzzDecoderHandler", "text-%02d" % index, b"\x80\x05" + text.encode() + b"\n" + stream)
# FuzzClientInbound: replies to the requests the check sends (commands 1, 2, 3, ...), in the
# game layout (in order) and the IM layout (by sequence number, from 1), with error replies
# (command 9 in the game layout, type 4 in the IM one) and pushes among them.
def game(command, body):
    return struct.pack(">III", 0xFF, 4 + len(body), command) + body
def im(seq, kind, body):
    return struct.pack(">BIBH", 0x81, seq, kind, len(body)) + body
write("FuzzClientInbound", "game", b"\x00\x03\x07" + game(1, b"\x00") + game(5, b"") + game(2, b"\x01") + game(9, b"\xff"))
write("FuzzClientInbound", "im", b"\x01\x04\x07" + im(2, 2, b"\x01") + im(1, 1, b"\x00") + im(99, 4, b"") + im(3, 4, b"\x08"))
write("FuzzLayoutText", "resync", b"magic:u16=0xCAFE resync length:u32:body cmd:i16le seq:u64be")

# FuzzCapture: a layout selector byte and a chunking seed byte (as for FuzzFrames), then a pcap
# or pcapng file holding one TCP connection (handshake, frames in both directions, split and
# glued writes, a segment out of order, a retransmission) and one seen mid-stream.
def ipv4_tcp(src, dst, sport, dport, seq, ack, flags, payload):
    tcp = struct.pack(">HHIIBBHHH", sport, dport, seq, ack, 5 << 4, flags, 65535, 0, 0)
    total = 20 + len(tcp) + len(payload)
    ip = struct.pack(">BBHHHBBH4s4s", 0x45, 0, total, 1, 0x4000, 64, 6, 0, bytes(src), bytes(dst))
    return ip + tcp + payload
def tcp_conversation(frames_up, frames_down, port=9000):
    client, server = [127, 0, 0, 1], [127, 0, 0, 2]
    up, down = 1000, 5000
    packets = [ipv4_tcp(client, server, 40000, port, up, 0, 0x02, b""),
               ipv4_tcp(server, client, port, 40000, down, up + 1, 0x12, b""),
               ipv4_tcp(client, server, 40000, port, up + 1, down + 1, 0x10, b"")]
    up += 1
    down += 1
    data_up = b"".join(frames_up)
    first, second = data_up[:5], data_up[5:]
    packets.append(ipv4_tcp(client, server, 40000, port, up + 5, down, 0x18, second))  # early
    packets.append(ipv4_tcp(client, server, 40000, port, up, down, 0x18, first))
    packets.append(ipv4_tcp(client, server, 40000, port, up, down, 0x18, first))  # retransmitted
    data_down = b"".join(frames_down)
    packets.append(ipv4_tcp(server, client, port, 40000, down, up + len(data_up), 0x18, data_down))
    # A connection whose start the capture missed: it begins inside a frame.
    packets.append(ipv4_tcp(server, [127, 0, 0, 3], port, 40001, 77, 1, 0x18, data_down[3:] + data_down))
    return packets
def pcap(packets, link=101, big=False, nano=False):
    order = ">" if big else "<"
    magic = 0xA1B23C4D if nano else 0xA1B2C3D4
    out = struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 65535, link)
    for index, data in enumerate(packets):
        out += struct.pack(order + "IIII", 1700000000 + index, index * 1000, len(data), len(data)) + data
    return out
def block(kind, body, big=False):
    order = ">" if big else "<"
    body += b"\x00" * (-len(body) % 4)
    return struct.pack(order + "II", kind, len(body) + 12) + body + struct.pack(order + "I", len(body) + 12)
def pcapng(packets, big=False):
    order = ">" if big else "<"
    out = block(0x0A0D0D0A, struct.pack(order + "IHHq", 0x1A2B3C4D, 1, 0, -1), big)
    options = struct.pack(order + "HH", 9, 1) + b"\x09\x00\x00\x00" + struct.pack(order + "HH", 0, 0)
    out += block(1, struct.pack(order + "HHI", 101, 0, 0) + options, big)
    for index, data in enumerate(packets):
        stamp = (1700000000 + index) * 10**9
        if index == 2:
            out += block(3, struct.pack(order + "I", len(data)) + data, big)  # simple packet block
        else:
            out += block(6, struct.pack(order + "IIII", 0, stamp >> 32, stamp & 0xFFFFFFFF, len(data))
                         + struct.pack(order + "I", len(data)) + data, big)
    out += block(5, struct.pack(order + "III", 0, 0, 0), big)  # statistics: skipped
    return out
game_up = [game(1, b"\x08\x01"), game(2, b"")]
game_down = [game(1, b"\x08\x02\x10\x03"), game(7, b"\x0a\x02hi")]
im_up = [im(1, 1, b"\x08\x01"), im(2, 1, b"")]
im_down = [im(2, 2, b"\x08\x05"), im(1, 2, b"\x0a\x01x")]
game_packets = tcp_conversation(game_up, game_down)
im_packets = tcp_conversation(im_up, im_down)
write("FuzzCapture", "game-pcap", b"\x00\x05" + pcap(game_packets))
write("FuzzCapture", "game-pcap-big-nano", b"\x00\x17" + pcap(game_packets, big=True, nano=True))
write("FuzzCapture", "game-pcapng", b"\x00\x2a" + pcapng(game_packets))
write("FuzzCapture", "im-pcapng-big", b"\x04\x09" + pcapng(im_packets, big=True))
write("FuzzCapture", "im-pcap-ethernet", b"\x04\x03" + pcap(
    [b"\x00" * 12 + b"\x08\x00" + data for data in im_packets], link=1))
write("FuzzCapture", "im-pcap-cooked", b"\x04\x44" + pcap(
    [b"\x00" * 14 + b"\x08\x00" + data for data in im_packets], link=113))

# FuzzJSON: TestAllTypesProto3 as JSON, every field kind and well-known type in its forms.
json_seeds = [
    '{}',
    '{"optionalInt32": -1, "optionalInt64": "-9223372036854775808", "optionalUint32": 4294967295, '
    '"optionalUint64": "18446744073709551615", "optionalSint32": -5, "optionalSint64": "7", '
    '"optionalFixed32": 1e3, "optionalFixed64": 5, "optionalSfixed32": "-2", "optionalSfixed64": -3, '
    '"optionalFloat": 1.5, "optionalDouble": -2.5e-300, "optionalBool": true, '
    '"optionalString": "h\\u00e9llo \\ud83d\\ude00 \\n\\t\\"\\\\\\/", "optionalBytes": "AP8=", '
    '"optionalNestedEnum": "BAZ", "optionalForeignEnum": 1, "optionalAliasedEnum": "moo"}',
    '{"optional_nested_message": {"a": 5, "corecursive": {"optionalInt32": 1}}, '
    '"optionalForeignMessage": {"c": -1}, "recursiveMessage": {"recursiveMessage": {"optionalBool": false}}}',
    '{"repeatedInt32": [1, -1, 2147483647], "repeatedInt64": ["1", 2], "repeatedFloat": ["NaN", "Infinity", '
    '"-Infinity", 3.4028235e38], "repeatedDouble": [0, -0.0, 1.7976931348623157e308, 5e-324], '
    '"repeatedString": ["", "x"], "repeatedBytes": ["-_8", "+/8=", "YQ"], "repeatedNestedEnum": ["FOO", 2, "NEG"], '
    '"repeatedNestedMessage": [{"a": 1}, {}], "packedSint64": [-1], "unpackedBool": [true, false]}',
    '{"mapInt32Int32": {"1": 2, "-3": 4}, "mapInt64Int64": {"-9223372036854775808": "1"}, '
    '"mapUint64Uint64": {"18446744073709551615": 0}, "mapBoolBool": {"true": false, "false": true}, '
    '"mapStringString": {"k": "v", "": ""}, "mapStringBytes": {"b": "AQID"}, '
    '"mapStringNestedMessage": {"m": {"a": 2}}, "mapStringNestedEnum": {"e": "BAR"}, '
    '"mapStringForeignEnum": {"f": "FOREIGN_BAZ"}, "mapSfixed32Sfixed32": {"-1": -1}, "mapInt32Double": {"0": "NaN"}}',
    '{"oneofUint32": 7}',
    '{"oneofNestedMessage": {"a": 1}}',
    '{"oneofString": "s", "oneofNullValue": null}',
    '{"oneofBytes": "", "optionalNullValue": null}',
    '{"oneofEnum": "FOO", "oneofBool": null}',
    '{"optionalBoolWrapper": false, "optionalInt32Wrapper": -1, "optionalInt64Wrapper": "5", '
    '"optionalUint32Wrapper": 3, "optionalUint64Wrapper": "18446744073709551615", "optionalFloatWrapper": "NaN", '
    '"optionalDoubleWrapper": 1e10, "optionalStringWrapper": "w", "optionalBytesWrapper": "d3c", '
    '"repeatedBoolWrapper": [true, false], "repeatedInt64Wrapper": ["1", 2], "repeatedStringWrapper": [""]}',
    '{"optionalDuration": "-1.000340012s", "optionalTimestamp": "1970-01-01T00:00:00.5+01:30", '
    '"repeatedDuration": ["0s", "315576000000s", "-0.5s"], '
    '"repeatedTimestamp": ["0001-01-01T00:00:00Z", "9999-12-31T23:59:59.999999999Z", "2000-02-29T12:00:00.123-08:00"]}',
    '{"optionalFieldMask": "fooBar,baz.quxQuux", "repeatedFieldmask": ["", "a"]}',
    '{"optionalStruct": {"a": 1, "b": [true, null, "x", {"c": {}}], "d": null}, "optionalValue": [1, "2", {"x": null}], '
    '"repeatedValue": [null, 1.5, false, "s", [], {}], "repeatedStruct": [{}], "repeatedListValue": [[1, [2]]]}',
    '{"optionalAny": {"@type": "type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3", '
    '"optionalInt32": 12, "optionalAny": {"@type": "type.googleapis.com/google.protobuf.Duration", "value": "1s"}}, '
    '"repeatedAny": [{"@type": "type.googleapis.com/google.protobuf.Value", "value": {"k": [1]}}, {}, '
    '{"@type": "type.googleapis.com/google.protobuf.Int32Value", "value": 5}, '
    '{"@type": "type.googleapis.com/google.protobuf.Empty", "value": {}}, '
    '{"value": "1970-01-01T00:00:00Z", "@type": "type.googleapis.com/google.protobuf.Timestamp"}, '
    '{"@type": "type.googleapis.com/google.protobuf.FieldMask", "value": "a.b"}, '
    '{"@type": "type.googleapis.com/google.protobuf.Struct", "value": {"s": "t"}}]}',
    '{"optional_int32": null, "optionalString": null, "repeatedInt32": null, "mapStringString": null, '
    '"optionalNestedMessage": null, "optionalValue": null, "optionalEmpty": {}}',
    '{"fieldname1": 1, "fieldName2": 2, "FieldName3": 3, "field_Name4_": 4, "field0name5": 5, '
    '"field_0_name6": 6, "fieldName7": 7, "FieldName8": 8, "field_Name9": 9, "Field_Name10": 10, '
    '"FIELD_NAME11": 11, "FIELDName12": 12, "_field_name13": 13, "__field_name14": 14, '
    '"field__name15": 15, "field__Name16": 16, "field_name17__": 17, "Field_name18__": 18}',
    '{"unknownName": {"x": [1, 2]}, "optionalInt32": 1}',
    '[[[[[[[[]]]]]]]]',
    '{"optionalValue": {"a": {"a": {"a": {"a": {"a": {}}}}}}}',
]
for index, text in enumerate(json_seeds):
    write("FuzzJSON", "%02d" % index, text.encode())

# FuzzTextFormat: TestAllTypesProto3 in the text format: every field kind, its number forms,
# strings with escapes, maps, groups of fields in {} and <>, Any expanded, comments.
text_seeds = [
    '',
    'optional_int32: -1 optional_int64: -9223372036854775808 optional_uint32: 0xFFFFFFFF '
    'optional_uint64: 18446744073709551615 optional_sint32: -5 optional_sint64: 07 optional_fixed32: 0x10 '
    'optional_fixed64: 5 optional_sfixed32: -2 optional_sfixed64: -3 optional_float: 1.5f optional_double: -2.5e-300 '
    'optional_bool: true optional_string: "h\\303\\251llo \\n\\t\\"\\x41\\u00e9" optional_bytes: \'\\000\\377\' '
    'optional_nested_enum: BAZ optional_foreign_enum: 1 optional_aliased_enum: moo',
    'optional_nested_message { a: 5 corecursive { optional_int32: 1 } } optional_foreign_message < c: -1 > '
    'recursive_message: { recursive_message { optional_bool: f } }',
    'repeated_int32: [1, -1, 2147483647] repeated_int64: 1 repeated_int64: 2 '
    'repeated_float: [nan, inf, -inf, 3.4028235e38, -0] repeated_double: [0, -0.0, 1.7976931348623157e308, 5e-324, infinity] '
    'repeated_string: ["", "x" \'y\'] repeated_nested_enum: [FOO, 2, NEG] repeated_nested_message: [{a: 1}, {}]',
    'map_int32_int32 { key: 1 value: 2 } map_int32_int32 { key: -3 value: 4 } map_bool_bool { key: true value: false } '
    'map_string_string { key: "k" value: "v" } map_string_nested_message { key: "m" value { a: 2 } } '
    'map_string_nested_enum { value: BAR }',
    'oneof_uint32: 7 oneof_string: "s"',
    'optional_any { [type.googleapis.com/protobuf_test_messages.proto3.TestAllTypesProto3] { optional_int32: 12 } } '
    'repeated_any { type_url: "type.googleapis.com/google.protobuf.Duration" value: "\\010\\001" } '
    'optional_duration { seconds: -1 nanos: -340012 } optional_timestamp { seconds: 1 }',
    '# a comment\noptional_struct { fields { key: "a" value { number_value: 1 } } } optional_value { list_value { values { null_value: NULL_VALUE } } }',
    'optional_bool_wrapper { value: true } optional_string_wrapper { value: "w" } optional_field_mask { paths: "foo_bar" }',
    'fieldname1: 1 field_name2: 2 _field_name3: 3 field__name4_: 4 FIELD_NAME11: 11 Field_name18__: 18',
    '[protobuf_test_messages.proto3.unknown] : 1',
    'recursive_message { recursive_message { recursive_message { recursive_message { } } } }',
]
for index, text in enumerate(text_seeds):
    write("FuzzTextFormat", "%02d" % index, text.encode())
