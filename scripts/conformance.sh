#!/usr/bin/env bash
# protobuf's conformance runner (built from protobuf 35.1: CONTRIBUTING.md says how) against
# swiftframe-conformance in both code modes, editions included, recommended tests enforced:
#   scripts/conformance.sh RUNNER TESTEE
# Each of the two runs (default mode, then --code-size; each runs the binary and JSON suite,
# then the text-format one) must pass whole: there is no failure list.
set -euo pipefail
runner="$1"
testee="$2"
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
for mode in "" --code-size; do
    # The runner writes its lists of failures into --output_dir.
    if "$runner" --maximum_edition 2023 --enforce_recommended \
        --output_dir "$out/" "$testee" $mode > "$out/log" 2>&1; then
        grep "CONFORMANCE SUITE" "$out/log" | sed "s|^|conformance${mode:+ $mode}: |"
    else
        grep -E "^ERROR|CONFORMANCE SUITE" "$out/log" | sed "s|^|conformance${mode:+ $mode}: |" >&2
        status=1
    fi
done
exit "$status"
