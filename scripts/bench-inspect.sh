#!/usr/bin/env bash
# `make bench-inspect`: makes captures of small game-tcp frames (CAPTURE_MB megabytes, pcap,
# scripts/capture-speed.py), one of random bodies and one of the game fixture's messages, and
# times `swiftframe inspect` (release build) on them, headers only and with the payloads decoded
# (--proto, readable and --json), beside tshark: without a dissector, and with the dissector
# `swiftframe dissector` generates (summary lines, and -V for the decoded messages), and beside
# `protoc --decode` run once per frame. Each row is the median wall time of RUNS runs (default 3)
# with the runs, MB/s, and the peak resident memory (/usr/bin/time -v); the rows "a fifth" run
# on captures a fifth the size, to show memory flat in capture size.
set -euo pipefail
cd "$(dirname "$0")/.."
size="${CAPTURE_MB:-100}"
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
swift build -c release --product swiftframe >/dev/null
bin="$(swift build -c release --show-bin-path)/swiftframe"
python3 scripts/capture-speed.py "$dir/small.pcap" $((size / 5))
python3 scripts/capture-speed.py "$dir/capture.pcap" "$size"
python3 scripts/capture-speed.py "$dir/messages.pcap" "$size" --messages
python3 scripts/capture-speed.py "$dir/small-messages.pcap" $((size / 5)) --messages
proto=(--proto Fixtures/protos/game.proto -I Fixtures/protos -I Protos)
"$bin" dissector "${proto[@]}" --port 7000 --output "$dir/game.lua"
# tshark finds the messages through its protobuf search paths, in its configuration folder.
mkdir -p "$dir/wireshark"
include="$(dirname "$(dirname "$(command -v protoc)")")/include"
[ -f "$include/google/protobuf/descriptor.proto" ] || include=/usr/include
printf '"%s","TRUE"\n"%s","FALSE"\n"%s","FALSE"\n' "$PWD/Fixtures/protos" "$PWD/Protos" "$include" \
    > "$dir/wireshark/protobuf_search_paths"
export XDG_CONFIG_HOME="$dir"
runs="${RUNS:-3}"
measure() {  # label, file, command...: the median wall time of RUNS runs, and its peak RSS
    local label="$1" file="$2"; shift 2
    local walls=() rss=0
    for _ in $(seq "$runs"); do
        /usr/bin/time -v "$@" >/dev/null 2>"$dir/time.txt" || true
        walls+=("$(sed -n 's/.*Elapsed (wall clock) time (h:mm:ss or m:ss): //p' "$dir/time.txt" | awk -F: '{ s = 0; for (i = 1; i <= NF; i++) s = s * 60 + $i; print s }')")
        rss="$(sed -n 's/.*Maximum resident set size (kbytes): //p' "$dir/time.txt")"
    done
    local sorted wall bytes
    sorted="$(printf '%s\n' "${walls[@]}" | sort -n | tr '\n' ' ')"
    wall="$(printf '%s\n' "${walls[@]}" | sort -n | awk '{ a[NR] = $1 } END { print a[int((NR + 1) / 2)] }')"
    bytes="$(stat -c %s "$file")"
    awk -v l="$label" -v b="$bytes" -v w="$wall" -v r="$rss" -v s="$sorted" \
        'BEGIN { printf "| %s | %.1f MB | %.2f s (%s) | %.1f MB/s | %.1f MiB |\n", l, b / 1e6, w, s, b / 1e6 / w, r / 1024 }'
}
echo "CPU: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg); median of $runs runs"
echo
echo "| what | capture | wall (runs, s) | speed | peak RSS |"
echo "| --- | ---: | ---: | ---: | ---: |"
measure "swiftframe inspect, headers" "$dir/capture.pcap" "$bin" inspect --layout game-tcp "$dir/capture.pcap"
measure "swiftframe inspect, headers (a fifth)" "$dir/small.pcap" "$bin" inspect --layout game-tcp "$dir/small.pcap"
measure "swiftframe inspect --proto, payloads" "$dir/messages.pcap" "$bin" inspect "${proto[@]}" --port 7000 "$dir/messages.pcap"
measure "swiftframe inspect --proto, payloads (a fifth)" "$dir/small-messages.pcap" "$bin" inspect "${proto[@]}" --port 7000 "$dir/small-messages.pcap"
measure "swiftframe inspect --proto --json" "$dir/messages.pcap" "$bin" inspect "${proto[@]}" --port 7000 --json "$dir/messages.pcap"
if command -v tshark >/dev/null; then
    measure "tshark -r, no dissector" "$dir/capture.pcap" tshark -r "$dir/capture.pcap"
    measure "tshark -r, generated dissector, summary lines" "$dir/messages.pcap" tshark -r "$dir/messages.pcap" -X "lua_script:$dir/game.lua"
    measure "tshark -r -V, generated dissector, payloads" "$dir/messages.pcap" tshark -r "$dir/messages.pcap" -X "lua_script:$dir/game.lua" -V
    measure "tshark -r -V, generated dissector (a fifth)" "$dir/small-messages.pcap" tshark -r "$dir/small-messages.pcap" -X "lua_script:$dir/game.lua" -V
fi
# The slow baseline: protoc --decode once per frame (one process per frame, as a shell loop
# over frames cut out by hand would run it), on 200 bodies; its speed is the capture's average
# bytes per frame over the time per frame.
frames="$("$bin" inspect "${proto[@]}" --port 7000 "$dir/messages.pcap" | grep -c '^frame')"
printf '\x0a\x08level up\x10\x9b\x86\x06' > "$dir/body.bin"
start="$(date +%s.%N)"
for _ in $(seq 200); do protoc "${proto[@]:2:4}" --decode=Test_Req Fixtures/protos/game.proto < "$dir/body.bin" >/dev/null; done
end="$(date +%s.%N)"
awk -v s="$start" -v e="$end" -v f="$frames" -v b="$(stat -c %s "$dir/messages.pcap")" \
    'BEGIN { t = (e - s) / 200; printf "| protoc --decode, one process per frame | %.1f MB, %d frames | %.1f ms a frame | %.3f MB/s | – |\n", b / 1e6, f, t * 1000, b / f / t / 1e6 }'
