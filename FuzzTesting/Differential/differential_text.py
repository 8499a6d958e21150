#!/usr/bin/env python3
"""Differential text format: swiftframe's text-format reader and printer against protobuf's C++ ones.

Two kinds of case, for TestAllTypesProto3 and TestAllTypesProto2:
  - text, made from the schema: every field kind, repeated fields one by one and as `[a, b]`
    lists, maps (entries complete, partial, in lists), nested messages in `{}` and `<>` with
    and without `:`, oneofs, enums by name and by number, strings with every escape (octal,
    hex, \\u, \\U, surrogates, escapes that are none) and adjacent strings joined, integers
    in decimal, hexadecimal and octal, negative and past their range, floats with exponents,
    `f` suffixes, inf and nan in their spellings, `,` and `;` after fields, `#` comments,
    fields by number, Any in its expanded `[type.googleapis.com/...]` form, the proto2
    extension, unknown names, singular fields and oneof members given twice; a share is then
    mutated byte by byte (flips, insertions, deletions, truncations);
  - binary (the binary run's cases, differential.Cases), for printing alone.

The answerers: swiftframe's conformance testee (text read and written as binary; binary or
text printed as text) and protobuf's C++ runtime (TextFormat::Parser with field numbers
allowed, and TextFormat::PrintToString, in checker.cc). C++ is the arbiter:
  - swiftframe must accept exactly the text C++ accepts, except for INTENDED_REFUSALS and
    INTENDED_ACCEPTS (each has a test of its name in the Swift test suite,
    Tests/ConformanceTests/TextFormatDifferencesTests.swift);
  - on text both accept, swiftframe must read the message C++ read (deterministic
    serializations equal, or equal to the C++ checker's compare, each Any's bytes made
    canonical);
  - printing: swiftframe and C++ are both given the message C++ read (its deterministic
    serialization) and must print exactly the same text. The text is compared byte for byte,
    not as messages: both print protobuf's default text format (two-space indents, fields in
    number order and unknown fields after them, map entries sorted by key, floats in their
    shortest round-tripping %g form, bytes C-escaped), so any difference in text is a
    difference in the printers. Where the texts differ, swiftframe's print is read by C++ to
    tell a print of another message from a print in another form (the class's name says
    which). swiftframe must also read C++'s print as the message C++ read (NaN's sign, which
    text does not keep, aside). Binary cases print both sides' text of the same bytes (unknown
    fields included) where both read them, again compared byte for byte; the prints that
    differ on purpose are listed above same_print().
There is no Python answerer: the Python package (4.21, upb) reads text with its own parser,
which is not what this run is about.

    differential_text.py --testee PATH --checker PATH --work DIR [--cases N] [--seed S]

The first few cases of every disagreement class are kept under DIR/disagreements-text/<class>/
as `<kind byte><input>` files (kind 0 proto3 text, 1 proto2 text, 2 proto3 binary, 3 proto2
binary). Exit status 1 when swiftframe and C++ disagree outside the intended differences.
"""

import random
import re
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import differential  # noqa: E402  (the binary run's answerers and helpers)
from differential import Answerer, Tally, TYPES  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor as F  # noqa: E402

PROTOBUF_OUTPUT, TEXT_OUTPUT = 1, 4
PROTO3_TEXT, PROTO2_TEXT, PROTO3_BINARY, PROTO2_BINARY = 0, 1, 2, 3
ANY_URL = "type.googleapis.com/"

# Intended differences, each with a test of that name in the Swift test suite
# (Tests/ConformanceTests/TextFormatDifferencesTests.swift). A refusal is recognised by
# swiftframe's error and the input; an acceptance by C++'s error and the input.

INTENDED_REFUSALS = {
    # C++ 3.21 logs invalid UTF-8 in a string field and keeps it; swiftframe refuses it, as
    # protobuf's binary parser does in a proto3 string (and swiftframe's in every string).
    "a string field with invalid UTF-8": lambda case, error: "is not valid UTF-8" in error,
    # C++ 3.21 writes a \\u escape of a surrogate (paired: the pair's code point; alone: its
    # three bytes, which are no UTF-8) and keeps \\U past 10FFFF as its text; the conformance
    # suite's text tests (StringLiteral...Surrogate..., ...EscapeTooLarge) want them refused.
    "a \\u or \\U escape that is no Unicode scalar": lambda case, error: "that is no Unicode scalar" in error,
    # C++ 3.21's text parser has no depth limit; swiftframe's is protobuf's binary one (100),
    # past which no runtime would read the message's encoding.
    "messages nested deeper than 100 levels": lambda case, error: "nested deeper than 100 levels" in error,
    # Inside an Any, C++ 3.21 reads the message as a DynamicMessage, whose proto3 map entries
    # have no presence: a key or value given again after its default is taken there, refused
    # everywhere else (swiftframe refuses it everywhere).
    "a map entry's key or value given twice in an Any": lambda case, error:
        bool(re.search(r"'(key|value)' is a singular field given twice", error)) and b"[type.goog" in case[1],
}
# The numbers the messages reserve (test_messages_proto3.proto, test_messages_proto2.proto): C++
# skips a field given by a reserved number, whatever its value; swiftframe reads it as it reads
# any number its table does not list, as an unknown field (it does not know reserved numbers).
RESERVED = {PROTO3_TEXT: (501, 510), PROTO2_TEXT: (1000, 9999)}


