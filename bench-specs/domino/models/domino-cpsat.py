"""The placement model of the domino benchmark (seed 001) for OR-Tools' CP-SAT.

The problem of domino-placement.mzn and domino.lp, stated over the same placements:
  - x[t, o, m, r, c]: tile t placed with orientation o (H or V), mirrored m (the top/left cell
    carries the tile's third value), first (top/left) cell at row r, column c; only placements
    inside the board, and no mirrored placement of a palindromic tile (first value = third:
    the same cells and values as unmirrored);
  - each tile is placed at most once; each cell is covered at most once;
  - contact: across every edge between orthogonally adjacent cells c | d, a tile that covers
    c and not d with value v excludes a tile that covers d and not c with any other value:
    for every v, at_most_one(placements putting v on c without covering d, placements
    putting any w != v on d without covering c), i.e. the clauses (not p or not q) for every
    such mismatched pair (pairs within one side cover one cell and are excluded anyway).
    Stated this way CP-SAT proves far more instances in one worker than with a literal per
    (cell, value) as in domino-placement.mzn, whose objective its presolve expands into a
    weak bound;
  - maximise the number of tiles placed (the redundant bound objective <= n * n div 3 is the
    MiniZinc model's too).

Usage: python3 domino-cpsat.py DATA.dzn [--time-limit S] [--workers N]
DATA is the MiniZinc data of the instance (cores::domino::to_dzn, seed 001's layout:
numTiles, k, TilesIndex, tiles = array2d(TilesIndex, 1..3, [...]), n). The time limit is
CP-SAT's max_time_in_seconds, counted from this script's start; SIGTERM stops the search as
the limit does.

Output (standard output, one line each, flushed as found):
  place T ROW COL H|V M   per placed tile of a solution (T, ROW, COL 0-based; M 0 or 1)
  objective N             ends a solution (the objective CP-SAT claims for it)
  bound B                 CP-SAT's proven upper bound on the objective, at the end (only
                          when the status is OPTIMAL or FEASIBLE)
  status S                CP-SAT's status at the end: OPTIMAL (proved), FEASIBLE or UNKNOWN
                          (stopped by the time limit or SIGTERM), INFEASIBLE, MODEL_INVALID
  error MESSAGE           what went wrong (then the exit status is 1)
"""

import time

START = time.monotonic()

import argparse  # noqa: E402
import math  # noqa: E402
import re  # noqa: E402
import signal  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

STOP = threading.Event()
SOLVER = None


def on_sigterm(_signum, _frame):
    STOP.set()
    if SOLVER is not None:
        SOLVER.stop_search()


def fail(message):
    print(f"error {message}", flush=True)
    sys.exit(1)


def read_dzn(text):
    """(tiles, n) from the seed layout; comments (% to the end of the line) are dropped."""
    text = "\n".join(line.split("%", 1)[0] for line in text.splitlines())

    def integer(name):
        found = re.search(rf"\b{name}\s*=\s*(\d+)\s*;", text)
        if found is None:
            fail(f"the data has no `{name} = N;`")
        return int(found.group(1))

    num_tiles, n = integer("numTiles"), integer("n")
    found = re.search(r"\btiles\s*=\s*array2d\([^\[]*\[([^\]]*)\]\s*\)\s*;", text)
    if found is None:
        fail("the data has no `tiles = array2d(TilesIndex, 1..3, [...]);`")
    values = [int(v) for v in found.group(1).replace(",", " ").split()]
    if len(values) != 3 * num_tiles:
        fail(f"tiles holds {len(values)} values, not 3 x numTiles = {3 * num_tiles}")
    tiles = [tuple(values[3 * t : 3 * t + 3]) for t in range(num_tiles)]
    return tiles, n


