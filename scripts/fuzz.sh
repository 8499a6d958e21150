#!/usr/bin/env bash
# Builds the libFuzzer targets of FuzzTesting/ (release, AddressSanitizer, coverage) and runs
# each one, from the seed corpus (FuzzTesting/seeds.py) and FailCases, with its dictionary.
#   scripts/fuzz.sh [runs] [seconds]   defaults: 10,000,000 executions, no time limit
# A crash leaves its input in FuzzTesting/.build/artifacts-<target>-*; copy it into
# FuzzTesting/FailCases/<target>/ so that `make test` replays it.
set -euo pipefail
runs=${1:-10000000}
seconds=${2:-0}
cd "$(dirname "$0")/../FuzzTesting"
flags=(-c release --sanitize=fuzzer --sanitize=address -Xswiftc -sanitize=fuzzer -Xswiftc -parse-as-library
       -Xswiftc -enable-testing)
swift build "${flags[@]}"
bin=$(swift build "${flags[@]}" --show-bin-path)
rm -rf .build/corpus
python3 seeds.py .build/corpus
export SWIFT_BACKTRACE=enable=no   # a crash must not wait on the backtracer
status=0
for pair in FuzzMessage:message FuzzFrames:frames FuzzLayoutText:layout FuzzPlugin:plugin \
    FuzzDecoderHandler:frames FuzzClientInbound:frames FuzzCapture:capture FuzzJSON:json \
    FuzzTextFormat:textformat; do
    target=${pair%%:*}
    mkdir -p ".build/work/$target"
    echo "== $target"
    start=$(date +%s)
    if ! "$bin/$target" ".build/work/$target" ".build/corpus/$target" "FailCases/$target" \
        -dict="Dictionaries/${pair##*:}.dict" -runs="$runs" -max_total_time="$seconds" \
        -print_final_stats=1 -artifact_prefix=".build/artifacts-$target-" > ".build/$target.log" 2>&1; then
        status=1
        grep -E "ERROR|Fatal error|precondition|SUMMARY|artifact" ".build/$target.log" | head -5
    fi
    grep -E "DONE|stat::number_of_executed_units" ".build/$target.log" | tail -2
    echo "   $(( $(date +%s) - start )) s"
done
exit $status
