#!/usr/bin/env python3
"""Runtime size: the -O machine code of each runtime library, and of a minimal program that
decodes one message (login_request of Protos/bench.proto) with each, side by side.

    scripts/runtime_size.py PROTOC_GEN_SWIFTFRAME OUT_DIR     (make runtime-size)

Library size: `size`'s text column summed over the module's objects of `swift build -c
release`. Program size: each program is compiled with `swiftc -O` together with its
generated message and linked with its library's objects and `--gc-sections`; the table gives
its text size minus that of a program that only reads stdin, so what remains is the library
code the program keeps plus the message's code. swiftframe's message is generated from a
one-message .proto; SwiftProtobuf's is the same message cut out of the checked-in
protoc-gen-swift output (Sources/SwiftProtobufBenchMessages/bench.pb.swift), since building
protoc-gen-swift takes minutes.
"""
import glob
import os
import re
import subprocess
import sys

plugin, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
release = subprocess.check_output(["swift", "build", "-c", "release", "--show-bin-path"], text=True).strip()
modules = os.path.join(release, "Modules")


def text_size(paths):
    total = 0
    for line in subprocess.check_output(["size"] + paths, text=True).splitlines()[1:]:
        total += int(line.split()[0])
    return total


def objects(module):
    return sorted(glob.glob(os.path.join(release, module + ".build", "*.o")))


# The one message, for swiftframe: generated now.
proto = os.path.join(out, "login.proto")
with open(proto, "w") as f:
    f.write('syntax = "proto3";\npackage bench;\n')
    f.write(re.search(r"message login_request \{.*?\n\}\n", open("Protos/bench.proto").read(), re.S).group(0))
subprocess.check_call(["protoc", f"--plugin=protoc-gen-swiftframe={plugin}", f"--swiftframe_out={out}",
                       "--swiftframe_opt=Visibility=internal", f"-I{out}", "login.proto"])

# The same message for SwiftProtobuf, cut out of protoc-gen-swift's output for bench.proto.
generated = open("Sources/SwiftProtobufBenchMessages/bench.pb.swift").read()
name = "Bench_login_request"
preamble = generated[:generated.index("public nonisolated struct")]
struct = re.search(r"public nonisolated struct %s: Sendable \{.*?\n\}\n" % name, generated, re.S).group(0)
support = re.search(r"fileprivate nonisolated let _protobuf_package = .*?\n", generated).group(0)
extension = re.search(r"extension %s: SwiftProtobuf\.Message.*?\n\}\n" % name, generated, re.S).group(0)
with open(os.path.join(out, "login.pb.swift"), "w") as f:
    f.write(preamble + struct + "\n" + support + "\n" + extension)

reading = """
var input: [UInt8] = []
while let line = readLine(strippingNewline: false) { input += Array(line.utf8) }
"""
programs = {
    "baseline": (reading + "print(input.count)\n", [], []),
    "SwiftFrame": ("import SwiftFrame\n" + reading
                   + "print((try? Bench_LoginRequest(serializedBytes: input))?.nickName ?? \"-\")\n",
                   [os.path.join(out, "login.swiftframe.swift")], objects("SwiftFrame")),
    "SwiftProtobuf": ("import SwiftProtobuf\n" + reading
                      + "print((try? Bench_login_request(serializedBytes: input))?.nickName ?? \"-\")\n",
                      [os.path.join(out, "login.pb.swift")], objects("SwiftProtobuf")),
}
sizes = {}
for program, (source, messages, libs) in programs.items():
    os.makedirs(os.path.join(out, program), exist_ok=True)
    main = os.path.join(out, program, "main.swift")  # top-level code must be in main.swift
    open(main, "w").write(source)
    binary = os.path.join(out, program, program)
    subprocess.check_call(["swiftc", "-O", "-module-name", "App", "-I", modules, main] + messages + libs
                          + ["-Xlinker", "--gc-sections", "-o", binary])
    sizes[program] = text_size([binary])

rows = [
    ("runtime library (module objects)", text_size(objects("SwiftFrame")), text_size(objects("SwiftProtobuf"))),
    ("transport library (module objects)", text_size(objects("SwiftFrameNIO")), None),
    ("a program decoding one message, beyond one that reads stdin",
     sizes["SwiftFrame"] - sizes["baseline"], sizes["SwiftProtobuf"] - sizes["baseline"]),
]
lines = ["| -O machine code (`size` text, bytes) | SwiftFrame | SwiftProtobuf 1.39.0 | ratio |", "| --- | ---: | ---: | ---: |"]
for label, ours, theirs in rows:
    ratio = f"{ours / theirs:.2f}×" if theirs else "–"
    lines.append(f"| {label} | {ours:,} | {theirs:,} | {ratio} |" if theirs else f"| {label} | {ours:,} | – | – |")
report = "\n".join(lines) + "\n"
open(os.path.join(out, "runtime-size.md"), "w").write(report)
print(report)
