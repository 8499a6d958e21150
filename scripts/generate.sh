#!/usr/bin/env bash
# Runs protoc with the given plugin over every input the project generates, writing below
# OUT_ROOT with the repository's layout:
#   Fixtures/protos/*.proto                -> Fixtures/generated (and, OptimizeFor=CODE_SIZE,
#                                             Fixtures/generated-compact)
#   Fixtures/editions/*.proto (editions)   -> Fixtures/generated/Editions (and -compact)
#   Fixtures/conventions/NAME/ (+ config)  -> Fixtures/generated/conventions/NAME
#   google/protobuf well-known types       -> Sources/SwiftFrameWellKnownTypes/Generated
#   descriptor.proto                       -> Sources/SwiftFrameDescriptors/Generated
#   plugin.proto                           -> Sources/SwiftFrameGenerator/Descriptor/Generated
#   Protos/swiftframe/*.proto
#                                          -> Sources/SwiftFrameGenerator/Config/Generated
#   Protos/conformance/*.proto             -> Sources/SwiftFrameConformanceMessages (and Compact)
#   Fixtures/PluginPackage/protos          -> Fixtures/PluginPackage/Sources/SharedProtocol/Generated
#   game, IM and Erlang fixtures, Messages=SwiftProtobuf
#                                          -> Fixtures/SwiftProtobufPackage/Sources/*/SwiftFrame
#   scripts/generate.sh PLUGIN OUT_ROOT
#
# protoc's warnings (stderr) of every run, each line prefixed with the run's output directory,
# must be those in Fixtures/expected-warnings.txt (compared sorted): then only a summary is
# printed. Any other warning, or a missing one, fails the script, showing the difference. To
# accept a new set, run with SWIFTFRAME_ACCEPT_WARNINGS=1, which rewrites the file.
set -euo pipefail
plugin="$1"
out_root="$2"
cd "$(dirname "$0")/.."
# google/protobuf's .proto files, which the inputs import: the project's copy of protobuf 35.1's,
# so that every protoc, whatever include folder it brings, reads the same ones.
include=Protos/protobuf
expected_warnings=Fixtures/expected-warnings.txt

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
warnings="$scratch/warnings"
: > "$warnings"
runs=0
files=0

# Empties an output directory, but for an Editions directory in it (the editions run's own).
fresh() { mkdir -p "$1"; find "$1" -mindepth 1 -maxdepth 1 ! -name Editions -exec rm -rf {} +; }

# A protoc that reads editions files (27 or later): the one on the PATH if it does, else
# $PROTOC_EDITIONS, by default the protoc 35.1 scripts/ensure-protoc.sh installs. Without one,
# the editions inputs keep their checked-in sources (in directories named Editions), and the
# run says so; the list of what it skipped goes to $SWIFTFRAME_SKIPPED (for check-golden.sh).
version_of() { "$1" --version 2>/dev/null | sed -E 's/^libprotoc ([0-9]+).*/\1/'; }
editions_protoc=""
if [ "$(version_of protoc)" -ge 27 ] 2>/dev/null; then
    editions_protoc=protoc
else
    candidate="${PROTOC_EDITIONS:-$HOME/.cache/swiftframe/protoc-35.1/bin/protoc}"
    if [ -x "$candidate" ] && [ "$(version_of "$candidate")" -ge 27 ] 2>/dev/null; then editions_protoc="$candidate"; fi
fi
skipped=0
: > "${SWIFTFRAME_SKIPPED:-/dev/null}"

run() {
    local out="$1"; shift
    fresh "$out"
    if ! "${run_protoc:-protoc}" --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$out" "$@" 2> "$scratch/stderr"; then
        echo "generate: protoc failed writing ${out#"$out_root"/}:" >&2
        cat "$scratch/stderr" >&2
        exit 1
    fi
    # protoc 3.21 names a file as found on the include path (im.proto), protoc 35 with the
    # include directory in front (Fixtures/protos/im.proto): compared without it.
    local strip="" previous=""
    for arg in "$@"; do
        [ "$previous" = -I ] && strip="$strip -e s|^${arg%/}/||"
        previous="$arg"
    done
    sed $strip -e "s|^|${out#"$out_root"/}: |" "$scratch/stderr" >> "$warnings"
    runs=$((runs + 1))
    # Counted now: a later run may write below this one's directory.
    files=$((files + $(find "$out" -path "$out/Editions" -prune -o -name '*.swift' -print | wc -l)))
}

