#!/usr/bin/env bash
# The SwiftPM plugins as a user's package runs them (Fixtures/PluginPackage, which depends on
# this repository by path with `traits: []`): none of swiftframe's dependencies is fetched;
# the build-tool plugin generates a target's .proto files during `swift build`;
# `check-swiftframe` (no write permission) passes on the checked-in sources, fails once one is
# stale, and `generate-swiftframe` makes it pass again. Run by `make test`.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
package="$repo/Fixtures/PluginPackage"
scratch=(--package-path "$package" --scratch-path "$repo/.build-plugin-package")
generated="$package/Sources/SharedProtocol/Generated/game/login.swiftframe.swift"
fail() { echo "check-plugins: $*" >&2; exit 1; }
cleanup=()
trap 'for command in "${cleanup[@]}"; do eval "$command"; done' EXIT

# 1. Build-tool plugin: the package builds with no warning, and the program prints the
#    messages of both targets and the command table room.proto declares with swiftframe's
#    options (`import "swiftframe/options.proto"`, which no importPaths entry names).
build_log=$(swift build "${scratch[@]}" 2>&1) || { echo "$build_log"; fail "the package does not build"; }
if grep -E "warning:|error:" <<< "$build_log"; then fail "the package builds with warnings"; fi
expected='room_id: 7 viewers: 1200 recent_gifts { kind: KIND_ROCKET count: 3 } gifts: 3
account: "neo" token: "t0k" version: 3
player_id: 42 succeeded: true
EnterRoom command: 1 table: Live_RoomCommands'
output=$("$repo/.build-plugin-package/debug/plugin-demo")
[[ "$output" == "$expected" ]] || fail "plugin-demo printed:"$'\n'"$output"$'\n'"expected:"$'\n'"$expected"

# With `traits: []`, none of swiftframe's own dependencies was resolved.
fetched=$(ls "$repo/.build-plugin-package/checkouts" 2>/dev/null || true)
[[ -z "$fetched" ]] || fail "a package using only the runtime and the plugins fetched: $fetched"
built=$(ls "$repo/.build-plugin-package/debug/Modules" | grep -E "^(NIO|Logging|ArgumentParser|SwiftFrameNIO)" || true)
[[ -z "$built" ]] || fail "a package using only the runtime and the plugins built: $built"

# 2. Command plugins: the checked-in sources are current. check-swiftframe asks for no
#    permission (stdin is not a terminal: a permission prompt would fail the command).
check=(swift package "${scratch[@]}" check-swiftframe)
generate=(swift package "${scratch[@]}" --allow-writing-to-package-directory generate-swiftframe)
check_log=$("${check[@]}" < /dev/null 2>&1) || fail "check-swiftframe fails on the checked-in sources:"$'\n'"$check_log"
grep -q "generated sources are up to date" <<< "$check_log" || fail "check-swiftframe printed:"$'\n'"$check_log"

# 3. A stale file fails the check, naming the file; regenerating restores it.
cp "$generated" "$repo/.build-plugin-package/login.swiftframe.swift.saved"
cleanup+=('cp "$repo/.build-plugin-package/login.swiftframe.swift.saved" "$generated"')
echo "// edited by hand" >> "$generated"
if check_log=$("${check[@]}" < /dev/null 2>&1); then fail "check-swiftframe passed on an edited file"; fi
grep -q "login.swiftframe.swift differs" <<< "$check_log" || fail "check-swiftframe did not name the stale file:"$'\n'"$check_log"
if check_log=$("${generate[@]}" --check < /dev/null 2>&1); then fail "generate-swiftframe --check passed on an edited file"; fi
"${generate[@]}" > /dev/null 2>&1 || fail "regenerating failed"
cmp -s "$generated" "$repo/.build-plugin-package/login.swiftframe.swift.saved" || fail "regenerating did not restore $generated"
"${check[@]}" < /dev/null > /dev/null 2>&1 || fail "check-swiftframe fails after regenerating"
echo "check-plugins: build-tool plugin built and ran; check-swiftframe caught a stale file, generate-swiftframe regenerated it"

