#!/usr/bin/env bash
# protobuf's conformance runner (built from protobuf 35.1: CONTRIBUTING.md says how) against
# swiftframe-conformance in both code modes, editions included, recommended tests enforced:
#   scripts/conformance.sh RUNNER TESTEE
# Each of the four runs (binary and JSON, then text format; default mode, then --code-size)
# must pass whole, but for the tests listed in Fixtures/conformance's failure lists, where there
# is one (each line a test name and, after #, why it fails): the runner also fails a listed
# test that passes.
set -euo pipefail
runner="$1"
testee="$2"
cd "$(dirname "$0")/.."
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
lists=()
for list in failure_list text_format_failure_list; do
    [ -f "Fixtures/conformance/$list.txt" ] && lists+=("--$list" "Fixtures/conformance/$list.txt")
done
status=0
for mode in "" --code-size; do
    # The runner writes its lists of failures into --output_dir.
    if "$runner" --maximum_edition 2023 --enforce_recommended "${lists[@]}" \
        --output_dir "$out/" "$testee" $mode > "$out/log" 2>&1; then
        grep "CONFORMANCE SUITE" "$out/log" | sed "s|^|conformance${mode:+ $mode}: |"
    else
        grep -E "^ERROR|CONFORMANCE SUITE" "$out/log" | sed "s|^|conformance${mode:+ $mode}: |" >&2
        status=1
    fi
done
exit "$status"
