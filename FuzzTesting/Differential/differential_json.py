#!/usr/bin/env python3
"""Differential JSON: swiftframe's proto3 JSON mapping against protobuf's C++ and Python ones.

Every case is JSON text for TestAllTypesProto3, made from the schema: every field kind with
its edge values (64-bit integers as strings and as numbers, exponents, "NaN" and "Infinity",
base64 standard and URL-safe with and without padding, escapes and surrogates), maps with
keys of every kind, oneofs, the well-known types (Any, Timestamp, Duration, FieldMask,
Struct/Value/ListValue, wrappers, NullValue) in their forms and near them, `null`, duplicate
keys, proto names beside JSON names, unknown names, wrong types; a share is then mutated
byte by byte. A case is read strictly, or (one in eight) skipping unknown names.

Three answerers read each case, each in a process of its own: swiftframe's conformance testee
(asked for its binary encoding and for its JSON print), protobuf's C++ runtime
(JsonStringToMessage and MessageToJsonString, in checker.cc) and Python's json_format. C++ is
the arbiter:
  - swiftframe must accept exactly what C++ accepts, except for INTENDED_ACCEPTS and
    INTENDED_REFUSALS (each has a test in the Swift test suite);
  - on a case both accept, swiftframe's binary encoding must be the message C++ read; its
    JSON print must read in C++ as that message too, and C++'s print must read in swiftframe
    as the message swiftframe read. Prints that differ in text only (the same message) are
    counted, for information.
Python's answers are compared with C++'s and reported; so is whether Python reads swiftframe's
print.

    differential_json.py --testee PATH --checker PATH --work DIR [--cases N] [--seed S]

The first few cases of every disagreement class are kept under DIR/disagreements-json/<class>/
as `<mode byte><JSON>` files (0 strict, 1 skipping unknown names). Exit status 1 when
swiftframe and C++ disagree outside INTENDED.
"""

import base64
import decimal
import json
import math
import random
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import differential  # noqa: E402  (the binary run's answerers and helpers)
from differential import Answerer, Tally, load_pool, message_class, PROTOS  # noqa: E402
from google.protobuf import json_format  # noqa: E402
from google.protobuf.descriptor import FieldDescriptor as F  # noqa: E402

ROOT = "protobuf_test_messages.proto3.TestAllTypesProto3"
JSON_OUTPUT, PROTOBUF_OUTPUT = 2, 1
JSON_IGNORE_UNKNOWN = 3  # conformance.TestCategory.JSON_IGNORE_UNKNOWN_PARSING_TEST
STRICT, LENIENT = 0, 1

# Intended differences, each with a test of that name in the Swift test suite
# (Tests/ConformanceTests/JSONDifferencesTests.swift). A refusal is recognised by swiftframe's
# error (and the input); an acceptance and another message by the input.


def plain(data):
    """The case's text with the escapes of printable ASCII resolved (\\u0041 -> A, \\/ -> /),
    so that the matchers below see names and values as written."""
    def resolve(match):
        code = int(match.group(1), 16)
        return match.group(0) if code in (0x22, 0x5C) else bytes([code])
    return re.sub(rb"\\u00([2-7][0-9a-fA-F])", resolve, data).replace(b"\\/", b"/")


def wkt_in_other_form(data):
    """Whether a Timestamp, Duration, FieldMask, Any or wrapper field holds an object or an
    array where its JSON form is a string, a number or an object."""
    try:
        document = json.loads(plain(data), object_pairs_hook=lambda pairs: ("object", pairs))
    except ValueError:
        return False
    names = ("timestamp", "duration", "fieldmask", "any", "wrapper", "listvalue", "value", "struct", "empty")

    def other(value, any_field):
        if isinstance(value, list):
            return True
        return isinstance(value, tuple) and not any_field

    def walk(node):
        if isinstance(node, list):
            return any(walk(item) for item in node)
        if not isinstance(node, tuple):
            return False
        for key, value in node[1]:
            name = key.lower().replace("_", "")
            if any(name.endswith(kind) for kind in names):
                any_field = name.endswith("any")
                if name.endswith("listvalue"):
                    values = value if isinstance(value, list) else [value]
                    if any(isinstance(item, tuple) for item in values):
                        return True
                    continue
                if name.endswith("empty"):  # an object; C++ 3.21 reads an array as an Empty too
                    values = value if isinstance(value, list) and name.startswith("repeated") else [value]
                    if any(isinstance(item, list) for item in values):
                        return True
                    continue
                if name.endswith("struct"):
                    values = value if isinstance(value, list) and name.startswith("repeated") else [value]
                    if any(isinstance(item, list) for item in values):
                        return True
                    continue
                values = value if isinstance(value, list) and name.startswith("repeated") else [value]
                if any(other(item, any_field) for item in values):
                    return True
            if walk(value):
                return True
        return False
    return walk(document)


