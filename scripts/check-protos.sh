#!/usr/bin/env bash
# Generates and compiles, in one Swift module each, two sets of .proto files that swiftframe
# does not own: every .proto libprotobuf-dev installs, and every test .proto of swift-protobuf
# (Protos/Tests/SwiftProtobufTests at a tag, read from a git copy of the package; files protoc
# itself rejects are listed and skipped). The Swift is compiled in full (not only type-checked)
# in Swift 6 mode with warnings as errors, then type-checked with MainActor isolation.
#   scripts/check-protos.sh PLUGIN [SWIFT_PROTOBUF_GIT [TAG]]
set -euo pipefail
plugin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
repo="${2:-/opt/swift-packages/apple/swift-protobuf.git}"
tag="${3:-1.39.0}"
cd "$(dirname "$0")/.."
include="${PROTOBUF_INCLUDE:-/usr/include}"
modules="$(dirname "$plugin")/Modules"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

compile() {  # NAME DIR: compile every .swift below DIR as one module
    local name="$1" dir="$2" sources
    sources=$(find "$dir" -name '*.swift' | sort)
    echo "$name: $(echo "$sources" | wc -l) generated files"
    swiftc -emit-library -o "$work/lib$name.so" -module-name "$name" -swift-version 6 -warnings-as-errors \
        -I "$modules" $sources
    swiftc -typecheck -swift-version 6 -warnings-as-errors -default-isolation MainActor -I "$modules" $sources
    echo "$name: compiled with no warnings"
}

# Everything libprotobuf-dev installs, in one run: files generated together are one module, so
# the well-known types are compiled here too rather than imported.
mkdir -p "$work/google"
google=$(cd "$include" && find google -name '*.proto' | sort)
protoc --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$work/google" -I "$include" $google
compile LibprotobufProtos "$work/google"

# swift-protobuf's test protos.
git -C "$repo" archive "$tag" Protos/Tests/SwiftProtobufTests | tar -x -C "$work"
tests="$work/Protos/Tests/SwiftProtobufTests"
accepted=()
for file in $(cd "$tests" && ls *.proto); do
    if protoc -I "$tests" -I "$include" --descriptor_set_out=/dev/null "$file" 2>/dev/null; then
        accepted+=("$file")
    else
        echo "swift-protobuf $tag: protoc $(protoc --version | cut -d' ' -f2) rejects $file; skipped"
    fi
done
mkdir -p "$work/swift-protobuf"
protoc --plugin=protoc-gen-swiftframe="$plugin" --swiftframe_out="$work/swift-protobuf" \
    -I "$tests" -I "$include" "${accepted[@]}" 2> >(grep -v "gets no typed accessor" >&2)
compile SwiftProtobufTestProtos "$work/swift-protobuf"
echo "check-protos passed: ${#accepted[@]} swift-protobuf test protos and $(echo "$google" | wc -l) libprotobuf-dev protos"
