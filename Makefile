# Switchboard: `make up` runs the embedded server with the shipped bots,
# `make test` runs every test. Both install what is missing first.

SWIFT        ?= swift
CONFIG       ?= config.yaml
TEST_WIDTH   ?= 12
DEB_PACKAGES := pkg-config libcurl4-openssl-dev libyaml-dev libsqlite3-dev libpq-dev \
                libmicrohttpd-dev libargon2-dev libssl-dev libpcre2-dev libsixel-dev
BENCH_PACKAGES := wrk
# Programs the tests start: a private PostgreSQL cluster (Tests/PostgresTestSupport), a
# real Alertmanager pair (Tests/IMBotsTests/Alerts), tmux, the terminal the chat
# client's end-to-end test runs in (Tests/IMChatTests), promtool (from prometheus), which
# lints the server's /metrics, and nginx, run in front of server nodes as
# examples/nginx.conf sets it up, with openssl making its test certificate
# (Tests/DeploymentTests). Chromium, its driver and Selenium (Debian's, so Selenium never
# downloads a driver) run the web client and the operator console headless, with CJK and
# emoji fonts for the pages' screenshots (Tests/WebTests).
TEST_PACKAGES := postgresql prometheus-alertmanager tmux prometheus nginx openssl \
                 chromium chromium-driver python3-selenium fonts-noto-cjk fonts-noto-color-emoji
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

# Programs the soak scenarios use: sqlite3 (integrity checks), mkfs, e2fsck and loop
# mounts for the storage scenario's small file system, and PostgreSQL (a private cluster
# for the server kill test on PostgreSQL, checked with pg_amcheck).
SOAK_PACKAGES := sqlite3 e2fsprogs mount postgresql
CONFORMANCE_PACKAGES := python3 python3-venv

.PHONY: up test build release deps test-deps telegram-venv matrix-venv widths bench clean fuzz fuzz-ci soak soak-ci soak-deps soak-build conformance conformance-ci

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

# The Telegram bot frameworks the tests run as processes against a server
# (Tests/TelegramTests/Bots), from PyPI, pinned; installed once, again when the list changes.
TELEGRAM_VENV := .venv-telegram
TELEGRAM_PYPI := python-telegram-bot==22.8 aiogram==3.31.0 pyTelegramBotAPI==4.37.1

## telegram-venv: python-telegram-bot, aiogram and pyTelegramBotAPI in $(TELEGRAM_VENV)
telegram-venv:
	@$(call install-missing,$(CONFORMANCE_PACKAGES))
	@if [ "$$(cat $(TELEGRAM_VENV)/installed 2>/dev/null)" != "$(TELEGRAM_PYPI)" ]; then \
	  rm -rf $(TELEGRAM_VENV) && /usr/bin/python3 -m venv $(TELEGRAM_VENV) && \
	  $(TELEGRAM_VENV)/bin/pip install -q $(TELEGRAM_PYPI) && echo "$(TELEGRAM_PYPI)" > $(TELEGRAM_VENV)/installed; \
	fi

# The Matrix homeserver the Matrix tests start once per run (Tests/MatrixTests/Support):
# Synapse from PyPI, pinned; installed once, again when the pin changes.
MATRIX_VENV := .venv-matrix
MATRIX_PYPI := matrix-synapse==1.163.2

## matrix-venv: Synapse (matrix-synapse) in $(MATRIX_VENV)
matrix-venv:
	@$(call install-missing,$(CONFORMANCE_PACKAGES))
	@if [ "$$(cat $(MATRIX_VENV)/installed 2>/dev/null)" != "$(MATRIX_PYPI)" ]; then \
	  rm -rf $(MATRIX_VENV) && /usr/bin/python3 -m venv $(MATRIX_VENV) && \
	  $(MATRIX_VENV)/bin/pip install -q $(MATRIX_PYPI) && echo "$(MATRIX_PYPI)" > $(MATRIX_VENV)/installed; \
	fi

