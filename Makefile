# gangconf: conformance and benchmarks for gang scheduling (KEP-4671 PodGroups).
# `make help` lists the targets and the variables they read.

SHELL := bash
.SHELLFLAGS := -o pipefail -ec
.DEFAULT_GOAL := help

# Paths are absolute: the suites run from their own package directories.
ROOT := $(abspath .)
OUTPUT := $(ROOT)/_output
WORK_DIR := $(OUTPUT)/kwok

##@ Variables (override on the command line, e.g. make conformance SCHEDULER=no-gang)

RESULTS ?= $(OUTPUT)/results## results directory: JUnit, logs, reports
K8S_VERSION ?= $(MAIN_K8S_VERSION)## Kubernetes version of the control plane and the reference scheduler: go.mod's (v1.37.2) or one a module reference-scheduler/k8s-*/go.mod pins (v1.38.0-beta.0)
CLUSTER ?= ci-small## cluster profile: ci-small, ci-alpha (alpha gates on), gpu-1k, gpu-5k, gpu-15k, upstream-5k, bare (no nodes, no kwok: a stand-in for a real cluster)
CLUSTER_MODE ?= realistic## kwok cluster mode: realistic (pods turn Running, node leases, the controller manager's controllers) or upstream (as upstream scheduler_perf: none of those; bench-upstream's)
PROVIDER ?= kwok## kwok (a virtual cluster made here), kind (made here, needs Docker and KIND_NODE_IMAGE) or existing (KUBECONFIG)
KIND_NODE_IMAGE ?=## PROVIDER=kind: the kind node image (Kubernetes v1.37.2; no default)
SCHEDULER ?= reference## scheduler under test: reference, binary, command, external; controls no-gang, no-api, no-preemption, no-alpha, no-job-workload
SCHEDULER_NAME ?=## schedulerName pods use (SCHEDULER=external needs it)
SCHEDULER_BIN ?=## SCHEDULER=binary: your kube-scheduler-compatible binary
SCHEDULER_CONFIG ?=## SCHEDULER=binary: its KubeSchedulerConfiguration (e.g. examples/my-scheduler.yaml)
SCHEDULER_ARGS ?=## SCHEDULER=binary: more arguments, e.g. --feature-gates=GenericWorkload=true
SCHEDULER_CMD ?=## SCHEDULER=command: its command line, a Go template with {{.Kubeconfig}} and {{.SchedulerName}}
SCHEDULER_READY_URL ?=## SCHEDULER=command or external: a URL that answers 200 once the scheduler is ready
SCHEDULER_RESTART_CMD ?=## SCHEDULER=external: a command that kills the scheduler as a crash would and lets what runs it bring it back (the fault specs)
KUBECONFIG ?=## PROVIDER=existing: the cluster's kubeconfig
LABEL_FILTER ?=## Ginkgo label filter, e.g. 'area:quorum'
PROCS ?= 4## parallel Ginkgo processes
SCENARIO ?=## bench scenarios, comma list (default: the standard set, gang-size-sweep): smoke, gang-size-sweep, upstream-gangs, workload-preemption (opt-in)
SIZES ?=## bench: only these PodGroup sizes, e.g. 1,8,64
REPEATS ?= 1## bench: runs of each scenario on one cluster, pooled into one result
BESIDE ?=## bench: ceiling runs the ceiling binder beside SCHEDULER, gang about gang, for ratios within one run
UPSTREAM_WORKLOADS ?=## bench-upstream: upstream scheduler_perf workloads, comma list (default: all six of upstream-gangs)
SITTINGS ?= 1## bench-upstream: sittings, each both sides back to back; more than 1 gives the report medians and ranges
BASELINE ?=## report: another results directory to compare the benchmarks with
PRODUCT ?=## bundle: your PRODUCT.yaml (vendor, name, version, website_url, documentation_url, contact_email_address)
MUTANTS ?=## mutants: only these mutants, comma list (default: all of reference-scheduler/mutants.yaml)
MUTANTS_FULL ?=## mutants: 1 runs every suite to its end for each mutant, recording every spec that kills it
MUTANTS_MIN_SCORE ?=## mutants: fail when the mutation score (percent) is below this
RUNS ?= 10## soak: consecutive runs of make conformance SCHEDULER=reference, each on a fresh cluster
POINTS ?= 20## signal-test: runs to stop, each with a signal at a random moment
REFERENCE ?=## vendor-run: the results of a make conformance SCHEDULER=reference run to compare with (default: one made first)
SEED ?=## signal-test: the random seed of an earlier signal test, to replay it (it prints its seed)
ADMISSION ?=## admission controller in front of SCHEDULER: kueue (Kueue v0.17.0, make conformance-stack) or the crafted broken stack kueue-partial