def reserved_number(case):
    low, high = RESERVED[case[0] % 2]
    return any(low <= int(match.group(1)) <= high
               for match in re.finditer(rb"(?:^|[\s{<;,\[])([0-9]+)\s*[:{<]", case[1]))


INTENDED_REFUSALS["a field by a reserved number"] = lambda case, error: reserved_number(case)
# Accepted by swiftframe, as by protobuf 35's parser, and refused by C++ 3.21: an Any's type URL
# with a prefix of its own (3.21 looks types up under type.googleapis.com/ and
# type.googleprod.com/ only), or with spaces or comments inside its names (3.21 reads the URL
# as tokens). Recognised by C++ accepting the text once each URL is written as 3.21 reads it
# (with_default_any_prefix).
ANY_URL_OF_ITS_OWN = "an Any's type URL with a prefix of its own, or spaces inside its names"


def with_default_any_prefix(text):
    """The text with each bracketed name that holds a '/' (an Any's type URL) written with the
    prefix type.googleapis.com/ and without the spaces and comments inside it."""
    def url(match):
        inside = re.sub(rb"\s", b"", re.sub(rb"#[^\n]*", b"", match.group(1)))
        if b"/" not in inside:
            return match.group(0)
        return b"[" + ANY_URL.encode() + inside.rsplit(b"/", 1)[1] + b"]"
    return re.sub(rb"\[([^\[\]\"']*)\]", url, text)

# The field names of the schema's groups (filled in main): protobuf 35's parser, and swiftframe,
# read a group by its field name (`data`) as by its type name (`Data`); C++ 3.21 by its type name only.
GROUP_FIELD_NAMES = set()
INTENDED_ACCEPTS = {
    # C++ skips a reserved number's value with rules of its own (a message's fields by name only).
    "a field by a reserved number": lambda case, error: reserved_number(case),
    "a group by its field name": lambda case, error: any(
        'has no field named "%s"' % name in error for name in GROUP_FIELD_NAMES),
    # swiftframe reads a field number the message does not declare as protoc --decode_raw
    # prints it (as an unknown field); C++ reads numbers of declared fields only.
    "a field number the message does not declare":
        lambda case, error: bool(re.search(r'has no field numbered|has no field named "[0-9]', error)),
}


# --- Text -------------------------------------------------------------------------------------

def quote(rng, data):
    """`data` (bytes) as a quoted text-format string, with escapes chosen at random."""
    q = '"' if rng.random() < 0.85 else "'"
    out = []
    for byte in data:
        ch = chr(byte)
        roll = rng.random()
        if ch == q or ch == "\\":
            out.append("\\" + ch)
        elif ch == "\n":
            out.append(rng.choice(["\\n", "\\012", "\\x0a", "\\12"]))
        elif 0x20 <= byte < 0x7F and roll < 0.9:
            out.append(ch)
        elif roll < 0.45:
            out.append("\\%03o" % byte)
        elif roll < 0.6:
            out.append("\\%o" % byte if not (0x30 <= byte < 0x38) else "\\%03o" % byte)
        else:
            out.append("\\x%02x" % byte if rng.random() < 0.8 else "\\X%02X" % byte)
    text = q + "".join(out) + q
    if rng.random() < 0.05 and len(text) > 4:
        # Adjacent strings are one: "ab" "cd".
        cut = rng.randint(1, len(data) - 1) if len(data) > 1 else 0
        text = quote(rng, data[:cut]) + rng.choice([" ", "\n", " # c\n"]) + quote(rng, data[cut:])
    return text


def odd_string(rng):
    """A quoted string written with the escapes that are rare, wrong or none."""
    pieces = ["a", "\\u00e9", "\\u4e2d", "\\U0001F600", "\\ud800", "\\udc00", "\\ud83d\\ude00", "\\U00110000",
              "\\U0010FFFF", "\\u12", "\\U1234", "\\x", "\\x4", "\\x414", "\\400", "\\777", "\\8", "\\q", "\\?",
              "\\a\\b\\f\\v", "\\'", '\\"', "\\\\", "é", "中", "😀", "\\0", "\\00", "\\101", "\\t\\r", "\\e",
              "\\uD800\\uDC00", "\\U0000d800", "\\u0000", " ", "\\ ", "\\xfF", "\\xc3\\xa9", "\\xff"]
    body = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 4)))
    q = rng.choice(['"', '"', "'"])
    return q + body + q