# 4. A fresh package that depends on swiftframe through a git URL, so that nothing points
#    into swiftframe's checkout: a tagged repository of the tree under test (uncommitted and
#    untracked files included). Its manifest is the README's, with `.package(url: "file://...",
#    exact: "0.0.1", traits: ["Transport"])` for swiftframe. Its protocol target holds the game backend's .proto files as they are
#    (game.proto imports swiftframe/options.proto; game_plain.proto has no annotations, its
#    ids come from the config file game.txtpb), swiftframe.json and the one Swift file SwiftPM
#    needs; the program is the README's game example, run against the Python game server.
#    A second target's sources are checked in, generated from protos/ by the README's
#    commands as printed (before the first generation it has no Swift file either).
#    SWIFTFRAME_KEEP_URL_PACKAGE=1 keeps the folder.
start=$SECONDS
work=$(mktemp -d "${TMPDIR:-/tmp}/swiftframe-url.XXXXXX")
[[ -n "${SWIFTFRAME_KEEP_URL_PACKAGE:-}" ]] && echo "check-plugins: URL package in $work" || cleanup+=('rm -rf "$work"')
git=(git -c user.name=check-plugins -c user.email=check-plugins@localhost -c init.defaultBranch=main)
"${git[@]}" init -q "$work/swiftframe"
(cd "$repo" && git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null) \
    | tar -xf - -C "$work/swiftframe"
(cd "$work/swiftframe" && "${git[@]}" add -A && "${git[@]}" commit -q -m "the tree under test" && "${git[@]}" tag 0.0.1)

# Every Package.swift the README and the DocC articles print, loaded by SwiftPM with
# swiftframe's URL pointed at the tagged copy (a wrong argument or product fails here).
for name in $(python3 "$repo/scripts/examples.py" --manifests); do
    mkdir -p "$work/manifest-$name"
    python3 "$repo/scripts/examples.py" --manifest "$name" \
        | sed -E "s|\.package\(url: \"[^\"]*\", from: \"[^\"]*\"|.package(path: \"$work/swiftframe\"|" \
        > "$work/manifest-$name/Package.swift"
    grep -q "package(path: \"$work/swiftframe\"" "$work/manifest-$name/Package.swift" \
        || fail "the manifest example $name names no swiftframe URL"
    log=$(cd "$work/manifest-$name" && swift package dump-package 2>&1 < /dev/null > /dev/null) \
        || fail "SwiftPM refuses the manifest example $name:"$'\n'"$log"
    echo "check-plugins: SwiftPM loads the documents' manifest example $name"
done

app="$work/FirstHour"
mkdir -p "$app/Sources/MyProtocol" "$app/Sources/MyGame" "$app/Sources/SharedProtocol" "$app/protos/shared"
cp "$repo/Fixtures/protos/game.proto" "$repo/Fixtures/conventions/game/game_plain.proto" \
    "$repo/Fixtures/conventions/game/game.txtpb" "$app/Sources/MyProtocol/"
cat > "$app/Sources/MyProtocol/swiftframe.json" <<'JSON'
{ "options": { "Visibility": "public", "Config": "game.txtpb" } }
JSON
cat > "$app/Sources/SharedProtocol/swiftframe.json" <<'JSON'
{ "protoRoot": "../../protos", "output": "Generated", "options": { "Visibility": "public" } }
JSON
cat > "$app/protos/shared/ping.proto" <<'PROTO'
syntax = "proto3";
package shared;
import "swiftframe/options.proto";
option (swiftframe.layout) = "game-tcp";
message Ping { option (swiftframe.request_id) = 7; int64 sent = 1; }
message Pong { option (swiftframe.response_id) = 7; int64 sent = 1; }
PROTO
# The README's manifest as printed, but for swiftframe's URL and traits (the tagged copy, the
# Transport trait alone), then what the README leaves to the articles: the config file and
# swiftframe.json excluded from the protocol target, and a target of checked-in sources.
{
    python3 "$repo/scripts/examples.py" --manifest manifest \
        | sed -E "s|\.package\(url: \"[^\"]*\", from: \"[^\"]*\"\)|.package(url: \"file://$work/swiftframe\", exact: \"0.0.1\", traits: [\"Transport\"])|"
    cat <<'SWIFT'

package.targets.first { $0.name == "MyProtocol" }!.exclude = ["swiftframe.json", "game.txtpb"]
package.targets.append(.target(name: "SharedProtocol",
                               dependencies: [.product(name: "SwiftFrame", package: "swiftframe")],
                               exclude: ["swiftframe.json"]))
package.targets.first { $0.name == "MyGame" }!.dependencies.append("SharedProtocol")
SWIFT
} > "$app/Package.swift"
grep -q 'file://' "$app/Package.swift" || fail "the README's manifest names swiftframe's URL no longer as check-plugins expects"
{
    printf 'import MyProtocol\nimport SharedProtocol\nimport SwiftFrameNIO\n\nlet port = Int(CommandLine.arguments[1])!\n'
    # The README's game example, as printed but for the port.
    python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import examples, re
code = [example.code for example in examples.examples() if example.name == "game-quick"]
assert code, "README.md has no example game-quick"
print("\n".join(re.sub(r"port: 9000\b", "port: port", line) for line in code[0] if not line.startswith("import ")))' "$repo/scripts"
    cat <<'SWIFT'
// The same request through the table game.txtpb gives game_plain.proto.
let plain = try await withFrameClient(PlainGame_GamePlainCommands.self, host: "127.0.0.1", port: port) { client in
    try await client.request(PlainGame_TestReq(param1: "hello", param2: 21))
}
print(plain)
print("Ping command:", Shared_Ping.commandID)
SWIFT
} > "$app/Sources/MyGame/main.swift"
cd "$app"

