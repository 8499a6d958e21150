#!/usr/bin/env bash
# Regenerates the benchmark messages from Protos/*.proto.
#
#   scripts/generate.sh swiftframe      # protoc-gen-swiftframe -> Sources/SwiftFrameBenchMessages
#                                       #   (and, CODE_SIZE, Sources/SwiftFrameCompactBenchMessages)
#   scripts/generate.sh swiftprotobuf   # protoc-gen-swift      -> Sources/SwiftProtobufBenchMessages
#   scripts/generate.sh all
#
# Both sides are checked in (building protoc-gen-swift takes minutes), so only
# `make bench-regenerate` runs this. A proto file that protoc-gen-swiftframe refuses is left
# out of the SwiftFrame side with the plugin's error (the map message has a file of its own,
# bench_map.proto, because map<> arrived in the plugin after the other messages).
#
# Environment: PROTOC (default protoc), SWIFTFRAME_PLUGIN and PROTOC_GEN_SWIFT (use these
# plugin binaries instead of building them; see scripts/plugins.sh).
set -euo pipefail
source "$(dirname "$0")/plugins.sh"
cd "$bench_dir"
protoc="${PROTOC:-protoc}"
protos=$(cd Protos && ls *.proto | sort)
# The editions files (bench_editions.proto) go through protoc 35.1 (Debian's 3.21 reads no
# editions; PROTOC_EDITIONS to use another) and to the SwiftFrame side only.
protoc_editions="${PROTOC_EDITIONS:-$("$root_dir/scripts/protoc35.sh")}"
classic_protos=$(cd Protos && grep -L '^edition' *.proto | sort)

# generate_swiftframe OUT [OPTIONS]: the SwiftFrame side, in SPEED mode, and again with
# OptimizeFor=CODE_SIZE into Sources/SwiftFrameCompactBenchMessages.
generate_swiftframe() {
    local plugin out tmp options
    plugin="$(swiftframe_plugin)"
    out="$1"
    options="Visibility=public${2:+,$2}"
    tmp="$(mktemp -d)"
    for proto in $protos; do
        local compiler="$protoc"
        grep -q '^edition' "Protos/$proto" && compiler="$protoc_editions"
        if "$compiler" --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$tmp" \
            --swiftframe_opt="$options" -I Protos "Protos/$proto" 2>"$tmp/err"; then
            echo "swiftframe: $proto"
        else
            echo "swiftframe: $proto left out: $(cat "$tmp/err")" >&2
        fi
    done
    rm -f "$tmp/err" "$out"/*.swiftframe.swift
    cp "$tmp"/*.swift "$out"/
    rm -rf "$tmp"
}

generate_swiftprotobuf() {
    local plugin out
    plugin="$(protoc_gen_swift)"
    out=Sources/SwiftProtobufBenchMessages
    rm -f "$out"/*.pb.swift
    "$protoc" --plugin=protoc-gen-swift="$plugin" --swift_out="$out" --swift_opt=Visibility=Public \
        -I Protos $(for p in $classic_protos; do echo "Protos/$p"; done)
    echo "swiftprotobuf: $classic_protos" | tr '\n' ' '; echo
}

generate_swiftframes() {
    generate_swiftframe Sources/SwiftFrameBenchMessages
    generate_swiftframe Sources/SwiftFrameCompactBenchMessages OptimizeFor=CODE_SIZE
}

case "${1:-all}" in
swiftframe) generate_swiftframes ;;
swiftprotobuf) generate_swiftprotobuf ;;
all) generate_swiftframes; generate_swiftprotobuf ;;
*) echo "usage: $0 swiftframe|swiftprotobuf|all" >&2; exit 2 ;;
esac
