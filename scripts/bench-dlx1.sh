#!/usr/bin/env bash
# Runs the Dancing Links benchmark (cores/benches/dlx.rs) with Knuth's DLX1 beside our engine
# and the `dlx` crate, on the same DLX-format inputs, in one run.
#
# Usage: scripts/bench-dlx1.sh DLX1 [FILTER...]
#
#   DLX1     a DLX1 binary you built, or its C source (dlx1.c, tangled from dlx1.w, with
#            gb_flip.c and gb_flip.h beside it), or its CWEB source dlx1.w (with gb_flip.w,
#            and boilerplate.w if at hand, beside it; needs `ctangle`, e.g. from Debian's
#            texlive-binaries). Sources are
#            compiled with `gcc -O3 -march=native` in a temporary directory outside the repo.
#   FILTER   keep only the inputs whose name contains one of these words (e.g. `queens`).
#
# Environment: DLX_BENCH_REPS (repetitions per solver and input, default 5),
# DLX_BENCH_DUMP=DIR (also write each input's DLX text to DIR), CARGO_TARGET_DIR as usual.
#
# This script fetches nothing. DLX1 is Knuth's program (CWEB sources, e.g. in the public
# ascherer/cwebtest mirror); build it outside this repository and never commit it.
#
# How DLX1 is run: `dlx1 v1 < input.dlx` (v1: the closing statistics line only; m0, the
# default, counts solutions without printing them). Its closing line "Altogether S
# solutions, ..., U updates, ..., N nodes" gives the counts; its time is its process's CPU
# time minus that of a run with `T1` (start-up and input, one node). See the bench's docs.
set -euo pipefail

usage() { sed -n '2,23p' "$0" | sed 's/^# \{0,1\}//'; }
if [[ $# -lt 1 ]]; then
    usage >&2
    exit 2
elif [[ "$1" == -h || "$1" == --help ]]; then
    usage
    exit 0
fi

src=$(realpath "$1")
shift
root=$(cd "$(dirname "$0")/.." && pwd)

build_dir() {
    local d
    d=$(mktemp -d "${TMPDIR:-/tmp}/dancehall-dlx1.XXXXXX")
    echo "$d"
}

compile() { # compile DIR: dlx1.c and gb_flip.c in DIR -> DIR/dlx1
    local d=$1
    gcc -O3 -march=native -w -o "$d/dlx1" "$d/dlx1.c" "$d/gb_flip.c"
}

case "$src" in
*.w)
    command -v ctangle >/dev/null || {
        echo "error: ctangle not found (Debian: apt-get install texlive-binaries)" >&2
        exit 2
    }
    dir=$(dirname "$src")
    [[ -f "$dir/gb_flip.w" ]] || {
        echo "error: $dir/gb_flip.w not found (DLX1 includes gb_flip.h)" >&2
        exit 2
    }
    d=$(build_dir)
    cp "$src" "$d/dlx1.w"
    cp "$dir/gb_flip.w" "$d/"
    # gb_flip.w includes the GraphBase's boilerplate.w (legal text only): copy it when it
    # is there; without it ctangle complains but still writes the C code, which is checked.
    [[ -f "$dir/boilerplate.w" ]] && cp "$dir/boilerplate.w" "$d/"
    (cd "$d" && { ctangle dlx1.w; ctangle gb_flip.w; } >"$d/ctangle.log" 2>&1) || true
    for f in dlx1.c gb_flip.c gb_flip.h; do
        [[ -s "$d/$f" ]] || {
            echo "error: ctangle did not produce $f (see $d/ctangle.log)" >&2
            exit 2
        }
    done
    compile "$d"
    bin="$d/dlx1"
    ;;
*.c)
    dir=$(dirname "$src")
    for f in gb_flip.c gb_flip.h; do
        [[ -f "$dir/$f" ]] || {
            echo "error: $dir/$f not found (DLX1 includes gb_flip.h)" >&2
            exit 2
        }
    done
    d=$(build_dir)
    cp "$src" "$d/dlx1.c"
    cp "$dir/gb_flip.c" "$dir/gb_flip.h" "$d/"
    compile "$d"
    bin="$d/dlx1"
    ;;
*)
    [[ -x "$src" ]] || {
        echo "error: $src is neither an executable nor a .c/.w source" >&2
        exit 2
    }
    bin=$src
    ;;
esac

echo "DLX1 binary: $bin" >&2
cd "$root"
DLX1_BIN="$bin" exec cargo bench -p cores --bench dlx -- "$@"
