# Palisade — the two commands a newcomer needs: `make run` and `make test`.
SHELL := /bin/bash

# Every recipe runs with the Node scripts/node-bin.sh picks: the system's when it is new enough
# (>= 22.12), else a pinned Node 24 it installs from the npm registry into .tools/node. npm and npx
# are the system's, run by that Node; native addons build against that Node's own headers.
NODE_BIN := $(shell scripts/node-bin.sh)
ifeq ($(NODE_BIN),)
$(error could not find or install a Node.js >= 22.12 (see the message above))
endif
export PATH := $(NODE_BIN):$(PATH)
export npm_config_nodedir := $(abspath $(NODE_BIN)/..)
NODE_ABI := $(shell $(NODE_BIN)/node -p process.versions.modules)
NPM_INSTALL_STAMP := node_modules/.install-stamp-$(NODE_ABI)

.PHONY: run test test-ready install build lint typecheck-tests proto proto-check bench clean deps-system node-version

node-version:
	@echo "node $$(node --version) at $$(command -v node), npm $$(npm --version)"

# bubblewrap (Debian), installed where apt-get is there: the tool sandboxes need it (the Engine
# runs without it only when the config says `sandbox.required: false`). Used by run and deps-system.
# Checked again after apt-get: an install that did nothing (or a bwrap that is not executable) says so.
INSTALL_BWRAP = command -v bwrap >/dev/null || ( command -v apt-get >/dev/null && echo "installing bubblewrap (apt-get install bubblewrap) ..." && \
		  (apt-get install -y -q bubblewrap >/dev/null 2>&1 || (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q bubblewrap >/dev/null 2>&1)) ) ; \
		command -v bwrap >/dev/null || echo "note: bubblewrap (bwrap) is not installed$$(command -v apt-get >/dev/null && echo ' and apt-get could not install it' || echo ' and there is no apt-get to install it'): the tool sandboxes cannot start, so the files and shell tools are unavailable (the chat names them). Install it (apt-get install bubblewrap, dnf install bubblewrap) and restart the Engine, or set sandbox.required: false (see docs/security.md)"

# bubblewrap first, as for the tests: without it the files and shell tools cannot start.
run: build
	@$(INSTALL_BWRAP)
	@echo "palisade runs on node $$(node --version) ($$(command -v node))"
	@echo "the palisade command is $(CURDIR)/bin/palisade; to type just 'palisade': export PATH=\"$(CURDIR)/bin:\$$PATH\""
	bin/palisade chat $(ARGS)

# Everything CI runs, from a clean clone: install, build, lint, generated-code check, tests.
# The chat's pseudo-terminal tests (apps/cli/test/e2e-tmux*.test.ts) boot their own Engine and read
# the screen with deadlines: they run after the parallel suite, one file at a time, so the suite's
# load does not starve them.
E2E_TTY := apps/cli/test/e2e-tmux

test: node-version
	@$(MAKE) --no-print-directory -j3 --output-sync=target test-ready
	npx vitest run --exclude '$(E2E_TTY)*.test.ts'
	npx vitest run --no-file-parallelism $(E2E_TTY)

# What the tests need, side by side (make -j3 above, each target's output printed whole when it
# ends): the lint needs only the installed packages, so it runs beside the build and the test
# type-check; the system packages install meanwhile. The generated-code check goes first, as it
# rewrites generated sources that the build and the lint read.
test-ready: lint typecheck-tests deps-system
ifneq ($(filter test-ready,$(MAKECMDGOALS)),)
build lint: | proto-check
endif

# A clean clone gets `npm ci`; an existing tree is never wiped (people may be working in it),
# it gets a non-destructive `npm install` when the lockfile or the Node ABI (the stamp's suffix)
# changed; `npm rebuild` then refits native addons to the Node in use.
$(NPM_INSTALL_STAMP): package.json package-lock.json
	@if [ -d node_modules ]; then npm install --no-audit --no-fund && npm rebuild --no-audit --no-fund; else npm ci --no-audit --no-fund; fi
	@touch $@

