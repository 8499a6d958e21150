#!/usr/bin/env bash
# Installs protoc 3.21 with descriptor.proto, the well-known types and plugin.proto from
# Debian when any of them is missing.
set -euo pipefail
if command -v protoc >/dev/null && [ -f /usr/include/google/protobuf/descriptor.proto ] \
    && [ -f /usr/include/google/protobuf/compiler/plugin.proto ]; then
    exit 0
fi
echo "installing protoc (protobuf-compiler, libprotobuf-dev, libprotoc-dev)"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
$sudo apt-get update -qq
$sudo apt-get install -y -qq protobuf-compiler libprotobuf-dev libprotoc-dev >/dev/null
