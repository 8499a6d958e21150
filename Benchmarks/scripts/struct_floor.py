#!/usr/bin/env python3
"""What the Swift compiler needs for the message structs alone (make -C Benchmarks floor).

Takes protoc-gen-swiftframe's output for a schema and keeps only the data declarations: each
message's stored properties, with the Hashable conformance the compiler synthesizes, and no
initializer, no accessors over boxes and no codec. Compiles that at -Onone and -O -wmo, next to
the full output and to protoc-gen-swift's, and prints the times. The difference between the
structs alone and the full output is what the generator's own code costs; the structs alone
are a floor that any generator of plain Swift structs pays.

Usage: scripts/struct_floor.py SWIFTFRAME_FILE SWIFTPROTOBUF_FILE MODULES_DIR OUT_DIR
"""
import os
import re
import subprocess
import sys
import time

sf_file, pb_file, modules, out_dir = sys.argv[1:5]
os.makedirs(out_dir, exist_ok=True)

source = open(sf_file).read()
structs = re.sub(r"\nextension [\w.]+ \{\n.*?\n\}\n", "\n", source, flags=re.S)
structs = re.sub(r"\n    public init\(\n.*?\n    \}\n", "\n", structs, flags=re.S)
structs = re.sub(r"    public var \w+: [\w.]+\? \{\n        get \{ self\._\w+\?\.value \}\n"
                 r"        set \{ self\._\w+ = newValue\.map\(SwiftFrame\.Boxed\.init\) \}\n    \}\n", "", structs)
structs = structs.replace(": SwiftFrame.Message {", ": Swift.Hashable, Swift.Sendable {")
structs_file = os.path.join(out_dir, "structs-only.swift")
open(structs_file, "w").write(structs)


def compile_time(path, flags):
    command = ["swiftc", "-c", "-parse-as-library", "-swift-version", "6", "-module-name", "Generated",
               "-I", modules, *flags, path, "-o", os.path.join(out_dir, "out.o")]
    start = time.perf_counter()
    subprocess.run(command, check=True)
    return time.perf_counter() - start


print("| code | compile -Onone (s) | compile -O (s) |")
print("| --- | ---: | ---: |")
for label, path in [("SwiftProtobuf output", pb_file), ("SwiftFrame output", sf_file),
                    ("SwiftFrame's structs alone (stored properties, synthesized Hashable)", structs_file)]:
    onone = compile_time(path, ["-Onone"])
    optimized = compile_time(path, ["-O", "-wmo"])
    print(f"| {label} | {onone:.1f} | {optimized:.1f} |", flush=True)