override RESULTS := $(abspath $(RESULTS))
# The paths a user gives are made absolute, as RESULTS is: the suites run in
# their package directory, where a relative path names nothing. KUBECONFIG
# may be a list (a:b), which is left as it is.
USER_PATHS := SCHEDULER_BIN SCHEDULER_CONFIG PRODUCT $(if $(findstring :,$(KUBECONFIG)),,KUBECONFIG)
$(foreach v,$(USER_PATHS),$(if $($(v)),$(eval override $(v) := $(abspath $($(v))))))
export $(USER_PATHS)

# The Kubernetes version under test. go.mod pins the default; each other
# version has its pins in a Go module of its own (it may need a newer Go), and
# its binaries in a directory of their own, so switching costs no rebuild.
MAIN_K8S_VERSION := $(shell awk '$$1 == "k8s.io/kubernetes" {print $$2; exit}' go.mod)
K8S_MODULES := $(wildcard reference-scheduler/k8s-*/go.mod)
K8S_VERSIONS := $(MAIN_K8S_VERSION) $(shell awk '$$1 == "k8s.io/kubernetes" {print $$2}' $(K8S_MODULES))
ifeq ($(K8S_VERSION),$(MAIN_K8S_VERSION))
BIN_DIR := $(OUTPUT)/bin
else
K8S_MODULE := $(patsubst %/go.mod,%,$(shell awk -v v='$(K8S_VERSION)' '$$1 == "k8s.io/kubernetes" && $$2 == v {print FILENAME}' $(K8S_MODULES)))
$(if $(K8S_MODULE),,$(error unknown K8S_VERSION '$(K8S_VERSION)': gangconf pins $(K8S_VERSIONS); another needs a Go module of its own, as reference-scheduler/k8s-v1.38/go.mod))
BIN_DIR := $(OUTPUT)/$(K8S_VERSION)/bin
endif
export RESULTS CLUSTER CLUSTER_MODE PROVIDER SCHEDULER SCHEDULER_NAME K8S_VERSION K8S_MODULE BIN_DIR WORK_DIR SCENARIO SIZES REPEATS BESIDE BASELINE PRODUCT UPSTREAM_WORKLOADS \
	MUTANTS MUTANTS_FULL MUTANTS_MIN_SCORE PROCS

# Every go command here builds with -trimpath, as hack/build.sh must (no
# machine paths in the binaries): the build cache keys on it, so vet, the
# pinned binaries, the harness's commands and the suite's test binary then
# share one compile of the Kubernetes tree instead of two (from a cold cache,
# minutes each on 2 cores).
GOFLAGS += -trimpath
export GOFLAGS

# The harness's commands run as binaries built into BIN_DIR, not through `go
# run`: make passes a SIGTERM to its own child only, and `go run` dies of it
# without passing it on, which would leave the command (and the cluster it
# started) running with no one to stop it. exec makes the command make's child.
go_exec = go build -o $(BIN_DIR)/$(notdir $(1)) ./$(1) && exec $(BIN_DIR)/$(notdir $(1))
# go_relay runs the command through hack/relay.sh: a Ctrl-C or SIGTERM then
# reaches the command alone, not the kwokctl removing its cluster.
go_relay = go build -o $(BIN_DIR)/$(notdir $(1)) ./$(1) && exec hack/relay.sh $(BIN_DIR)/$(notdir $(1))

