#!/usr/bin/env python3
"""Machine code of both generators' output for real .proto files (make -C Benchmarks codesize-protos).

For each file set (a file with the files it imports, compiled together as one module): both
plugins' output at public visibility, compiled with swiftc -O -wmo (as an app's release build
compiles a module of its own) against release builds of SwiftFrame and SwiftProtobuf, and the
object's text and data: `size`'s text and data columns (machine code, constants, unwind tables,
metadata, witness tables), bss aside. SwiftFrame's output is measured in both of its modes,
SPEED (the default) and CODE_SIZE.

The sets: the conventions fixtures (real projects' protocols, Fixtures/conventions), the
project's own fixtures (Fixtures/protos) and protobuf's unit-test protos
(Protos/CodeSize/protobuf).

Usage: scripts/codesize_protos.py SWIFTFRAME_PLUGIN PROTOC_GEN_SWIFT MODULES_DIRS OUT_DIR
(MODULES_DIRS: Modules folders of release builds, separated by colons; a file that imports
descriptor.proto needs SwiftFrameDescriptors beside SwiftFrame.)
Environment: PROTOC (default protoc; protobuf's unit-test protos need an editions protoc, and
are skipped with a note by one that refuses them), SETS (names to run, default all).
Prints a Markdown table and writes it to OUT_DIR/codesize-protos.md.
"""
import os
import re
import shutil
import subprocess
import sys

from generated_module import compile_command, load, message_count
from struct_floor import structs_alone

sf_plugin, pb_plugin, modules, out_dir = sys.argv[1:5]
sf_plugin, pb_plugin, out_dir = (os.path.abspath(path) for path in (sf_plugin, pb_plugin, out_dir))
module_dirs = [os.path.abspath(folder) for folder in modules.split(":")]
start_load = load()
bench_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
root_dir = os.path.dirname(bench_dir)
protoc = os.environ.get("PROTOC", "protoc")
conventions = os.path.join(root_dir, "Fixtures", "conventions")
fixtures = os.path.join(root_dir, "Fixtures", "protos")
unittest = os.path.join(bench_dir, "Protos", "CodeSize", "protobuf")



def unit(*names):
    return [f"protobuf_unittest/{name}.proto" for name in names]


# Name, include folder, the files generated and compiled together (the first names the row).
sets = [
    ("conventions: et", os.path.join(conventions, "et"), ["OuterMessage_C_10001.proto"]),
    ("conventions: game", os.path.join(conventions, "game"), ["game_plain.proto"]),
    ("conventions: im", os.path.join(conventions, "im"),
     ["im_user.proto", "im_base.proto", "im_common.proto", "im_error.proto"]),
    ("conventions: mid", os.path.join(conventions, "mid"), ["mid.proto"]),
    ("conventions: msgid", os.path.join(conventions, "msgid"), ["msgid.proto"]),
    ("fixtures: game", fixtures, ["game.proto"]),
    ("fixtures: im", fixtures, ["im.proto", "common.proto", "error.proto", "user.proto", "base.proto"]),
    ("fixtures: erlang", fixtures, ["erlang.proto"]),
    ("fixtures: everything", fixtures, ["everything.proto", "base.proto"]),
    ("fixtures: collections", fixtures, ["collections.proto", "everything.proto", "base.proto"]),
    ("fixtures: legacy", fixtures, ["legacy.proto"]),
    ("protobuf: unittest", unittest, unit("unittest", "unittest_import", "unittest_import_public")),
    ("protobuf: unittest_proto3", unittest, unit("unittest_proto3", "unittest_import", "unittest_import_public")),
    ("protobuf: unittest_proto3_optional", unittest, unit("unittest_proto3_optional")),
    ("protobuf: map_unittest", unittest, unit("map_unittest", "unittest", "unittest_import", "unittest_import_public")),
]
generators = [
    ("SwiftFrame", "swiftframe", sf_plugin, ".swiftframe.swift", ""),
    ("SwiftFrame CODE_SIZE", "swiftframe", sf_plugin, ".swiftframe.swift", "OptimizeFor=CODE_SIZE"),
    ("SwiftProtobuf", "swift", pb_plugin, ".pb.swift", "Visibility=Public"),
]