## test: every test (Swift Testing, real servers on 127.0.0.1, a private PostgreSQL
## cluster started and stopped by the tests themselves); the runner crash test and the
## chat end-to-end test start the switchboard executable, so it is built first
## TEST_WIDTH bounds how many tests run at once: unbounded, every suite starts its
## servers in the first seconds and a loaded two-core machine starves them all together
test: test-deps telegram-venv matrix-venv
	./Scripts/phase.sh build $(SWIFT) build
	./Scripts/phase.sh build-tests $(SWIFT) build --build-tests
	./Scripts/phase.sh tests $(SWIFT) test --skip-build --experimental-maximum-parallelization-width $(TEST_WIDTH)

## bench: benchmark programs under Benchmarks/ (release build); results go into BENCHMARKS.md
bench: test-deps
	@$(call install-missing,$(BENCH_PACKAGES))
	$(SWIFT) build -c release
	./Benchmarks/run.sh

## fuzz: every fuzz target for FUZZ_SECONDS each (libFuzzer, AddressSanitizer; Fuzz/fuzz.sh);
## what they find goes to .build-fuzz/findings, the figures to .build-fuzz/last-run.txt
FUZZ_SECONDS ?= 120
fuzz: deps
	Fuzz/fuzz.sh $(FUZZ_SECONDS)

## fuzz-ci: 15 s of each target, which first runs every seed and reproducer once (about
## two minutes after the build)
fuzz-ci: deps
	Fuzz/fuzz.sh 15

SOAK := .build/debug/switchboard-soak
SOAK_BINARY ?= .build/debug/switchboard
SOAK_SCENARIOS := self-check server-kill "server-kill --store postgres" runner-kill storage abuse
SOAK_FLAGS ?=
# $(call soak-run,LIMIT_SECONDS,EXTRA_FLAGS): every scenario, each bounded by `timeout`,
# with the open-file limit raised for the abuse scenario's thousands of connections
soak-run = ulimit -n $$(ulimit -Hn); status=0; rm -f .build/soak-last-run.txt; \
	for scenario in $(SOAK_SCENARIOS); do \
	  timeout --signal=KILL $(1) $(SOAK) $$scenario --binary $(SOAK_BINARY) --report .build/soak-last-run.txt $(2) $(SOAK_FLAGS) || status=1; \
	done; exit $$status

soak-deps: deps
	@$(call install-missing,$(SOAK_PACKAGES))

soak-build: soak-deps
	$(SWIFT) build --product switchboard
	$(SWIFT) build --product switchboard-soak

## soak: kill tests, storage faults and abuse at full size (Soak/, RELIABILITY.md), each
## scenario bounded to 30 minutes; the figures go to .build/soak-last-run.txt
soak: soak-build
	$(call soak-run,1800,)

## soak-ci: the same scenarios at the sizes .ci/run uses (about three minutes)
soak-ci: soak-build
	$(call soak-run,600,--quick)

CONFORMANCE_VENV := .venv-conformance
SCHEMATHESIS_VERSION := 4.32.5
CONFORMANCE_EXAMPLES ?= 30

$(CONFORMANCE_VENV)/bin/schemathesis:
	@$(call install-missing,$(CONFORMANCE_PACKAGES))
	/usr/bin/python3 -m venv $(CONFORMANCE_VENV)
	$(CONFORMANCE_VENV)/bin/pip install -q schemathesis==$(SCHEMATHESIS_VERSION)

## conformance: schemathesis against docs/openapi.yaml and a running server, logged in
## as a person and as an administrator (Conformance/run.sh); CONFORMANCE_EXAMPLES per operation
conformance: deps $(CONFORMANCE_VENV)/bin/schemathesis
	$(SWIFT) build --product switchboard
	Conformance/run.sh $(CONFORMANCE_EXAMPLES)

## conformance-ci: fewer examples per operation
conformance-ci: deps $(CONFORMANCE_VENV)/bin/schemathesis
	$(SWIFT) build --product switchboard
	Conformance/run.sh 10

## widths: regenerate the chat client's wide-character table from Unicode's EastAsianWidth.txt
widths:
	@$(call install-missing,unicode-data)
	./Scripts/width-table.sh

clean:
	rm -rf .build .build-fuzz .build-conformance $(CONFORMANCE_VENV) $(TELEGRAM_VENV) $(MATRIX_VENV)
