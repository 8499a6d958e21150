#!/usr/bin/env bash
# Installs what the Python reference peers (Tests/Peers/peer.py) need when it is missing:
# protoc with the standard .proto includes (via ensure-protoc.sh), Google's protobuf runtime
# for Python at the version that matches protoc 3.21, and openssl, with which the TLS tests
# make their certificates; and tcpdump and tshark, with which the capture tests record and read
# loopback traffic.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-protoc.sh
# The capture tests among the transport tests: tcpdump, tshark and editcap.
scripts/ensure-capture-tools.sh

if ! command -v openssl >/dev/null; then
    echo "installing openssl"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq openssl >/dev/null
fi

want="4.21.12"
have="$(python3 -c 'import google.protobuf as p; print(p.__version__)' 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
    echo "installing protobuf==$want for python3 (found: ${have:-none})"
    python3 -m pip install --quiet "protobuf==$want"
fi
