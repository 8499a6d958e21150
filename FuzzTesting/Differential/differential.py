#!/usr/bin/env python3
"""Differential decoding: swiftframe against protobuf's own C++ and Python parsers.

Every case is one input to protobuf's conformance messages (TestAllTypesProto3 or
TestAllTypesProto2), made from the schema: every field kind, packed and unpacked, map entries
(complete, partial, reordered, with unknown fields inside), oneofs, groups, extensions, unknown
fields of every wire type, over-long varints and tags, wrong wire types, corrupt lengths and
tags, deep nesting; a share of the cases is then mutated byte by byte.

Three answerers parse each case, each in a process of its own (a crash is counted, the process
restarted): swiftframe's conformance testee, a small C++ program built with the messages'
generated C++ code and libprotobuf (checker.cc), and Google's Python package. protobuf's C++ runtime is the arbiter:
  - swiftframe must accept exactly what C++ accepts, except for the intended differences
    listed in INTENDED_REFUSALS (each has a test in the Swift test suite);
  - on an accepted case, swiftframe's re-encoding must parse in C++ to the message C++ parsed
    from the input: the same deterministic serialization, or one of INTENDED_REENCODINGS.
Python's accept/reject answers are compared too, and whether it reads swiftframe's
re-encodings, and reported; where Python and C++ disagree, that is protobuf's own difference
(4.21.12 is known to differ on map entries with unknown fields, and to crash on some inputs).

    differential.py --testee PATH --checker PATH --work DIR [--cases N] [--seed S]

Prints the figures; the first few cases of every disagreement class are kept under
DIR/disagreements/<class>/ as `<type byte><input>` files (0 = proto3, 1 = proto2). Exit status
1 when swiftframe and C++ disagree outside INTENDED.
"""

import argparse
import os
import random
import re
import select
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.descriptor import FieldDescriptor as F

HERE = Path(__file__).resolve().parent
ANSWER_TIMEOUT = 20  # seconds an answerer may take over one answer before it counts as hung
PROTOS = HERE.parent.parent / "Protos" / "conformance"
TYPES = ["protobuf_test_messages.proto3.TestAllTypesProto3",
         "protobuf_test_messages.proto2.TestAllTypesProto2"]

# Intended differences, each with a test in the Swift test suite. Refusals are recognised by
# swiftframe's error; re-encodings by the C++ checker's verdict on them.
INTENDED_REFUSALS = {
    "proto2 string with invalid UTF-8":
        lambda kind, error: kind == 1 and error.startswith("invalid UTF-8 in a string field"),
    # A tag past 32 bits: C++ drops the high bits (a known failure of its conformance run),
    # upb and the current conformance suite refuse it, as swiftframe does.
    "field number above 2^29 - 1":
        lambda kind, error: error.startswith("field number above"),
}
# Inputs swiftframe accepts and C++ refuses, intentionally. An extension's bytes are kept as
# read and decoded when the extension is read (the ExtensibleMessage subscript), so a fault
# inside them is found then; C++ decodes the extensions it knows at once. Recognised by C++
# accepting the input once every extension field is left out (without_extensions).
LAZY_EXTENSION = "a fault inside an extension field, which swiftframe decodes when the extension is read"
SAME_MESSAGE, UNKNOWN_FIELD_ORDER, MAP_BOOL, UNREADABLE = 1, 2, 3, 4
INTENDED_REENCODINGS = {
    UNKNOWN_FIELD_ORDER: "unknown fields in another order (equal for protobuf's MessageDifferencer)",
    MAP_BOOL: "a map entry holding a bool wider than 32 bits (C++ reads a map entry's bool from its low 32 bits)",
}


def load_pool(descriptor_set):
    pool = descriptor_pool.DescriptorPool()
    for file in descriptor_pb2.FileDescriptorSet.FromString(descriptor_set).file:
        pool.AddSerializedFile(file.SerializeToString())
    return pool


def message_class(pool, name):
    descriptor = pool.FindMessageTypeByName(name)
    factory = message_factory.MessageFactory(pool)
    if hasattr(factory, "GetPrototype"):
        return factory.GetPrototype(descriptor)
    return message_factory.GetMessageClass(descriptor)


