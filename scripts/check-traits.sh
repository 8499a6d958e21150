#!/usr/bin/env bash
# make check-traits: for each trait set a user can choose for swiftframe (given as arguments;
# "none" is `traits: []`, "default" the default set), a package that depends on this tree by
# path with exactly those traits, and whose one target uses every library product those traits
# make usable, is built. Each set's build shares one scratch folder (.build-traits), so
# swiftframe's dependencies are compiled once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
work="$root/.build-traits"
mkdir -p "$work/package/Sources/TraitUser"
for set in "$@"; do
    case "$set" in
        none) traits="[]" ;;
        default) traits="[.defaults]" ;;
        *) traits="[$(echo "$set" | tr '+' '\n' | sed 's/.*/"&"/' | paste -sd, -)]" ;;
    esac
    has() { [[ "$set" == default || "+$set+" == *"+$1+"* ]]; }
    products='.product(name: "SwiftFrame", package: "swiftframe"), .product(name: "SwiftFrameURLSession", package: "swiftframe")'
    uses='_ = SwiftFrame.FrameLayout.self'
    imports="import SwiftFrame"
    # TLS enables Transport; Compression and Encryption add to SwiftFrameNIO, so only with it.
    if has Transport || has TLS; then
        products+=', .product(name: "SwiftFrameNIO", package: "swiftframe")'
        imports+=$'\n''import SwiftFrameNIO'
        uses+=$'\n''_ = SwiftFrameNIO.ClientConfiguration.self'
        has TLS && uses+=$'\n''_ = SwiftFrameNIO.ClientTLS.self'
        has Compression && uses+=$'\n''_ = SwiftFrameNIO.ZlibBody.self'
        has Encryption && uses+=$'\n''_ = SwiftFrameNIO.AESGCMBody.self'
    fi
    cat > "$work/package/Package.swift" <<MANIFEST
// swift-tools-version: 6.1
import PackageDescription
let package = Package(
    name: "TraitUser",
    platforms: [.macOS(.v13), .iOS(.v16)],
    dependencies: [.package(name: "swiftframe", path: "$root", traits: $traits)],
    targets: [.executableTarget(name: "TraitUser", dependencies: [$products])],
    swiftLanguageModes: [.v6]
)
MANIFEST
    cat > "$work/package/Sources/TraitUser/main.swift" <<SOURCE
$imports
$uses
SOURCE
    echo "== traits: $set"
    swift build --quiet --package-path "$work/package" --scratch-path "$work/build"
done