def integer_value(rng, low, high):
    """Mostly in range (its edges, small numbers), one in ten past it."""
    roll = rng.random()
    if roll < 0.1:
        return rng.choice([-1, low - 1, high + 1, 2**31, 2**32, 2**63, 2**64, -2**63 - 1, 10**20])
    if roll < 0.4:
        return rng.choice([value for value in (0, 1, -1, low, high, 2**31 - 1, 123456789, 255, 8, 7)
                           if low <= value <= high])
    if roll < 0.8:
        return rng.randint(max(low, -1000), 1000)
    return rng.randint(low, high)


def integer_text(rng, low, high):
    value = integer_value(rng, low, high)
    form = rng.random()
    sign = "-" if value < 0 else ""
    if form < 0.6:
        return str(value)
    if form < 0.75:
        return sign + rng.choice(["0x%x", "0X%X", "0x%X"]) % abs(value)
    if form < 0.9:
        return sign + "0%o" % abs(value)
    return rng.choice(["-0", "0x", "08", "09", "0x-1", "1.0", "1e3", "1f", "+1", "- 1", "-0x0", "00", "0x0000000001",
                       "1_000", "1u", "0.", "-", "inf", "1.5", "-2147483648", "-9223372036854775808",
                       "18446744073709551615", "18446744073709551616", "0xFFFFFFFFFFFFFFFF", "0x10000000000000000",
                       "01777777777777777777777", "037777777777", "040000000000"])


def float_text(rng):
    roll = rng.random()
    if roll < 0.3:
        return repr(rng.choice([0.0, 1.5, -2.25, 1e-5, 123456.789, 3.4028234663852886e38, 1e39, 1e-45, 5e-324,
                                1.7976931348623157e308, 0.1, 1 / 3, 16777217.0, 1e21, 1e-7]))
    if roll < 0.5:
        return str(rng.randint(-1000, 1000)) + rng.choice(["", ".", ".5", "e3", "E-2", "e+2", ".25e1", "f", ".5f",
                                                            "F", "e2f", ".0"])
    if roll < 0.75:
        return rng.choice(["inf", "-inf", "nan", "-nan", "infinity", "-Infinity", "INF", "NaN", "Inf", "-INFINITY",
                           "infinit", "nanf", "inff", "1e400", "-1e400", "1e-400", ".5", "-.5", "5.", "0x10",
                           "0x1p3", "1e", "1e+", "-", "--1", "1.2.3", "1e5.5", "0.5e-3F", "1.f", ".f", "08", "010",
                           "-0", "-0.0", "9" * 30, "0" + "9" * 20, "1_0", "f", "e5", "1ee5", "0x", "00.5", "0e0",
                           "18446744073709551616", "-9223372036854775809", "1.5d", "true"])
    return repr(rng.uniform(-1e6, 1e6)) if rng.random() < 0.5 else "%.9g" % rng.uniform(-1e30, 1e30)


INTEGER_RANGES = {
    F.TYPE_INT32: (-2**31, 2**31 - 1), F.TYPE_SINT32: (-2**31, 2**31 - 1), F.TYPE_SFIXED32: (-2**31, 2**31 - 1),
    F.TYPE_INT64: (-2**63, 2**63 - 1), F.TYPE_SINT64: (-2**63, 2**63 - 1), F.TYPE_SFIXED64: (-2**63, 2**63 - 1),
    F.TYPE_UINT32: (0, 2**32 - 1), F.TYPE_FIXED32: (0, 2**32 - 1),
    F.TYPE_UINT64: (0, 2**64 - 1), F.TYPE_FIXED64: (0, 2**64 - 1),
}