# --- The Python answerer (runs as a child process: Python 4.21.12 can crash on some inputs) --

def requests():
    """The bodies of the requests on stdin, each after its u32 little-endian length, until it ends."""
    stdin = sys.stdin.buffer
    while True:
        header = stdin.read(4)
        if len(header) < 4:
            return
        yield stdin.read(struct.unpack("<I", header)[0])


def answer_with_python(descriptor_set_path):
    """The checker's protocol (checker.cc), answered with Python's parser. A compare answers 1
    when both parse: message equality is judged by C++ alone, as Python 4.21 (upb) cannot list
    unknown fields, its `==` calls NaN unequal to itself, and its deterministic serialization
    does not sort every map's keys."""
    pool = load_pool(Path(descriptor_set_path).read_bytes())
    classes = [message_class(pool, name) for name in TYPES]
    stdout = sys.stdout.buffer
    for body in requests():
        operation, output = body[0], b""
        try:
            if operation < 2:
                message = classes[operation]()
                message.ParseFromString(body[1:])
                output, status = message.SerializeToString(deterministic=True), 1
            else:
                first = struct.unpack("<I", body[1:5])[0]
                classes[operation % 2]().ParseFromString(body[5:5 + first])
                classes[operation % 2]().ParseFromString(body[5 + first:])
                status = 1
        except Exception:
            status = 0
        stdout.write(struct.pack("<BI", status, len(output)) + output)
        stdout.flush()


# --- Wire bytes -------------------------------------------------------------------------------

def read_varint(data, at):
    value, shift = 0, 0
    while True:
        if at >= len(data) or shift > 63:
            raise ValueError("bad varint")
        byte = data[at]
        value |= (byte & 0x7F) << shift
        at, shift = at + 1, shift + 7
        if byte < 0x80:
            return value, at


def skip_value(data, at, wire_type, number):
    """Where the value of a field (its tag read) ends."""
    if wire_type == VARINT:
        return read_varint(data, at)[1]
    if wire_type in (FIXED64, FIXED32):
        at += 8 if wire_type == FIXED64 else 4
    elif wire_type == DELIMITED:
        length, at = read_varint(data, at)
        at += length
    elif wire_type == START_GROUP:
        while True:
            tag, at = read_varint(data, at)
            if tag & 7 == 4:
                if tag >> 3 != number:
                    raise ValueError("mismatched end group")
                return at
            at = skip_value(data, at, tag & 7, tag >> 3)
    else:
        raise ValueError("bad wire type")
    if at > len(data):
        raise ValueError("truncated")
    return at


def rewrite_fields(descriptor, data, drop=lambda descriptor, number: False, entry=lambda entry, body: body):
    """`data`, a `descriptor` message's bytes, with the fields `drop` names (by their message and
    number) left out and each map entry's body passed through `entry`, at every depth of the
    known message and group fields. Raises ValueError on bytes that do not split into fields."""
    out, at = bytearray(), 0
    while at < len(data):
        start = at
        tag, at = read_varint(data, at)
        number, wire_type = tag >> 3, tag & 7
        end = skip_value(data, at, wire_type, number)
        field = descriptor.fields_by_number.get(number)
        if drop(descriptor, number):
            pass
        elif field is not None and field.message_type is not None and wire_type in (DELIMITED, START_GROUP):
            if wire_type == DELIMITED:
                length, body = read_varint(data, at)
                inner = data[body:body + length]
                if field.message_type.GetOptions().map_entry:
                    inner = entry(field.message_type, inner)
                inner = rewrite_fields(field.message_type, inner, drop, entry)
                out += data[start:at] + varint(len(inner)) + inner
            else:
                body_end = at
                while True:
                    inner_tag, after = read_varint(data, body_end)
                    if inner_tag & 7 == 4:
                        break
                    body_end = skip_value(data, after, inner_tag & 7, inner_tag >> 3)
                inner = rewrite_fields(field.message_type, data[at:body_end], drop, entry)
                out += data[start:at] + inner + data[body_end:end]
        else:
            out += data[start:end]
        at = end
    return bytes(out)


