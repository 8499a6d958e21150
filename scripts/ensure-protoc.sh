#!/usr/bin/env bash
# Installs the two protocs the tests run, when either is missing:
# - protoc 3.21 with descriptor.proto, the well-known types and plugin.proto, from Debian;
# - protoc 35.1, from PyPI's grpcio-tools 1.85.1, in a virtual environment of its own (installed
#   into the system python, grpcio-tools would replace the protobuf 4.21.12 the reference peers
#   need), behind a wrapper that is a protoc like any other:
#   ${XDG_CACHE_HOME:-$HOME/.cache}/swiftframe/protoc-35.1/bin/protoc (scripts/protoc35.sh
#   prints that path). The wrapper adds grpcio-tools' include files (the well-known types,
#   descriptor.proto) after the caller's -I folders, as a release protoc adds its include/.
set -euo pipefail
cd "$(dirname "$0")/.."
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"

if ! command -v protoc >/dev/null || [ ! -f /usr/include/google/protobuf/descriptor.proto ] \
    || [ ! -f /usr/include/google/protobuf/compiler/plugin.proto ]; then
    echo "installing protoc 3.21 (protobuf-compiler, libprotobuf-dev, libprotoc-dev)"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq protobuf-compiler libprotobuf-dev libprotoc-dev >/dev/null
fi

wrapper="$(scripts/protoc35.sh)"
home="$(dirname "$(dirname "$wrapper")")"
if [ "$("$wrapper" --version 2>/dev/null)" != "libprotoc 35.1" ]; then
    echo "installing protoc 35.1 (grpcio-tools==1.85.1) in $home/venv"
    python3 -c 'import venv' 2>/dev/null || $sudo apt-get install -y -qq python3-venv >/dev/null
    rm -rf "$home"
    python3 -m venv "$home/venv"
    "$home/venv/bin/pip" install --quiet --disable-pip-version-check "grpcio-tools==1.85.1"
    mkdir -p "$home/bin"
    # grpc_tools.protoc run as a program appends -I for its own include files.
    printf '#!/bin/sh\nexec "%s" -m grpc_tools.protoc "$@"\n' "$home/venv/bin/python" > "$wrapper"
    chmod +x "$wrapper"
    [ "$("$wrapper" --version)" = "libprotoc 35.1" ] || { echo "protoc 35.1 did not install" >&2; exit 1; }
fi
