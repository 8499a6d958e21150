#!/usr/bin/env bash
# make -C Benchmarks compile-instructions: how many instructions the Swift compiler executes
# (callgrind, user space) to compile each generator's output of a schema, one file as one
# module, the way SwiftPM's release (-O) and debug (-Onone) builds compile it. On a shared VM
# the same compile's time moves by up to 2x; these counts by under 1 % (the compiler's own
# hashing is seeded per process).
# Each compile runs about 50 times slower than without callgrind (the 41-message schema at -O:
# about 10 minutes).
#
#   SCHEMAS       "synth10 synth40" (scripts/synth_proto.py COUNT) and/or "descriptor"
#                 (google/protobuf/descriptor.proto under PROTO_INCLUDE, default /usr/include)
#   VISIBILITIES  "internal public"
#   OPTS          "-O -Onone"
# Results: a table on standard output and in results/compile-instructions.md.
set -euo pipefail
source "$(dirname "$0")/plugins.sh"
cd "$bench_dir"
frontend="$(dirname "$(readlink -f "$(command -v swiftc)")")/swift-frontend"
include="${PROTO_INCLUDE:-/usr/include}"
sf_plugin="$(swiftframe_plugin)"
pb_plugin="$(protoc_gen_swift)"
modules="$(release_modules)"
work=.build/compile-instructions
rm -rf "$work"
mkdir -p "$work" results

# instructions FILE OPT: the compiler's instruction count for FILE.
instructions() {
    valgrind --tool=callgrind --callgrind-out-file="$work/callgrind.out" "$frontend" -frontend -c \
        -target "$(uname -m)-unknown-linux-gnu" -disable-objc-interop -I "$modules" -swift-version 6 "$2" \
        -module-name Generated -enable-default-cmo -parse-as-library -o "$work/out.o" "$1" \
        > "$work/valgrind.log" 2>&1 || { cat "$work/valgrind.log" >&2; exit 1; }
    awk '/^(summary|totals):/ { print $2; exit }' "$work/callgrind.out"
}

{
    echo "CPU: $(lscpu | sed -n 's/^Model name: *//p' | head -1); swift-frontend: $("$frontend" --version 2>&1 | head -1)"
    echo
    echo "| schema | visibility | opt | SwiftFrame | SwiftProtobuf | ratio |"
    echo "| --- | --- | --- | ---: | ---: | ---: |"
    for schema in ${SCHEMAS:-synth10 synth40}; do
        dir="$work/$schema"
        mkdir -p "$dir"
        proto="$schema.proto"
        if [[ "$schema" == descriptor ]]; then
            # A copy outside google/protobuf/: protoc-gen-swift writes that path as part of the
            # SwiftProtobuf library itself (no import of it), which compiles only there.
            cp "$include/google/protobuf/descriptor.proto" "$dir/$proto"
        else
            python3 scripts/synth_proto.py "${schema#synth}" > "$dir/$proto"
        fi
        for visibility in ${VISIBILITIES:-internal public}; do
            sf_out="$dir/$visibility/swiftframe"
            pb_out="$dir/$visibility/swiftprotobuf"
            mkdir -p "$sf_out" "$pb_out"
            sf_option=$([[ "$visibility" == internal ]] && echo "Visibility=internal" || echo "")
            pb_option=$([[ "$visibility" == public ]] && echo "Visibility=Public" || echo "")
            protoc --plugin=protoc-gen-swiftframe="$sf_plugin" --swiftframe_opt="$sf_option" \
                --swiftframe_out="$sf_out" -I "$dir" "$proto"
            protoc --plugin=protoc-gen-swift="$pb_plugin" --swift_opt="$pb_option" \
                --swift_out="$pb_out" -I "$dir" "$proto"
            sf_file="$(find "$sf_out" -name '*.swift')"
            pb_file="$(find "$pb_out" -name '*.swift')"
            for opt in ${OPTS:--O -Onone}; do
                sf=$(instructions "$sf_file" "$opt")
                pb=$(instructions "$pb_file" "$opt")
                python3 -c 'import sys; s, v, o, a, b = sys.argv[1:]; print(f"| {s} | {v} | {o} | {int(a):,} | {int(b):,} | {int(a) / int(b):.2f}× |")' \
                    "$schema" "$visibility" "$opt" "$sf" "$pb"
            done
        done
    done
} | tee results/compile-instructions.md