GINKGO_FLAGS = -p --procs=$(PROCS) --timeout=30m --label-filter='$(LABEL_FILTER)' --no-color
CONTROLS_RECORD := suites/conformance/controls.yaml
# The alpha profile's specs run on a cluster with the alpha gates on, in a
# run of their own; these controls are checked against them there.
ALPHA_CLUSTER := ci-alpha
ALPHA_CONTROLS := no-alpha no-gang no-preemption no-job-workload
# The controls checked against the core and extended specs.
MAIN_CONTROLS := no-gang no-api no-preemption
# control and control-alpha refuse any other CONTROL before their run (which
# would otherwise run the whole suite first, or clear every control's results).
known_control = $(if $(filter $(CONTROL),$(1)),,$(error CONTROL='$(CONTROL)' is not a negative control of these specs: one of $(1)))

##@ Main

.PHONY: run
run: build ## the main job: core conformance + a quick benchmark + the report, reference scheduler, kwok cluster
	@$(MAKE) --no-print-directory conformance SCHEDULER=reference
	@$(MAKE) --no-print-directory bench SCENARIO=smoke SCHEDULER=reference
	@$(MAKE) --no-print-directory report

.PHONY: test
test: verify browser unit build ## what CI runs: checks, unit tests, the suite on reference, the negative controls, one mutant, a bench smoke run, the report
	@rm -rf $(OUTPUT)/test
	@$(MAKE) --no-print-directory coverage CHECK=1
	@$(MAKE) --no-print-directory conformance SCHEDULER=reference RESULTS=$(OUTPUT)/test
	@for c in $(MAIN_CONTROLS); do $(MAKE) --no-print-directory control CONTROL=$$c RESULTS=$(OUTPUT)/test || exit 1; done
	@$(MAKE) --no-print-directory mutants MUTANTS=$(SMOKE_MUTANT) MUTANTS_MIN_SCORE=100 \
		MUTANTS_REFERENCE=$(OUTPUT)/test/ginkgo-report.json RESULTS=$(OUTPUT)/test
	@$(MAKE) --no-print-directory conformance-alpha SCHEDULER=reference RESULTS=$(OUTPUT)/test
	@for c in $(ALPHA_CONTROLS); do $(MAKE) --no-print-directory control-alpha CONTROL=$$c RESULTS=$(OUTPUT)/test || exit 1; done
	@$(MAKE) --no-print-directory bench SCENARIO=smoke SCHEDULER=reference RESULTS=$(OUTPUT)/test
	@$(MAKE) --no-print-directory signal-test POINTS=3
	@$(MAKE) --no-print-directory vendor-run REFERENCE=$(OUTPUT)/test RESULTS=$(OUTPUT)/test/vendor
	@$(MAKE) --no-print-directory report RESULTS=$(OUTPUT)/test

# Mutants are rules on go.mod's Kubernetes source, and the upstream
# benchmarks are built from go.mod's module.
.PHONY: only-main-version
only-main-version:
	@test -z "$(K8S_MODULE)" || { echo "make $(MAKECMDGOALS) runs on Kubernetes $(MAIN_K8S_VERSION) only (go.mod's), not K8S_VERSION=$(K8S_VERSION)"; exit 2; }

.PHONY: matrix
matrix: ## every pinned Kubernetes version: the suites, their controls and bench smoke on each, into $(RESULTS)/matrix/<version>; one report with a version column
	@failed=0; for v in $(K8S_VERSIONS); do \
		$(MAKE) --no-print-directory matrix-version K8S_VERSION=$$v RESULTS=$(RESULTS)/matrix/$$v || failed=1; \
	done; \
	$(MAKE) --no-print-directory matrix-report; exit $$failed