def without_extensions(descriptor, data):
    """`data`, a `descriptor` message's bytes, with every field in an extension range left out
    (a MessageSet's items too), at every depth (see rewrite_fields)."""
    def extension(message, number):
        return any(low <= number < high for low, high in message.extension_ranges) or \
            (message.GetOptions().message_set_wire_format and number == 1)
    return rewrite_fields(descriptor, data, drop=extension)


def varint(value, pad=0):
    """`value` as a varint, written `pad` bytes longer than it needs (an over-long encoding)."""
    value &= (1 << 64) - 1
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        if value == 0:
            break
        out.append(byte | 0x80)
    out.append(byte)
    if pad:
        out[-1] |= 0x80
        out += b"\x80" * (pad - 1) + b"\x00"
    return bytes(out)


def is_repeated(field):
    """Whether `field` is repeated, in protobuf 4.21's Python API (`label`) and today's."""
    if hasattr(field, "is_repeated"):
        return field.is_repeated
    return field.label == F.LABEL_REPEATED


def zigzag(value, bits):
    return ((value << 1) ^ (value >> (bits - 1))) & ((1 << bits) - 1)


VARINT, FIXED64, DELIMITED, START_GROUP, END_GROUP, FIXED32 = 0, 1, 2, 3, 4, 5
WIRE_TYPE = {F.TYPE_DOUBLE: FIXED64, F.TYPE_FIXED64: FIXED64, F.TYPE_SFIXED64: FIXED64,
             F.TYPE_FLOAT: FIXED32, F.TYPE_FIXED32: FIXED32, F.TYPE_SFIXED32: FIXED32,
             F.TYPE_STRING: DELIMITED, F.TYPE_BYTES: DELIMITED, F.TYPE_MESSAGE: DELIMITED,
             F.TYPE_GROUP: START_GROUP}
INTERESTING = [0, 1, -1, 2, 127, 128, 300, 2**31 - 1, -2**31, 2**32 - 1, 2**32, 2**63 - 1,
               -2**63, 2**64 - 1, 2**35 + 7]


# The extensions the cases write, by the full name of the message they extend.
EXTENSIONS = {
    TYPES[1]: ["protobuf_test_messages.proto2.extension_int32"],
    TYPES[1] + ".MessageSetCorrect": [
        TYPES[1] + ".MessageSetCorrectExtension%d.message_set_extension" % i for i in (1, 2)],
}