# A run of editions files (into a directory named Editions), by the editions protoc.
run_editions() {
    if [ -z "$editions_protoc" ]; then
        echo "${1#"$out_root"/}" >> "${SWIFTFRAME_SKIPPED:-/dev/null}"
        echo "${1#"$out_root"/}: " >> "$scratch/skipped"
        skipped=$((skipped + 1))
        return
    fi
    run_protoc="$editions_protoc" run "$@"
}

run "$out_root/Fixtures/generated" -I Fixtures/protos -I Protos -I "$include" $(ls Fixtures/protos/*.proto | sort)
# The same files for optimize_for = CODE_SIZE: field tables and the runtime's shared codec.
run "$out_root/Fixtures/generated-compact" --swiftframe_opt=OptimizeFor=CODE_SIZE \
    -I Fixtures/protos -I Protos -I "$include" $(ls Fixtures/protos/*.proto | sort)

# The same kinds of protocol written as edition 2023 and 2024 files, into Editions.
run_editions "$out_root/Fixtures/generated/Editions" -I Fixtures/editions -I Protos -I "$include" arena.proto chat.proto
run_editions "$out_root/Fixtures/generated-compact/Editions" --swiftframe_opt=OptimizeFor=CODE_SIZE \
    -I Fixtures/editions -I Protos -I "$include" arena.proto chat.proto

# Projects' own command-id conventions: unmodified .proto files plus a config file each.
for dir in Fixtures/conventions/*/; do
    name=$(basename "$dir")
    run "$out_root/Fixtures/generated/conventions/$name" -I "$dir" -I "$include" \
        --swiftframe_opt=Config="$(ls "$dir"*.txtpb)" $(cd "$dir" && ls *.proto)
    run "$out_root/Fixtures/generated-compact/conventions/$name" -I "$dir" -I "$include" \
        --swiftframe_opt=Config="$(ls "$dir"*.txtpb)",OptimizeFor=CODE_SIZE $(cd "$dir" && ls *.proto)
done

# The well-known types, descriptor.proto and plugin.proto are protobuf 35.1's, copied into
# Protos/protobuf (its README): every protoc generates them alike.
wkt="any api duration empty field_mask source_context struct timestamp type wrappers"
run "$out_root/Sources/SwiftFrameWellKnownTypes/Generated" -I "$include" \
    $(for name in $wkt; do echo "google/protobuf/$name.proto"; done)

# descriptor.proto ships in its own module; the plugin reads its input through it and through
# plugin.proto (self-hosting).
run "$out_root/Sources/SwiftFrameDescriptors/Generated" -I "$include" google/protobuf/descriptor.proto
run "$out_root/Sources/SwiftFrameGenerator/Descriptor/Generated" -I "$include" google/protobuf/compiler/plugin.proto

# The feature defaults of each edition as protoc publishes them: the bytes of a
# FeatureSetDefaults, which the resolver reads. Made by protoc 35, whose descriptor.proto is the
# one in Protos/protobuf; another protoc leaves the checked-in copy as it is.
if [ -n "$editions_protoc" ] && [ "$(version_of "$editions_protoc")" = 35 ]; then
    defaults_out="$out_root/Sources/SwiftFrameDescriptors/EditionDefaults"
    fresh "$defaults_out"
    "$editions_protoc" -I "$include" --edition_defaults_out="$scratch/defaults.binpb" \
        --edition_defaults_minimum=PROTO2 --edition_defaults_maximum=UNSTABLE google/protobuf/descriptor.proto
    {
        echo "// Generated by scripts/generate.sh from protoc 35's \`--edition_defaults_out\` for editions PROTO2"
        echo "// to UNSTABLE of Protos/protobuf/google/protobuf/descriptor.proto: a FeatureSetDefaults message."
        echo ""
        echo "extension EditionDefaults {"
        echo "    static let publishedBytes: [UInt8] = ["
        od -An -v -tu1 -w16 "$scratch/defaults.binpb" | awk '{ $1 = $1; gsub(/ /, ", "); print "        " $0 "," }'
        echo "    ]"
        echo "}"
    } > "$defaults_out/EditionDefaults+Published.swift"
fi

# swiftframe's own options and command configuration, which the plugin reads.
config_out="$out_root/Sources/SwiftFrameGenerator/Config/Generated"
run "$config_out" --swiftframe_opt=Visibility=internal -I Protos -I "$include" \
    swiftframe/options.proto swiftframe/config.proto

# protobuf 35.1's conformance messages (Protos/conformance/README.md); the edition 2023 ones
# into Editions.
conformance="conformance.proto test_messages_proto2.proto test_messages_proto3.proto"
# (edition UNSTABLE, as protoc 35.1 defines it, needs --experimental_editions).
conformance_editions="test_messages_proto2_editions.proto test_messages_proto3_editions.proto
    test_messages_edition2023.proto test_messages_edition_unstable.proto"
run "$out_root/Sources/SwiftFrameConformanceMessages" -I Protos/conformance -I "$include" $conformance
run_editions "$out_root/Sources/SwiftFrameConformanceMessages/Editions" --experimental_editions \
    -I Protos/conformance/editions -I "$include" $conformance_editions
run "$out_root/Sources/SwiftFrameConformanceMessagesCompact" --swiftframe_opt=OptimizeFor=CODE_SIZE \
    -I Protos/conformance -I "$include" $conformance
run_editions "$out_root/Sources/SwiftFrameConformanceMessagesCompact/Editions" --experimental_editions \
    --swiftframe_opt=OptimizeFor=CODE_SIZE -I Protos/conformance/editions -I "$include" $conformance_editions

# The checked-in sources of the SwiftPM plugin test package, as its generate-swiftframe
# command writes them (Sources/SharedProtocol/swiftframe.json; make check-plugins compares).
run "$out_root/Fixtures/PluginPackage/Sources/SharedProtocol/Generated" --swiftframe_opt=Visibility=public \
    -I Fixtures/PluginPackage/protos $(cd Fixtures/PluginPackage/protos && find . -name '*.proto' | sed 's|^\./||' | sort)

# The tables beside protoc-gen-swift's messages (Messages=SwiftProtobuf) in the SwiftProtobuf
# test package (make check-swiftprotobuf), whose SwiftProtobuf/ folders hold protoc-gen-swift's
# checked-in output for the same files.
swiftprotobuf_package="$out_root/Fixtures/SwiftProtobufPackage/Sources"
run "$swiftprotobuf_package/GameMessages/SwiftFrame" --swiftframe_opt=Messages=SwiftProtobuf \
    -I Fixtures/protos -I Protos -I "$include" game.proto
run "$swiftprotobuf_package/IMMessages/SwiftFrame" --swiftframe_opt=Messages=SwiftProtobuf \
    -I Fixtures/protos -I Protos -I "$include" base.proto common.proto error.proto im.proto user.proto
run "$swiftprotobuf_package/ErlangMessages/SwiftFrame" --swiftframe_opt=Messages=SwiftProtobuf \
    -I Fixtures/protos -I Protos -I "$include" erlang.proto

LC_ALL=C sort "$warnings" > "$scratch/sorted"
if [ "${SWIFTFRAME_ACCEPT_WARNINGS:-0}" = 1 ] && [ "$skipped" -gt 0 ]; then
    echo "generate: not accepting warnings from a run that skipped the editions files (they would be lost)" >&2
    exit 1
fi
if [ "${SWIFTFRAME_ACCEPT_WARNINGS:-0}" = 1 ]; then
    { grep '^#' "$expected_warnings" 2>/dev/null || true; cat "$scratch/sorted"; } > "$scratch/accepted"
    cp "$scratch/accepted" "$expected_warnings"
fi
# Lines starting with # in the file are comments; those of skipped runs are not expected.
grep -v '^#' "$expected_warnings" > "$scratch/expected" 2>/dev/null || true
if [ -s "$scratch/skipped" ]; then
    grep -v -F -f "$scratch/skipped" "$scratch/expected" > "$scratch/expected-run" || true
    mv "$scratch/expected-run" "$scratch/expected"
fi
if ! diff -u "$scratch/expected" "$scratch/sorted" > "$scratch/diff"; then
    echo "generate FAILED: protoc's warnings are not those in $expected_warnings (- expected, + now):" >&2
    tail -n +3 "$scratch/diff" >&2
    echo "Fix the cause, or accept the new set with SWIFTFRAME_ACCEPT_WARNINGS=1 make generate and commit it." >&2
    exit 1
fi
echo "generated $files files in $runs protoc runs; $(wc -l < "$scratch/sorted" | tr -d ' ') expected warnings ($expected_warnings)"
if [ "$skipped" -gt 0 ]; then
    echo "generate: SKIPPED $skipped runs of editions files: protoc $(protoc --version | sed 's/libprotoc //') reads no editions and" \
        "no protoc 27 or later was found (PROTOC_EDITIONS, or scripts/ensure-protoc.sh installs protoc 35.1); their checked-in sources are kept" >&2
fi