# One version of the matrix: what make test runs on the reference, less the
# mutant (mutants are rules on v1.37.2's source). Every run goes on after a
# failure, so the report shows all that differs; a build that fails stops it.
.PHONY: matrix-version
matrix-version: build
	@rm -rf $(RESULTS); failed=0; \
	$(MAKE) --no-print-directory conformance SCHEDULER=reference || failed=1; \
	for c in $(MAIN_CONTROLS); do $(MAKE) --no-print-directory control CONTROL=$$c || failed=1; done; \
	$(MAKE) --no-print-directory conformance-alpha SCHEDULER=reference || failed=1; \
	for c in $(ALPHA_CONTROLS); do $(MAKE) --no-print-directory control-alpha CONTROL=$$c || failed=1; done; \
	$(MAKE) --no-print-directory bench SCENARIO=smoke SCHEDULER=reference || failed=1; \
	exit $$failed

##@ Build and check

.PHONY: build
build: ## compile the pinned control plane, kwok and the reference scheduler of K8S_VERSION into _output/bin (another version: _output/<version>/bin)
	@hack/build.sh $(BIN_DIR)

.PHONY: verify
verify: ## gofmt, go vet, go mod tidy
	@hack/verify.sh

.PHONY: browser
browser: ## install Debian's chromium for the report's browser test, if missing
	@hack/install-chromium.sh

