#!/usr/bin/env python3
"""What the Swift compiler needs for the message structs alone (make -C Benchmarks floor).

Takes protoc-gen-swiftframe's output for a schema (both at internal visibility, as
protoc-gen-swift writes by default) and keeps only the data declarations: each message's stored
properties, initializers and the accessors of its boxed sub-messages, and no codec. Two floors:
  - the structs with `==` and `hash(into:)` that do nothing: what any generator of plain Swift
    structs with these properties and initializers pays;
  - the structs with the `Hashable` the compiler synthesizes (what SwiftFrame's SPEED output
    pays on top; the CODE_SIZE output hashes through its field table instead).
Compiles them at -Onone and -O -wmo, next to the full outputs, and prints the CPU times (user
plus system, the lower of two runs).

Usage: scripts/struct_floor.py SWIFTFRAME_FILE SWIFTFRAME_CODE_SIZE_FILE SWIFTPROTOBUF_FILE MODULES_DIR OUT_DIR
"""
import os
import re
import resource
import subprocess
import sys

from generated_module import compile_command


def structs_alone(source):
    """protoc-gen-swiftframe's output reduced to its data declarations: the structs with the
    Hashable the compiler synthesizes, and the structs with `==` and `hash(into:)` that do nothing."""
    structs = re.sub(r"\nextension [\w.]+(: [\w.]+)? \{\n.*?\n\}\n", "\n", source, flags=re.S)
    # Command tables (from ids in the .proto files or a config) and extensions' declarations
    # are not data either.
    structs = re.sub(r"\n(public )?enum \w+(: SwiftFrame\.CommandTable|Extensions) \{\n.*?\n\}\n", "\n", structs, flags=re.S)
    structs = re.sub(r": SwiftFrame\.(Extensible)?Message \{", ": Swift.Hashable, Swift.Sendable {", structs)
    plain = re.sub(r"(\n(public )?struct (\w+): Swift\.Hashable, Swift\.Sendable \{\n)",
                   lambda m: m.group(1) + f"    {m.group(2) or ''}static func == (lhs: {m.group(3)}, rhs: {m.group(3)}) -> Bool {{ true }}\n"
                                          f"    {m.group(2) or ''}func hash(into hasher: inout Hasher) {{}}\n", structs)
    return structs, plain


def compile_time(path, flags, modules, out_dir):
    command = compile_command([path], os.path.join(out_dir, "out.o"), flags, [modules])
    times = []
    for _ in range(2):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(command, check=True, stderr=subprocess.DEVNULL)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        times.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return min(times)


def main():
    sf_file, compact_file, pb_file, modules, out_dir = sys.argv[1:6]
    os.makedirs(out_dir, exist_ok=True)
    synthesized, plain = structs_alone(open(sf_file).read())
    synthesized_file = os.path.join(out_dir, "structs-synthesized-hashable.swift")
    open(synthesized_file, "w").write(synthesized)
    plain_file = os.path.join(out_dir, "structs-plain.swift")
    open(plain_file, "w").write(plain)
    print("| code | compile -Onone (s CPU) | compile -O (s CPU) |")
    print("| --- | ---: | ---: |")
    for label, path in [("SwiftProtobuf output", pb_file), ("SwiftFrame output (SPEED)", sf_file),
                        ("SwiftFrame output (CODE_SIZE)", compact_file),
                        ("SwiftFrame's structs with synthesized Hashable", synthesized_file),
                        ("SwiftFrame's structs (stored properties, initializers; no conformance code)", plain_file)]:
        onone = compile_time(path, ["-Onone"], modules, out_dir)
        optimized = compile_time(path, ["-O", "-wmo"], modules, out_dir)
        print(f"| {label} | {onone:.1f} | {optimized:.1f} |", flush=True)


if __name__ == "__main__":
    main()