# Without a Swift file, SwiftPM drops the target, saying what the README quotes.
describe=$(swift package describe 2>&1 < /dev/null || true)
grep -q "Source files for target MyProtocol should be located under 'Sources/MyProtocol'" <<< "$describe" \
    || fail "a target of only .proto files no longer gives the warning README.md quotes:"$'\n'"$describe"
printf '// SwiftPM builds no target without a Swift file; the generated code is added at build time.\n' \
    > "$app/Sources/MyProtocol/MyProtocol.swift"

log=$(swift package --allow-writing-to-package-directory generate-swiftframe 2>&1 < /dev/null) \
    || fail "generate-swiftframe failed in the URL package:"$'\n'"$log"
[[ -f "$app/Sources/SharedProtocol/Generated/shared/ping.swiftframe.swift" ]] || fail "generate-swiftframe wrote:"$'\n'"$log"
log=$(swift package check-swiftframe 2>&1 < /dev/null) || fail "check-swiftframe failed in the URL package:"$'\n'"$log"

build_log=$(swift build 2>&1 < /dev/null) || { echo "$build_log"; fail "the URL package does not build"; }
# game.proto's CMD_SYSTEM_LOGOUT has no message on purpose: the one warning expected.
if grep -E "warning:|error:" <<< "$build_log" | grep -v -F "warning: command table CommandEnum: CMD_SYSTEM_LOGOUT (99900001) matches no message"; then
    fail "the URL package builds with warnings"
fi
[[ -z "$(ls .build/checkouts | grep -v -x -E 'swiftframe|swift-nio|swift-log|swift-atomics|swift-collections|swift-system')" ]] \
    || fail "the URL package with the Transport trait fetched: $(ls .build/checkouts)"
built=$SECONDS

# The Python game server on a free port; it stops when its stdin closes.
exec {server_input}> >(exec python3 "$repo/Tests/Peers/peer.py" game --port 0 --watch-stdin --lifetime 120 \
    > "$work/server.out" 2> "$work/server.log")
cleanup+=("exec $server_input>&-")
for _ in $(seq 100); do grep -q "^listening" "$work/server.out" 2>/dev/null && break; sleep 0.1; done
port=$(awk '/^listening/ { print $2 }' "$work/server.out")
[[ -n "$port" ]] || fail "the game server did not start:"$'\n'"$(cat "$work/server.log")"
output=$(timeout 60 .build/debug/MyGame "$port" 2>&1) || fail "the URL package's program failed:"$'\n'"$output"
expected='result1: "echo:hello" result2: 42
result1: "echo:hello" result2: 42
Ping command: 7'
[[ "$output" == "$expected" ]] || fail "the URL package's program printed:"$'\n'"$output"$'\n'"expected:"$'\n'"$expected"
echo "check-plugins: a package depending on swiftframe by URL built ($(( built - start )) s) and talked to the game server"
