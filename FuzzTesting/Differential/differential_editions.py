#!/usr/bin/env python3
"""Differential decoding of the editions test messages: swiftframe against protobuf's upb runtime.

The same cases as differential.py (drawn from the schemas, a quarter mutated byte by byte), for
the messages written as edition 2023 files: the editions copies of TestAllTypesProto3 and
TestAllTypesProto2, and TestAllTypesEdition2023 (delimited messages, packed and expanded
repeated fields, closed and open enums, legacy required fields). protobuf's C++ 3.21 cannot read
an editions descriptor, so the arbiter is protobuf's Python package 7.35.1, which parses with
upb, in a process of its own (a crash is counted, the process restarted):
  - swiftframe must accept exactly what upb accepts, but for the intended differences
    (INTENDED_REFUSALS, and a fault inside an extension field, which swiftframe decodes when
    the extension is read: recognised by upb accepting the input without extension fields);
  - on an accepted case, swiftframe's re-encoding must parse in upb to the message upb parsed
    from the input: the same deterministic serialization, or a message upb calls equal (unknown
    fields in another order); or, where upb reads the input otherwise than protobuf's C++
    runtime, which swiftframe follows (MAP_ENTRY_UNKNOWN, CLOSED_ENUM_NUMBER), to the message
    upb parses from the input read as C++ reads it.

Run it with a python3 whose google.protobuf is 7.35.1 (`make differential-editions` makes a
virtual environment with it under .build/differential), and protoc 35.1 on the PATH or in
PROTOC35:

    differential_editions.py --testee PATH --work DIR [--cases N] [--seed S]

Prints the figures; the first few cases of every disagreement class are kept under
DIR/disagreements-editions/<class>/ as `<kind byte><input>` files (the kind is the index in
TYPES). Exit status 1 when swiftframe and upb disagree outside the intended differences.
"""

import os
import random
import re
import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import differential  # noqa: E402  (the cases, the answerers and the report are shared)

PROTOS = differential.PROTOS
TYPES = ["protobuf_test_messages.editions.proto3.TestAllTypesProto3",
         "protobuf_test_messages.editions.proto2.TestAllTypesProto2",
         "protobuf_test_messages.editions.TestAllTypesEdition2023"]
PROTO2_COPY = 1
EDITIONS = "protobuf_test_messages.editions."
EXTENSIONS = {
    TYPES[1]: [EDITIONS + "proto2.extension_int32", EDITIONS + "proto2.groupfield"],
    TYPES[1] + ".MessageSetCorrect": [
        TYPES[1] + ".MessageSetCorrectExtension%d.message_set_extension" % i for i in (1, 2)],
    TYPES[2]: [EDITIONS + name for name in
               ("extension_int32", "extension_string", "extension_bytes", "groupliketype", "delimited_ext")],
}
def in_unknown_group(descriptor, data, offset):
    """Whether `offset` lies inside a group that `descriptor`'s message does not declare (an
    unknown group), at any depth of its known message and group fields, as far as the bytes
    split into fields."""
    read_varint, skip_value = differential.read_varint, differential.skip_value
    at = 0
    try:
        while at < len(data):
            tag, at = read_varint(data, at)
            number, wire_type = tag >> 3, tag & 7
            field = descriptor.fields_by_number.get(number) if descriptor is not None else None
            known = field is not None and field.message_type is not None
            if wire_type == differential.START_GROUP:
                body = at
                while True:  # the group's end, past fields of any number (0 too)
                    inner, after = read_varint(data, at)
                    if inner & 7 == 4:
                        break
                    at = skip_value(data, after, inner & 7, inner >> 3)
                if body <= offset < at:
                    return not known or in_unknown_group(field.message_type, data[body:at], offset - body)
                at = read_varint(data, at)[1]
            elif wire_type == differential.DELIMITED and known:
                length, body = read_varint(data, at)
                if body <= offset < body + length:
                    return in_unknown_group(field.message_type, data[body:body + length], offset - body)
                at = body + length
            else:
                at = skip_value(data, at, wire_type, number)
    except ValueError:
        pass
    return False