class Cases:
    """Text for the conformance messages, drawn from their descriptors; and binary cases."""

    def __init__(self, pool, rng):
        self.rng, self.pool = rng, pool
        self.roots = [pool.FindMessageTypeByName(name) for name in TYPES]
        self.binary = differential.Cases(pool, rng)
        self.any_types = [TYPES[0], "google.protobuf.Duration", "google.protobuf.Timestamp",
                          "google.protobuf.Int32Value", "google.protobuf.StringValue", "google.protobuf.Empty",
                          "google.protobuf.Struct", "google.protobuf.Any"]

    def space(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.8:
            return " "
        return rng.choice(["", "\n", "  ", "\t", " # a comment\n", "#\n", "\r\n", "\n\n  "])

    def scalar(self, field):
        rng, kind = self.rng, field.type
        if kind in INTEGER_RANGES:
            return integer_text(rng, *INTEGER_RANGES[kind])
        if kind in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
            return float_text(rng)
        if kind == F.TYPE_BOOL:
            return rng.choice(["true", "false", "True", "False", "t", "f", "1", "0", "2", "TRUE", "-1", "0x1", "01",
                               '"true"', "yes", "true", "false"])
        if kind == F.TYPE_ENUM:
            values = field.enum_type.values
            roll = rng.random()
            if roll < 0.6:
                return rng.choice(values).name
            if roll < 0.8:
                return str(rng.choice(values).number)
            return rng.choice(["-1", "7", "2147483647", "-2147483648", "2147483648", "0x1", "foo", "foo", "FOO",
                               "BAZ", "baz", '"FOO"', "1.0", "NEG", "-0"])
        if kind == F.TYPE_STRING:
            roll = rng.random()
            if roll < 0.08:
                return odd_string(rng)
            return quote(rng, self.binary.text())
        if kind == F.TYPE_BYTES:
            if rng.random() < 0.1:
                return odd_string(rng)
            return quote(rng, bytes(rng.getrandbits(8) for _ in range(rng.randint(0, 8))))
        raise ValueError(kind)

    def open_close(self):
        return ("{", "}") if self.rng.random() < 0.85 else ("<", ">")

    def message_value(self, message, depth):
        o, c = self.open_close()
        return o + self.space() + self.fields(message, depth) + self.space() + c

    def value(self, field, depth):
        """One value of `field`, as written after its name and separator."""
        if field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP):
            if field.message_type.GetOptions().map_entry:
                return self.map_entry(field.message_type, depth)
            if field.message_type.full_name == "google.protobuf.Any" and self.rng.random() < 0.6:
                return self.any(depth)
            return self.message_value(field.message_type, depth + 1)
        return self.scalar(field)

    def map_entry(self, entry, depth):
        rng = self.rng
        key, value = entry.fields_by_number[1], entry.fields_by_number[2]
        parts = []
        if rng.random() < 0.9:
            parts.append("key" + self.separator(key) + self.value(key, depth))
        if rng.random() < 0.9:
            parts.append("value" + self.separator(value) + self.value(value, depth))
        if rng.random() < 0.05 and parts:
            parts.append(parts[0])
        if rng.random() < 0.2:
            rng.shuffle(parts)
        o, c = self.open_close()
        return o + self.space().join(parts) + c

    def any(self, depth):
        rng = self.rng
        name = rng.choice(self.any_types)
        url = ANY_URL + name
        roll = rng.random()
        if roll < 0.05:
            url = rng.choice(["type.googleapis.com/unknown.Type", "example.com/x/" + name, name, "/" + name,
                              "type.googleapis.com/" + name + " ", " " + url, "type.googleapis.com//" + name,
                              "type.googleapis.com/" + name.lower(), "a/b/c/" + name])
        body = ""
        descriptor = self.pool.FindMessageTypeByName(name)
        if depth < 4:
            body = self.fields(descriptor, depth + 1)
        o, c = self.open_close()
        inner = "[" + url + "]" + rng.choice([" ", ": ", ":", "", "\n"]) + o + self.space() + body + self.space() + c
        if rng.random() < 0.03:
            inner += self.space() + rng.choice(['type_url: "x"', "[" + url + "] {}", 'value: ""'])
        if rng.random() < 0.05:
            inner = 'type_url: "%s" value: %s' % (url, quote(rng, b"\x08\x01"))
        o, c = self.open_close()
        return o + self.space() + inner + self.space() + c

    def separator(self, field):
        """The `:` after a name: optional before a message's brace."""
        rng = self.rng
        is_message = field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP)
        if is_message and rng.random() < 0.5:
            return rng.choice([" ", "", "\n"])
        if not is_message and rng.random() < 0.01:
            return " "  # a scalar without its ':'
        return rng.choice([": ", ":", " : ", ":\n"])

    def name(self, field):
        rng = self.rng
        roll = rng.random()
        if field.is_extension:
            return "[" + field.full_name + "]" if roll < 0.9 else "[" + field.full_name.upper() + "]"
        if roll < 0.04:
            return str(field.number)
        if roll < 0.05:
            return field.json_name if field.json_name != field.name else field.name.upper()
        if field.type == F.TYPE_GROUP and roll < 0.08:
            return field.name  # the group's field name, in lower case (its type name is printed)
        return field.message_type.name if field.type == F.TYPE_GROUP else field.name

    def field(self, message, depth):
        rng = self.rng
        fields = list(message.fields)
        if message.full_name == TYPES[1]:
            fields.append(self.pool.FindExtensionByName("protobuf_test_messages.proto2.extension_int32"))
        if not fields or rng.random() < 0.015:
            return rng.choice(["unknown_field: 1", "no_such { }", "%d: 5" % rng.randint(1, 2**29),
                               "999: \"x\"", "12345 { 1: 2 }", "0: 1", "536870912: 1", "-1: 1", "[unknown.ext]: 1",
                               "555: 0x12345678", "556: 0x1234567812345678", "557: -5", "558: 1.5"])
        field = rng.choice(fields)
        if field.type in (F.TYPE_MESSAGE, F.TYPE_GROUP) and depth >= 4:
            return ""
        name = self.name(field)
        if field.label == F.LABEL_REPEATED and rng.random() < 0.4:
            count = rng.choice([0, 1, 2, 3])
            items = ("," + self.space()).join(self.value(field, depth) for _ in range(count))
            if rng.random() < 0.02:
                items += rng.choice([",", ", ]", ",,"])
            separator = self.separator(field)
            return name + separator + "[" + self.space() + items + self.space() + "]"
        count = rng.choice([1, 1, 1, 2]) if field.label == F.LABEL_REPEATED else 1
        if field.label != F.LABEL_REPEATED and rng.random() < 0.03:
            count = 2  # a singular field given twice
        return self.space().join(name + self.separator(field) + self.value(field, depth) for _ in range(count))

    def fields(self, message, depth):
        rng = self.rng
        count = rng.choice([0, 1, 2, 3, 4, 6]) if depth < 3 else rng.choice([0, 1, 2])
        parts = [self.field(message, depth) for _ in range(count)]
        oneof = [f for f in message.fields if f.containing_oneof is not None]
        if oneof and rng.random() < 0.04:
            for field in rng.sample(oneof, 2):
                parts.append(field.name + self.separator(field) + self.value(field, depth))
        text = ""
        for part in parts:
            if not part:
                continue
            text += part + rng.choice(["", "", "", ",", ";", " ,", ";\n"]) + self.space()
        return text

    def mutate(self, data):
        return differential.mutate_text(self.rng, data, '{}<>[]:,;"\'\\ #0-.xefn', [
            b",", b'"', b"\\", b"}", b"]", b"0", b"-", b"e", b"\x00", b"f", b".", b"\n", b"#", b"[", b"inf", b"0x",
            b":", b"{", b"<", b"1", b"\\x", b"\\u"], highest_bit=6)

    def nested(self, kind, levels):
        """`levels` messages nested through recursive_message: 100 is the limit."""
        return "recursive_message {" * levels + "}" * levels

    def next(self):
        rng = self.rng
        kind = rng.randint(0, 1)
        if rng.random() < 0.15:
            # Binary for printing alone.
            data = self.binary.message(self.binary.roots[kind], 0)
            if rng.random() < 0.1:
                data = self.binary.mutate(data)
            return kind + 2, data
        if rng.random() < 0.002:
            text = self.nested(kind, rng.choice([98, 99, 100, 101, 150]))
        else:
            text = self.fields(self.roots[kind], 0)
        data = text.encode()
        if rng.random() < 0.2:
            # The conformance request carries text in a string: mutated bytes that are not UTF-8
            # go to both answerers with U+FFFD in their place.
            data = self.mutate(data).decode("utf-8", "replace").encode()
        return kind, data


