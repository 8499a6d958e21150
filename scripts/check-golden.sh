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
scripts/generate.sh "$plugin" "$fresh" > /dev/null
status=0
for dir in Fixtures/generated Fixtures/generated-compact Sources/SwiftFrameWellKnownTypes/Generated Sources/SwiftFrameDescriptors/Generated \
    Sources/SwiftFrameGenerator/Descriptor/Generated Sources/SwiftFrameGenerator/Config/Generated \
    Sources/SwiftFrameConformanceMessages Sources/SwiftFrameConformanceMessagesCompact Fixtures/PluginPackage/Sources/SharedProtocol/Generated; do
    [ -d "$fresh/$dir" ] || { echo "golden check: skipped $dir (its inputs are not here)"; continue; }
    if ! diff -ru "$dir" "$fresh/$dir"; then
        echo "golden check FAILED: $dir differs from a fresh generation (diff above)." >&2
        status=1
    fi
done
if [ "$status" -ne 0 ]; then
    echo "If the change is intended, run 'make golden' and commit the result." >&2
    exit 1
fi
echo "golden check passed: the generated sources match a fresh generation"