class Cases:
    """Inputs to the messages named `types` (a case's kind is its index there), drawn from
    their descriptors, with the `extensions` (full names, by the message they extend)."""

    def __init__(self, pool, rng, types=TYPES, extensions=EXTENSIONS):
        self.rng = rng
        self.roots = [pool.FindMessageTypeByName(name) for name in types]
        self.extensions = {container: [pool.FindExtensionByName(name) for name in names]
                           for container, names in extensions.items()}

    def tag(self, number, wire_type):
        rng = self.rng
        roll = rng.random()
        pad = 0
        if roll < 0.03:
            pad = rng.randint(1, 4)        # most still within the 5 bytes protobuf reads
        elif roll < 0.04:
            pad = rng.randint(5, 10)       # 6 bytes or more: protobuf refuses these
        return varint((number << 3) | wire_type, pad)

    def scalar_varint(self, value):
        roll = self.rng.random()
        pad = 0 if roll < 0.93 else self.rng.randint(1, 3) if roll < 0.99 else self.rng.randint(4, 12)
        return varint(value, pad)

    def integer(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            return rng.choice(INTERESTING)
        if roll < 0.8:
            return rng.randint(-1000, 1000)
        return rng.getrandbits(rng.choice([7, 14, 21, 28, 32, 35, 49, 63, 64]))

    def text(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            return "".join(rng.choice("abcxyz _-09") for _ in range(rng.randint(0, 12))).encode()
        if roll < 0.85:
            return "".join(chr(rng.choice([0x41, 0xE9, 0x3B1, 0x4E2D, 0x1F600, 0x10FFFF, 0x7F, 0x80, 0x800, 0xFFFD]))
                           for _ in range(rng.randint(0, 6))).encode()
        return bytes(rng.choice([0xC0, 0xC3, 0xED, 0xA0, 0x80, 0xF4, 0x90, 0xFF, 0x41, 0xE2, 0x82])
                     for _ in range(rng.randint(1, 6)))

    def value(self, field, depth):
        """The payload of one value of `field` (what follows its tag)."""
        rng, kind = self.rng, field.type
        if kind in (F.TYPE_INT32, F.TYPE_INT64, F.TYPE_UINT32, F.TYPE_UINT64):
            return self.scalar_varint(self.integer())
        if kind == F.TYPE_BOOL:
            return self.scalar_varint(rng.choice([0, 1, 1, 2, 2**63, 2**64 - 1]))
        if kind == F.TYPE_ENUM:
            values = [v.number for v in field.enum_type.values]
            return self.scalar_varint(rng.choice(values) if rng.random() < 0.8 else self.integer())
        if kind == F.TYPE_SINT32:
            return self.scalar_varint(zigzag(self.integer() & 0xFFFFFFFF if rng.random() < 0.1 else
                                             max(-2**31, min(2**31 - 1, self.integer())), 32))
        if kind == F.TYPE_SINT64:
            return self.scalar_varint(zigzag(max(-2**63, min(2**63 - 1, self.integer())), 64))
        if kind in (F.TYPE_FIXED32, F.TYPE_SFIXED32, F.TYPE_FLOAT):
            return struct.pack("<I", self.integer() & 0xFFFFFFFF) if rng.random() < 0.6 else \
                struct.pack("<f", rng.choice([0.0, -0.0, 1.5, float("inf"), float("nan"), 3.4e38]))
        if kind in (F.TYPE_FIXED64, F.TYPE_SFIXED64, F.TYPE_DOUBLE):
            return struct.pack("<Q", self.integer() & (2**64 - 1)) if rng.random() < 0.6 else \
                struct.pack("<d", rng.choice([0.0, -0.0, 1e-310, float("inf"), float("nan"), 1.7e308]))
        if kind == F.TYPE_STRING:
            return self.delimited(self.text())
        if kind == F.TYPE_BYTES:
            return self.delimited(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 10))))
        if kind == F.TYPE_MESSAGE:
            if field.message_type.GetOptions().map_entry:
                return self.delimited(self.map_entry(field.message_type, depth))
            return self.delimited(self.message(field.message_type, depth + 1))
        if kind == F.TYPE_GROUP:
            body = self.message(field.message_type, depth + 1)
            end = field.number if rng.random() < 0.97 else rng.randint(1, 300)
            return body + (self.tag(end, END_GROUP) if rng.random() < 0.98 else b"")
        raise ValueError(kind)

    def delimited(self, body):
        rng = self.rng
        roll = rng.random()
        length = len(body)
        if roll < 0.02:
            length += rng.choice([1, 2, 100, 2**31, 2**32 + len(body), 2**64 - 1])
        elif roll < 0.03 and length:
            length -= rng.randint(1, length)
        return self.scalar_varint(length) + body

    def map_entry(self, entry, depth):
        rng = self.rng
        key, value = entry.fields_by_number[1], entry.fields_by_number[2]
        parts = []
        if rng.random() < 0.85:
            parts.append(self.tag(1, WIRE_TYPE.get(key.type, VARINT)) + self.value(key, depth))
        if rng.random() < 0.85:
            parts.append(self.tag(2, WIRE_TYPE.get(value.type, VARINT)) + self.value(value, depth))
        if rng.random() < 0.1:
            parts.append(self.unknown(depth))
        if rng.random() < 0.1:
            parts.append(parts[0] if parts else b"")  # a key or value given twice
        if rng.random() < 0.2:
            rng.shuffle(parts)
        return b"".join(parts)

    def unknown(self, depth):
        rng = self.rng
        number = rng.choice([rng.randint(1, 30), rng.randint(500, 999), rng.randint(1000, 9999),
                             rng.randint(19000, 19999), 2**29 - 1, rng.randint(1, 2**29 - 1),
                             2**29 + rng.randint(0, 7) if rng.random() < 0.1 else 2**29 - 1])
        wire_type = rng.choice([VARINT, FIXED64, DELIMITED, START_GROUP, FIXED32, VARINT])
        out = self.tag(number, wire_type)
        if wire_type == VARINT:
            return out + self.scalar_varint(self.integer())
        if wire_type == FIXED64:
            return out + struct.pack("<Q", self.integer() & (2**64 - 1))
        if wire_type == FIXED32:
            return out + struct.pack("<I", self.integer() & 0xFFFFFFFF)
        if wire_type == DELIMITED:
            return out + self.delimited(bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 8))))
        inner = b"".join(self.unknown(depth + 1) for _ in range(rng.randint(0, 2))) if depth < 4 else b""
        return out + inner + self.tag(number, END_GROUP)

    def field(self, message, depth):
        """One field of `message`, as a known field would be written (or not quite)."""
        rng = self.rng
        fields = list(message.fields) + self.extensions.get(message.full_name, [])
        if not fields or rng.random() < 0.08:
            return self.unknown(depth)
        field = rng.choice(fields)
        if field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP) and depth >= 4 and not rng.random() < 0.02:
            return self.unknown(depth)
        wire_type = WIRE_TYPE.get(field.type, VARINT)
        if rng.random() < 0.03:  # the wrong wire type, or one protobuf does not define
            wire_type = rng.choice([w for w in (0, 1, 2, 3, 5, 6, 7) if w != wire_type])
            if wire_type in (6, 7, 3):
                return self.tag(field.number, wire_type) + self.value(field, depth)
            return self.tag(field.number, wire_type) + \
                {VARINT: self.scalar_varint(self.integer()), FIXED64: b"\x01" * 8, FIXED32: b"\x02" * 4,
                 DELIMITED: self.delimited(b"\x08\x01")}[wire_type]
        count = 1
        if is_repeated(field):
            count = rng.choice([1, 1, 2, 3, 5])
            packable = wire_type in (VARINT, FIXED32, FIXED64)
            if packable and rng.random() < 0.5:
                body = b"".join(self.value(field, depth) for _ in range(count))
                return self.tag(field.number, DELIMITED) + self.delimited(body)
        return b"".join(self.tag(field.number, wire_type) + self.value(field, depth) for _ in range(count))

    def message(self, message, depth):
        rng = self.rng
        count = rng.choice([0, 1, 2, 3, 4, 6, 10]) if depth < 3 else rng.choice([0, 1, 2])
        return b"".join(self.field(message, depth) for _ in range(count))

    def nested(self, levels):
        """`levels` messages nested through recursive_message (field 27): protobuf's limit is 100."""
        body = b"\x08\x01"
        for _ in range(levels):
            body = b"\xda\x01" + varint(len(body)) + body
        return body

    def mutate(self, data):
        rng = self.rng
        data = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            roll = rng.random()
            at = rng.randint(0, len(data))
            if roll < 0.3 and data:
                data[min(at, len(data) - 1)] ^= 1 << rng.randint(0, 7)
            elif roll < 0.5 and data:
                data[min(at, len(data) - 1)] = rng.choice([0x00, 0x80, 0xFF, 0x7F, 0x0F, 0x01])
            elif roll < 0.65:
                data[at:at] = bytes([rng.getrandbits(8)])
            elif roll < 0.8 and data:
                del data[min(at, len(data) - 1)]
            elif roll < 0.9:
                del data[at:]
            elif data:
                start = rng.randint(0, len(data) - 1)
                data[at:at] = data[start:start + rng.randint(1, 8)]
        return bytes(data)

    def next(self):
        rng = self.rng
        kind = rng.randrange(len(self.roots))
        if rng.random() < 0.002:
            data = self.nested(rng.choice([98, 99, 100, 101, 102, 150]))
        else:
            data = self.message(self.roots[kind], 0)
        if rng.random() < 0.25:
            data = self.mutate(data)
        return kind, data


