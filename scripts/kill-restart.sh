#!/usr/bin/env bash
# A counting spec through `dancehall run` with its coordinator killed (-9) once in the middle
# and `dancehall run` started again on the same database (it resumes the job), then its
# ledger. The reference counts in results/reference/ were made with it.
#
# Usage (from the repository root, after `cargo build --release -p cli`):
#   scripts/kill-restart.sh SPEC OUT_DIR [SECONDS_BEFORE_KILL] [WORKERS]
# Writes OUT_DIR/log (timestamps, unit states at the kill, exit codes), out1/err1 (the killed
# run), out2.json/err2 (the resumed run's --json line), ledger.csv and dancehall.db.
# Exits with the resumed run's status (non-zero when the total is wrong or anything alarms).
set -u
SPEC=${1:?usage: kill-restart.sh SPEC OUT_DIR [SECONDS_BEFORE_KILL] [WORKERS]}
OUT=${2:?usage: kill-restart.sh SPEC OUT_DIR [SECONDS_BEFORE_KILL] [WORKERS]}
WAIT=${3:-100}
WORKERS=${4:-2}
B=${DANCEHALL:-target/release/dancehall}
DB=$OUT/dancehall.db
mkdir -p "$OUT"
rm -f "$DB" "$DB"-* "$DB".lock
now() { date +%s.%N; }
echo "spec $SPEC, $WORKERS workers, kill after $WAIT s; $(git rev-parse --short HEAD 2>/dev/null)" > "$OUT/log"
echo "start $(now)" >> "$OUT/log"
"$B" run "$SPEC" --db "$DB" --workers "$WORKERS" > "$OUT/out1.txt" 2> "$OUT/err1.txt" &
P=$!
sleep "$WAIT"
echo "kill $(now) pid $P" >> "$OUT/log"
"$B" query "SELECT state, COUNT(*) AS units FROM units GROUP BY 1" --db "$DB" --format csv >> "$OUT/log" 2>&1
kill -9 $P
wait $P; echo "first run exit $?" >> "$OUT/log"
sleep 1
echo "workers left: $(pgrep -f 'dancehall worker' | wc -l)" >> "$OUT/log"
echo "restart $(now)" >> "$OUT/log"
"$B" run "$SPEC" --db "$DB" --workers "$WORKERS" --json > "$OUT/out2.json" 2> "$OUT/err2.txt"
status=$?
echo "second run exit $status at $(now)" >> "$OUT/log"
"$B" ledger --db "$DB" --out "$OUT/ledger.csv"
exit $status
