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
trap 'cp "$repo/.build-plugin-package/login.swiftframe.swift.saved" "$generated"' EXIT
echo "// edited by hand" >> "$generated"
if check_log=$("${check[@]}" < /dev/null 2>&1); then fail "check-swiftframe passed on an edited file"; fi
grep -q "login.swiftframe.swift differs" <<< "$check_log" || fail "check-swiftframe did not name the stale file:"$'\n'"$check_log"
if check_log=$("${generate[@]}" --check < /dev/null 2>&1); then fail "generate-swiftframe --check passed on an edited file"; fi
"${generate[@]}" > /dev/null 2>&1 || fail "regenerating failed"
cmp -s "$generated" "$repo/.build-plugin-package/login.swiftframe.swift.saved" || fail "regenerating did not restore $generated"
"${check[@]}" < /dev/null > /dev/null 2>&1 || fail "check-swiftframe fails after regenerating"
echo "check-plugins: build-tool plugin built and ran; check-swiftframe caught a stale file, generate-swiftframe regenerated it"
