#!/usr/bin/env bash
# Regenerates everything the project generates into a temporary directory with the given
# plugin and fails, showing the diff, when it differs from what is checked in.
#   scripts/check-golden.sh PLUGIN
set -euo pipefail
plugin="$1"
cd "$(dirname "$0")/.."
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
# Fails, showing them, on warnings other than Fixtures/expected-warnings.txt.
SWIFTFRAME_SKIPPED="$fresh/.skipped" scripts/generate.sh "$plugin" "$fresh" > /dev/null
# What a protoc without editions could not generate is left out of the comparison.
exclude=()
[ -s "$fresh/.skipped" ] && exclude=(-x Editions)
status=0
for dir in Fixtures/generated Fixtures/generated-compact Sources/SwiftFrameWellKnownTypes/Generated Sources/SwiftFrameDescriptors/Generated \
    Sources/SwiftFrameDescriptors/EditionDefaults \
    Sources/SwiftFrameGenerator/Descriptor/Generated Sources/SwiftFrameGenerator/Config/Generated \
    Sources/SwiftFrameConformanceMessages Sources/SwiftFrameConformanceMessagesCompact Fixtures/PluginPackage/Sources/SharedProtocol/Generated; do
    [ -d "$fresh/$dir" ] || { echo "golden check: skipped $dir (its inputs are not here)"; continue; }
    if ! diff -ru "${exclude[@]}" "$dir" "$fresh/$dir"; then
        echo "golden check FAILED: $dir differs from a fresh generation (diff above)." >&2
        status=1
    fi
done
# The editions copies of the conformance messages (the proto2 and proto3 files rewritten as
# edition 2023 with the features that keep their behaviour) must generate the same Swift as the
# originals, but for names and line breaks: then they cannot differ in behaviour or speed.
same_code() {
    sed -e 's/_editions\.proto/.proto/g' -e 's/Editions_//g' -e 's/editions\.//g' -e 's/EditionsExtensions/Extensions/g' "$1" \
        | tr -d ' \n'
}
for dir in Sources/SwiftFrameConformanceMessages Sources/SwiftFrameConformanceMessagesCompact; do
    for syntax in proto2 proto3; do
        if ! cmp -s <(same_code "$dir/test_messages_$syntax.swiftframe.swift") \
            <(same_code "$dir/Editions/test_messages_${syntax}_editions.swiftframe.swift"); then
            echo "golden check FAILED: $dir/Editions/test_messages_${syntax}_editions.swiftframe.swift is not the code of test_messages_$syntax.proto but for names" >&2
            status=1
        fi
    done
done
if [ "$status" -ne 0 ]; then
    echo "If the change is intended, run 'make golden' and commit the result." >&2
    exit 1
fi
if [ -s "$fresh/.skipped" ]; then
    echo "golden check passed with $(protoc --version) first on the PATH, but for the editions sources, which need protoc 27 or later: $(tr '\n' ' ' < "$fresh/.skipped")"
else
    echo "golden check passed with $(protoc --version) first on the PATH: the generated sources match a fresh generation"
fi
