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
