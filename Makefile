# Switchboard: `make up` runs the embedded server with the shipped bots,
# `make test` runs every test. Both install what is missing first.

SWIFT        ?= swift
CONFIG       ?= config.yaml
DEB_PACKAGES := pkg-config libcurl4-openssl-dev libyaml-dev libsqlite3-dev libpq-dev \
                libmicrohttpd-dev libargon2-dev libssl-dev libpcre2-dev
BENCH_PACKAGES := wrk
# Programs the tests start: a private PostgreSQL cluster (Tests/PostgresTestSupport), a
# real Alertmanager pair (Tests/IMBotsTests/Alerts), tmux, the terminal the chat
# client's end-to-end test runs in (Tests/IMChatTests), promtool (from prometheus), which
# lints the server's /metrics, and nginx, run in front of server nodes as
# examples/nginx.conf sets it up, with openssl making its test certificate
# (Tests/DeploymentTests).
TEST_PACKAGES := postgresql prometheus-alertmanager tmux prometheus nginx openssl
SUDO         := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# $(call install-missing,PACKAGES): apt-get install those not installed yet (apt-get
# update only when one is missing)
install-missing = missing=""; for p in $(1); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  $(SUDO) apt-get update -q && $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q $$missing; \
	fi

.PHONY: up test build release deps test-deps widths bench clean

## deps: install the Debian packages the build needs
deps:
	@$(call install-missing,$(DEB_PACKAGES))

## test-deps: and those the tests need
test-deps: deps
	@$(call install-missing,$(TEST_PACKAGES))

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release --product switchboard

## up: the embedded server and the bots in bots/, from config.yaml
up: release
	.build/release/switchboard up --config $(CONFIG)

## test: every test (Swift Testing, real servers on 127.0.0.1, a private PostgreSQL
## cluster started and stopped by the tests themselves); the runner crash test and the
## chat end-to-end test start the switchboard executable, so it is built first
test: test-deps
	$(SWIFT) build
	$(SWIFT) build --build-tests
	$(SWIFT) test --skip-build

## bench: benchmark programs under Benchmarks/ (release build); results go into BENCHMARKS.md
bench: test-deps
	@$(call install-missing,$(BENCH_PACKAGES))
	$(SWIFT) build -c release
	./Benchmarks/run.sh

## widths: regenerate the chat client's wide-character table from Unicode's EastAsianWidth.txt
widths:
	@$(call install-missing,unicode-data)
	./Scripts/width-table.sh

clean:
	rm -rf .build
