#!/usr/bin/env bash
# Installs the external solvers of the benchmarks, idempotently and without questions, then
# prints what is available:
#   - Debian packages: minizinc (the MiniZinc driver), flatzinc (Gecode's fzn-gecode and its
#     solver configuration), gringo (ships a clingo 5.4 binary) for the domino benchmark (seed
#     001); minisat and gprolog for the Sudoku formulations of seed 000 (SAT, CLP(FD));
#   - cadical (Debian's CaDiCaL binary) and rate (a DRAT proof checker, from crates.io, pinned
#     to $RATE_VERSION), for `dancehall domino certify`, which certifies a native bound outside
#     the process: cadical refutes native's formula writing a DRAT proof, rate verifies it;
#   - the PyPI package clingo (a newer clingo, run as `python3 -m clingo`);
#   - the PyPI package ortools, pinned to $ORTOOLS_VERSION (CP-SAT for the domino benchmark's
#     cp-sat configuration, run as python3 on bench-specs/domino/models/domino-cpsat.py).
# Chuffed is not packaged here: it is only detected (`minizinc --solvers`), never installed, and
# optional: the benchmark records it `unavailable`. Every other solver is needed by the tests:
# when one is still missing at the end (no root, no password-less sudo, no network), the
# script names it and exits 1, unless DANCEHALL_ALLOW_SKIP=1 is set (a developer's choice to
# skip the tests that need it; scripts/test.sh lists each skip), when it exits 0.
set -u

log() { printf 'install-solvers: %s\n' "$*" >&2; }

# The OR-Tools release the cp-sat configuration is measured with (the newest that installs
# with Python 3.11 when it was pinned). A run records the version it found.
ORTOOLS_VERSION=9.15.6755
# The proof checker's release (crates.io).
RATE_VERSION=0.3.0

. "$(dirname "$0")/lib/as-root.sh"
. "$(dirname "$0")/lib/apt.sh"
. "$(dirname "$0")/lib/finish.sh"

# --- Debian packages -------------------------------------------------------------------------
missing=()
command -v minizinc >/dev/null 2>&1 || missing+=(minizinc)
command -v fzn-gecode >/dev/null 2>&1 || missing+=(flatzinc)
command -v clingo >/dev/null 2>&1 || missing+=(gringo)
command -v minisat >/dev/null 2>&1 || missing+=(minisat)
command -v gprolog >/dev/null 2>&1 || missing+=(gprolog)
command -v cadical >/dev/null 2>&1 || missing+=(cadical)

apt_install_missing "${missing[@]}"

# --- rate (DRAT proof checker) from crates.io, pinned ----------------------------------------
if ! command -v rate >/dev/null 2>&1; then
    if command -v cargo >/dev/null 2>&1; then
        cargo install -q --locked "rate@$RATE_VERSION" >/dev/null 2>&1 \
            || log "cargo install rate@$RATE_VERSION failed"
    else
        log "no cargo: skipping rate (the DRAT proof checker)"
    fi
fi

# --- clingo from PyPI (newer than Debian's) --------------------------------------------------
if command -v python3 >/dev/null 2>&1; then
    if ! python3 -c 'import clingo' >/dev/null 2>&1; then
        if python3 -m pip --version >/dev/null 2>&1; then
            python3 -m pip install -q --disable-pip-version-check clingo >/dev/null 2>&1 \
                || python3 -m pip install -q --disable-pip-version-check \
                    --break-system-packages clingo >/dev/null 2>&1 \
                || log "pip install clingo failed"
        else
            log "python3 has no pip: skipping the PyPI clingo"
        fi
    fi
else
    log "no python3: skipping the PyPI clingo"
fi

# --- OR-Tools (CP-SAT) from PyPI, pinned -----------------------------------------------------
ortools_version() { python3 -c 'import ortools; print(ortools.__version__)' 2>/dev/null; }
if command -v python3 >/dev/null 2>&1; then
    if [ "$(ortools_version)" != "$ORTOOLS_VERSION" ]; then
        if python3 -m pip --version >/dev/null 2>&1; then
            python3 -m pip install -q --disable-pip-version-check "ortools==$ORTOOLS_VERSION" \
                    >/dev/null 2>&1 \
                || python3 -m pip install -q --disable-pip-version-check \
                    --break-system-packages "ortools==$ORTOOLS_VERSION" >/dev/null 2>&1 \
                || log "pip install ortools==$ORTOOLS_VERSION failed"
        else
            log "python3 has no pip: skipping ortools (CP-SAT)"
        fi
    fi
else
    log "no python3: skipping ortools (CP-SAT)"
fi

# --- What is available -----------------------------------------------------------------------
missing=()
echo "solvers available:"
if command -v minizinc >/dev/null 2>&1; then
    echo "  minizinc: $(minizinc --version 2>/dev/null | head -n 1)"
    solvers=$(minizinc --solvers 2>/dev/null)
    for id in gecode chuffed; do
        line=$(printf '%s\n' "$solvers" | grep -i "org\.[a-z]*\.$id[,)]" | head -n 1 | sed 's/^ *//')
        if [ -n "$line" ]; then
            echo "    $id: $line"
        else
            echo "    $id: not available"
            # Chuffed is optional (only detected).
            [ "$id" = chuffed ] || missing+=("gecode (flatzinc)")
        fi
    done
else
    echo "  minizinc: not available"
    missing+=(minizinc "gecode (flatzinc)")
fi
if command -v clingo >/dev/null 2>&1; then
    echo "  clingo (binary): $(clingo --version 2>/dev/null | head -n 1)"
else
    echo "  clingo (binary): not available"
    missing+=("clingo (gringo)")
fi
if command -v python3 >/dev/null 2>&1 && python3 -c 'import clingo' >/dev/null 2>&1; then
    echo "  clingo (python3 -m clingo): $(python3 -m clingo --version 2>/dev/null | head -n 1)"
else
    echo "  clingo (python3 -m clingo): not available"
    missing+=("clingo (PyPI)")
fi
installed=$(command -v python3 >/dev/null 2>&1 && ortools_version)
if [ -n "$installed" ]; then
    note=""
    [ "$installed" = "$ORTOOLS_VERSION" ] || note=" (not the pinned $ORTOOLS_VERSION)"
    echo "  cp-sat (python3 ortools): OR-Tools $installed$note"
else
    echo "  cp-sat (python3 ortools): not available"
    missing+=("cp-sat (PyPI ortools)")
fi
for tool in minisat gprolog cadical rate; do
    if command -v "$tool" >/dev/null 2>&1; then
        echo "  $tool: $(command -v "$tool")"
    else
        echo "  $tool: not available"
        missing+=("$tool")
    fi
done
finish_install "${missing[@]}"
