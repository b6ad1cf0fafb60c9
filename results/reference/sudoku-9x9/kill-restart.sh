#!/usr/bin/env bash
# The 9x9 count through `dancehall run` with its coordinator killed (-9) once in the middle
# and `dancehall run` started again on the same database (it resumes the job).
# Usage: results/reference/sudoku-9x9/kill-restart.sh [OUT_DIR]   (from the repository root,
# after `cargo build --release -p cli`). Writes log, out1/err1 (killed run), out2/err2.
set -u
OUT=${1:-/tmp/sudoku-9x9}
B=${DANCEHALL:-target/release/dancehall}
DB=$OUT/dancehall.db
mkdir -p "$OUT"
rm -f "$DB" "$DB"-* "$DB".lock
echo "start $(date +%s.%N)" > "$OUT/log"
"$B" run bench-specs/sudoku-9x9.toml --db "$DB" --workers 2 > "$OUT/out1.txt" 2> "$OUT/err1.txt" &
P=$!
sleep 100
echo "kill $(date +%s.%N) pid $P" >> "$OUT/log"
sqlite3 "$DB" "select state, count(*) from units group by 1" >> "$OUT/log"
kill -9 $P
wait $P; echo "first run exit $?" >> "$OUT/log"
sleep 1
echo "workers left: $(pgrep -f 'dancehall worker' | wc -l)" >> "$OUT/log"
echo "restart $(date +%s.%N)" >> "$OUT/log"
"$B" run bench-specs/sudoku-9x9.toml --db "$DB" --workers 2 --json > "$OUT/out2.txt" 2> "$OUT/err2.txt"
echo "second run exit $? at $(date +%s.%N)" >> "$OUT/log"
"$B" ledger --db "$DB" --out "$OUT/ledger.csv"
