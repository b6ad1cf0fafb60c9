#!/usr/bin/env bash
# Runs every test of the workspace, after installing what the tests need (the external
# solvers of the domino benchmark: MiniZinc with Gecode, clingo). This is the README's test
# command and what CI (.ci/run) calls.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-solvers.sh
cargo test --workspace "$@"