# --- Answerers ---------------------------------------------------------------------------------

class TextAnswerer(Answerer):
    """The C++ checker: text cases are read (status, binary, print or error); binary cases
    printed (status, b"", print)."""

    def request(self, kind, data):
        return struct.pack("<IB", len(data) + 1, 7 + kind) + data

    def read_answer(self):
        kind = self.kinds.pop(0)
        answer = super().read_answer()
        if answer is None:
            return None
        status, body, _ = answer
        if status == 0:
            return 0, b"", body.decode("utf-8", "replace")
        if kind >= PROTO3_BINARY:
            return 1, b"", body
        length = struct.unpack("<I", body[:4])[0]
        return 1, body[4:4 + length], body[4 + length:]

    def answer(self, cases):
        # Each answer is read knowing its case's kind; after a crash, Answerer.answer sends the
        # rest again, whose kinds are still these, in order.
        self.kinds = [kind for kind, _ in cases]
        return super().answer(cases)


class Compare(Answerer):
    """The C++ checker's compare operation: TestAllTypesProto3 with each Any's bytes made
    canonical (6), TestAllTypesProto2 (3)."""

    def request(self, kind, data):
        return struct.pack("<IB", len(data) + 1, 6 if kind % 2 == 0 else 3) + data


class TextTestee(differential.Testee):
    """swiftframe's conformance testee: text read and answered as binary (`output` protobuf) or
    text; binary cases printed as text. Answers (status, payload, error)."""

    output = PROTOBUF_OUTPUT

    def request(self, kind, data):
        if kind >= PROTO3_BINARY:
            request = self.Request(protobuf_payload=data, requested_output_format=TEXT_OUTPUT,
                                   message_type=TYPES[kind - 2], print_unknown_fields=True)
        else:
            request = self.Request(text_payload=data.decode(), requested_output_format=self.output,
                                   message_type=TYPES[kind], print_unknown_fields=True)
        body = request.SerializeToString()
        return struct.pack("<I", len(body)) + body