INTENDED_REFUSALS = {
    # The proto2 copy turns UTF-8 validation off (features.utf8_validation = NONE), so upb
    # keeps invalid UTF-8 in its strings; a Swift String cannot hold it (differential.py's
    # "proto2 string with invalid UTF-8").
    "a string field without UTF-8 validation holding invalid UTF-8":
        lambda kind, error, case, roots: kind == PROTO2_COPY and error.startswith("invalid UTF-8 in a string field"),
    # upb skips an unknown group without looking at the numbers inside it; protobuf's C++
    # runtime refuses a field number 0 there, as anywhere (protoc --decode_raw too), and so
    # does swiftframe.
    "a field number 0 inside an unknown group":
        lambda kind, error, case, roots: bool(re.match(r"field number 0 at offset (\d+)", error))
        and in_unknown_group(roots[kind], case[1], int(re.match(r"field number 0 at offset (\d+)", error).group(1))),
}
LAZY_EXTENSION = differential.LAZY_EXTENSION
# Where upb reads otherwise than protobuf's C++ runtime, whose reading swiftframe follows (the
# binary run against C++ finds no difference there). upb keeps a map entry that holds an
# unknown field whole, as an unknown field of the message, where C++ reads the entry and drops
# the unknown field: recognised by upb reading swiftframe's re-encoding as the input with each
# map entry's other fields left out. And upb keeps a closed enum's undeclared number from a
# packed run as its low 32 bits, and outside one as the whole varint, where swiftframe keeps
# the varint as read: recognised by the two messages' texts being the same lines once such
# numbers are cut to 32 bits.
MAP_ENTRY_UNKNOWN = "a map entry holding an unknown field (upb keeps the entry whole, as an unknown field)"
CLOSED_ENUM_NUMBER = "a closed enum's undeclared number past 32 bits (upb cuts it in a packed run)"
PARSE, COMPARE = 0, 0x80
SAME, EQUAL, OTHER, UNREADABLE = 1, 2, 3, 4


def answer_with_upb(descriptor_set_path):
    """Answers on stdin and stdout: operation PARSE | kind, the input → status 1 and upb's
    deterministic serialization, or status 0; COMPARE | kind, the input's length, the input
    and swiftframe's re-encoding → SAME, EQUAL, OTHER or UNREADABLE (status 0: the input
    does not parse)."""
    pool = differential.load_pool(Path(descriptor_set_path).read_bytes())
    classes = [differential.message_class(pool, name) for name in TYPES]
    stdout = sys.stdout.buffer
    for body in differential.requests():
        operation, output, status = body[0], b"", 0
        kind = operation & 0x7F
        try:
            if operation & COMPARE == 0:
                message = classes[kind]()
                message.ParseFromString(body[1:])
                output, status = message.SerializeToString(deterministic=True), 1
            else:
                first = struct.unpack("<I", body[1:5])[0]
                original = classes[kind]()
                original.ParseFromString(body[5:5 + first])
                again = classes[kind]()
                try:
                    again.ParseFromString(body[5 + first:])
                except Exception:
                    status = UNREADABLE
                else:
                    if original.SerializeToString(deterministic=True) == again.SerializeToString(deterministic=True):
                        status = SAME
                    else:
                        status = EQUAL if original == again else OTHER
        except Exception:
            status = 0
        stdout.write(struct.pack("<BI", status, len(output)) + output)
        stdout.flush()


def without_unknown_in_map_entries(descriptor, data):
    """`data`, a `descriptor` message's bytes, with each map entry keeping only its key and
    value, at every depth, as protobuf's C++ runtime reads them (see key_and_value)."""
    return differential.rewrite_fields(descriptor, data, entry=key_and_value)


