# orch-apiserver: install dependencies, build, run, test.
#   make run ARGS='--secure-port=0 --flavor=kubernetes'
#   make bench ARGS='...'
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c

ARGS ?=
TSC := npx tsc -p tsconfig.json
# Suite targets name their files themselves; .mocharc.js would add every suite's spec to them, so
# they skip it and repeat its reporter (ends with "N passed, N failed"), timeout and exit settings.
MOCHA_SUITE := npx mocha --no-config --reporter dist/test/helpers/summary-reporter.js --timeout 30000 --exit
# The runner of test, test-unit, test-integration and test-e2e (test/run/main.ts): the parallel
# group with JOBS files at a time (default 3), then the serial group (test/run/suite-groups.ts).
JOBS ?=
RUN_SUITES := node dist/test/run/main.js $(if $(JOBS),--jobs=$(JOBS))

.PHONY: install build run test test-unit test-integration test-e2e test-fuzz bench clean reliability

## install: npm ci when node_modules is missing or older than package-lock.json; etcd if absent.
install:
	@if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] \
	    || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
	  echo "npm ci"; npm ci; \
	fi
	@if ! command -v etcd >/dev/null 2>&1; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "etcd not found: installing the etcd-server package"; \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y etcd-server; \
	  else \
	    echo "etcd is not on PATH. Install it as root, e.g.:" >&2; \
	    echo "  sudo apt-get update && sudo apt-get install -y etcd-server" >&2; \
	    echo "or put an etcd release binary (https://github.com/etcd-io/etcd/releases) on PATH." >&2; \
	    exit 1; \
	  fi; \
	fi

## build: compile TypeScript into dist/.
build: install
	$(TSC)

## run: start the server (it prints the path of its admin kubeconfig).
run: build
	node dist/lib/server/main.js $(ARGS)

## test: every suite of .mocharc.js, most in parallel, the fault, load and attack suites after
## them one at a time; the last line is "N passed, N failed" over all. `make test JOBS=2`.
test: build
	$(RUN_SUITES)

test-unit: build
	$(RUN_SUITES) 'dist/test/unit/**/*.test.js'

test-integration: build
	$(RUN_SUITES) 'dist/test/integration/**/*.test.js'

test-e2e: build
	$(RUN_SUITES) 'dist/test/e2e/**/*.test.js'

## reliability: the etcd fault scenarios with the issue's long pauses (whole cluster down 30 s,
## a member SIGSTOPped 20 s); one JSON line of figures per scenario in test/reliability/results.jsonl.
reliability: build
	RELIABILITY_FULL=1 $(MOCHA_SUITE) --timeout 600000 dist/test/integration/etcd-faults.test.js

## test-fuzz: the fuzz suite with FUZZ_RUNS inputs per HTTP property (ten times that for the
## server-less ones); prints the seed (replay with FUZZ_SEED=...) and the inputs tried per property,
## and appends one JSON line per property to test/reliability/results.jsonl.
FUZZ_RUNS ?= 2000
test-fuzz: build
	mkdir -p test/reliability
	FUZZ_RUNS=$(FUZZ_RUNS) $(MOCHA_SUITE) --timeout 0 'dist/test/fuzz/**/*.test.js'

## bench: run the benchmark driver.
bench: build
	node dist/test/bench/run.js $(ARGS)

clean:
	rm -rf dist .data
