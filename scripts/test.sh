#!/usr/bin/env bash
# Runs every test of the workspace, after installing what the tests need: the external
# solvers (scripts/install-solvers.sh: MiniZinc with Gecode, clingo, OR-Tools CP-SAT, minisat,
# gprolog) and the test tools (scripts/install-test-tools.sh: sshd, chromium,
# kubernetes-validate). This is the README's test command and what CI (.ci/run) calls.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-solvers.sh
bash scripts/install-test-tools.sh
cargo test --workspace "$@"
