#!/usr/bin/env python3
"""Instructions per operation of every codec benchmark, both libraries, counted by callgrind
(make -C Benchmarks instructions). Wall-clock times on a shared VM move by tens of percent
between runs; instruction counts do not, so they back the timed ratios with repeatable ones.

The flat, login, repeated, chat and units rows also give the floor (Sources/BenchData/Floor.swift):
what any library must spend allocating, filling and freeing the same Swift values, with no
parsing of tags (decoding) or with one copy of the encoded bytes (encoding); and the login,
chat and units rows the encoder written by hand for that message (Sources/BenchData/ByHand.swift).

Each case runs BenchProfile under callgrind twice, with N operations and with none; the
difference over N is the count per operation (start-up and the building of the values cancel).

The frame streams are counted the same way, per frame: SwiftFrame's decoder, NIO's
LengthFieldBasedFrameDecoder called directly, and memcpy of the same chunks.

Usage: scripts/instructions.py BENCHPROFILE_BINARY [N]
"""
import re
import subprocess
import sys

binary = sys.argv[1]
operations = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
cases = ["flat", "login", "repeated", "map", "depth1", "depth8", "depth32", "chat", "units"]
libraries = ["SwiftFrame", "SwiftProtobuf"]


def collected(arguments):
    result = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, *arguments],
                            capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))


def per_run(arguments, runs):
    """Instructions of one run of `arguments`: `runs` runs minus none, over `runs`."""
    return (collected(arguments + [str(runs)]) - collected(arguments + ["0"])) / runs


# The floor (Sources/BenchData/Floor.swift): the allocations and copies any library must make
# for the same Swift values. A third of SwiftProtobuf's count below the floor is out of reach of
# any decoder or encoder of those values.
floor_cases = ["flat", "login", "repeated", "chat", "units"]
by_hand_cases = ["login", "chat", "units"]

print("| message | op | SwiftFrame instructions/op | SwiftProtobuf instructions/op | ratio | floor | by hand | ⅓ of SwiftProtobuf |")
print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |")
for case in cases:
    count = operations if case not in ("depth8", "depth32", "repeated", "map", "units") else max(1, operations // 20)
    for operation in ["decode", "encode"]:
        per_op = {}
        for library in libraries:
            per_op[library] = per_run(["codec", operation, case, library], count)
        sf, pb = per_op["SwiftFrame"], per_op["SwiftProtobuf"]
        floor = f"{per_run(['floor', operation, case], count):,.0f}" if case in floor_cases else ""
        by_hand = f"{per_run(['byhand', operation, case], count):,.0f}" if case in by_hand_cases and operation == "encode" else ""
        third = f"{pb / 3:,.0f}" if case in floor_cases else ""
        print(f"| {case} | {operation} | {sf:,.0f} | {pb:,.0f} | **{pb / sf:.2f}×** | {floor} | {by_hand} | {third} |", flush=True)


# Frames: the streams of Sources/BenchData/Frames.swift (about 1 MiB each, at least 16 frames).
print()
print("| frames | SwiftFrame instructions/frame | NIO-decoder instructions/frame | memcpy instructions/frame | ratio to NIO |")
print("| --- | ---: | ---: | ---: | ---: |")
for size, name in [(64, "64B"), (1024, "1KiB"), (65536, "64KiB")]:
    frames = max(16, (1 << 20) // (size + 4))  # FrameStream.shape(payloadSize:)
    per_frame = {}
    for decoder in ["SwiftFrame", "NIO-decoder", "memcpy"]:
        per_frame[decoder] = per_run(["frames", name, decoder], 20) / frames
    sf, nio, copy = per_frame["SwiftFrame"], per_frame["NIO-decoder"], per_frame["memcpy"]
    print(f"| {name} × {frames} | {sf:,.0f} | {nio:,.0f} | {copy:,.0f} | **{nio / sf:.2f}×** |", flush=True)
