# swiftframe: `make generate` then `make test` on a fresh machine; `make check` for a quick one.
# Every target is named, with what it does, in CONTRIBUTING.md's table of make targets
# (scripts/check-make-targets.py checks both ways; `make check-docs` runs it).
SWIFT ?= swift
PROTOC ?= protoc
BIN_PATH = $(shell $(SWIFT) build --show-bin-path)
PLUGIN = $(BIN_PATH)/protoc-gen-swiftframe
FIXTURE_PROTOS = $(sort $(wildcard Fixtures/protos/*.proto))
PREFIX ?= /usr/local
# The transport tests, at most 8 at a time. All 206 at once kept both cores' run queues 30
# deep for their first seconds (their peers, TLS handshakes and servers starting together), and
# deadlines of a few seconds were missed there; 8 at a time take 85 s where all at once took 76.
# The limit is Swift Testing's own option, which `swift test` does not pass on, so on Linux the
# test binary is run directly.
ifeq ($(shell uname -s),Linux)
TRANSPORT_TESTS = $(BIN_PATH)/swiftframePackageTests.xctest --testing-library swift-testing \
	--experimental-maximum-parallelization-width 8 --filter SwiftFrameNIOTests
else
TRANSPORT_TESTS = $(SWIFT) test --skip-build --filter SwiftFrameNIOTests
endif

.PHONY: all protoc plugin python-protobuf peers install clean \
	generate golden \
	test check check-golden check-docs check-plugins check-swiftprotobuf check-protos differential differential-json differential-text \
	differential-smoke differential-editions soak conformance \
	bench bench-codesize bench-transport bench-runtime-size bench-regenerate bench-inspect \
	fuzz fuzz-smoke \
	sanitize-address sanitize-thread \
	docs format-check format check-traits check-traits-none

all: generate

# ---------------------------------------------------------------------------------------------
# Set-up
# ---------------------------------------------------------------------------------------------

# protoc, descriptor.proto and the well-known types, plugin.proto (Debian packages).
protoc:
	@scripts/ensure-protoc.sh

plugin: protoc
	@$(SWIFT) build --quiet --product protoc-gen-swiftframe

# Google's protobuf runtime for python3 (PyPI), which the reference peers and the differential
# run use.
python-protobuf: protoc
	@scripts/ensure-peers.sh

# The Python reference peers the transport tests talk to, and their own self-test.
peers: python-protobuf
	python3 Tests/Peers/selftest.py

# A release build with the Swift runtime linked in (on Linux: it starts faster and runs where
# Swift is not installed; on Apple platforms the runtime is part of the OS).
STATIC_STDLIB = $(if $(filter Linux,$(shell uname -s)),--static-swift-stdlib,)

install: plugin
	$(SWIFT) build -c release $(STATIC_STDLIB) --product protoc-gen-swiftframe
	install -d "$(PREFIX)/bin"
	install "$$($(SWIFT) build -c release $(STATIC_STDLIB) --show-bin-path)/protoc-gen-swiftframe" "$(PREFIX)/bin/"

clean:
	rm -rf .build

# ---------------------------------------------------------------------------------------------
# Generation
# ---------------------------------------------------------------------------------------------

# Regenerate every generated source (fixtures, well-known types, conformance messages). Prints
# one summary line; fails, showing them, on protoc warnings other than those expected
# (Fixtures/expected-warnings.txt; SWIFTFRAME_ACCEPT_WARNINGS=1 rewrites it).
generate: plugin
	@scripts/generate.sh "$(PLUGIN)" .
	@scripts/examples.py
	@scripts/bundled_protos.py

golden: generate

# ---------------------------------------------------------------------------------------------
# Tests
# ---------------------------------------------------------------------------------------------

# The transport tests (SwiftFrameNIOTests) run after the rest, on their own: beside the
# synchronous suites they waited seconds for a thread of Swift's task pool, which every deadline
# in them then had to allow for. Fuzzing is not part of it (`make fuzz-smoke`, `make fuzz`: the
# fuzz targets are a release build of their own); the tests replay every input that once broke a
# fuzz target, through the same check functions. `check-docs` checks what the documents name.
test: check-golden check-docs format-check peers
	$(SWIFT) test --skip SwiftFrameNIOTests
	$(TRANSPORT_TESTS)
	$(MAKE) check-plugins
	$(MAKE) check-swiftprotobuf
	$(MAKE) docs
	$(MAKE) differential-smoke
	$(MAKE) conformance

# protobuf 35.1's conformance runner (CONFORMANCE_RUNNER: CONTRIBUTING.md says how to build it)
# against swiftframe-conformance in both code modes, editions and recommended tests included:
# the binary and JSON suite and the text-format suite must pass whole, with no failure list.
# Without a runner it is skipped, and says so.
CONFORMANCE_RUNNER ?=
conformance:
	@if [ -z "$(CONFORMANCE_RUNNER)" ]; then \
		echo "*** conformance SKIPPED: no runner (make conformance CONFORMANCE_RUNNER=PATH; CONTRIBUTING.md, 'The conformance runner', says how to build one) ***" >&2; \
	else \
		$(SWIFT) build --product swiftframe-conformance && \
		scripts/conformance.sh "$(CONFORMANCE_RUNNER)" "$(BIN_PATH)/swiftframe-conformance"; \
	fi

# The quick check of a change, beside the full CI run `test`: the goldens, a build, and the unit
# tests, the transport tests on their own as in `test`; no fuzzing, differential run, sanitizers,
# docs or plugin package.
check: check-golden python-protobuf
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build --skip SwiftFrameNIOTests
	$(TRANSPORT_TESTS)

# Fail on any difference between a fresh generation and the checked-in goldens, or on protoc
# warnings other than the expected ones: once with Debian's protoc 3.21 first on the PATH (the
# editions inputs go to protoc 35.1), once with protoc 35.1 first (scripts/ensure-protoc.sh
# installs both).
check-golden: plugin
	scripts/ensure-protoc.sh
	scripts/check-golden.sh "$(PLUGIN)"
	PATH="$$(dirname "$$(scripts/protoc35.sh)"):$$PATH" scripts/check-golden.sh "$(PLUGIN)"
	scripts/examples.py --check
	scripts/bundled_protos.py --check

# Generates and compiles every .proto libprotobuf-dev installs and every test .proto of
# swift-protobuf 1.39.0 (from the local package copy): a few minutes, so not part of `test`.
check-protos: plugin
	swift build --target SwiftFrameWellKnownTypes
	scripts/check-protos.sh "$(PLUGIN)"

# Every trait set a user can choose, each in a package that depends on this tree with exactly
# those traits and uses every library they make usable (scripts/check-traits.sh): none,
# Transport alone, each optional trait alone, the defaults and all of them. Run before landing a
# change to the manifest or to code fenced by a trait. CI builds the two extremes: all traits
# are the root package's defaults, which `test` builds; `check-traits-none` builds the other.
check-traits:
	scripts/check-traits.sh none Transport CommandLineTool Compression Encryption Metrics TLS default \
		Transport+CommandLineTool+Compression+Encryption+Metrics+TLS

check-traits-none:
	scripts/check-traits.sh none

# The SwiftPM plugins in a package that uses them (Fixtures/PluginPackage): build-tool plugin,
# and check-swiftframe and generate-swiftframe on checked-in sources. Then a fresh package
# that depends on a tagged copy of this tree by URL (file://), with a target of .proto files
# and the build-tool plugin, builds and runs the README's game example against the Python
# game peer (most of that time is building SwiftNIO).
check-plugins: python-protobuf
	scripts/check-plugins.sh

# What the documents promise of the tree: every file, folder, type and make target
# ARCHITECTURE.md names exists (scripts/check-architecture.py), and every make target is in
# CONTRIBUTING.md's table and every target it names is here (scripts/check-make-targets.py), and
# no comment in Sources/ or Plugins/ quotes a measurement (scripts/measurements-in-comments.py:
# numbers belong in Benchmarks/README.md, where they are dated and can be re-measured).
# SwiftProtobuf messages through swiftframe (Fixtures/SwiftProtobufPackage, with the
# SwiftProtobuf trait): protoc-gen-swift's checked-in output and the tables generated beside it
# with Messages=SwiftProtobuf, built without a warning and tested against the Python peers.
check-swiftprotobuf: peers
	scripts/check-swiftprotobuf.sh

check-docs:
	scripts/check-architecture.py
	scripts/check-make-targets.py
	scripts/measurements-in-comments.py Sources Plugins

# Differential decoding against protobuf's C++ runtime (the arbiter) and its Python package:
# DIFFERENTIAL_CASES inputs to the conformance messages from DIFFERENTIAL_SEED.
DIFFERENTIAL_CASES ?= 1000000
DIFFERENTIAL_SEED ?= 1
differential: python-protobuf
	scripts/differential.sh $(DIFFERENTIAL_CASES) $(DIFFERENTIAL_SEED)

# The same for JSON (FuzzTesting/Differential/differential_json.py): DIFFERENTIAL_CASES JSON
# texts for TestAllTypesProto3, read and printed by swiftframe, protobuf's C++ runtime
# (JsonStringToMessage, MessageToJsonString) and Python's json_format.
differential-json: python-protobuf
	scripts/differential.sh $(DIFFERENTIAL_CASES) $(DIFFERENTIAL_SEED) release json

# The same for the text format (FuzzTesting/Differential/differential_text.py): DIFFERENTIAL_CASES
# texts for TestAllTypesProto3 and TestAllTypesProto2 read, and messages printed, by swiftframe
# and protobuf's C++ runtime (TextFormat::Parser, TextFormat::Printer).
differential-text: python-protobuf
	scripts/differential.sh $(DIFFERENTIAL_CASES) $(DIFFERENTIAL_SEED) release text

# The same for the editions test messages (FuzzTesting/Differential/differential_editions.py):
# DIFFERENTIAL_CASES inputs to their edition 2023 copies and TestAllTypesEdition2023, against
# protobuf's Python package 7.35.1 (upb), installed in a virtual environment of its own.
differential-editions:
	scripts/differential.sh $(DIFFERENTIAL_CASES) $(DIFFERENTIAL_SEED) release editions

# What `make test` runs: 20,000 cases of each, with the testee `swift test` built.
differential-smoke: python-protobuf
	scripts/differential.sh 20000 1 debug
	scripts/differential.sh 20000 1 debug json
	scripts/differential.sh 20000 1 debug text
	scripts/differential.sh 20000 1 debug editions

# A million frames from the client through the Python IM peer, which cuts its writes, stalls
# and drops the connection every 3,000 frames (`make test` runs 20,000 of them).
SOAK_FRAMES ?= 1000000
soak: python-protobuf
	SWIFTFRAME_SOAK_FRAMES=$(SOAK_FRAMES) $(SWIFT) test --filter SoakTests

# ---------------------------------------------------------------------------------------------
# Benchmarks
# ---------------------------------------------------------------------------------------------

# `swiftframe inspect` on a made-up capture of small frames (CAPTURE_MB, default 100): MB/s
# and peak memory, beside `tshark -r` on the same file (not part of `test`).
bench-inspect:
	scripts/bench-inspect.sh

# Benchmarks against SwiftProtobuf and SwiftNIO: a package of its own (Benchmarks/), which
# `make test` never builds. Benchmarks/README.md has the numbers and what each one measures.
bench: protoc
	$(MAKE) -C Benchmarks bench

# Generated-code cost only: plugin wall time, compile time and machine code per message.
bench-codesize: protoc
	$(MAKE) -C Benchmarks codesize

# swiftframe's client against a plain SwiftNIO client over loopback, then the rows of one caller
# again with the process on one CPU (a few minutes).
bench-transport:
	$(MAKE) -C Benchmarks transport transport-one-cpu

# Regenerate both sides' benchmark messages from Benchmarks/Protos.
bench-runtime-size: protoc
	$(MAKE) -C Benchmarks runtime-size

bench-regenerate: protoc
	$(MAKE) -C Benchmarks regenerate

# ---------------------------------------------------------------------------------------------
# Fuzzing
# ---------------------------------------------------------------------------------------------

# Coverage-guided fuzzing of every decoder (FuzzTesting/, a package of its own that `swift
# test` never builds): FUZZ_RUNS executions per target, or FUZZ_SECONDS each when given.
FUZZ_RUNS ?= 10000000
FUZZ_SECONDS ?= 0
fuzz: protoc
	scripts/fuzz.sh $(FUZZ_RUNS) $(FUZZ_SECONDS)

# Every target for a few seconds.
fuzz-smoke: protoc
	scripts/fuzz.sh -1 8

# ---------------------------------------------------------------------------------------------
# Sanitizers
# ---------------------------------------------------------------------------------------------

# The whole test suite under AddressSanitizer (leaks inside Foundation and libcurl are not
# reported: Tests/lsan-suppressions.txt; HeartbeatMarginTests, a minute of idle connections
# that `test` runs, is left out of it), and the transport tests under ThreadSanitizer, each
# in a build directory of its own (.build-asan, .build-tsan).
ASAN_TEST = LSAN_OPTIONS=suppressions=$(CURDIR)/Tests/lsan-suppressions.txt:print_suppressions=0 \
	$(SWIFT) test --skip-build --sanitize=address --scratch-path .build-asan
sanitize-address: python-protobuf
	$(SWIFT) build --build-tests --sanitize=address --scratch-path .build-asan
	$(ASAN_TEST) --skip SwiftFrameNIOTests
	$(ASAN_TEST) --filter SwiftFrameNIOTests --skip HeartbeatMarginTests --no-parallel

sanitize-thread: python-protobuf
	$(SWIFT) build --build-tests --sanitize=thread --scratch-path .build-tsan
	TSAN_OPTIONS=suppressions=$(CURDIR)/Tests/tsan-suppressions.txt \
		$(SWIFT) test --skip-build --sanitize=thread --scratch-path .build-tsan --filter SwiftFrameNIOTests --no-parallel

# ---------------------------------------------------------------------------------------------
# Docs and formatting
# ---------------------------------------------------------------------------------------------

# The DocC catalogs of SwiftFrame and SwiftFrameNIO (.build/plugins/Swift-DocC/outputs);
# fails on any DocC warning.
docs:
	scripts/docs.sh

# swift-format over the hand-written Swift (scripts/swift-sources.sh: Sources, Tests and Plugins
# without generated files and symlinks), with the house style of .swift-format (4 spaces, lines
# of 120 columns): `format-check` fails on any finding; `format` rewrites the files in place.
# Neither is part of `test`.
SWIFT_SOURCES = $(shell scripts/swift-sources.sh)
format-check:
	@$(SWIFT) format lint --strict --parallel --configuration .swift-format $(SWIFT_SOURCES)

format:
	@$(SWIFT) format format --in-place --parallel --configuration .swift-format $(SWIFT_SOURCES)
