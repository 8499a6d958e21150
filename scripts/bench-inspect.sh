#!/usr/bin/env bash
# `make bench-inspect`: makes a capture of small game-tcp frames (CAPTURE_MB megabytes, pcap,
# scripts/capture-speed.py) and times `swiftframe inspect` (release build) on it beside
# `tshark -r`, printing MB/s and the peak resident memory of each (/usr/bin/time -v), and the
# inspect run again on a capture a fifth the size, to show memory flat in capture size.
set -euo pipefail
cd "$(dirname "$0")/.."
size="${CAPTURE_MB:-100}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
swift build -c release --product swiftframe >/dev/null
bin="$(swift build -c release --show-bin-path)/swiftframe"
python3 scripts/capture-speed.py "$dir/small.pcap" $((size / 5))
python3 scripts/capture-speed.py "$dir/capture.pcap" "$size"
measure() {  # label, file, command...
    local label="$1" file="$2"; shift 2
    /usr/bin/time -v "$@" >/dev/null 2>"$dir/time.txt" || true
    local wall rss bytes
    wall="$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')"
    rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")"
    bytes="$(stat -c %s "$file")"
    awk -v l="$label" -v b="$bytes" -v w="$wall" -v r="$rss" \
        'BEGIN { printf "%-34s %7.1f MB in %6.2f s: %7.1f MB/s, peak RSS %6.1f MiB\n", l, b / 1e6, w, b / 1e6 / w, r / 1024 }'
}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
measure "swiftframe inspect (${size} MB)" "$dir/capture.pcap" "$bin" inspect --layout game-tcp "$dir/capture.pcap"
measure "swiftframe inspect ($((size / 5)) MB)" "$dir/small.pcap" "$bin" inspect --layout game-tcp "$dir/small.pcap"
if command -v tshark >/dev/null; then
    measure "tshark -r (${size} MB)" "$dir/capture.pcap" tshark -r "$dir/capture.pcap"
fi
