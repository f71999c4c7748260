# Switchboard: `make up` runs the embedded server with the shipped bots,
# `make test` runs every test. Both install what is missing first.

SWIFT        ?= swift
CONFIG       ?= config.yaml
DEB_PACKAGES := pkg-config libcurl4-openssl-dev libyaml-dev libsqlite3-dev \
                libmicrohttpd-dev libargon2-dev libssl-dev
TEST_PACKAGES := tmux
BENCH_PACKAGES := wrk
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: up test build release deps test-deps widths bench clean

## deps: install the Debian packages the build needs (apt-get update only when one is missing)
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product switchboard

## up: the embedded server and the bots in bots/, from config.yaml
up: release
	.build/release/switchboard up --config $(CONFIG)

## test-deps: what the tests need besides the build (tmux for the chat client's end-to-end test)
test-deps: deps
	@dpkg-query -W -f='$${Status}' $(TEST_PACKAGES) 2>/dev/null | grep -q "install ok installed" || \
	  ($(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(TEST_PACKAGES))

## test: every test (Swift Testing, real servers on 127.0.0.1); the runner crash test and
## the chat end-to-end test start the switchboard executable, so it is built first
test: test-deps
	$(SWIFT) build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## bench: benchmark programs under Benchmarks/ (release build); results go into BENCHMARKS.md
bench: deps
	@dpkg-query -W -f='$${Status}' $(BENCH_PACKAGES) 2>/dev/null | grep -q "install ok installed" || \
	  ($(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $(BENCH_PACKAGES))
	$(SWIFT) build -c release
	./Benchmarks/run.sh

## widths: regenerate the chat client's wide-character table from Unicode's EastAsianWidth.txt
widths:
	@dpkg-query -W -f='$${Status}' unicode-data 2>/dev/null | grep -q "install ok installed" || \
	  ($(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q unicode-data)
	./Scripts/width-table.sh

clean:
	rm -rf .build
