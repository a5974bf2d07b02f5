"""The families' beaten cells, checked on data sets the comparison never saw.

``atlas_families_fit.py`` calls a cell *beaten* where the default is outside the band and a
candidate in band is closer to 95 % by more than twice the paired Monte Carlo error. That
candidate is the best of a dozen, picked on the same 400 data sets it is judged on, so the
count is an upper mark: with a Monte Carlo error of 1.1 points, one of twelve candidates
lands in band by chance alone more often than not. This script draws 400 fresh data sets
for each beaten cell (data sets 400 to 799 of the cell's stream; the grid's cells take the
grid's own stream there), forms every candidate and the default on them, and reports
whether the candidate that beat the default still does, and whether any candidate is in
band on the fresh data sets. Usage::

    python benchmarks/atlas_families_confirm.py            # about 30 minutes on 2 cores
    python benchmarks/atlas_families_fit.py                 # its table in atlas_families.md
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import atlas_families as af

HERE = Path(__file__).resolve().parent
DEFAULT_OUT = HERE / "atlas_families_confirm.jsonl.gz"
FIRST = 400  # the fresh data sets start where the families' records stop
SETS = 400


def run_fresh(cell: af.Cell, first: int = FIRST, sets: int = SETS) -> dict:
    """Data sets ``first`` to ``first + sets - 1`` of one cell: every candidate's outcome
    and the default's, and where each bootstrap-t candidate is one no default may give."""
    draw, truth, metric, _ = af._draw_and_truth(cell)
    cover: dict[str, list[str]] = {}
    unusable: dict[str, list[str]] = {}
    minority: list[int] = []
    t0 = time.perf_counter()
    for s in range(first, first + sets):
        rng, seed = af._dataset(cell, s)
        arrays, design = draw(rng)
        if cell.kind == "proportion":
            minority.append(af._minority(arrays[0]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = af.candidates(cell, arrays, design, metric, seed)
            auto = af._bootstrap(arrays, design, metric, seed, "auto")
        found["auto"] = (float(auto.low), float(auto.high))
        for name, (a, b) in found.items():
            cover.setdefault(name, []).append("1" if a <= truth <= b else "0")
        if cell.kind == "proportion":
            for name, (tr, _) in af.BOOTSTRAP_T.items():
                bad = af._unusable(*found[name], tr)
                unusable.setdefault(name, []).append("1" if bad else "0")
    return {
        "key": cell.key, "kind": cell.kind, "half": cell.half, "first": first, "sets": sets,
        "cover": {k: "".join(v) for k, v in cover.items()},
        "infinite_end": {k: "".join(v) for k, v in unusable.items()}, "minority": minority,
        "seconds": round(time.perf_counter() - t0, 1),
    }  # fmt: skip


def _fill_minority(path: Path) -> None:
    """Record, where a record lacks it, each fresh data set's rows in the rarer outcome
    (the data sets drawn again; no interval is formed)."""
    records = af.load(path)
    if all(r.get("minority") is not None or r["kind"] != "proportion" for r in records):
        return
    by_key = {c.key: c for c in af.cells()}
    for r in records:
        if r["kind"] == "proportion" and r.get("minority") is None:
            cell = by_key[r["key"]]
            draw = af._draw_and_truth(cell)[0]
            r["minority"] = [af._minority(draw(af._dataset(cell, s)[0])[0][0])
                             for s in range(r["first"], r["first"] + r["sets"])]  # fmt: skip
    with gzip.open(path, "wt", encoding="utf-8") as f:
        f.writelines(json.dumps(r) + "\n" for r in records)


def main(argv: list[str] | None = None) -> int:
    import atlas_families_fit as fit

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    beaten = {key for key, _ in fit.beaten_cells(af.load())}
    _fill_minority(args.out)
    done = {r["key"] for r in af.load(args.out)}
    todo = [c for c in af.cells() if c.key in beaten and c.key not in done]
    print(f"{len(todo)} beaten cells to run ({len(done)} done) -> {args.out}", flush=True)
    t0 = time.perf_counter()
    with ProcessPoolExecutor(args.workers) as pool:
        for i, rec in enumerate(pool.map(run_fresh, todo)):
            with gzip.open(args.out, "at", encoding="utf-8") as f:
                f.write(json.dumps(rec) + "\n")
            cov = 100 * rec["cover"]["auto"].count("1") / rec["sets"]
            print(f"[{i + 1}/{len(todo)} {time.perf_counter() - t0:.0f} s] {rec['key']}: "
                  f"default {cov:.1f} % ({rec['seconds']} s)", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
