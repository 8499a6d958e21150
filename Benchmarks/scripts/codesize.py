#!/usr/bin/env python3
"""Generated-code cost of protoc-gen-swiftframe against protoc-gen-swift (make bench-codesize).

For each schema (the synthetic Protos/CodeSize/synth200.proto and google/protobuf/descriptor.proto):
  - the plugin's wall time: protoc running the plugin, and the plugin alone on a captured
    CodeGeneratorRequest (median and lowest–highest of PLUGIN_RUNS runs);
  - the generated file compiled with swiftc at -Onone and at -O -wmo (as SwiftPM's debug and
    release builds do), against release builds of SwiftFrame and SwiftProtobuf: wall time
    (median and lowest–highest of COMPILE_RUNS runs) and the object file's .text bytes, in all
    and per message (compared at public visibility: at internal, -O -wmo removes whatever
    nothing in the module calls, which for SwiftFrame's SPEED output is all of it).
SwiftFrame's output is measured in both of its modes: SPEED (the default) and CODE_SIZE
(`--swiftframe_opt=OptimizeFor=CODE_SIZE`). Both generators' output is compiled at the same
visibility, since it decides what the compiler must keep: `internal` (protoc-gen-swift's
default, for generated code inside the app's own module) and `public` (SwiftFrame's default,
for generated code in a module of its own, which then keeps every property's accessors).

Usage: scripts/codesize.py SWIFTFRAME_PLUGIN PROTOC_GEN_SWIFT MODULES_DIR OUT_DIR
Environment: COMPILE_RUNS (default 3), PLUGIN_RUNS (default 10), PROTOC (default protoc),
PROTO_INCLUDE (directory holding google/protobuf/descriptor.proto, default /usr/include),
SCHEMAS (default "synth200 descriptor"), VISIBILITIES (default "internal public").
Prints a Markdown table and writes it to OUT_DIR/codesize.md.
"""
import os
import shutil
import statistics
import subprocess
import sys
import time

from generated_module import compile_command, load, message_count


def machine(load_then):
    """The CPU the run is on, its cores, and the load when it started."""
    model = "unknown"
    with open("/proc/cpuinfo") as file:
        for line in file:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    return f"CPU: {model}, {os.cpu_count()} cores; {load_then} at the start"


start_load = load()

sf_plugin, pb_plugin, modules, out_dir = sys.argv[1:5]
bench_dir = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
compile_runs = int(os.environ.get("COMPILE_RUNS", "3"))
plugin_runs = int(os.environ.get("PLUGIN_RUNS", "10"))
protoc = os.environ.get("PROTOC", "protoc")
proto_include = os.environ.get("PROTO_INCLUDE", "/usr/include")

schemas = [
    ("synth200", os.path.join(bench_dir, "Protos", "CodeSize"), "synth200.proto"),
    ("descriptor", proto_include, "google/protobuf/descriptor.proto"),
]
# Name, protoc's name for the plugin, its path, the output suffix, its parameter, for each
# visibility (each generator spells the option its own way and has its own default).
visibility_parameters = {
    "internal": {"swiftframe": ["Visibility=internal"], "swift": []},
    "public": {"swiftframe": [], "swift": ["Visibility=Public"]},
}
generators = []
for visibility in os.environ.get("VISIBILITIES", "internal public").split():
    extra = visibility_parameters[visibility]
    generators += [
        (f"SwiftFrame {visibility}", "swiftframe", sf_plugin, ".swiftframe.swift", ",".join(extra["swiftframe"])),
        (f"SwiftFrame CODE_SIZE {visibility}", "swiftframe", sf_plugin, ".swiftframe.swift",
         ",".join(["OptimizeFor=CODE_SIZE"] + extra["swiftframe"])),
        (f"SwiftProtobuf {visibility}", "swift", pb_plugin, ".pb.swift", ",".join(extra["swift"])),
    ]


def run(command, **kwargs):
    subprocess.run(command, check=True, **kwargs)


def timed(command, runs, **kwargs):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        run(command, **kwargs)
        times.append(time.perf_counter() - start)
    return Timing(times)


class Timing:
    """Wall times of several runs: the median, and the lowest and highest."""

    def __init__(self, times):
        self.median, self.low, self.high = statistics.median(times), min(times), max(times)

    def show(self, scale, digits):
        if self.low == self.high:
            return f"{self.median * scale:.{digits}f}"
        return f"{self.median * scale:.{digits}f} ({self.low * scale:.{digits}f}–{self.high * scale:.{digits}f})"


def text_bytes(path):
    output = subprocess.run(["size", "-A", "-d", path], check=True, capture_output=True, text=True).stdout
    return sum(int(line.split()[1]) for line in output.splitlines() if line.startswith(".text"))


