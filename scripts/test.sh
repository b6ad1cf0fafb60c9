#!/usr/bin/env bash
# Runs every test of the workspace, after installing what the tests need: the external
# solvers (scripts/install-solvers.sh: MiniZinc with Gecode, clingo, OR-Tools CP-SAT, minisat,
# gprolog, and cadical with the proof checker rate) and the test tools
# (scripts/install-test-tools.sh: sshd, chromium, kubernetes-validate). This is the README's test command and what CI (.ci/run) calls.
#
# A missing tool is a failure: an install script that cannot install one exits 1 (this script
# stops there), and a test that needs a missing tool fails, naming it and how to install it.
# Skipping is a developer's explicit choice, for a machine without root: DANCEHALL_ALLOW_SKIP=1
# bash scripts/test.sh. Never silent: each skipped test appends a line to $DANCEHALL_SKIP_LOG
# (set here to skipped-tests.txt in the target folder), and this script lists them after the
# tests, outside the test harness's capture. It also says whether this CPU has the AVX-512
# features of the queens core's lanes (cores::queens::lanes, both widths), whose
# tests run only where it has them.
set -euo pipefail
cd "$(dirname "$0")/.."
target=${CARGO_TARGET_DIR:-target}
mkdir -p "$target"
DANCEHALL_SKIP_LOG="$(cd "$target" && pwd)/skipped-tests.txt"
export DANCEHALL_SKIP_LOG
: >"$DANCEHALL_SKIP_LOG"
bash scripts/install-solvers.sh
bash scripts/install-test-tools.sh
status=0
cargo test --workspace "$@" || status=$?
# The orbit counts' Burnside terms for 8x8 and 9x9 grids (cores::grids::orbits), every unit
# of the 9x9 X-Sudoku's reference ledger recounted by cores::grids::x_band and the 63,199
# classes of 12x12 (cores::grids::two_band): minutes in a debug build, so they are ignored
# there and run here in release.
cargo test --release -p cores --lib -- --ignored --skip explore grids::orbits grids::x_band \
    grids::two_band \
    || status=$?
# The developers' documentation builds without a warning: no broken or ambiguous intra-doc
# link (module docs may link to private items; see cores/src/lib.rs).
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --document-private-items \
    || status=$?

# The CPU features the lanes need (Rust's names; /proc/cpuinfo spells some with `_`).
flags=" $(grep -m 1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
lacks() {
    local f missing=()
    for f in "$@"; do
        [[ $flags == *" $f "* || $flags == *" ${f/avx512/avx512_} "* ]] || missing+=("$f")
    done
    echo "${missing[*]}"
}
lanes() {
    local what=$1 lacking
    shift
    lacking=$(lacks "$@")
    if [ -z "$lacking" ]; then
        echo "queens core, $what lanes: tested (this CPU has $*)"
    else
        echo "queens core, $what lanes: NOT tested (this CPU lacks $lacking)"
    fi
}
lanes 32-bit avx512f avx512cd avx512vpopcntdq
lanes 16-bit avx512f avx512bw avx512bitalg

if [ -s "$DANCEHALL_SKIP_LOG" ]; then
    echo "SKIPPED (DANCEHALL_ALLOW_SKIP=1; $DANCEHALL_SKIP_LOG):"
    sed 's/^/  /' "$DANCEHALL_SKIP_LOG"
else
    echo "no test skipped"
fi
exit "$status"