# Only packages that have tests: go test -race compiles a package without any
# all the same, and the reference scheduler's alone is some 590 packages of
# kube-scheduler instrumented for nothing (vet and build check they compile).
.PHONY: unit
unit: ## unit tests (with the race detector); the conformance suite needs a cluster and runs in conformance
	go test -race -count=1 $$(go list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' ./... | grep -v '/suites/conformance$$')

# Each point is a run of its own, make conformance (a few specs) or make bench
# SCENARIO=smoke, in $(OUTPUT)/signal-test/point-NN; its table goes to
# $(OUTPUT)/signal-test/signal-test.md.
.PHONY: signal-test
signal-test: build ## stop POINTS runs with SIGINT or SIGTERM at random moments; fail if one leaves a process, cluster directory or port, or does not say it was stopped
	@$(call go_exec,suites/cmd/signaltest) -points $(POINTS) $(if $(SEED),-seed $(SEED)) -dir $(OUTPUT)/signal-test

# The vendor path run here as a vendor runs it; see suites/cmd/gangvendor.
.PHONY: vendor-run
vendor-run: build ## the vendor path end to end: a stand-in cluster without kwok (CLUSTER=bare), the reference binary started outside the suite as my-scheduler, core + extended with PROVIDER=existing SCHEDULER=external and a restart command, compared spec by spec with REFERENCE
	@mkdir -p $(RESULTS)
	@$(call go_exec,suites/cmd/gangvendor) run $(if $(REFERENCE),-reference $(abspath $(REFERENCE)))

##@ Clusters

.PHONY: cluster-up
cluster-up: build ## a kwok cluster of profile CLUSTER with SCHEDULER running; kubeconfig in $(RESULTS)/kubeconfig
	@mkdir -p $(RESULTS)
	@$(call go_exec,suites/cmd/gangconf) cluster-up

.PHONY: cluster-down
cluster-down: ## stop the scheduler and remove the cluster made by cluster-up
	@$(call go_exec,suites/cmd/gangconf) cluster-down

##@ Conformance

# hack/relay.sh tees the output into e2e.log, still when our stdout's reader
# goes away (make conformance | head), and passes a Ctrl-C or SIGTERM on,
# once, to Ginkgo and its parallel processes, so their teardown removes the
# cluster.
.PHONY: conformance
conformance: build $(if $(ADMISSION),build-kueue) ## run the conformance suites against SCHEDULER on PROVIDER (behind ADMISSION when set)
	@mkdir -p $(RESULTS)
	CLUSTER_NAME=conformance-$(SCHEDULER) hack/relay.sh --log $(RESULTS)/e2e.log --suite $(BIN_DIR)/ginkgo run $(GINKGO_FLAGS) ./suites/conformance

.PHONY: control
control: build ## run negative control CONTROL into $(RESULTS)/controls/CONTROL; fail unless it fails exactly its recorded specs
	@$(call known_control,$(MAIN_CONTROLS))rm -rf $(RESULTS)/controls/$(CONTROL)
	-@$(MAKE) --no-print-directory conformance SCHEDULER=$(CONTROL) RESULTS=$(RESULTS)/controls/$(CONTROL) > /dev/null
	@$(call go_exec,suites/cmd/gangconf) check-controls -control $(CONTROL) \
		-report $(RESULTS)/controls/$(CONTROL)/ginkgo-report.json -record $(CONTROLS_RECORD)

.PHONY: conformance-alpha
conformance-alpha: build ## the alpha profile's specs against SCHEDULER on a ci-alpha cluster (alpha gates on); results in $(RESULTS)/alpha
	@$(MAKE) --no-print-directory conformance CLUSTER=$(ALPHA_CLUSTER) LABEL_FILTER='profile:alpha' RESULTS=$(RESULTS)/alpha

.PHONY: control-alpha
control-alpha: build ## run negative control CONTROL on the alpha specs and cluster into $(RESULTS)/alpha/controls/CONTROL; fail unless it fails exactly its recorded alpha specs
	@$(call known_control,$(ALPHA_CONTROLS))rm -rf $(RESULTS)/alpha/controls/$(CONTROL)
	-@$(MAKE) --no-print-directory conformance SCHEDULER=$(CONTROL) CLUSTER=$(ALPHA_CLUSTER) LABEL_FILTER='profile:alpha' \
		RESULTS=$(RESULTS)/alpha/controls/$(CONTROL) > /dev/null
	@$(call go_exec,suites/cmd/gangconf) check-controls -control $(CONTROL) -label-filter 'profile:alpha' \
		-report $(RESULTS)/alpha/controls/$(CONTROL)/ginkgo-report.json -record $(CONTROLS_RECORD)

# A dry run lists every spec with its labels without a cluster; its
# ReportAfterSuite writes into RESULTS, so that points at the scratch folder.
COVERAGE_DIR := $(OUTPUT)/coverage
COVERAGE_FILE := suites/conformance/COVERAGE.md

.PHONY: coverage
coverage: build ## write suites/conformance/COVERAGE.md (semantics item -> specs -> controls that fail them); CHECK=1 only compares
	@rm -rf $(COVERAGE_DIR) && mkdir -p $(COVERAGE_DIR)
	@RESULTS=$(COVERAGE_DIR) $(BIN_DIR)/ginkgo run --dry-run --no-color --json-report=$(COVERAGE_DIR)/dry-run.json ./suites/conformance > $(COVERAGE_DIR)/dry-run.log
	@$(call go_exec,suites/cmd/gangconf) coverage -report $(COVERAGE_DIR)/dry-run.json -record $(CONTROLS_RECORD) -out $(COVERAGE_FILE) $(if $(CHECK),-check)

# The stack profile: Kueue in front of the scheduler under test, on the
# alpha cluster (Jobs get a Workload and a PodGroup there). Kueue's manager
# comes from a Go module of its own, as it pins Kubernetes v0.35 libraries;
# it is rebuilt only when that module's pins change. Its CRDs and webhook
# configurations are read from the module cache at run time.
KUEUE_MODULE := $(ROOT)/suites/framework/admission/kueue
KUEUE_BIN := $(OUTPUT)/bin/kueue
export ADMISSION KUEUE_MODULE KUEUE_BIN
STACK_CLUSTER := ci-alpha
# How each control is run on the stack: the reference-less scheduler behind
# Kueue, and Kueue allowed to admit part of a gang in front of the reference.
STACK_CONTROLS := no-gang kueue-partial
stack_control_args = $(if $(filter kueue-partial,$(CONTROL)),SCHEDULER=reference ADMISSION=kueue-partial,SCHEDULER=$(CONTROL) ADMISSION=kueue)

$(KUEUE_BIN): $(KUEUE_MODULE)/go.mod $(KUEUE_MODULE)/go.sum
	@start=$$(date +%s); version=$$(go -C $(KUEUE_MODULE) list -m -f '{{.Version}}' sigs.k8s.io/kueue) && \
	go -C $(KUEUE_MODULE) build -ldflags "-X sigs.k8s.io/kueue/pkg/version.GitVersion=$$version" -o $@ sigs.k8s.io/kueue/cmd/kueue && \
	echo "built $@ (Kueue $$version, $$(( $$(date +%s) - start ))s)"

.PHONY: build-kueue
build-kueue: $(KUEUE_BIN) ## compile Kueue's manager from its own Go module (suites/framework/admission/kueue) into _output/bin/kueue

.PHONY: conformance-stack
conformance-stack: build build-kueue ## the stack profile: Kueue v0.17.0 admitting Jobs in front of SCHEDULER, on a ci-alpha cluster; results in $(RESULTS)/stack
	@$(MAKE) --no-print-directory conformance CLUSTER=$(STACK_CLUSTER) LABEL_FILTER='profile:stack' ADMISSION=$(or $(ADMISSION),kueue) RESULTS=$(RESULTS)/stack

.PHONY: control-stack
control-stack: build build-kueue ## run CONTROL (no-gang behind Kueue, or kueue-partial: Kueue admitting part of a gang) on the stack specs into $(RESULTS)/stack/controls/CONTROL; fail unless it fails exactly its recorded stack specs
	@$(call known_control,$(STACK_CONTROLS))rm -rf $(RESULTS)/stack/controls/$(CONTROL)
	-@$(MAKE) --no-print-directory conformance $(stack_control_args) CLUSTER=$(STACK_CLUSTER) LABEL_FILTER='profile:stack' \
		RESULTS=$(RESULTS)/stack/controls/$(CONTROL) > /dev/null
	@$(call go_exec,suites/cmd/gangconf) check-controls -control $(CONTROL) -label-filter 'profile:stack' \
		-report $(RESULTS)/stack/controls/$(CONTROL)/ginkgo-report.json -record $(CONTROLS_RECORD)

##@ Suite power

# make test builds and kills this one source mutant end to end, against the
# reference's run just before it.
SMOKE_MUTANT := disruption-mode-all-ignored

# The reference runs first on the same machine, so that a spec failing on
# both is no kill; each mutant then gets clusters of its own, one at a time.
.PHONY: mutants
mutants: only-main-version build ## run the suites against each mutant of the reference scheduler; verdicts and score in $(RESULTS)/mutants
	@$(call go_exec,suites/cmd/gangmutants) -catalogue reference-scheduler/mutants.yaml -build-dir $(OUTPUT)/mutants

# Each run is a make conformance of its own, into $(RESULTS)/soak/<n>; the
# table in $(RESULTS)/soak/soak.json gains the runs of every sitting.
.PHONY: soak
soak: build ## RUNS core + extended runs against reference in a row, each on a fresh cluster; flake table in $(RESULTS)/soak/soak.json, shown by make report
	@$(call go_exec,suites/cmd/gangsoak) -runs $(RUNS)

##@ Benchmarks

.PHONY: bench
bench: build ## run benchmark SCENARIO(s) against SCHEDULER (also: ceiling); results in $(RESULTS)/bench, plots in $(RESULTS)/plots
	$(call go_relay,bench/cmd/gangbench)

# Upstream scheduler_perf's PodGroup benchmarks, test binaries built from the
# pinned module; rebuilt only when the pinned versions change.
UPSTREAM_PERF := k8s.io/kubernetes/test/integration/scheduler_perf/podgroup
UPSTREAM_BINS := $(BIN_DIR)/scheduler_perf-gangscheduling.test $(BIN_DIR)/scheduler_perf-basicscheduling.test

$(BIN_DIR)/scheduler_perf-%.test: go.mod go.sum
	go test -c -o $@ $(UPSTREAM_PERF)/$*

.PHONY: whole-sittings
whole-sittings:
	@case "$(SITTINGS)" in ''|*[!0-9]*|0) echo "SITTINGS=$(SITTINGS): want a whole number of sittings, 1 or more"; exit 2;; esac

