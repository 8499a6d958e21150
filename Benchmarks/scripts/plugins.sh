# Sourced by the benchmark scripts: paths of the two protoc plugins, built on demand.
#   SWIFTFRAME_PLUGIN  protoc-gen-swiftframe to use instead of a release build of this repository's
#   PROTOC_GEN_SWIFT   protoc-gen-swift to use instead of a release build of the swift-protobuf
#                      checkout that this package resolved (the build takes minutes, once)
bench_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
root_dir="$(cd "$bench_dir/.." && pwd)"

swiftframe_plugin() {
    if [[ -n "${SWIFTFRAME_PLUGIN:-}" ]]; then echo "$SWIFTFRAME_PLUGIN"; return; fi
    (cd "$root_dir" && swift build -c release --product protoc-gen-swiftframe >&2)
    echo "$(cd "$root_dir" && swift build -c release --show-bin-path)/protoc-gen-swiftframe"
}

protoc_gen_swift() {
    if [[ -n "${PROTOC_GEN_SWIFT:-}" ]]; then echo "$PROTOC_GEN_SWIFT"; return; fi
    (cd "$bench_dir" && swift package resolve >&2)
    local checkout="$bench_dir/.build/checkouts/swift-protobuf"
    local scratch="$bench_dir/.build/protoc-gen-swift"
    swift build -c release --product protoc-gen-swift --package-path "$checkout" --scratch-path "$scratch" >&2
    echo "$(swift build -c release --package-path "$checkout" --scratch-path "$scratch" --show-bin-path)/protoc-gen-swift"
}