# Prints of the same bytes that differ on purpose (decided in main; tests of the same names):
#   "an extension prints by number", "a map entry with an undeclared enum value prints as read",
#   "an unknown field holding an over-long tag prints as bytes", and the binary run's
#   INTENDED_REENCODINGS, where the bytes decode to messages that differ in those ways.


def same_print(verdict):
    """Whether the compare verdict on a print read back says the same message: the same bytes,
    or equal for MessageDifferencer (a NaN's sign and payload do not survive text)."""
    return verdict is not None and verdict[0] in (differential.SAME_MESSAGE, differential.UNKNOWN_FIELD_ORDER)


def without_bool_maps(text):
    """A print without the entries of its maps that hold bools (map_bool_bool, map_int32_bool),
    which C++ and swiftframe read differently from binary when a bool is wider than 32 bits
    (the binary run's intended difference)."""
    return re.sub(rb"(?m)^( *)map_(bool|int32)_bool \{\n(\1  .*\n)*\1\}\n", b"", text)


def without_kept_entries(text):
    """A TestAllTypesProto2 print without the entries of its closed-enum maps (73, 74) that are
    unknown fields: swiftframe keeps such an entry's bytes as read, C++ writes the entry again
    (its key, then its value as an int32), dropping what else it held."""
    return re.sub(rb"(?m)^( *)7[34] \{\n(\1  .*\n)*\1\}\n", b"", text)


def c_unescape(text):
    """The bytes of a printed string's body (the printers' escapes: \\n \\r \\t \\" \\' \\\\ and octal)."""
    out, i = bytearray(), 0
    while i < len(text):
        if text[i] != 0x5C:
            out.append(text[i])
            i += 1
        elif text[i + 1:i + 2].isdigit():
            out.append(int(text[i + 1:i + 4], 8) & 0xFF)
            i += 4
        else:
            out.append({ord("n"): 10, ord("r"): 13, ord("t"): 9}.get(text[i + 1], text[i + 1]))
            i += 2
    return bytes(out)


def fields_with_long_tags(data):
    """Whether `data` reads as fields only when a tag may take more than 5 bytes (up to 10, as
    protobuf's UnknownFieldSet reads them when the printer tries bytes as a message), or hold
    more than 32 bits (C++ 3.21 drops the bits past the 32nd)."""
    position, long_tag = 0, False

    def varint():
        nonlocal position
        start = position
        while position < len(data) and data[position] & 0x80 and position - start < 10:
            position += 1
        if position >= len(data) or data[position] & 0x80:
            raise ValueError
        position += 1
        return sum((b & 0x7F) << (7 * k) for k, b in enumerate(data[start:position])), position - start
    try:
        while position < len(data):
            tag, size = varint()
            long_tag |= size > 5 or tag >= 1 << 32
            tag &= 0xFFFFFFFF
            wire_type = tag & 7
            if tag >> 3 == 0 or wire_type in (6, 7):
                return False
            if wire_type == 0:
                varint()
            elif wire_type == 1:
                position += 8
            elif wire_type == 5:
                position += 4
            elif wire_type == 2:
                length, _ = varint()
                position += length
            if position > len(data):
                return False
    except ValueError:
        return False
    return long_tag


def bytes_with_overlong_tag(swift, cpp):
    """Whether the prints first differ where swiftframe prints an unknown field as a string and
    C++ as a message, its bytes being fields only with a tag over 5 bytes long or past 32 bits,
    which swiftframe's reader refuses (as protobuf's message parser does, and the current
    conformance suite wants)."""
    for mine, theirs in zip(swift.split(b"\n"), cpp.split(b"\n")):
        if mine == theirs:
            continue
        match = re.fullmatch(rb'( *)([0-9]+): "(.*)"', mine)
        return bool(match) and theirs == match.group(1) + match.group(2) + b" {" and \
            fields_with_long_tags(c_unescape(match.group(3)))
    return False


def known_lines(text):
    """A print without its top-level unknown fields (`123: 4`, `123 { ... }`)."""
    return re.sub(rb"(?m)^[0-9]+ \{\n(  .*\n)*\}\n|^[0-9]+: .*\n", b"", text)


