#!/usr/bin/env bash
# Prints the path of the protoc 35.1 that scripts/ensure-protoc.sh installs (a wrapper around
# PyPI's grpcio-tools, in the user's cache).
echo "${XDG_CACHE_HOME:-$HOME/.cache}/swiftframe/protoc-35.1/bin/protoc"