# Both sides in one sitting: this machine's speed moved 1.6 times within an
# hour, and a ratio of runs hours apart carried that. Within a sitting one
# side's figure still moved up to 1.8 times between sittings minutes apart,
# hence SITTINGS: each a results directory of its own under
# $(RESULTS)/bench-upstream-sittings, the report their medians.
.PHONY: bench-upstream
bench-upstream: whole-sittings only-main-version build $(UPSTREAM_BINS) ## run upstream scheduler_perf's copies of upstream-gangs, then gangconf's upstream-gangs against SCHEDULER on a CLUSTER_MODE=upstream cluster, SITTINGS times; DataItems in $(RESULTS)/bench-upstream and $(RESULTS)/bench (or each sitting's directory)
	@rm -rf $(RESULTS)/bench-upstream-sittings
ifeq ($(SITTINGS),1)
	$(call go_exec,bench/cmd/upstreambench)
	@$(MAKE) --no-print-directory bench SCENARIO=upstream-gangs CLUSTER_MODE=upstream
else
	@for i in $$(seq 1 $(SITTINGS)); do \
		echo "bench-upstream: sitting $$i of $(SITTINGS)"; \
		$(MAKE) --no-print-directory bench-upstream SITTINGS=1 RESULTS=$(RESULTS)/bench-upstream-sittings/$$i || exit $$?; \
	done