def print_class(case, swift, cpp):
    """The class of two prints of the same bytes that differ: the intended differences' lines
    are left out of both, one class after another, until the texts are the same; the class is
    the first whose lines were there."""
    normalizers = [(differential.INTENDED_REENCODINGS[differential.MAP_BOOL], without_bool_maps)]
    if case[0] == PROTO2_BINARY:
        normalizers.insert(0, ("a map entry with an undeclared enum value prints as read", without_kept_entries))
    first = None
    for name, normalize in normalizers:
        normalized = normalize(swift), normalize(cpp)
        if first is None and normalized != (swift, cpp):
            first = name
        swift, cpp = normalized
        if swift == cpp and first is not None:
            return "intended: " + first
    return "the prints of binary differ"


def error_class(error):
    """An error without its position and quoted values: the class of the refusal."""
    error = re.sub(r"^line \d+, column \d+: |^\d+:\d+: ", "", error)
    error = re.sub(r"'[^']*'|\"[^\"]*\"", "'…'", error)
    return re.sub(r"\d+", "N", error)[:120]


def main():
    args = differential.arguments(__doc__.split("\n")[0], None)
    descriptor_set, pool = differential.conformance_pool(
        args.work, "google/protobuf/empty.proto", "google/protobuf/any.proto")
    GROUP_FIELD_NAMES.update(field.name for name in TYPES for field in pool.FindMessageTypeByName(name).fields
                             if field.type == F.TYPE_GROUP)
    cases = Cases(pool, random.Random(args.seed))
    swift = TextTestee("swiftframe", [args.testee], pool)
    cpp = TextAnswerer("C++", [args.checker])
    compare = Compare("C++ compare", [args.checker])

    differences = Tally(args.work, folder="disagreements-text")
    cpp_failures = Tally(args.work, folder="disagreements-text-cpp")
    accepted = {"swiftframe": 0, "C++": 0}
    kinds = [0, 0, 0, 0]
    printed_equal = [0, 0]  # text cases, binary cases whose prints are the same text
    started, done = time.monotonic(), 0

    while done < args.cases:
        batch = [cases.next() for _ in range(min(args.batch, args.cases - done))]
        for kind, _ in batch:
            kinds[kind] += 1
        text = [i for i, (kind, _) in enumerate(batch) if kind < PROTO3_BINARY]
        binary = [i for i, (kind, _) in enumerate(batch) if kind >= PROTO3_BINARY]
        swift_read = dict(zip(text, swift.answer_as(PROTOBUF_OUTPUT, [batch[i] for i in text])))
        swift_print = dict(zip(binary, swift.answer([batch[i] for i in binary])))
        cpp_answers = cpp.answer(batch)

        both = [i for i in text if swift_read[i] and cpp_answers[i] and swift_read[i][0] and cpp_answers[i][0]]
        # swiftframe's reading against C++'s, where the bytes differ.
        to_compare = [i for i in both if swift_read[i][1] != cpp_answers[i][1]]
        verdicts = dict(zip(to_compare, compare.answer(
            [(batch[i][0], struct.pack("<I", len(cpp_answers[i][1])) + cpp_answers[i][1] + swift_read[i][1])
             for i in to_compare])))
        # The message C++ read (its encoding) printed by both; C++'s print read by swiftframe.
        # (C++'s print of the message as read from text is not the reference: a map key given
        # twice in text stays twice in the map's list form there, and prints twice.)
        from_cpp = dict(zip(both, swift.answer([(batch[i][0] + 2, cpp_answers[i][1]) for i in both])))
        cpp_print = dict(zip(both, cpp.answer([(batch[i][0] + 2, cpp_answers[i][1]) for i in both])))
        cpp_print_in_swift = dict(zip(both, swift.answer_as(PROTOBUF_OUTPUT, [(batch[i][0], cpp_print[i][2])
                                                                            for i in both if cpp_print[i]])))
        # Where the prints differ: swiftframe's print read by C++.
        differing = [i for i in both if from_cpp[i] and from_cpp[i][0] and cpp_print[i]
                     and from_cpp[i][1] != cpp_print[i][2]]
        swift_print_in_cpp = dict(zip(differing, cpp.answer([(batch[i][0], from_cpp[i][1]) for i in differing])))
        second = [(what, i, data) for what, i, data in
                  [("swift print", i, (swift_print_in_cpp[i] or (0, b""))[1]) for i in differing
                   if swift_print_in_cpp[i] and swift_print_in_cpp[i][0]] +
                  [("cpp print", i, (cpp_print_in_swift[i] or (0, b""))[1]) for i in both
                   if cpp_print_in_swift.get(i) and cpp_print_in_swift[i][0]]
                  if data != cpp_answers[i][1]]
        second_verdicts = dict(((what, i), v) for (what, i, _), v in zip(second, compare.answer(
            [(batch[i][0], struct.pack("<I", len(cpp_answers[i][1])) + cpp_answers[i][1] + data)
             for _, i, data in second])))

        for i, case in enumerate(batch):
            c = cpp_answers[i]
            if c is None:
                cpp_failures.add("C++ crashed or hung", case)
                continue
            if case[0] >= PROTO3_BINARY:
                s = swift_print[i]
                if s is None:
                    differences.add("swiftframe crashed or hung (printing)", case)
                elif s[0] and c[0]:
                    if s[1] == c[2]:
                        printed_equal[1] += 1
                    elif re.search(rb"^ *\[protobuf_test_messages\.", c[2], re.M):
                        # swiftframe prints by name the extensions its registry holds (the
                        # testee's: extension_int32, groupfield); the others (a MessageSet's) by number.
                        differences.add("intended: an extension prints by number", case)
                    elif sorted(s[1].split(b"\n")) == sorted(c[2].split(b"\n")) and \
                            known_lines(s[1]) == known_lines(c[2]):
                        # Unknown fields in another order (the numbers of the extension range,
                        # which swiftframe keeps in number order, before the other unknown fields).
                        differences.add("intended: " + differential.INTENDED_REENCODINGS[
                            differential.UNKNOWN_FIELD_ORDER], case)
                    elif bytes_with_overlong_tag(s[1], c[2]):
                        differences.add("intended: an unknown field holding an over-long tag prints as bytes", case)
                    else:
                        differences.add(print_class(case, s[1], c[2]), case)
                continue
            s = swift_read[i]
            if s is None:
                differences.add("swiftframe crashed or hung", case)
                continue
            accepted["swiftframe"] += s[0]
            accepted["C++"] += c[0]
            if s[0] != c[0]:
                if not s[0]:
                    intended = [name for name, test in INTENDED_REFUSALS.items() if test(case, s[2])]
                    name = ("intended: " + intended[0]) if intended else \
                        "swiftframe refuses where C++ accepts: " + error_class(s[2])
                else:
                    intended = [name for name, test in INTENDED_ACCEPTS.items() if test(case, c[2])]
                    name = ("intended: " + intended[0]) if intended else \
                        "swiftframe accepts where C++ refuses: " + error_class(c[2])
                    rewritten = with_default_any_prefix(case[1])
                    if not intended and rewritten != case[1]:
                        again = cpp.answer([(case[0], rewritten)])[0]
                        if again is not None and again[0]:
                            name = "intended: " + ANY_URL_OF_ITS_OWN
                differences.add(name, case)
                continue
            if not s[0]:
                continue
            if s[1] != c[1]:
                verdict = verdicts[i]
                if verdict is None:
                    cpp_failures.add("C++ crashed or hung (compare)", case)
                    continue
                if verdict[0] in differential.INTENDED_REENCODINGS:
                    differences.add("intended: " + differential.INTENDED_REENCODINGS[verdict[0]], case)
                elif verdict[0] != differential.SAME_MESSAGE:
                    differences.add("intended: a field by a reserved number" if reserved_number(case) else
                                    "swiftframe reads another message than C++", case)
                    continue
            p = from_cpp[i]
            if cpp_print[i] is None:
                cpp_failures.add("C++ crashed or hung (printing)", case)
            elif p is None:
                differences.add("swiftframe crashed or hung (printing)", case)
            elif not p[0]:
                differences.add("swiftframe cannot print the message C++ read", case)
            elif p[1] == cpp_print[i][2]:
                printed_equal[0] += 1
            else:
                again = swift_print_in_cpp[i]
                if again is None or not again[0]:
                    differences.add("the prints differ, and C++ cannot read swiftframe's", case)
                elif again[1] != c[1] and not same_print(second_verdicts.get(("swift print", i))):
                    differences.add("the prints differ, swiftframe's another message", case)
                else:
                    differences.add("the prints differ, the same message", case)
            again = cpp_print_in_swift.get(i)
            if cpp_print[i] is None:
                pass
            elif again is None or not again[0]:
                differences.add("swiftframe cannot read C++'s print: " + error_class(again[2] if again else ""), case)
            elif again[1] != c[1] and not same_print(second_verdicts.get(("cpp print", i))):
                differences.add("C++'s print is another message to swiftframe", case)
        done += len(batch)
        if done % 100_000 < args.batch:
            print("  %d cases, %.0f s" % (done, time.monotonic() - started), flush=True)

    for answerer in (swift, cpp, compare):
        answerer.close()
    seconds = time.monotonic() - started
    print("differential text run: %d cases (seed %d): text %d TestAllTypesProto3, %d TestAllTypesProto2; "
          "binary printed %d, %d; %.0f s" % (done, args.seed, *kinds, seconds))
    print("printed the same text: %d messages read from text, %d from binary" % tuple(printed_equal))
    return differential.report(accepted, differences, cpp_failures, args.work / "disagreements-text*",
                               reference_title="C++ failing on its own (for information)")


if __name__ == "__main__":
    sys.exit(main())
