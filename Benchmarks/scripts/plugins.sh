# Sourced by the benchmark scripts: paths of the two protoc plugins, built on demand, both in
# release with the Swift runtime linked in (--static-swift-stdlib, as `make install` builds ours):
# a plugin is a process started once per protoc run, and loading the runtime's shared
# libraries takes about a millisecond of its time.
#   SWIFTFRAME_PLUGIN  protoc-gen-swiftframe to use instead of a release build of this repository's
#   PROTOC_GEN_SWIFT   protoc-gen-swift to use instead of a release build of the swift-protobuf
#                      checkout that this package resolved (the build takes minutes, once)
bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root_dir="$(cd "$bench_dir/.." && pwd)"

swiftframe_plugin() {
    if [[ -n "${SWIFTFRAME_PLUGIN:-}" ]]; then echo "$SWIFTFRAME_PLUGIN"; return; fi
    (cd "$root_dir" && swift build -c release --static-swift-stdlib --product protoc-gen-swiftframe >&2)
    echo "$(cd "$root_dir" && swift build -c release --static-swift-stdlib --show-bin-path)/protoc-gen-swiftframe"
}

protoc_gen_swift() {
    if [[ -n "${PROTOC_GEN_SWIFT:-}" ]]; then echo "$PROTOC_GEN_SWIFT"; return; fi
    (cd "$bench_dir" && swift package resolve >&2)
    local checkout="$bench_dir/.build/checkouts/swift-protobuf"
    local scratch="$bench_dir/.build/protoc-gen-swift"
    swift build -c release --static-swift-stdlib --product protoc-gen-swift --package-path "$checkout" --scratch-path "$scratch" >&2
    echo "$(swift build -c release --static-swift-stdlib --package-path "$checkout" --scratch-path "$scratch" --show-bin-path)/protoc-gen-swift"
}

# The Modules directory of a release build of SwiftFrame and SwiftProtobuf, to compile generated
# code against as an app's release build would (building BenchProfile builds both).
release_modules() {
    (cd "$bench_dir" && swift build -c release --product BenchProfile >&2)
    echo "$(cd "$bench_dir" && swift build -c release --show-bin-path)/Modules"
}
