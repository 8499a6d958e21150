#!/usr/bin/env bash
# Regenerates the fixtures into a temporary directory with the given plugin and fails,
# showing the diff, when they differ from the checked-in Fixtures/generated.
#   scripts/check-golden.sh PLUGIN
set -euo pipefail
plugin="$1"
cd "$(dirname "$0")/.."
fresh="$(mktemp -d)"
trap 'rm -rf "$fresh"' EXIT
scripts/generate-fixtures.sh "$plugin" "$fresh"
if ! diff -ru Fixtures/generated "$fresh"; then
    echo "golden check FAILED: Fixtures/generated differs from a fresh generation (diff above)." >&2
    echo "If the change is intended, run 'make golden' and commit the result." >&2
    exit 1
fi
echo "golden check passed: Fixtures/generated matches a fresh generation"