# --- Answerers ---------------------------------------------------------------------------------

def mutate_text(rng, data, replacements, insertions, highest_bit):
    """`data` (a text format's bytes) after one to three edits: a byte replaced by one of the
    characters `replacements` or with one of its bits up to `highest_bit` flipped, one of
    `insertions` put in, a byte or the rest cut, or a run of it repeated."""
    data = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        at = rng.randint(0, len(data))
        if roll < 0.25 and data:
            data[min(at, len(data) - 1)] = ord(rng.choice(replacements))
        elif roll < 0.4 and data:
            data[min(at, len(data) - 1)] ^= 1 << rng.randint(0, highest_bit)
        elif roll < 0.55:
            data[at:at] = rng.choice(insertions)
        elif roll < 0.75 and data:
            del data[min(at, len(data) - 1)]
        elif roll < 0.85:
            del data[at:]
        elif data:
            start = rng.randint(0, len(data) - 1)
            data[at:at] = data[start:start + rng.randint(1, 12)]
    return bytes(data)


class Answerer:
    """A child process answering cases, one at a time and in order: (status, bytes, error), where
    a parse's status is 1 when it accepted the input."""

    def __init__(self, name, argv):
        self.name, self.argv, self.crashes = name, argv, 0
        self.start()

    def start(self):
        self.process = subprocess.Popen(self.argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        stderr=subprocess.DEVNULL, bufsize=0)
        self.buffer = bytearray()

    def request(self, kind, data):
        return struct.pack("<IB", len(data) + 1, kind) + data

    def read_exactly(self, count):
        """`count` bytes of the answers; None if the process ends or takes over ANSWER_TIMEOUT."""
        while len(self.buffer) < count:
            ready, _, _ = select.select([self.process.stdout], [], [], ANSWER_TIMEOUT)
            chunk = os.read(self.process.stdout.fileno(), 1 << 16) if ready else b""
            if not chunk:
                return None
            self.buffer += chunk
        data = bytes(self.buffer[:count])
        del self.buffer[:count]
        return data

    def read_answer(self):
        header = self.read_exactly(5)
        if header is None:
            return None
        status, length = struct.unpack("<BI", header)
        body = self.read_exactly(length)
        return None if body is None else (status, body, "")

    def answer(self, cases):
        """Answers for every case; None where the process died or hung on it (it is then
        restarted)."""
        answers = []
        while len(answers) < len(cases):
            pending = cases[len(answers):]
            payload = b"".join(self.request(kind, data) for kind, data in pending)
            writer = threading.Thread(target=self.write, args=(payload,))
            writer.start()
            for _ in pending:
                answer = self.read_answer()
                if answer is None:
                    break
                answers.append(answer)
            if len(answers) < len(cases):
                answers.append(None)  # the process died or hung on this case
                self.crashes += 1
                self.process.kill()
                self.process.wait()
                writer.join()
                self.start()
            else:
                writer.join()
        return answers

    def write(self, payload):
        view = memoryview(payload)
        try:
            while view:
                view = view[self.process.stdin.write(view):]
        except (BrokenPipeError, OSError, ValueError):
            pass

    def close(self):
        self.process.stdin.close()
        try:
            self.process.wait(ANSWER_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


class Testee(Answerer):
    """swiftframe's conformance testee, which speaks protobuf's conformance protocol; a case's
    kind is the index of its message in `types`."""

    def __init__(self, name, argv, pool, types=TYPES):
        self.Request = message_class(pool, "conformance.ConformanceRequest")
        self.Response = message_class(pool, "conformance.ConformanceResponse")
        self.types = types
        super().__init__(name, argv)

    def request(self, kind, data):
        request = self.Request(protobuf_payload=data, requested_output_format=1, message_type=self.types[kind])
        body = request.SerializeToString()
        return struct.pack("<I", len(body)) + body

    def read_response(self):
        """The next ConformanceResponse, length-prefixed; None when the testee is gone."""
        header = self.read_exactly(4)
        if header is None:
            return None
        body = self.read_exactly(struct.unpack("<I", header)[0])
        return None if body is None else self.Response.FromString(body)

    def read_answer(self):
        """(status, payload, error): status 1 read and written (in the output format asked for),
        0 refused, 2 read but the output failed."""
        response = self.read_response()
        if response is None:
            return None
        result = response.WhichOneof("result")
        if result == "protobuf_payload":
            return 1, response.protobuf_payload, ""
        if result in ("json_payload", "text_payload"):
            return 1, getattr(response, result).encode(), ""
        if result == "parse_error":
            return 0, b"", response.parse_error
        if result == "serialize_error":
            return 2, b"", response.serialize_error
        raise RuntimeError("the testee answered %s: %s" % (result, getattr(response, result)))

    def answer_as(self, output, cases):
        """`answer`, asking for the output format `output` (for subclasses whose `request` reads
        `self.output`)."""
        self.output = output
        return self.answer(cases)


# --- The run ----------------------------------------------------------------------------------

def error_class(error):
    """swiftframe's parse error without its offsets and lengths: the class of the refusal."""
    return re.sub(r"\d+", "N", error)


class Tally:
    def __init__(self, work, keep=20, folder="disagreements"):
        self.counts, self.work, self.keep, self.folder = {}, work, keep, folder

    def add(self, name, case):
        count = self.counts.get(name, 0) + 1
        self.counts[name] = count
        if count <= self.keep:
            folder = self.work / self.folder / re.sub(r"[^A-Za-z0-9]+", "-", name).strip("-")
            folder.mkdir(parents=True, exist_ok=True)
            (folder / ("%d.bin" % count)).write_bytes(bytes([case[0]]) + case[1])


def arguments(description, answer_with_python, checker=True):
    """The command line the runs share (`checker`: whether it takes the C++ checker's path).
    With --answer, this process is the Python answerer: it answers on stdin and stdout, and
    None is returned."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--answer", metavar="DESCRIPTOR_SET", help=argparse.SUPPRESS)
    parser.add_argument("--testee")
    if checker:
        parser.add_argument("--checker")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--cases", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--batch", type=int, default=400)
    args = parser.parse_args()
    if args.answer:
        answer_with_python(args.answer)
        return None
    if not (args.testee and args.work and (args.checker if checker else True)):
        parser.error("--testee, --checker and --work are required" if checker else "--testee and --work are required")
    args.error = parser.error
    return args


def conformance_pool(work, *extra_protos):
    """The conformance messages' descriptor set, written into `work`, and its pool."""
    work.mkdir(parents=True, exist_ok=True)
    descriptor_set = work / "conformance.pb"
    subprocess.run(["protoc", "--include_imports", "--descriptor_set_out=%s" % descriptor_set,
                    "-I", str(PROTOS), "conformance.proto", "test_messages_proto2.proto",
                    "test_messages_proto3.proto", *extra_protos], check=True)
    return descriptor_set, load_pool(descriptor_set.read_bytes())


def main():
    args = arguments(__doc__.split("\n")[0], answer_with_python)
    if args is None:
        return 0
    descriptor_set, pool = conformance_pool(args.work)
    cases = Cases(pool, random.Random(args.seed))
    swift = Testee("swiftframe", [args.testee], pool)
    cpp = Answerer("C++", [args.checker])
    python = Answerer("Python", [sys.executable, __file__, "--answer", str(descriptor_set)])

    differences, python_differences = Tally(args.work), Tally(args.work)
    accepted = {"swiftframe": 0, "C++": 0, "Python": 0}
    kinds = [0, 0]
    started, done = time.monotonic(), 0
    while done < args.cases:
        batch = [cases.next() for _ in range(min(args.batch, args.cases - done))]
        for kind, _ in batch:
            kinds[kind] += 1
        swift_answers, cpp_answers, python_answers = swift.answer(batch), cpp.answer(batch), python.answer(batch)
        # swiftframe's re-encodings of what both accept, compared with the input by C++ and by Python.
        reencoded = [i for i, (s, c) in enumerate(zip(swift_answers, cpp_answers)) if s and c and s[0] and c[0]]
        comparisons = [(batch[i][0] + 2, struct.pack("<I", len(batch[i][1])) + batch[i][1] + swift_answers[i][1])
                       for i in reencoded]
        reparsed = dict(zip(reencoded, zip(cpp.answer(comparisons), python.answer(comparisons))))

        for i, case in enumerate(batch):
            s, c, p = swift_answers[i], cpp_answers[i], python_answers[i]
            if s is None:
                differences.add("swiftframe crashed or hung", case)
                continue
            if c is None:
                raise RuntimeError("the C++ checker crashed or hung on case %d" % (done + i))
            accepted["swiftframe"] += s[0]
            accepted["C++"] += c[0]
            if p is None:
                python_differences.add("Python crashed or hung", case)
            else:
                accepted["Python"] += p[0]
                if p[0] != c[0]:
                    python_differences.add("Python %s where C++ %s" % (
                        "accepts" if p[0] else "refuses", "refuses" if p[0] else "accepts"), case)
                elif p[0] and c[1] != p[1]:
                    python_differences.add("Python and C++ parse different messages", case)
            if s[0] != c[0]:
                if not s[0]:
                    intended = [name for name, test in INTENDED_REFUSALS.items() if test(case[0], s[2])]
                    name = ("intended: " + intended[0]) if intended else \
                        "swiftframe refuses where C++ accepts: " + error_class(s[2])
                else:
                    name = "swiftframe accepts where C++ refuses"
                    try:
                        stripped = without_extensions(cases.roots[case[0]], case[1])
                        if cpp.answer([(case[0], stripped)])[0][0]:
                            name = "intended: " + LAZY_EXTENSION
                    except ValueError:
                        pass
                differences.add(name, case)
                if p is not None and s[0] != p[0]:
                    python_differences.add("swiftframe and Python also disagree", case)
                continue
            if s[0]:
                verdict, again_python = reparsed[i]
                if verdict is None:
                    raise RuntimeError("the C++ checker crashed or hung comparing case %d" % (done + i))
                if verdict[0] == UNREADABLE:
                    differences.add("C++ cannot read swiftframe's re-encoding", case)
                elif verdict[0] in INTENDED_REENCODINGS:
                    differences.add("intended: " + INTENDED_REENCODINGS[verdict[0]], case)
                elif verdict[0] != SAME_MESSAGE:
                    differences.add("swiftframe's re-encoding is another message to C++", case)
                if p is not None and p[0] and again_python is not None and not again_python[0]:
                    python_differences.add("Python cannot read swiftframe's re-encoding", case)
        done += len(batch)
        if done % 100_000 < args.batch:
            print("  %d cases, %.0f s" % (done, time.monotonic() - started), flush=True)

    for answerer in (swift, cpp, python):
        answerer.close()
    seconds = time.monotonic() - started
    print("differential run: %d cases (seed %d): %d TestAllTypesProto3, %d TestAllTypesProto2, %.0f s"
          % (done, args.seed, kinds[0], kinds[1], seconds))
    examples = args.work / "disagreements" if differences.counts or python_differences.counts else None
    return report(accepted, differences, python_differences, examples)


def report(accepted, differences, python_differences, examples, information=None,
           reference_title="Python against C++ (protobuf's own differences, for information)", arbiter="C++"):
    """Prints what each side accepted and the disagreements by class, then `python_differences`
    under `reference_title`; the exit status: 1 when swiftframe and the arbiter disagree outside
    the intended differences."""
    print("accepted: " + ", ".join("%s %d" % item for item in accepted.items()))
    unintended = 0
    print("swiftframe against %s (the arbiter):" % arbiter)
    if not differences.counts:
        print("  no disagreements")
    for name, count in sorted(differences.counts.items()):
        print("  %8d  %s" % (count, name))
        if not name.startswith("intended: "):
            unintended += count
    if information is not None:
        print("the same message, printed differently (for information):")
        for name, count in sorted(information.counts.items()):
            print("  %8d  %s" % (count, name))
    print(reference_title + ":")
    if not python_differences.counts:
        print("  no disagreements")
    for name, count in sorted(python_differences.counts.items()):
        print("  %8d  %s" % (count, name))
    if examples is not None:
        print("examples: %s" % examples)
    print("%d disagreements outside the intended differences" % unintended)
    return 1 if unintended else 0


if __name__ == "__main__":
    sys.exit(main())