def closed_enum_numbers(pool):
    """The numbers of the closed enum fields of every message in the schema."""
    numbers = set()
    for name in TYPES:
        seen, pending = set(), [pool.FindMessageTypeByName(name)]
        while pending:
            message = pending.pop()
            if message.full_name in seen:
                continue
            seen.add(message.full_name)
            for field in message.fields:
                if field.enum_type is not None and field.enum_type.is_closed:
                    numbers.add(field.number)
                if field.message_type is not None:
                    pending.append(field.message_type)
    return numbers


def unknown_enum_lines(cls, data, numbers):
    """upb's text of `data` with unknown fields, each unknown varint of a closed enum field's
    number cut to its low 32 bits, as a sorted list of lines."""
    from google.protobuf import text_format
    message = cls()
    message.ParseFromString(data)
    lines = []
    for line in text_format.MessageToString(message, print_unknown_fields=True).splitlines():
        match = re.fullmatch(r"(\s*)(\d+): (\d+)", line)
        if match and int(match.group(2)) in numbers:
            line = "%s%s: %d" % (match.group(1), match.group(2), int(match.group(3)) & 0xFFFFFFFF)
        lines.append(line)
    return sorted(lines)


def key_and_value(entry, body):
    """A map entry's key and value fields (of their own wire types), in their order, without
    the others; the entry as it is when its value is a closed enum's undeclared number (C++
    keeps such an entry whole, as an unknown field, and so does swiftframe)."""
    wanted = {(number, differential.WIRE_TYPE.get(entry.fields_by_number[number].type, differential.VARINT))
              for number in (1, 2)}
    value = entry.fields_by_number[2]
    out, at, last = bytearray(), 0, None
    while at < len(body):
        start = at
        tag, at = differential.read_varint(body, at)
        if (tag >> 3, tag & 7) == (2, differential.VARINT):
            last = differential.read_varint(body, at)[0] & 0xFFFFFFFF
        at = differential.skip_value(body, at, tag & 7, tag >> 3)
        if (tag >> 3, tag & 7) in wanted:
            out += body[start:at]
    if value.enum_type is not None and value.enum_type.is_closed and last is not None:
        declared = {number & 0xFFFFFFFF for number in value.enum_type.values_by_number}
        if last not in declared:
            return bytes(body)
    return bytes(out)


def descriptor_set(work):
    """The editions messages' descriptor set, from protoc 35.1."""
    work.mkdir(parents=True, exist_ok=True)
    path = work / "editions.pb"
    protoc = os.environ.get("PROTOC35", "protoc")
    subprocess.run([protoc, "--include_imports", "--descriptor_set_out=%s" % path, "-I", str(PROTOS),
                    "conformance.proto", "editions/test_messages_proto3_editions.proto",
                    "editions/test_messages_proto2_editions.proto", "editions/test_messages_edition2023.proto"],
                   check=True)
    return path


def reencoding_class(case, reencoding, cases, upb, classes, enum_numbers):
    """The class of a re-encoding that upb reads as another message than the input: one of
    upb's own ways of reading (MAP_ENTRY_UNKNOWN, CLOSED_ENUM_NUMBER), or a disagreement."""
    try:
        stripped = without_unknown_in_map_entries(cases.roots[case[0]], case[1])
    except ValueError:
        stripped = case[1]
    if stripped != case[1]:
        again = upb.answer([(COMPARE | case[0], struct.pack("<I", len(stripped)) + stripped + reencoding)])[0]
        if again is not None and again[0] in (SAME, EQUAL):
            return "intended: " + MAP_ENTRY_UNKNOWN
    cls = classes[case[0]]
    if unknown_enum_lines(cls, stripped, enum_numbers) == unknown_enum_lines(cls, reencoding, enum_numbers):
        return "intended: " + CLOSED_ENUM_NUMBER
    return "swiftframe's re-encoding is another message to upb"


