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
.PHONY: test-control-plane

## install: npm ci when node_modules is missing or older than package-lock.json (never through a
## node_modules that is a symbolic link: npm ci would empty the directory it points to); as root, with
## apt-get, what is missing of etcd (etcd-server) and of the tools some tests use: protoc with
## google/protobuf/descriptor.proto (protobuf-compiler, libprotobuf-dev; the protobuf byte
## vectors) and /usr/bin/python3's kubernetes module (python3-kubernetes; the Python client e2e).
## Without root it says what to install: a missing etcd stops it, a missing test tool does not
## (the tests that need it fail, naming it).
install:
	@if [ -L node_modules ]; then \
	  : "a link to a node_modules shared with another checkout: npm ci would empty that one"; \
	elif [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] \
	    || [ package-lock.json -nt node_modules/.package-lock.json ]; then \
	  echo "npm ci"; npm ci; \
	fi
	@need=""; test_need=""; \
	command -v etcd >/dev/null 2>&1 || need="etcd-server"; \
	protoc -Iproto --descriptor_set_out=/dev/null proto/*.proto >/dev/null 2>&1 \
	  || test_need="protobuf-compiler libprotobuf-dev"; \
	/usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || test_need="$$test_need python3-kubernetes"; \
	pkgs=$$(echo $$need $$test_need); \
	if [ -z "$$pkgs" ]; then exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "apt-get install $$pkgs"; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  apt-get install -y -q $$pkgs || { apt-get update -q && apt-get install -y -q $$pkgs; }; \
	  exit 0; \
	fi; \
	if [ -n "$$test_need" ]; then \
	  echo "Some tests need what is not installed; as root: sudo apt-get install -y $$(echo $$test_need)" >&2; \
	fi; \
	if [ -n "$$need" ]; then \
	  echo "etcd is not on PATH. Install it as root, e.g.:" >&2; \
	  echo "  sudo apt-get update && sudo apt-get install -y etcd-server" >&2; \
	  echo "or put an etcd release binary (https://github.com/etcd-io/etcd/releases) on PATH." >&2; \
	  exit 1; \
	fi

## build: compile TypeScript into dist/, then bundle the server into dist/bundle/main.js (scripts/bundle.js).
build: install
	$(TSC)
	node scripts/bundle.js

## run: start the server (it prints the path of its admin kubeconfig).
run: build
	node dist/bundle/main.js $(ARGS)

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
## test-control-plane: kube-controller-manager, kube-scheduler and two hollow kubelets (Kubernetes
## 1.20.2, built once from Debian's source package by test/control-plane/build.sh and cached in
## ~/.cache/orch-apiserver/kube-1.20.2) run against the server; kubectl 1.32 checks the cluster.
## Also kubeadm's join path: hollow kubelets joining with a bootstrap token, and kubeadm 1.20's own join.
## Not part of make test (root: hollow kubelets run in mount namespaces of their own).
test-control-plane: build
	test/control-plane/build.sh
	$(MOCHA_SUITE) --timeout 600000 dist/test/control-plane/*.test.js

bench: build
	node dist/test/bench/run.js $(ARGS)

clean:
	rm -rf dist .data