def text_and_data(path):
    """The text and data columns of `size` (Berkeley format) for an object file."""
    lines = subprocess.run(["size", path], check=True, capture_output=True, text=True).stdout.splitlines()
    text, data = lines[1].split()[:2]
    return int(text) + int(data)


def compiled_size(name, label, sources, folder):
    """Text and data of `sources` compiled together with -O -wmo as one module."""
    obj = os.path.join(folder, label.replace(" ", "-") + ".o")
    command = compile_command(sources, obj, ["-O", "-wmo"], module_dirs)
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"{name}: {label} does not compile:\n{result.stderr[:2000]}")
    return text_and_data(obj)


selected = os.environ.get("SETS")
rows, notes = [], []
for name, include, files in sets:
    if selected and name not in selected.split(","):
        continue
    key = re.sub(r"[^A-Za-z0-9]+", "-", name)
    sizes = {}
    for generator, option, plugin, suffix, parameter in generators:
        gen_dir = os.path.join(out_dir, key, generator.replace(" ", "-"))
        shutil.rmtree(gen_dir, ignore_errors=True)
        os.makedirs(gen_dir)
        out_flag = f"--{option}_out={parameter + ':' if parameter else ''}{gen_dir}"
        # The project's own fixtures import swiftframe/options.proto (Protos/) for their options.
        generate = [protoc, f"--plugin=protoc-gen-{option}={plugin}", out_flag, "-I", include,
                    "-I", os.path.join(root_dir, "Protos")] + files
        result = subprocess.run(generate, capture_output=True, text=True, cwd=include)
        if result.returncode != 0:
            notes.append(f"{name}: {generator} with {protoc}: {' '.join(result.stderr.split())}")
            break
        sources = [os.path.join(gen_dir, file[: -len(".proto")] + suffix) for file in files]
        sizes[generator] = compiled_size(name, generator, sources, os.path.join(out_dir, key))
        if generator == "SwiftFrame":
            # The floor: the same structs with no codec and conformances that do nothing.
            plain_dir = os.path.join(out_dir, key, "structs")
            os.makedirs(plain_dir, exist_ok=True)
            plain_sources = []
            for source in sources:
                plain_sources.append(os.path.join(plain_dir, os.path.basename(source)))
                with open(source) as file, open(plain_sources[-1], "w") as out:
                    out.write(structs_alone(file.read())[1])
            sizes["structs"] = compiled_size(name, "structs alone", plain_sources, os.path.join(out_dir, key))
    if len(sizes) == len(generators) + 1:
        rows.append((name, message_count([os.path.join(include, file) for file in files]), sizes))

def row(name, messages, sizes):
    """A table row: SwiftProtobuf's bytes, then each other column's with its ratio to them."""
    pb = sizes["SwiftProtobuf"]
    cells = [f"{sizes[column]:,} | {sizes[column] / pb:.2f}×" for column in ("SwiftFrame", "SwiftFrame CODE_SIZE", "structs")]
    return f"| {name} | {messages} | {pb:,} | " + " | ".join(cells) + " |"


lines = [
    f"At the start: {start_load}, at the end: {load()}; swiftc -O -wmo, public visibility; text + data of the object in bytes.",
    "",
    "| file set | messages | SwiftProtobuf | SwiftFrame | ratio | SwiftFrame CODE_SIZE | ratio | structs alone | ratio |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]
for name, messages, sizes in rows:
    lines.append(row(name, messages, sizes))
if rows:
    total = {column: sum(sizes[column] for _, _, sizes in rows) for column in rows[0][2]}
    lines.append(row("all", sum(messages for _, messages, _ in rows), total))
report = "\n".join(lines + [""] + [f"- {note}" for note in notes]) + "\n"
print(report)
with open(os.path.join(out_dir, "codesize-protos.md"), "w") as file:
    file.write(report)