install: $(NPM_INSTALL_STAMP)

# Then the CLI's client commands are bundled into apps/cli/dist/bundle (apps/cli/scripts/bundle-client.mjs;
# a no-op when nothing changed), and the background Engine and the Agent into one file each
# (scripts/bundle.mjs). bin/palisade runs the CLI with the Node recorded last (native
# addons are built for it), without asking scripts/node-bin.sh before every command. Last, each
# built-in capability whose code changed is started once to fill its V8 code cache (dist/compile-cache, read-only in
# its sandbox): its every (re)start then compiles less.
build: install
	npx tsc -b
	node apps/cli/scripts/bundle-client.mjs
	node scripts/bundle.mjs
	node packages/capability-sdk/scripts/compile-cache.mjs apps/capabilities/*/
	@printf '%s\n%s\n' "$(NODE_BIN)" "$(NODE_ABI)" >apps/cli/dist/built-with-node

lint: install
	npx prettier --check . --log-level warn || { echo 'formatting differs: run npx prettier --write . (config in .prettierrc.json)'; exit 1; }
	npx eslint . --max-warnings 0
	node scripts/layout-stats.mjs --no-cycles
	npx buf lint

# Test code is type-checked too (vitest itself only strips types): the test directories whose
# tsconfig.json is the shared one-liner as one program, so the sources they import are checked
# once, not once per directory (scripts/typecheck-tests.mjs).
typecheck-tests: build
	node scripts/typecheck-tests.mjs

# The interop tests' grpc.testing protos are generated the same way, into their own directory.
INTEROP_GEN := packages/protocol/test/interop/buf.gen.yaml

proto: install
	npx buf generate
	npx buf generate --template $(INTEROP_GEN)
	npx buf lint

# Regenerates the protobuf code and fails if that changed anything: generated code is committed.
proto-check: install
	npx buf generate
	npx buf generate --template $(INTEROP_GEN)
	@if [ -n "$$(git status --porcelain -- packages/protocol/src/gen packages/protocol/test/interop/gen)" ]; then \
		echo "generated protobuf code is stale: run 'make proto' and commit the result"; \
		git status --porcelain -- packages/protocol/src/gen packages/protocol/test/interop/gen; exit 1; fi

# System packages some tests need (Debian): Python gRPC for the interop tests (capabilities, and
# the gRPC bridge's interop cases and codec round trip in packages/protocol/test/interop),
# tmux for the chat end-to-end test in a pseudo-terminal, bubblewrap for the tool sandboxes
# (the Engine runs without it only when the config says `sandbox.required: false`).
deps-system:
	@$(INSTALL_BWRAP)
	@command -v tmux >/dev/null || ( command -v apt-get >/dev/null && apt-get install -y -q tmux >/dev/null 2>&1 ) || \
		echo "note: tmux not available; the chat end-to-end test will be skipped"
	@/usr/bin/python3 -c "import grpc, google.protobuf" 2>/dev/null || python3 -c "import grpc, google.protobuf" 2>/dev/null || \
		( command -v apt-get >/dev/null && (apt-get install -y -q python3-grpcio python3-protobuf >/dev/null 2>&1 || \
		  (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q python3-grpcio python3-protobuf >/dev/null 2>&1)) ) || \
		echo "note: python3-grpcio not available; the Python interop test will be skipped with a reason"
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || ( command -v apt-get >/dev/null && (apt-get install -y -q postgresql >/dev/null 2>&1 || \
		  (apt-get update -q >/dev/null 2>&1 && apt-get install -y -q postgresql >/dev/null 2>&1)) ) || \
		echo "note: PostgreSQL not available; the store's PostgreSQL tests will be skipped with a reason"

bench: build
	node bench/run.mjs $(ARGS)

clean:
	rm -rf .tools node_modules packages/*/dist apps/*/dist apps/capabilities/*/dist **/*.tsbuildinfo
