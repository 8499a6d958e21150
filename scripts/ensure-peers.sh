#!/usr/bin/env bash
# Installs what the Python reference peers (Tests/Peers/peer.py) need when it is missing:
# protoc with the standard .proto includes (via ensure-protoc.sh), and Google's protobuf
# runtime for Python at the version that matches protoc 3.21.
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/ensure-protoc.sh

want="4.21.12"
have="$(python3 -c 'import google.protobuf as p; print(p.__version__)' 2>/dev/null || true)"
if [ "$have" != "$want" ]; then
    echo "installing protobuf==$want for python3 (found: ${have:-none})"
    python3 -m pip install --quiet "protobuf==$want"
fi
