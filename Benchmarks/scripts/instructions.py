#!/usr/bin/env python3
"""Instructions per operation of every codec benchmark, both libraries, counted by callgrind
(make -C Benchmarks instructions). Wall-clock times on a shared VM move by tens of percent
between runs; instruction counts do not, so they back the timed ratios with repeatable ones.

Each case runs BenchProfile under callgrind twice, with N operations and with none; the
difference over N is the count per operation (start-up and the building of the values cancel).

Usage: scripts/instructions.py BENCHPROFILE_BINARY [N]
"""
import re
import subprocess
import sys

binary = sys.argv[1]
operations = int(sys.argv[2]) if len(sys.argv) > 2 else 2000
cases = ["flat", "login", "repeated", "map", "depth1", "depth8", "depth32"]
libraries = ["SwiftFrame", "SwiftProtobuf"]


def collected(arguments):
    result = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary, *arguments],
                            capture_output=True, text=True, check=True)
    return int(re.search(r"Collected : (\d+)", result.stderr).group(1))


print("| message | op | SwiftFrame instructions/op | SwiftProtobuf instructions/op | ratio |")
print("| --- | --- | ---: | ---: | ---: |")
for case in cases:
    count = operations if case not in ("depth8", "depth32", "repeated", "map") else max(1, operations // 20)
    for operation in ["decode", "encode"]:
        per_op = {}
        for library in libraries:
            arguments = ["codec", operation, case, library]
            per_op[library] = (collected(arguments + [str(count)]) - collected(arguments + ["0"])) / count
        sf, pb = per_op["SwiftFrame"], per_op["SwiftProtobuf"]
        print(f"| {case} | {operation} | {sf:,.0f} | {pb:,.0f} | **{pb / sf:.2f}×** |", flush=True)