endif

.PHONY: bench-compare
bench-compare: ## compare two bench runs with benchstat: make bench-compare OLD=dir NEW=dir
	@test -n "$(OLD)" -a -n "$(NEW)" || { echo "usage: make bench-compare OLD=<results dir> NEW=<results dir>"; exit 2; }
	go tool benchstat $(OLD)/bench/bench.txt $(NEW)/bench/bench.txt

##@ Reports

.PHONY: report
report: ## write report.html and report.md for $(RESULTS) (BASELINE=dir adds ratios)
	@$(call go_exec,reports/cmd/gangreport)

.PHONY: matrix-report
matrix-report: ## write matrix.html/.md from $(RESULTS)/matrix/<version>/ results
	@$(call go_exec,reports/cmd/gangmatrix) -versions '$(K8S_VERSIONS)' -record $(CONTROLS_RECORD)

.PHONY: bundle
bundle: ## pack $(RESULTS) for publication: PRODUCT.yaml, sha256sums, done marker, $(RESULTS).tar.gz
	@$(call go_exec,reports/cmd/gangbundle)

.PHONY: clean
clean: cluster-down ## remove _output (binaries, results, clusters)
	rm -rf $(OUTPUT)

##@ Help

.PHONY: help
help: ## show this help
	@awk 'BEGIN {FS = ":.*##"; printf "usage: make <target> [VARIABLE=value]\n"} \
		/^[a-zA-Z_-]+:.*?##/ { printf "  \033[36m%-15s\033[0m %s\n", $$1, $$2 } \
		/^[A-Z0-9_]+ \?=.*##/ { split($$0, a, "##"); sub(/ \?=.*/, "", a[1]); printf "  \033[33m%-15s\033[0m %s\n", a[1], a[2] } \
		/^##@/ { printf "\n\033[1m%s\033[0m\n", substr($$0, 5) }' $(MAKEFILE_LIST)