def main():
    args = differential.arguments(__doc__.split("\n")[0], answer_with_upb, checker=False)
    if args is None:
        return 0
    from google.protobuf import __version__ as version
    if not version.startswith("7."):
        args.error("the arbiter is protobuf 7.35.1's upb; this python3 has protobuf %s" % version)

    path = descriptor_set(args.work)
    pool = differential.load_pool(path.read_bytes())
    cases = differential.Cases(pool, random.Random(args.seed), TYPES, EXTENSIONS)
    swift = differential.Testee("swiftframe", [args.testee], pool, TYPES)
    classes = [differential.message_class(pool, name) for name in TYPES]
    enum_numbers = closed_enum_numbers(pool)
    upb = differential.Answerer("upb", [sys.executable, __file__, "--answer", str(path)])

    differences = differential.Tally(args.work, folder="disagreements-editions")
    crashes = differential.Tally(args.work, folder="disagreements-editions-upb")
    accepted = {"swiftframe": 0, "upb": 0}
    kinds = [0] * len(TYPES)
    started, done = time.monotonic(), 0
    while done < args.cases:
        batch = [cases.next() for _ in range(min(args.batch, args.cases - done))]
        for kind, _ in batch:
            kinds[kind] += 1
        swift_answers, upb_answers = swift.answer(batch), upb.answer(batch)
        both = [i for i, (s, u) in enumerate(zip(swift_answers, upb_answers)) if s and u and s[0] and u[0]]
        verdicts = dict(zip(both, upb.answer(
            [(COMPARE | batch[i][0], struct.pack("<I", len(batch[i][1])) + batch[i][1] + swift_answers[i][1])
             for i in both])))
        for i, case in enumerate(batch):
            s, u = swift_answers[i], upb_answers[i]
            if s is None:
                differences.add("swiftframe crashed or hung", case)
                continue
            if u is None:
                crashes.add("upb crashed or hung", case)
                continue
            accepted["swiftframe"] += s[0]
            accepted["upb"] += u[0]
            if s[0] != u[0]:
                if not s[0]:
                    intended = [name for name, test in INTENDED_REFUSALS.items()
                                if test(case[0], s[2], case, cases.roots)]
                    name = ("intended: " + intended[0]) if intended else \
                        "swiftframe refuses where upb accepts: " + differential.error_class(s[2])
                else:
                    name = "swiftframe accepts where upb refuses"
                    try:
                        stripped = differential.without_extensions(cases.roots[case[0]], case[1])
                        again = upb.answer([(case[0], stripped)])[0]
                        if again is not None and again[0]:
                            name = "intended: " + LAZY_EXTENSION
                    except ValueError:
                        pass
                differences.add(name, case)
                continue
            if s[0]:
                verdict = verdicts.get(i)
                if verdict is None:
                    crashes.add("upb crashed or hung comparing", case)
                elif verdict[0] == UNREADABLE:
                    differences.add("upb cannot read swiftframe's re-encoding", case)
                elif verdict[0] == EQUAL:
                    differences.add("intended: unknown fields in another order (equal for upb)", case)
                elif verdict[0] != SAME:
                    differences.add(
                        reencoding_class(case, swift_answers[i][1], cases, upb, classes, enum_numbers), case)
        done += len(batch)
        if done % 100_000 < args.batch:
            print("  %d cases, %.0f s" % (done, time.monotonic() - started), flush=True)

    for answerer in (swift, upb):
        answerer.close()
    print("differential editions run: %d cases (seed %d): %s; %.0f s" % (
        done, args.seed, ", ".join("%d %s" % (count, name.rsplit(".", 2)[-2] + "." + name.rsplit(".", 1)[-1])
                                   for count, name in zip(kinds, TYPES)), time.monotonic() - started))
    examples = args.work / "disagreements-editions" if differences.counts else None
    return differential.report(accepted, differences, crashes, examples,
                               reference_title="upb failing on its own (for information)", arbiter="upb")


if __name__ == "__main__":
    sys.exit(main())