def base64_trailing_bits(text):
    """Whether a string in the case is base64 whose last character carries bits past the data."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    for match in re.finditer(rb'"([A-Za-z0-9+/_-]+)=*"', text):
        body = match.group(1).decode().replace("-", "+").replace("_", "/")
        tail = len(body) % 4
        if tail in (2, 3) and alphabet.index(body[-1]) & (0x0F if tail == 2 else 0x03):
            return True
    return False


def rounded_by_double(error):
    """An integer out of range whose nearest double is in range (C++ converts through one)."""
    match = re.search(r"(-?[0-9][0-9.eE+-]*) is out of range$", error)
    if not match:
        return False
    try:
        exact = decimal.Decimal(match.group(1))
        return exact != decimal.Decimal(float(exact))
    except (decimal.InvalidOperation, OverflowError, ValueError):
        return False


def loose_number(case, error):
    """A number or Duration in a form C++ reads with strtod and strtoll: spaces, hexadecimal,
    a leading + or 0, a point without digits."""
    return bool(re.search(r"is not a number|a Duration is a string|is not an integer", error)) and \
        bool(re.search(rb'"[^"]*( |0x|0X|\\u0020|\\u0000)[^"]*"|"[+-]?[+0][0-9]|[0-9]\.s"', case[1]))


def fractional_integer(error):
    """An integer field given a number with a fraction that a double rounds away."""
    return bool(re.search(r"'-?[0-9]+\.[0-9]*[1-9][0-9]*([eE][+-]?[0-9]+)?' is not an integer$", error))


# A well-known type in its message form or another shape: an object for a wrapper, a
# Timestamp or Duration; an array for a FieldMask or an Any.
OTHER_FORM_ERRORS = re.compile(r"is its bare value in JSON, not an object|a Timestamp is an RFC 3339 string|"
                               r"a Duration is a string|a FieldMask is a string of paths|an Any is a JSON object|"
                               r"expected a number|a string field is read from a JSON string|"
                               r"a bool is true or false|a bytes field is read from a base64 string|"
                               r"a ListValue is a JSON array|a Struct is a JSON object|"
                               r"google\.protobuf\.Empty is read from a JSON object")


def any_out_of_order_or_odd_url(text):
    """An Any whose "value" comes before its "@type", or whose URL is not host/name in printable
    ASCII, or is written with escapes (C++ 3.21 refuses all of these)."""
    urls = re.findall(rb'"@type"\s*:\s*"([^"]*)"', text)
    if any(not re.fullmatch(rb"[\x21-\x2e\x30-\x7e]+/[\x21-\x2e\x30-\x7e]+", url) or b"\\u" in url for url in urls):
        return True
    value, kind = text.find(b'"value"'), text.find(b'"@type"')
    return 0 <= value < kind


INTENDED_REFUSALS = {
    "a field or key given twice": lambda case, error: "is given twice" in error,
    "a bool as a string": lambda case, error: error.endswith("a bool is true or false"),
    "a bare value for a repeated field": lambda case, error: error.endswith("a repeated field is read from a JSON array"),
    "null in a list or as a map value": lambda case, error: "cannot be null" in error,
    "a well-known type in another form than its JSON one":
        lambda case, error: bool(OTHER_FORM_ERRORS.search(error)) and wkt_in_other_form(case[1]),
    "an integer with an exponent or fraction, read exactly": lambda case, error: fractional_integer(error),
    "a FieldMask path with an underscore": lambda case, error: "is not in lowerCamelCase" in error,
    "an integer out of range that a double rounds into range": lambda case, error: rounded_by_double(error),
    "numbers and durations in forms JSON does not have": loose_number,
    "text that is not JSON": lambda case, error: bool(re.search(
        r"a control character in a string must be escaped|a bad escape in a string|no digits after a number's '.'|"
        r"a number with a leading zero|a number without digits|expected a quoted member name|"
        r"unexpected character where a value should be|more after the JSON value", error)),
    "a Timestamp out of range once its offset is applied": lambda case, error: "the Timestamp is out of range" in error,
    "a Timestamp in a form RFC 3339 does not have": lambda case, error: "a Timestamp is an RFC 3339 string" in error
        and bool(re.search(rb'T[0-9:]+\.[0-9]{10,}|"[0-9]{1,3}-|"[0-9]+-[0-9]-|[+-][0-9]:[0-9]|"value"\s*:\s*null',
                           case[1])),
    "an empty name in a nested message": lambda case, error: "has no field ''" in error,
}
INTENDED_ACCEPTS = {
    "an Any with @type after value, or a URL of another form": lambda case: any_out_of_order_or_odd_url(case[1]),
    "an integer in a string, with an exponent or a fraction, or -0":
        lambda case: bool(re.search(rb'"-?[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?"', case[1])),
    "an empty name, skipped as unknown": lambda case: case[0] == LENIENT and bool(re.search(rb'""\s*:', case[1])),
    "an integer with an exponent or fraction, read exactly":
        lambda case: bool(re.search(rb"[0-9][.eE][0-9+-]", case[1])),
    "base64 mixing the standard and URL-safe alphabets":
        lambda case: bool(re.search(rb'"[A-Za-z0-9=]*[-_][A-Za-z0-9=_-]*[+/][^"]*"|"[A-Za-z0-9=]*[+/][A-Za-z0-9=+/]*[-_][^"]*"',
                                    case[1])),
    "base64 with bits set past the data": lambda case: base64_trailing_bits(case[1]),
    "an Any holding a ListValue": lambda case: bool(re.search(rb'"@type"\s*:\s*"[^"]*[./]ListValue"', case[1])),
}
INTENDED_MESSAGES = {
    # protobuf 35's conformance suite (IgnoreUnknownEnumStringValueInMap); C++ 3.21 keeps it at 0.
    "with unknown names ignored, a map entry whose enum value is an unknown name is dropped":
        lambda case: case[0] == LENIENT and b'"UNKNOWN_NAME"' in case[1]
        and bool(re.search(rb'(?i)"map_?\w*_?(nested|foreign)_?enum"', case[1])),
    "an integer with an exponent or fraction, read exactly": lambda case: bool(re.search(rb"[0-9][.eE]", case[1])),
    "-0 is a negative zero": lambda case: bool(re.search(rb"-0(?![.0-9])", case[1])),
    "FieldMask paths as Python reads them": lambda case: bool(re.search(rb'(?i)field_?mask', case[1])),
    "a NullValue number other than 0 prints as null": lambda case: bool(re.search(rb'(?i)null_?value"\s*:\s*[1-9-]', case[1])),
}


# --- The Python answerer (a child process) ----------------------------------------------------

def answer_with_python(descriptor_set_path):
    """checker.cc's json operation (4 strict, 5 skipping unknown names), answered with
    json_format: status, then u32 length and the deterministic serialization, then the
    print."""
    pool = load_pool(Path(descriptor_set_path).read_bytes())
    root = message_class(pool, ROOT)
    stdout = sys.stdout.buffer
    for body in differential.requests():
        operation, output, status = body[0], b"", 0
        try:
            message = root()
            json_format.Parse(body[1:].decode("utf-8"), message, ignore_unknown_fields=operation == 5,
                              descriptor_pool=pool)
            binary = message.SerializeToString(deterministic=True)
            output, status = struct.pack("<I", len(binary)) + binary, 2
            output += json_format.MessageToJson(message, indent=None, descriptor_pool=pool).encode()
            status = 1
        except Exception:
            if status == 0:
                output = b""
        stdout.write(struct.pack("<BI", status, len(output)) + output)
        stdout.flush()


# --- JSON text ----------------------------------------------------------------------------------

def quote(text):
    """`text` as a JSON string, with escapes chosen at random (\\u forms, surrogate pairs)."""
    return '"' + "".join(escape_char(ch) for ch in text) + '"'


RNG = random.Random()


def escape_char(ch):
    code = ord(ch)
    if ch == '"':
        return '\\"'
    if ch == "\\":
        return "\\\\"
    if code < 0x20:
        return RNG.choice(["\\u%04x" % code, "\\u%04X" % code]) if ch not in "\n\t" or RNG.random() < 0.5 else \
            {"\n": "\\n", "\t": "\\t"}[ch]
    if RNG.random() < 0.03:
        if code >= 0x10000:
            code -= 0x10000
            return "\\u%04x\\u%04x" % (0xD800 + (code >> 10), 0xDC00 + (code & 0x3FF))
        return "\\u%04x" % code
    if ch == "/" and RNG.random() < 0.5:
        return "\\/"
    return ch


class Cases:
    """JSON for TestAllTypesProto3, drawn from its descriptor."""

    def __init__(self, pool, rng):
        global RNG
        RNG = self.rng = rng
        self.root = pool.FindMessageTypeByName(ROOT)
        self.pool = pool
        self.any_types = [ROOT, "google.protobuf.Duration", "google.protobuf.Timestamp", "google.protobuf.FieldMask",
                          "google.protobuf.Struct", "google.protobuf.Value", "google.protobuf.ListValue",
                          "google.protobuf.Any", "google.protobuf.Empty", "google.protobuf.Int32Value",
                          "google.protobuf.Int64Value", "google.protobuf.UInt64Value", "google.protobuf.BoolValue",
                          "google.protobuf.StringValue", "google.protobuf.BytesValue", "google.protobuf.DoubleValue",
                          "google.protobuf.FloatValue", "google.protobuf.UInt32Value"]

    # Numbers ------------------------------------------------------------------------------------

    def integer_text(self, low, high):
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            value = rng.choice([0, 1, -1, low, high, low - 1, high + 1, 2**53, 2**53 + 1, -2**53 - 1, 2**31, 2**32,
                                2**63, 2**64, 10**20, 123456789])
        elif roll < 0.8:
            value = rng.randint(-1000, 1000)
        else:
            value = rng.randint(low, high)
        form = rng.random()
        if form < 0.55:
            text = str(value)
        elif form < 0.85:
            return quote(str(value)) if rng.random() < 0.9 else \
                quote(rng.choice([" %d" % value, "%d " % value, "+%d" % value, "0%d" % value, "0x10", "1e2", "1.0", ""]))
        elif form < 0.9:
            text = "%d.0" % value if rng.random() < 0.5 else "%d.%d" % (value, rng.choice([0, 5, 50]))
        elif form < 0.95 and value:
            # An exponent: 1200 as 1.2e3, 12e2, 120000e-2.
            digits = str(abs(value)).rstrip("0") or "0"
            exponent = len(str(abs(value))) - 1
            text = ("-" if value < 0 else "") + digits[0] + ("." + digits[1:] if len(digits) > 1 else "") + \
                rng.choice(["e", "E", "e+"]) + str(exponent)
        else:
            text = rng.choice(["-0", "0.0", "1e0", "1E1", "1e-1", "1e400", "-1e400", "0e5", "1.5", "1e19", "9.2e18"])
        return quote(text) if rng.random() < 0.1 else text

    def float_text(self, single):
        rng = self.rng
        roll = rng.random()
        if roll < 0.2:
            return quote(rng.choice(["NaN", "Infinity", "-Infinity", "nan", "inf", "-inf", "infinity", "1.5", "1e5",
                                     " 1", "-0", "0x1p3", ""]))
        if roll < 0.55:
            value = rng.choice([0.0, -0.0, 1.5, -2.25, 0.1, 1e-7, 3.4028234663852886e38, 3.4028235e38, 3.5e38,
                                1.17549435e-38, 1.4e-45, 1e-46, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308,
                                float(2**53), float(2**64), 123456.789])
            text = repr(value)
        elif roll < 0.75:
            text = repr(rng.uniform(-1e6, 1e6) if rng.random() < 0.5 else rng.random() * 10 ** rng.randint(-40, 40))
        else:
            text = rng.choice(["1e309", "-1e309", "1e-400", "1E2", "1e+2", "-0.0", "0", "-0", "1.0e-45", "3.40282347e+38",
                               "3.4028235677973366e38", "3.402823567797337e38", "340282356779733661637539395458142568448",
                               "1" + "0" * 400, "0." + "0" * 400 + "1", str(2**64), str(2**63 - 1)])
        text = text.replace("inf", "1e999") if "inf" in text else text
        if text == "nan":
            text = "0"
        return quote(text) if rng.random() < 0.1 else text

    # Strings and bytes ---------------------------------------------------------------------------

    def unicode_text(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.5:
            return "".join(rng.choice("abcxyz _-09./") for _ in range(rng.randint(0, 10)))
        return "".join(chr(rng.choice([0x41, 0x22, 0x5C, 0x2F, 0x0A, 0x09, 0x01, 0x1F, 0x7F, 0xE9, 0x3B1, 0x4E2D, 0xFFFD,
                                       0xFEFF, 0x2028, 0x1F600, 0x10FFFF]))
                       for _ in range(rng.randint(0, 6)))

    def string_value(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.9:
            return quote(self.unicode_text())
        # Escapes protobuf refuses, or might: lone surrogates, bad escapes, raw control bytes.
        return '"' + rng.choice(["\\ud800", "\\udc00x", "\\ud83d\\u0041", "\\x41", "\\U0001F600", "\\u12", "\t",
                                 "\\u0000", "\\ud83d\\ude00", "\\'", "a\\", "\x7f"]) + '"'

    def bytes_value(self):
        rng = self.rng
        data = bytes(rng.getrandbits(8) for _ in range(rng.choice([0, 1, 2, 3, 4, 5, 8, 13])))
        text = base64.b64encode(data).decode()
        roll = rng.random()
        if roll < 0.3:
            text = base64.urlsafe_b64encode(data).decode()
        if rng.random() < 0.35:
            text = text.rstrip("=")
        if rng.random() < 0.08:
            text = rng.choice(["=", "A", "AB=", "A===", "AB==C", "AB CD", "AB\\nCD", "*", "AB=D", "-_+/", "AAA=",
                               "AAB=", "AB==" * 2, "YQ=", "YQ==="])
        return '"' + text + '"'

    # Field values --------------------------------------------------------------------------------

    def scalar(self, field):
        kind = field.type
        if kind in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32):
            return self.integer_text(-2**31, 2**31 - 1)
        if kind in (F.TYPE_UINT32, F.TYPE_FIXED32):
            return self.integer_text(0, 2**32 - 1)
        if kind in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64):
            return self.integer_text(-2**63, 2**63 - 1)
        if kind in (F.TYPE_UINT64, F.TYPE_FIXED64):
            return self.integer_text(0, 2**64 - 1)
        if kind in (F.TYPE_FLOAT, F.TYPE_DOUBLE):
            return self.float_text(kind == F.TYPE_FLOAT)
        if kind == F.TYPE_BOOL:
            return self.rng.choice(["true", "false", "true", "false", '"true"', '"false"', "1", "0", '"1"', "True"])
        if kind == F.TYPE_STRING:
            return self.string_value()
        if kind == F.TYPE_BYTES:
            return self.bytes_value()
        if kind == F.TYPE_ENUM:
            return self.enum_value(field.enum_type)
        raise ValueError(kind)

    def enum_value(self, enum):
        rng = self.rng
        if enum.full_name == "google.protobuf.NullValue":
            return rng.choice(["null", "null", '"NULL_VALUE"', "0", "1", '"null"', '"NULL"'])
        names = [v.name for v in enum.values]
        roll = rng.random()
        if roll < 0.6:
            return quote(rng.choice(names))
        if roll < 0.8:
            return str(rng.choice([v.number for v in enum.values] + [3, 99, -2, 2**31 - 1, -2**31, 2**31]))
        return rng.choice([quote(rng.choice(names).lower()), '"UNKNOWN_NAME"', '""', quote(str(enum.values[0].number)),
                           "1.0", "1.5", "true"])

    def value_of(self, field, depth):
        """JSON for one value of a singular field (or an element of a repeated one)."""
        if field.type == F.TYPE_MESSAGE:
            return self.message_value(field.message_type, depth + 1)
        return self.scalar(field)

    def wrong_type(self):
        return self.rng.choice(['"x"', "1", "true", "[]", "{}", "[1]", '{"a": 1}', "1.5", '""'])

    def field_value(self, field, depth):
        rng = self.rng
        roll = rng.random()
        if roll < 0.04:
            return "null"
        if roll < 0.07:
            return self.wrong_type()
        if field.message_type and field.message_type.GetOptions().map_entry:
            return self.map_value(field, depth)
        if field.label == F.LABEL_REPEATED:
            count = rng.choice([0, 1, 1, 2, 3, 5])
            elements = [self.value_of(field, depth) for _ in range(count)]
            if elements and rng.random() < 0.03:
                elements[rng.randrange(len(elements))] = "null"
            if rng.random() < 0.02:
                return elements[0] if elements else "1"  # a bare value for a repeated field
            return "[" + self.comma().join(elements) + "]"
        return self.value_of(field, depth)

    def map_value(self, field, depth):
        rng = self.rng
        key, value = field.message_type.fields_by_number[1], field.message_type.fields_by_number[2]
        members = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            members.append((self.map_key(key), self.value_of(value, depth) if rng.random() < 0.97 else "null"))
        if members and rng.random() < 0.05:
            members.append(members[0])  # one key twice
        return self.object(members)

    def map_key(self, key):
        rng = self.rng
        kind = key.type
        if kind == F.TYPE_BOOL:
            return quote(rng.choice(["true", "false", "true", "false", "1", "0", "True", ""]))
        if kind == F.TYPE_STRING:
            return quote(self.unicode_text())
        text = self.integer_text(-2**63 if kind in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64) else
                                 -2**31 if kind in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32) else 0,
                                 2**63 - 1 if kind in (F.TYPE_INT64, F.TYPE_SINT64, F.TYPE_SFIXED64) else
                                 2**64 - 1 if kind in (F.TYPE_UINT64, F.TYPE_FIXED64) else
                                 2**31 - 1 if kind in (F.TYPE_INT32, F.TYPE_SINT32, F.TYPE_SFIXED32) else 2**32 - 1)
        return text if text.startswith('"') else quote(text)

    # Messages and well-known types ------------------------------------------------------------

    def message_value(self, message, depth):
        name = message.full_name
        special = {
            "google.protobuf.Timestamp": self.timestamp,
            "google.protobuf.Duration": self.duration,
            "google.protobuf.FieldMask": self.field_mask,
            "google.protobuf.Struct": lambda: self.struct(depth),
            "google.protobuf.Value": lambda: self.json_value(depth),
            "google.protobuf.ListValue": lambda: self.list_value(depth),
            "google.protobuf.Any": lambda: self.any(depth),
            "google.protobuf.Empty": lambda: self.rng.choice(["{}", "{}", "{}", '{"a": 1}', "[]", "null"]),
        }.get(name)
        if special:
            return special()
        if name.startswith("google.protobuf.") and name.endswith("Value"):
            return self.wrapper(message, depth)
        return self.message(message, depth)

    def wrapper(self, message, depth):
        rng = self.rng
        inner = message.fields_by_name["value"]
        roll = rng.random()
        if roll < 0.9:
            return self.scalar(inner)
        if roll < 0.95:
            return "{" + '"value": ' + self.scalar(inner) + "}"  # the object form, which is not JSON's
        return self.wrong_type()

    def timestamp(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.1:
            return rng.choice(["0", "{}", '""', '"now"', '{"seconds": 1}', "null"])
        year = rng.choice([1, 1, 1969, 1970, 1970, 2000, 2024, 9999, 9999, 0, 10000])
        month, day = rng.choice([(1, 1), (12, 31), (2, 29), (2, 28), (6, 15), (13, 1), (2, 30), (0, 1), (4, 31)])
        hour, minute, second = rng.choice([(0, 0, 0), (23, 59, 59), (12, 30, 15), (24, 0, 0), (23, 60, 0), (23, 59, 60)])
        date = "%04d-%02d-%02d" % (year, month, day) if year < 10000 else "%d-%02d-%02d" % (year, month, day)
        if rng.random() < 0.03:
            date = rng.choice(["%d-%02d-%02d" % (year, month, day), "%04d-%d-%02d" % (year, month, day)])
        text = date + rng.choice(["T", "T", "T", "t", " "]) + "%02d:%02d:%02d" % (hour, minute, second)
        text += rng.choice(["", "", "." + "0" * 3, "." + str(rng.randint(0, 999)).zfill(3),
                            "." + str(rng.randint(0, 999999)).zfill(6), "." + str(rng.randint(0, 999999999)).zfill(9),
                            "." + str(rng.randint(0, 9)), "." + str(rng.randint(0, 99999)).zfill(5),
                            ".1234567890", ".", ".999999999"])
        text += rng.choice(["Z", "Z", "Z", "+00:00", "-00:00", "+08:00", "-08:30", "+23:59", "-23:59", "+24:00",
                            "z", "", "+0800", "+08", "+08:60"])
        return quote(text) if rng.random() < 0.97 else text

    def duration(self):
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            return rng.choice(["1", "{}", '""', '"s"', '"1"', '{"seconds": 1}', "null", '"1m"'])
        seconds = rng.choice([0, 1, -1, 59, 3600, 315576000000, 315576000001, -315576000000, -315576000001,
                              2**63 - 1, rng.randint(-10**6, 10**6)])
        sign = "-" if seconds < 0 or (seconds == 0 and rng.random() < 0.2) else ""
        text = sign + str(abs(seconds))
        text += rng.choice(["", "", ".0", ".5", "." + str(rng.randint(0, 999)).zfill(3),
                            "." + str(rng.randint(0, 999999)).zfill(6), "." + str(rng.randint(0, 999999999)).zfill(9),
                            ".1234567890", ".", ".000000001", ".999999999"])
        text += rng.choice(["s", "s", "s", "S", "", " s", "ms"])
        if rng.random() < 0.03:
            text = rng.choice(["+1s", "1e3s", "--1s", "- 1s", "0x10s", "1.5e0s", ".5s", "1.s", "-.5s"])
        return quote(text)

    def field_mask(self):
        rng = self.rng
        paths = []
        for _ in range(rng.choice([0, 1, 1, 2, 3])):
            parts = [rng.choice(["fooBar", "foo", "a", "bazQux2", "x1Y", "foo_bar", "FooBar", "fooBAR", "a1b", "_a",
                                 "", "foo.bar", "fooBar_", "a-b", "é"])
                     for _ in range(rng.choice([1, 1, 2]))]
            paths.append(".".join(parts))
        text = ",".join(paths)
        if rng.random() < 0.05:
            text = rng.choice([",", "a,", ",a", "a,,b", " a", "a b"])
        return quote(text) if rng.random() < 0.97 else rng.choice(['["a"]', '{"paths": ["a"]}', "1"])

    def json_value(self, depth):
        rng = self.rng
        roll = rng.random()
        if depth > 4 or roll < 0.6:
            return rng.choice(["null", "true", "false", "0", "-1.5", "1e300", "1e309", '"NaN"', '"Infinity"',
                               "-0", "123456789012345678901234567890", "5e-324", "1.0"]
                              + [self.string_value()] * 4)
        if roll < 0.8:
            return self.struct(depth)
        return self.list_value(depth)

    def struct(self, depth):
        rng = self.rng
        if depth > 5:
            return "{}"
        members = [(quote(self.unicode_text() if rng.random() < 0.3 else rng.choice(["a", "b", "k", "@type", "value", ""])),
                    self.json_value(depth + 1)) for _ in range(rng.choice([0, 1, 2, 3]))]
        if members and rng.random() < 0.05:
            members.append(members[0])
        return self.object(members) if rng.random() < 0.97 else rng.choice(["[]", "1", '"s"'])

    def list_value(self, depth):
        rng = self.rng
        if depth > 5:
            return "[]"
        elements = [self.json_value(depth + 1) for _ in range(rng.choice([0, 1, 2, 3]))]
        return "[" + self.comma().join(elements) + "]" if rng.random() < 0.97 else rng.choice(["{}", "1", "null"])

    def any(self, depth):
        rng = self.rng
        roll = rng.random()
        if roll < 0.05 or depth > 4:
            return rng.choice(["{}", '{"@type": ""}', '{"@type": "type.googleapis.com/"}', "{}", '{"value": 1}',
                               '{"@type": "type.googleapis.com/unknown.Type"}', '{"@type": 1}', "[]"])
        type_name = rng.choice(self.any_types)
        prefix = rng.choice(["type.googleapis.com/"] * 8 + ["example.com/x/", "/", "", "type.googleapis.com//"])
        url = (quote(prefix + type_name), )[0]
        message = self.pool.FindMessageTypeByName(type_name)
        if type_name == ROOT:
            members = self.members(message, depth + 1)
        else:
            value = self.message_value(message, depth + 1)
            if type_name == "google.protobuf.Empty" and rng.random() < 0.5:
                members = [] if rng.random() < 0.7 else [('"value"', "{}")]
            elif type_name == "google.protobuf.Empty":
                members = [('"value"', value)]
            else:
                members = [('"value"', value)] if rng.random() < 0.95 else []
        if rng.random() < 0.03:
            members.append(('"extra"', "1"))
        members.insert(rng.randint(0, len(members)) if rng.random() < 0.3 else 0, ('"@type"', url))
        if rng.random() < 0.02:
            members.append(('"@type"', url))
        return self.object(members)

    def names(self, field):
        """The keys a field may be written with: its JSON name, its proto name, rarely others."""
        rng = self.rng
        roll = rng.random()
        if roll < 0.75:
            return quote(field.json_name)
        if roll < 0.97:
            return quote(field.name)
        return quote(rng.choice([field.name.upper(), field.json_name[0].upper() + field.json_name[1:],
                                 field.json_name.lower(), field.name + "_"]))

    def members(self, message, depth):
        rng = self.rng
        count = rng.choice([0, 1, 1, 2, 3, 4, 6]) if depth < 2 else rng.choice([0, 1, 2])
        fields = list(message.fields)
        members = []
        for _ in range(count):
            if rng.random() < 0.04 or not fields:
                members.append((quote(rng.choice(["unknownField", "optional_int33", "", "@type", "[ext]", "a.b",
                                                  "optionalint32"])),
                                rng.choice(["1", "null", '{"a": [1, {}]}', '"x"', "[]"])))
                continue
            field = rng.choice(fields)
            if field.type == F.TYPE_MESSAGE and depth >= 4 and not field.message_type.GetOptions().map_entry:
                continue
            members.append((self.names(field), self.field_value(field, depth)))
        if members and rng.random() < 0.04:
            members.append(members[rng.randrange(len(members))])  # a key given twice
        if rng.random() < 0.05:
            # A field by its JSON name and by its proto name, or two members of the oneof.
            pair = rng.choice([("optionalInt32", "optional_int32"), ("oneofUint32", "oneofString"),
                               ("oneofNullValue", "oneofUint32"), ("oneofNestedMessage", "oneof_nested_message")])
            members.append((quote(pair[0]), "1" if "String" not in pair[0] else '"a"'))
            members.append((quote(pair[1]), "null" if rng.random() < 0.3 else ('"s"' if "String" in pair[1] else "2")))
        return members

    def message(self, message, depth):
        if depth > 6:
            return "{}"
        return self.object(self.members(message, depth))

    def comma(self):
        return self.rng.choice([",", ",", ",", ", ", " ,\n "])

    def object(self, members):
        rng = self.rng
        colon = rng.choice([":", ":", ": ", " : "])
        text = "{" + self.comma().join(key + colon + value for key, value in members) + "}"
        return text if rng.random() < 0.95 else rng.choice([" ", "\n", "\t", "\r\n"]) + text + rng.choice(["", " ", "\n"])

    def nested(self, levels):
        """`levels` objects nested through recursiveMessage (or Struct values): 100 is the limit."""
        rng = self.rng
        if rng.random() < 0.5:
            return '{"recursiveMessage":' * levels + "{}" + "}" * levels
        return '{"optionalValue":' + "[" * levels + "]" * levels + "}"

    def mutate(self, data):
        return differential.mutate_text(self.rng, data, '{}[]:,"\\ 0-e.nt', [
            b",", b'"', b"\\", b"}", b"]", b"0", b"-", b"e", b"\x00", b"\xff", b"\xc3", b"null", b'"a":1', b"/*x*/"],
            highest_bit=7)

    def next(self):
        rng = self.rng
        mode = LENIENT if rng.random() < 0.125 else STRICT
        if rng.random() < 0.003:
            text = self.nested(rng.choice([31, 32, 33, 63, 64, 65, 97, 98, 99, 100, 101, 150]))
        else:
            text = self.message(self.root, 0)
        data = text.encode()
        if rng.random() < 0.2:
            # The conformance request carries JSON in a string: mutated bytes that are not UTF-8
            # go to every answerer with U+FFFD in their place (FuzzJSON reads bytes that are not).
            data = self.mutate(data).decode("utf-8", "replace").encode()
        return mode, data


# --- Answerers ---------------------------------------------------------------------------------

class JSONAnswerer(Answerer):
    """The C++ checker or the Python answerer, asked the json operation: (status, binary, print)."""

    def request(self, mode, data):
        return struct.pack("<IB", len(data) + 1, 4 + mode) + data

    def read_answer(self):
        answer = super().read_answer()
        if answer is None:
            return None
        status, body, _ = answer
        if status == 0:
            return 0, b"", b""
        length = struct.unpack("<I", body[:4])[0]
        return status, body[4:4 + length], body[4 + length:]


class Compare(Answerer):
    """The C++ checker's compare operation on two TestAllTypesProto3 encodings, each Any's bytes
    made canonical (C++ writes an Any read from JSON in the JSON's order)."""

    def request(self, _, data):
        return struct.pack("<IB", len(data) + 1, 6) + data


class JSONTestee(differential.Testee):
    """swiftframe's conformance testee, sent JSON; `output` chooses what it answers with.
    Answers (status, payload, error): status 1 read and written, 0 refused, 2 read but the
    output failed."""

    output = PROTOBUF_OUTPUT

    def request(self, mode, data):
        request = self.Request(json_payload=data.decode(),
                               requested_output_format=self.output, message_type=ROOT,
                               test_category=JSON_IGNORE_UNKNOWN if mode == LENIENT else 0)
        body = request.SerializeToString()
        return struct.pack("<I", len(body)) + body


def print_difference(case, name):
    """A print that reads as another message: intended when the input holds a NullValue number
    other than 0 (its only JSON form is null, which reads as 0, in C++ as in swiftframe)."""
    test = INTENDED_MESSAGES["a NullValue number other than 0 prints as null"]
    return "intended: a NullValue number other than 0 prints as null" if test((case[0], plain(case[1]))) else name


def error_class(error):
    """swiftframe's error without its path, offset and quoted values: the class of the refusal."""
    error = re.sub(r"^.*? \(byte \d+\): ", "", error, flags=re.S)
    error = re.sub(r"'[^']*'", "'…'", error)
    return re.sub(r"\d+", "N", error)[:120]


def main():
    args = differential.arguments(__doc__.split("\n")[0], answer_with_python)
    if args is None:
        return 0
    descriptor_set, pool = differential.conformance_pool(args.work, "google/protobuf/empty.proto")
    cases = Cases(pool, random.Random(args.seed))
    swift = JSONTestee("swiftframe", [args.testee], pool)
    cpp = JSONAnswerer("C++", [args.checker])
    compare = Compare("C++ compare", [args.checker])
    python = JSONAnswerer("Python", [sys.executable, __file__, "--answer", str(descriptor_set)])

    differences = Tally(args.work, folder="disagreements-json")
    python_differences = Tally(args.work, folder="disagreements-json-python")
    information = Tally(args.work, folder="disagreements-json-text")
    accepted = {"swiftframe": 0, "C++": 0, "Python": 0}
    modes = [0, 0]
    started, done = time.monotonic(), 0

    while done < args.cases:
        batch = [cases.next() for _ in range(min(args.batch, args.cases - done))]
        for mode, _ in batch:
            modes[mode] += 1
        swift_binary = swift.answer_as(PROTOBUF_OUTPUT, batch)
        swift_json = swift.answer_as(JSON_OUTPUT, batch)
        cpp_answers, python_answers = cpp.answer(batch), python.answer(batch)

        both = [i for i in range(len(batch)) if swift_binary[i] and cpp_answers[i] and swift_binary[i][0] == 1
                and cpp_answers[i][0] >= 1]
        # swiftframe's encoding against C++'s message, where the bytes differ.
        to_compare = [i for i in both if swift_binary[i][1] != cpp_answers[i][1]]
        verdicts = dict(zip(to_compare, compare.answer(
            [(0, struct.pack("<I", len(cpp_answers[i][1])) + cpp_answers[i][1] + swift_binary[i][1]) for i in to_compare])))
        # swiftframe's print read by C++ and by Python; C++'s print read by swiftframe.
        printed = [i for i in both if swift_json[i] and swift_json[i][0] == 1]
        swift_print_in_cpp = dict(zip(printed, cpp.answer([(STRICT, swift_json[i][1]) for i in printed])))
        swift_print_in_python = dict(zip(printed, python.answer([(STRICT, swift_json[i][1]) for i in printed])))
        cpp_printed = [i for i in both if cpp_answers[i][0] == 1]
        cpp_print_in_swift = dict(zip(cpp_printed, swift.answer_as(PROTOBUF_OUTPUT, [(STRICT, cpp_answers[i][2])
                                                                                    for i in cpp_printed])))
        # Messages to compare in C++ a second time (their bytes differ from C++'s own).
        second = []
        for i in printed:
            again = swift_print_in_cpp[i]
            if again and again[0] >= 1 and again[1] != cpp_answers[i][1]:
                second.append(("swift print", i, again[1]))
        for i in cpp_printed:
            again = cpp_print_in_swift[i]
            if again and again[0] == 1 and again[1] != swift_binary[i][1]:
                second.append(("cpp print", i, again[1]))
        for i, p in enumerate(python_answers):
            if p and p[0] >= 1 and cpp_answers[i] and cpp_answers[i][0] >= 1 and p[1] != cpp_answers[i][1]:
                second.append(("python", i, p[1]))
        second_verdicts = dict(((what, i), v) for (what, i, _), v in zip(second, compare.answer(
            [(0, struct.pack("<I", len(cpp_answers[i][1])) + cpp_answers[i][1] + data) for _, i, data in second])))

        for i, case in enumerate(batch):
            s, sj, c, p = swift_binary[i], swift_json[i], cpp_answers[i], python_answers[i]
            if s is None or sj is None:
                differences.add("swiftframe crashed or hung", case)
                continue
            if c is None:
                # protobuf 3.21's JSON reader aborts on some input (a CHECK in proto_writer.cc,
                # reading an Any with a member after "value" while skipping unknown names).
                python_differences.add("C++ crashed or hung", case)
                continue
            s_ok, c_ok = s[0] >= 1, c[0] >= 1
            accepted["swiftframe"] += s_ok
            accepted["C++"] += c_ok
            if p is None:
                python_differences.add("Python crashed or hung", case)
            else:
                accepted["Python"] += p[0] >= 1
                if (p[0] >= 1) != c_ok:
                    python_differences.add("Python %s where C++ %s" % (
                        "accepts" if p[0] else "refuses", "refuses" if p[0] else "accepts"), case)
                elif c_ok and p[1] != c[1] and (second_verdicts.get(("python", i)) or (0,))[0] != 1:
                    python_differences.add("Python and C++ read different messages", case)
            if s_ok != c_ok:
                if not s_ok:
                    intended = [name for name, test in INTENDED_REFUSALS.items() if test((case[0], plain(case[1])), s[2])]
                    name = ("intended: " + intended[0]) if intended else \
                        "swiftframe refuses where C++ accepts: " + error_class(s[2])
                else:
                    intended = [name for name, test in INTENDED_ACCEPTS.items()
                                if test((case[0], plain(case[1]))) or test(case)]
                    name = ("intended: " + intended[0]) if intended else "swiftframe accepts where C++ refuses"
                differences.add(name, case)
                continue
            if not s_ok:
                continue
            if s[0] == 2 or sj[0] != 1:
                differences.add("swiftframe reads but cannot print: " + error_class(sj[2]), case)
            if c[0] == 2:
                information.add("C++ reads but cannot print", case)
            if s[1] != c[1]:
                verdict = verdicts[i]
                if verdict is None:
                    python_differences.add("C++ crashed or hung", case)
                    continue
                if verdict[0] in differential.INTENDED_REENCODINGS:
                    differences.add("intended: " + differential.INTENDED_REENCODINGS[verdict[0]], case)
                elif verdict[0] != differential.SAME_MESSAGE:
                    intended = [name for name, test in INTENDED_MESSAGES.items() if test((case[0], plain(case[1])))]
                    differences.add(("intended: " + intended[0]) if intended else
                                    "swiftframe reads another message than C++", case)
                    continue
            if i in swift_print_in_cpp:
                again = swift_print_in_cpp[i]
                if again is None:
                    python_differences.add("C++ crashed or hung", case)
                elif again[0] == 0:
                    differences.add("C++ cannot read swiftframe's print", case)
                elif again[1] != c[1] and (second_verdicts[("swift print", i)] or (0,))[0] != 1:
                    # -0.0 prints as -0 (as C++ prints it), which C++ reads as +0.
                    if re.search(rb"[\[:,]-0[,\]}]", swift_json[i][1]):
                        differences.add("intended: -0 is a negative zero", case)
                    else:
                        differences.add(print_difference(case, "swiftframe's print is another message to C++"), case)
                python_again = swift_print_in_python[i]
                if p and p[0] >= 1 and python_again is not None and python_again[0] == 0:
                    python_differences.add("Python cannot read swiftframe's print", case)
                if c[0] == 1 and sj[1] != c[2]:
                    information.add("the prints differ in text", case)
            if i in cpp_print_in_swift:
                again = cpp_print_in_swift[i]
                if not again or again[0] == 0:
                    differences.add("swiftframe cannot read C++'s print: " + error_class(again[2] if again else ""), case)
                elif again[1] != s[1] and (second_verdicts[("cpp print", i)] or (0,))[0] != 1:
                    differences.add(print_difference(case, "C++'s print is another message to swiftframe"), case)
        done += len(batch)
        if done % 100_000 < args.batch:
            print("  %d cases, %.0f s" % (done, time.monotonic() - started), flush=True)

    for answerer in (swift, cpp, compare, python):
        answerer.close()
    seconds = time.monotonic() - started
    print("differential JSON run: %d cases (seed %d): %d strict, %d skipping unknown names, %.0f s"
          % (done, args.seed, modes[0], modes[1], seconds))
    return differential.report(accepted, differences, python_differences, args.work / "disagreements-json*", information)


if __name__ == "__main__":
    sys.exit(main())
