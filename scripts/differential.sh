#!/usr/bin/env bash
# The differential run (FuzzTesting/Differential): builds swiftframe's conformance testee
# and the C++ checker (the conformance messages' generated C++ code and libprotobuf), then
# decodes CASES inputs with swiftframe, protobuf's C++ runtime and its Python package.
#   scripts/differential.sh [CASES [SEED [CONFIGURATION [MODE]]]]
# Defaults: 1,000,000 cases, seed 1, the testee built for release (debug: the build
# `swift test` made, for a short run), MODE binary; MODE json reads JSON instead
# (differential_json.py: JsonStringToMessage and MessageToJsonString, json_format), MODE text
# the text format (differential_text.py: TextFormat::Parser and TextFormat::Printer), MODE
# editions the editions test messages against protobuf's Python package 7.35.1 (upb), in a
# virtual environment of its own under .build/differential/upb (differential_editions.py).
set -euo pipefail
cases=${1:-1000000}
seed=${2:-1}
configuration=${3:-release}
mode=${4:-binary}
cd "$(dirname "$0")/.."
work=.build/differential
mkdir -p "$work/cpp"
if [ "$mode" = editions ]; then
    venv="$work/upb"
    if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import google.protobuf as p; assert p.__version__ == "7.35.1"' 2>/dev/null; then
        echo "installing protobuf 7.35.1 (upb) for the editions run in $venv"
        rm -rf "$venv"
        python3 -m venv "$venv"
        "$venv/bin/pip" install -q protobuf==7.35.1
    fi
    scripts/ensure-protoc.sh >/dev/null
    swift build -c "$configuration" --product swiftframe-conformance
    rm -rf "$work"/disagreements-editions*
    PROTOC35="$(scripts/protoc35.sh)" "$venv/bin/python" FuzzTesting/Differential/differential_editions.py \
        --testee "$(swift build -c "$configuration" --show-bin-path)/swiftframe-conformance" \
        --work "$work" --cases "$cases" --seed "$seed"
    exit
fi
if ! command -v g++ >/dev/null; then
    echo "installing g++ (for the C++ checker)"
    sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get install -y -qq g++ >/dev/null
fi
if [ ! -x "$work/checker" ] || [ -n "$(find FuzzTesting/Differential/checker.cc Protos/conformance -newer "$work/checker")" ]; then
    echo "building the C++ checker"
    protoc --cpp_out="$work/cpp" -I Protos/conformance test_messages_proto2.proto test_messages_proto3.proto
    g++ -O1 -std=c++17 -I "$work/cpp" -o "$work/checker" FuzzTesting/Differential/checker.cc \
        "$work/cpp/test_messages_proto2.pb.cc" "$work/cpp/test_messages_proto3.pb.cc" -lprotobuf -pthread
fi
swift build -c "$configuration" --product swiftframe-conformance
script=FuzzTesting/Differential/differential.py
[ "$mode" = json ] && script=FuzzTesting/Differential/differential_json.py
[ "$mode" = text ] && script=FuzzTesting/Differential/differential_text.py
rm -rf "$work/disagreements" "$work"/disagreements-json* "$work"/disagreements-text*
python3 "$script" --testee "$(swift build -c "$configuration" --show-bin-path)/swiftframe-conformance" \
    --checker "$work/checker" --work "$work" --cases "$cases" --seed "$seed"