rows = []
notes = []
selected = os.environ.get("SCHEMAS", "synth200 descriptor").split()
for schema, include, proto in schemas:
    if schema not in selected:
        continue
    proto_path = os.path.join(include, proto)
    if not os.path.exists(proto_path):
        notes.append(f"{schema}: {proto_path} not found (set PROTO_INCLUDE)")
        continue
    if proto.startswith("google/protobuf/"):
        # protoc-gen-swift writes google/protobuf files for the inside of the SwiftProtobuf module
        # (no import, internal types), so both generators get a copy in another package.
        copy_dir = os.path.join(out_dir, schema + "-source")
        os.makedirs(copy_dir, exist_ok=True)
        with open(proto_path) as file:
            text = file.read().replace("package google.protobuf;", "package copy.protobuf;")
        include, proto = copy_dir, os.path.basename(proto)
        proto_path = os.path.join(include, proto)
        with open(proto_path, "w") as file:
            file.write(text)
    messages = message_count([proto_path])
    results = {}
    for name, option, plugin, suffix, parameter in generators:
        out_flag = f"--{option}_out={parameter + ':' if parameter else ''}"
        gen_dir = os.path.join(out_dir, schema, name)
        shutil.rmtree(gen_dir, ignore_errors=True)
        os.makedirs(gen_dir)
        generate = [protoc, f"--plugin=protoc-gen-{option}={plugin}", out_flag + gen_dir, "-I", include, proto_path]
        try:
            run(generate, stderr=subprocess.PIPE)
        except subprocess.CalledProcessError as error:
            notes.append(f"{schema}: {name} refuses it: {error.stderr.decode().strip()}")
            continue
        # The plugin alone: protoc hands the request to a capturing plugin, then the real
        # plugin reads it from a file.
        request = os.path.join(out_dir, schema, "request.bin")
        capture = os.path.join(out_dir, "capture-request")
        with open(capture, "w") as file:
            file.write(f'#!/bin/sh\ncat > "{request}"\n')
        os.chmod(capture, 0o755)
        run([protoc, f"--plugin=protoc-gen-capture={capture}", f"--capture_out={gen_dir}", "-I", include, proto_path])
        scratch = os.path.join(out_dir, schema, name + "-timing")
        os.makedirs(scratch, exist_ok=True)
        with_protoc = timed(
            [protoc, f"--plugin=protoc-gen-{option}={plugin}", out_flag + scratch, "-I", include, proto_path],
            plugin_runs,
        )
        with open(request, "rb") as stdin:
            data = stdin.read()
        if parameter:
            # The request's parameter (field 2) as protoc would set it, before the files.
            encoded = parameter.encode()
            data = bytes([0x12, len(encoded)]) + encoded + data
        alone = timed([plugin], plugin_runs, input=data, stdout=subprocess.DEVNULL)
        source = os.path.join(gen_dir, proto[: -len(".proto")] + suffix)
        entry = {"protoc": with_protoc, "plugin": alone, "lines": sum(1 for _ in open(source))}
        for label, flags in [("Onone", ["-Onone"]), ("O", ["-O", "-wmo"])]:
            obj = os.path.join(out_dir, schema, f"{name}-{label}.o")
            command = compile_command([source], obj, flags, [modules])
            try:
                entry[label] = timed(command, compile_runs, stderr=subprocess.PIPE)
            except subprocess.CalledProcessError as error:
                sys.exit(f"{schema}: {name}'s output does not compile:\n{error.stderr.decode()[:2000]}")
            entry[label + "_text"] = text_bytes(obj)
        results[name] = entry
    rows.append((schema, messages, results))

lines = [
    "| schema | messages | generator | lines | plugin alone (ms) | protoc + plugin (ms) | compile -Onone (s) | compile -O (s) | .text -Onone per message | .text -O per message |",
    "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
]
ratios = []
for schema, messages, results in rows:
    for name, entry in results.items():
        lines.append(
            f"| {schema} | {messages} | {name} | {entry['lines']} | {entry['plugin'].show(1000, 1)} | {entry['protoc'].show(1000, 1)} "
            f"| {entry['Onone'].show(1, 1)} | {entry['O'].show(1, 1)} | {entry['Onone_text'] / messages:.0f} B | {entry['O_text'] / messages:.0f} B |"
        )
    for name, sf in results.items():
        if not name.startswith("SwiftFrame"):
            continue
        pb = results.get("SwiftProtobuf " + name.split()[-1])
        if not pb:
            continue
        # Internal code that nothing in the module calls is removed at -O -wmo, so machine code
        # is compared at public visibility only.
        text = "" if name.endswith("internal") else (
            f"; -O .text {sf['O_text'] / pb['O_text']:.2f}× ({sf['O_text'] / messages / 1024:.1f} KiB per message)")
        ratios.append(
            f"- {schema}, {name}: plugin alone {sf['plugin'].median / pb['plugin'].median:.2f} of protoc-gen-swift's time "
            f"(with protoc {sf['protoc'].median / pb['protoc'].median:.2f}); compile -Onone {sf['Onone'].median / pb['Onone'].median:.2f}, "
            f"-O {sf['O'].median / pb['O'].median:.2f} of SwiftProtobuf's output (medians){text}"
        )
report = "\n".join([machine(start_load), ""] + lines + [""] + ratios + [f"- {note}" for note in notes]
                   + ["", f"At the end: {load()}."]) + "\n"
print(report)
with open(os.path.join(out_dir, "codesize.md"), "w") as file:
    file.write(report)