def build(tiles, n):
    from ortools.sat.python import cp_model

    model = cp_model.CpModel()
    # (t, o, m, r, c, variable, cells); cells: ((row, col, value), ...) top/left first.
    placements = []
    for t, tile in enumerate(tiles):
        for o, (dr, dc) in (("H", (0, 1)), ("V", (1, 0))):
            for m in (0, 1):
                if m == 1 and tile[0] == tile[2]:
                    continue
                shown = tile[::-1] if m else tile
                for r in range(n - 2 * dr):
                    for c in range(n - 2 * dc):
                        x = model.new_bool_var(f"x_{t}_{o}_{m}_{r}_{c}")
                        cells = tuple((r + i * dr, c + i * dc, shown[i]) for i in range(3))
                        placements.append((t, o, m, r, c, x, cells))

    by_tile = [[] for _ in tiles]
    # covering[(row, col)]: (variable, value, cells) of every placement covering the cell.
    covering = {(r, c): [] for r in range(n) for c in range(n)}
    for t, _o, _m, _r, _c, x, cells in placements:
        by_tile[t].append(x)
        for r, c, v in cells:
            covering[(r, c)].append((x, v, cells))

    for xs in by_tile:
        model.add_at_most_one(xs)
    for entries in covering.values():
        model.add_at_most_one([x for x, _v, _cells in entries])

    def showing(cell, other):
        """value -> the placements that put it on `cell` and do not cover `other`."""
        groups = {}
        for x, v, cells in covering[cell]:
            if not any((r, c) == other for r, c, _v in cells):
                groups.setdefault(v, []).append(x)
        return groups

    edges = [((r, c), (r, c + 1)) for r in range(n) for c in range(n - 1)]
    edges += [((r, c), (r + 1, c)) for r in range(n - 1) for c in range(n)]
    for first, second in edges:
        a, b = showing(first, second), showing(second, first)
        for v, xs in a.items():
            others = [y for w, ys in b.items() if w != v for y in ys]
            if others:
                model.add_at_most_one(xs + others)

    objective = sum(p[5] for p in placements)
    if placements:
        model.add(objective <= (n * n) // 3)
    model.maximize(objective)
    return cp_model, model, placements


def solution_lines(placements, value, objective):
    lines = [
        f"place {t} {r} {c} {o} {m}"
        for t, o, m, r, c, x, _cells in placements
        if value(x)
    ]
    lines.append(f"objective {objective}")
    return "\n".join(lines)


def main():
    global SOLVER
    signal.signal(signal.SIGTERM, on_sigterm)
    parser = argparse.ArgumentParser(description="The domino placement model for CP-SAT.")
    parser.add_argument("data", help="the instance as MiniZinc data (seed 001's layout)")
    parser.add_argument("--time-limit", type=float, default=None, metavar="S")
    parser.add_argument("--workers", type=int, default=1, metavar="N")
    args = parser.parse_args()
    try:
        with open(args.data, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        fail(f"cannot read {args.data}: {e}")
    tiles, n = read_dzn(text)
    cp_model, model, placements = build(tiles, n)

    solver = cp_model.CpSolver()
    # num_workers is the current name of num_search_workers (setting both is refused).
    solver.parameters.num_workers = args.workers
    solver.parameters.log_search_progress = False
    if args.time_limit is not None:
        left = args.time_limit - (time.monotonic() - START)
        solver.parameters.max_time_in_seconds = max(left, 0.0)

    printed = []

    class Printer(cp_model.CpSolverSolutionCallback):
        def on_solution_callback(self):
            objective = round(self.objective_value)
            print(solution_lines(placements, self.boolean_value, objective), flush=True)
            printed.append(objective)

    status, raised = cp_model.UNKNOWN, []
    if not STOP.is_set():
        SOLVER = solver
        done = []

        def search():
            try:
                done.append(solver.solve(model, Printer()))
            except Exception as e:  # reported below, from this thread
                raised.append(e)

        # The search runs in a thread so that this one stays free to take SIGTERM (Python
        # runs signal handlers in the main thread only). A stop requested before the search
        # began is passed on again until it ends.
        worker = threading.Thread(target=search)
        worker.start()
        while worker.is_alive():
            worker.join(0.1)
            if STOP.is_set():
                solver.stop_search()
        if raised:
            fail(f"CP-SAT failed: {raised[0]!r}")
        status = done[0]

    if status == cp_model.MODEL_INVALID:
        fail(f"CP-SAT rejects the model: {model.validate()}")
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        objective = round(solver.objective_value)
        if not printed or printed[-1] != objective:
            print(solution_lines(placements, solver.boolean_value, objective), flush=True)
        # Of a maximisation: an upper bound on the (integer) objective. Only these statuses
        # carry one: an UNKNOWN response (stopped in presolve) may hold 0 as its bound even
        # after a solution was found.
        if math.isfinite(solver.best_objective_bound):
            print(f"bound {math.floor(solver.best_objective_bound + 1e-6)}", flush=True)
    # The search's statistics, also when it was stopped at its limit.
    for name, value in [
        ("branches", solver.num_branches),
        ("conflicts", solver.num_conflicts),
        ("booleans", solver.num_booleans),
        ("wall_time", solver.wall_time),
    ]:
        print(f"stat {name} {value}", flush=True)
    print(f"status {solver.status_name(status)}", flush=True)


if __name__ == "__main__":
    main()
