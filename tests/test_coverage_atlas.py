"""The coverage atlas's machinery (``benchmarks/coverage_atlas.py``): seeds, resumption,
truths, rendering and interruption, on grids small enough to run in seconds."""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from scipy.special import expit, logit

import booteval

PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "coverage_atlas.py"


def _load() -> ModuleType:
    """The benchmark module, loaded from its path (benchmarks/ is not a package)."""
    name = "booteval_coverage_atlas"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, PATH)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod  # dataclasses look their module up while being created
    spec.loader.exec_module(mod)
    return mod


atlas = _load()

IID = atlas.Cell("accuracy_p0.9", 20, "iid")
CLUSTERED = atlas.Cell("accuracy_p0.9", 50, "clustered-5")
TINY = {"reps": 40, "resamples": 199, "truth_rows": 100_000}


def _quiet(_: str) -> None:
    pass


def _run(out: Path, cells: list[Any], **kw: Any) -> dict[str, int]:
    return atlas.run_atlas(out, cells, **{**TINY, **kw}, log=_quiet)


def _cell_lines(path: Path) -> list[dict[str, Any]]:
    """The cell records of a file, without their wall times (which vary)."""
    out = []
    for text in path.read_text().splitlines():
        rec = json.loads(text)
        if rec["record"] == "cell":
            out.append({k: v for k, v in rec.items() if not k.startswith("wall_s")})
    return out


def _by_cell(lines: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Any]]:
    return {(r["cell"], r["method"]): r for r in lines}


# ------------------------------------------------------------------------------- seeds
def test_cell_seeds_are_stable_and_distinct() -> None:
    # a SHA-256 of the name, pinned: the same in every process and Python version
    assert atlas.cell_seed("accuracy_p0.9/n=20/iid") == 3610802412716144985
    assert atlas.cell_seed(IID.name) == atlas.cell_seed(IID.name, atlas.ROOT_SEED)
    assert atlas.cell_seed(IID.name, 1) != atlas.cell_seed(IID.name, 2)
    grid = atlas.build_grid()
    seeds = {atlas.cell_seed(c.name) for c in grid}
    assert len(seeds) == len(grid) == len({c.name for c in grid})
    assert all(0 <= s < 2**63 for s in seeds)


def test_grid_rules() -> None:
    grid = atlas.build_grid()
    assert len(grid) == 304
    for c in grid:
        if c.n_clusters is not None:
            assert c.n_clusters < c.n / 2
        if c.design == "stratified":
            assert atlas.METRICS[c.metric].has_classes
    assert [c.design for c in atlas.build_grid(["accuracy_p0.5"], [20])] == [
        "iid",
        "stratified",
        "clustered-5",
    ]
    assert atlas.methods_for(IID) == (
        "auto",  # booteval.ci's default, run as such where its choice depends on the data
        *atlas.BOOT_METHODS,
        "studentized-logit",
        "calibrated",  # the double bootstrap: means and proportions
        "wilson",
        "jeffreys",
        "clopper-pearson",
    )
    assert atlas.methods_for(CLUSTERED)[-4:] == ("clustered-wilson", "cr2", "cr1", "wild-cluster")
    assert atlas.methods_for(atlas.Cell("roc_auc", 50, "iid"))[-1] == "delong"
    assert atlas.methods_for(atlas.Cell("kendall", 50, "iid"))[-1] == "fisher-z"
    # F1's default runs as such: a bootstrap-t that comes out unbounded gives way to BCa
    assert atlas.methods_for(atlas.Cell("f1", 50, "stratified")) == ("auto", *atlas.BOOT_METHODS)
    names = [c.name for c in atlas.select(grid, ["accuracy"])]
    assert names and all(n.startswith("accuracy_p") for n in names)
    assert {c.name for c in atlas.select(grid, ["*/n=20/clustered-5"])} >= {
        "accuracy_p0.9/n=20/clustered-5"
    }


@pytest.mark.long
def test_results_do_not_depend_on_the_order_of_cells(tmp_path: Path) -> None:
    _run(tmp_path / "a.jsonl", [IID, CLUSTERED])
    _run(tmp_path / "b.jsonl", [CLUSTERED, IID])
    a, b = _cell_lines(tmp_path / "a.jsonl"), _cell_lines(tmp_path / "b.jsonl")
    assert _by_cell(a) == _by_cell(b)
    assert len(a) == len(atlas.methods_for(IID)) + len(atlas.methods_for(CLUSTERED))


@pytest.mark.long
def test_a_tiny_grid_run_twice_gives_identical_lines(tmp_path: Path) -> None:
    _run(tmp_path / "a.jsonl", [IID, CLUSTERED])
    _run(tmp_path / "b.jsonl", [IID, CLUSTERED])
    a, b = _cell_lines(tmp_path / "a.jsonl"), _cell_lines(tmp_path / "b.jsonl")
    assert a == b  # same order too (one process)
    rec = _by_cell(a)[(IID.name, "wilson")]
    assert rec["n_datasets"] == 40 and rec["resamples"] == 199
    assert rec["seed"] == atlas.cell_seed(IID.name)
    for r in a:
        assert 0 <= r["coverage"] <= 1
        shares = r["coverage"] + r["miss_below"] + r["miss_above"]
        assert math.isclose(shares + r["n_failed"] / r["n_datasets"], 1.0)
        assert r["reference_method"] in atlas.methods_for(
            atlas.Cell(r["metric"], r["n"], r["design"])
        )


@pytest.mark.long
def test_workers_give_the_same_lines(tmp_path: Path) -> None:
    _run(tmp_path / "a.jsonl", [IID, CLUSTERED])
    _run(tmp_path / "b.jsonl", [IID, CLUSTERED], workers=2)
    assert _by_cell(_cell_lines(tmp_path / "a.jsonl")) == _by_cell(
        _cell_lines(tmp_path / "b.jsonl")
    )


# ------------------------------------------------------------------------------ resume
def test_resume_skips_finished_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "atlas.jsonl"
    _run(out, [IID])
    first = _cell_lines(out)
    calls: list[str] = []
    real = atlas.run_cell

    def counting(cell: Any, *a: Any, **k: Any) -> Any:
        calls.append(cell.name)
        return real(cell, *a, **k)

    def no_truth(*a: Any, **k: Any) -> Any:
        raise AssertionError("a cached truth was computed again")

    monkeypatch.setattr(atlas, "run_cell", counting)
    summary = _run(out, [IID, CLUSTERED])
    assert calls == [CLUSTERED.name]
    assert summary == {"ran": 1, "already_done": 1, "skipped": 0}
    assert _cell_lines(out)[: len(first)] == first
    monkeypatch.setattr(atlas, "compute_truth", no_truth)
    assert _run(out, [IID, CLUSTERED])["ran"] == 0
    assert calls == [CLUSTERED.name]
    with pytest.raises(SystemExit, match="other settings"):
        atlas.run_atlas(out, [IID], reps=41, resamples=199, truth_rows=100_000, log=_quiet)
    # --redo runs a finished cell again; the same seed gives the same figures
    before = len(_cell_lines(out))
    redone = _run(out, [IID], redo=True)
    assert redone == {"ran": 1, "already_done": 0, "skipped": 0} and calls[-1] == IID.name
    again = _cell_lines(out)[before:]
    assert again and [r["coverage"] for r in again] == [
        r["coverage"] for r in first if r["cell"] == IID.name
    ]


def test_a_new_column_runs_alone_on_the_data_sets_of_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    full, part = tmp_path / "full.jsonl", tmp_path / "part.jsonl"
    _run(full, [IID])
    before = [m for m in atlas.methods_for(IID) if m != "calibrated"]
    _run(part, [IID], methods=before)
    assert atlas.load(part).missing(IID) == ("calibrated",)
    calls: list[Any] = []
    real = atlas.run_cell

    def counting(cell: Any, *a: Any, **k: Any) -> Any:
        calls.append(k.get("methods"))
        return real(cell, *a, **k)

    monkeypatch.setattr(atlas, "run_cell", counting)
    assert _run(part, [IID])["ran"] == 1 and calls == [("calibrated",)]
    assert atlas.load(part).done(IID)
    assert _run(part, [IID])["ran"] == 0

    def strip(lines: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
        return {
            k: {f: v for f, v in r.items() if f != "n_methods"} for k, r in _by_cell(lines).items()
        }

    # the same figures as one run of every method, the reference chosen among all of them
    assert strip(_cell_lines(full)) == strip(_cell_lines(part))
    assert _by_cell(_cell_lines(part))[(IID.name, "calibrated")]["inner_resamples"] == 200


def test_ctrl_c_leaves_only_complete_cells(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "atlas.jsonl"
    real = atlas.dataset_intervals
    seen: list[int] = []

    def interrupted(spec: Any, cell: Any, *a: Any, **k: Any) -> Any:
        if cell == CLUSTERED:
            seen.append(1)
            if len(seen) == 7:  # in the middle of the second cell
                raise KeyboardInterrupt
        return real(spec, cell, *a, **k)

    monkeypatch.setattr(atlas, "dataset_intervals", interrupted)
    argv = ["--out", str(out), "--reps", "40", "--resamples", "199", "--truth-rows", "100000"]
    argv += ["--only", IID.name, CLUSTERED.name]
    assert atlas.main(argv) == 130
    done = atlas.load(out)
    assert done.header is not None and atlas.truth_key(CLUSTERED) in done.truths
    assert done.done(IID) and not done.done(CLUSTERED)
    assert {cell for cell, _ in done.lines} == {IID.name}
    assert out.read_text().endswith("\n")
    before = _cell_lines(out)
    monkeypatch.setattr(atlas, "dataset_intervals", real)
    assert atlas.main(argv) == 0
    after = _cell_lines(out)
    assert after[: len(before)] == before and atlas.load(out).done(CLUSTERED)


def test_a_torn_last_line_is_cut_off(tmp_path: Path) -> None:
    out = tmp_path / "atlas.jsonl"
    _run(out, [IID])
    good = out.read_text()
    out.write_text(good + '{"record": "cell", "cell": "x", "meth')
    assert atlas.load(out).done(IID)
    assert out.read_text() == good


# ------------------------------------------------------------------------------ truths
@pytest.mark.parametrize("p", [0.5, 0.9, 0.99])
def test_accuracy_truth_is_p_exactly(p: float) -> None:
    spec = atlas.METRICS[f"accuracy_p{p:g}"]
    truth = atlas.compute_truth(spec, None)
    assert truth == {"value": p, "mc_se": 0.0, "how": "exact"}
    rows = spec.rows(np.random.default_rng(0), np.zeros(200_000))
    assert abs(rows.scores.mean() - p) < 5 * math.sqrt(p * (1 - p) / 200_000)
    assert spec.estimate(rows) == rows.scores.mean()


@pytest.mark.slow
def test_clustered_truth_agrees_with_independent_computations() -> None:
    """accuracy_p0.9 with clusters of mean size 20: the Monte Carlo truth (2e6 rows from
    the size-biased population of rows) against (a) Gauss-Hermite quadrature over the
    rows' effect distribution and (b) the row mean of 100,000 simulated clusters."""
    spec = atlas.METRICS["accuracy_p0.9"]
    k = 20.0
    truth = atlas.compute_truth(spec, k, rows=2_000_000, seed=atlas.cell_seed("test-truth"))
    assert truth["how"].startswith("monte-carlo") and 0 < truth["mc_se"] < 1e-3

    def row_mean(u: np.ndarray) -> np.ndarray:
        return expit(logit(0.9) + u)

    quad = float(atlas.row_expectation(row_mean, k))
    assert abs(truth["value"] - quad) < 3 * truth["mc_se"]
    # (b): whole clusters drawn as a data set draws them; a ratio of sums
    rng = np.random.default_rng(1)
    g = 100_000
    labels, u = atlas.cluster_layout(rng, int(k * g), g)
    sums = np.bincount(labels, weights=row_mean(u), minlength=g)
    sizes = np.bincount(labels, minlength=g).astype(float)
    ratio = sums.sum() / sizes.sum()
    se = np.std(sums - ratio * sizes, ddof=1) * math.sqrt(g) / sizes.sum()
    assert abs(ratio - quad) < 3 * se
    # the estimand is the row mean, not the mean of cluster means (which differs here)
    assert abs(np.mean(sums / sizes) - ratio) > 10 * se


def test_exact_truths_match_large_samples() -> None:
    rng = np.random.default_rng(2)
    for name in ("f1", "macro_f1", "roc_auc", "pearson", "paired_accuracy_diff"):
        spec = atlas.METRICS[name]
        value = atlas.compute_truth(spec, None)["value"]
        rows = spec.rows(rng, np.zeros(400_000))
        assert abs(spec.estimate(rows) - value) < 0.005, name
    lognormal = atlas.METRICS["lognormal_mean"]
    mc = atlas.compute_truth(lognormal, 20.0, rows=10)  # closed form, no sample
    assert mc["how"] == "exact"
    x = lognormal.rows(rng, atlas.population_effects(rng, 1_000_000, 20.0)).arrays[0]
    assert abs(x.mean() - mc["value"]) < 4 * x.std() / 1000.0


def test_completeness_names_what_is_left() -> None:
    grid = atlas.build_grid()
    done = [c for c in grid if not (c.metric == "kendall" and c.n >= 1000)]
    by_metric: dict[str, list[dict[str, Any]]] = {}
    for c in done:
        by_metric.setdefault(c.metric, []).append({"cell": c.name})
    text = atlas._completeness(by_metric)
    assert f"{len(done)} of the grid's {len(grid)} cells" in text
    assert "cells of kendall at n = 1,000, 10,000 still to run" in text
    by_metric.pop("bleu")
    assert "bleu not run yet" in atlas._completeness(by_metric)
    everything = {c.metric: [{"cell": x.name} for x in grid] for c in grid}
    assert atlas._completeness(everything).startswith("The file holds every cell")


def test_stratified_design_draws_fixed_class_shares() -> None:
    """The stratified design is a stratified sample (the classes in the population's
    shares, what resampling within classes assumes); iid draws each row's class, from
    the same random stream as before the stratified design had its own draw."""
    for shares, n in (((0.7, 0.3), 20), ((0.5, 0.3, 0.2), 50), ((0.7, 0.3), 10_000)):
        y = atlas._classes(np.random.default_rng(5), n, shares, True)
        assert np.bincount(y, minlength=len(shares)).tolist() == [round(n * s) for s in shares]
    assert np.bincount(atlas._classes(np.random.default_rng(5), 7, (0.5, 0.5), True)).sum() == 7
    y = atlas._classes(np.random.default_rng(6), 1000, (0.7, 0.3), False)
    assert np.array_equal(y, np.random.default_rng(6).random(1000) < 0.3)
    y = atlas._classes(np.random.default_rng(6), 1000, (0.5, 0.3, 0.2), False)
    assert np.array_equal(y, np.random.default_rng(6).choice(3, size=1000, p=[0.5, 0.3, 0.2]))
    spec = atlas.METRICS["macro_f1"]
    cell = atlas.Cell("macro_f1", 50, "stratified")
    for j in range(3):
        rows, _, _ = atlas.draw_dataset(spec, cell, atlas.dataset_seeds(1, j)[0])
        assert np.bincount(rows.strata).tolist() == [25, 15, 10]
    rows, _, _ = atlas.draw_dataset(
        spec, atlas.Cell("macro_f1", 50, "iid"), np.random.default_rng(9)
    )
    assert rows.strata.size == 50


def test_bleu_statistics_are_sacrebleus() -> None:
    """The BLEU cells draw sacrebleu's sentence statistics directly; they equal what
    booteval's BLEU extracts from the same data set as text, and so does the interval."""
    pytest.importorskip("sacrebleu")
    spec = atlas.METRICS["bleu"]
    for seed, n, sigma in ((1, 20, 0.0), (2, 300, 1.0)):
        u = sigma * np.random.default_rng(seed + 10).standard_normal(n)
        refs, hyps = spec.texts(np.random.default_rng(seed), u)
        stats = spec.rows(np.random.default_rng(seed), u).arrays[0]
        bleu = booteval.get_metric("bleu")
        assert np.array_equal(bleu.statistics(bleu.validate(refs, hyps)), stats)
        assert spec.estimate(atlas.Rows((stats,))) == pytest.approx(bleu(refs, hyps), abs=1e-12)
    kw = {"method": "studentized", "n_resamples": 199, "seed": 3}
    text = booteval.ci(refs, hyps, metric="bleu", **kw)
    direct = booteval.ci(stats, metric=spec.target, **kw)
    assert (direct.low, direct.high) == pytest.approx((text.low, text.high), abs=1e-10)


# ------------------------------------------------------------------------ the intervals
@pytest.mark.filterwarnings("ignore::booteval.DegenerateIntervalWarning")
def test_shared_run_gives_the_intervals_of_separate_runs() -> None:
    spec = atlas.METRICS["paired_accuracy_diff"]
    rows = spec.rows(np.random.default_rng(3), np.zeros(60))
    methods = ("percentile", "basic", "normal", "bca")
    got, _ = atlas.dataset_intervals(
        spec, atlas.Cell(spec.name, 60, "iid"), rows, None, 7, methods, resamples=199, n_inner=5
    )
    for m in methods:
        r = booteval.compare(*rows.arrays, metric="accuracy", method=m, n_resamples=199, seed=7)
        assert got[m] == (r.low, r.high), m
    spec = atlas.METRICS["accuracy_p0.9"]
    rows = spec.rows(np.random.default_rng(4), np.zeros(30))
    got, secs = atlas.dataset_intervals(
        spec, IID, rows, None, 7, atlas.methods_for(IID), resamples=199, n_inner=5
    )
    for m in methods:
        r = booteval.ci(*rows.arrays, metric="accuracy", method=m, n_resamples=199, seed=7)
        assert got[m] == (r.low, r.high), m
    assert set(secs) == set(atlas.methods_for(IID))
    w = booteval.closed_forms.wilson_interval(int(rows.scores.sum()), 30)
    assert got["wilson"] == (w.low, w.high)


def test_reference_method_rule() -> None:
    def rec(method: str, c: float, w: float) -> dict[str, Any]:
        return {"method": method, "coverage": c, "median_width": w, "n_datasets": 2000}

    # 2 SE at nominal is 0.0097: 0.941 qualifies, 0.94 does not
    rows = [rec("a", 0.94, 1.0), rec("b", 0.941, 1.1), rec("c", 0.962, 1.3)]
    assert atlas.reference_method(rows) == "b"
    rows = [rec("a", 0.955, 1.0), rec("b", 0.945, 0.9)]
    assert atlas.reference_method(rows) == "b"  # equally close: the narrower
    assert atlas.reference_method([rec("a", 0.80, 1.0), rec("b", 0.85, 2.0)]) == "b"
    # an interval spanning 90 % of the metric's range is never the reference
    rows = [rec("a", 0.951, 0.95), rec("b", 0.93, 0.4)]
    assert atlas.reference_method(rows) == "a"  # no metric: no range known
    rows = [{**r, "metric": "roc_auc"} for r in rows]
    assert atlas.vacuous(rows[0]) and not atlas.vacuous(rows[1])
    assert atlas.reference_method(rows) == "b"
    assert atlas.reference_method(rows[:1]) == "a"  # unless all are


# ------------------------------------------------------------------------------ render
def _hand_written(path: Path) -> None:
    header = {"record": "header", "confidence_level": 0.95, "band": 0.015, "reps": 2000}
    header |= {"resamples": 999, "n_inner": 50, "root_seed": 1, "truths": {}, "versions": {}}
    header["skipped"] = {"bleu": "sacrebleu is not importable"}
    recs = [header]
    for n, design, method, c, failed in [
        (20, "iid", "percentile", 0.90, 0),
        (20, "iid", "bca", 0.948, 0),
        (20, "iid", "wilson", 0.951, 3),
        (200, "clustered-10", "percentile", 0.93, 0),
        (200, "iid", "percentile", 0.9495, 0),
    ]:
        recs.append(
            {
                "record": "cell", "cell": f"accuracy_p0.9/n={n}/{design}",
                "metric": "accuracy_p0.9", "n": n, "design": design, "method": method,
                "status": "ok", "coverage": c, "coverage_se": math.sqrt(c * (1 - c) / 2000),
                "miss_below": 0.0, "miss_above": 1 - c, "n_failed": failed,
                "median_width": 0.2, "rel_width": 1.0, "reference_method": method,
                "n_datasets": 2000, "truth": 0.9,
            }
        )  # fmt: skip
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))


def test_render_writes_a_table_per_metric(tmp_path: Path) -> None:
    src = tmp_path / "atlas.jsonl"
    _hand_written(src)
    md, png = tmp_path / "docs" / "coverage.md", tmp_path / "docs" / "img" / "atlas.png"
    text = atlas.render(src, md, png, log=_quiet)
    assert md.read_text() == text
    assert "## Accuracy (p = 0.9)" in text
    assert "| n | design | truth | percentile | bca | wilson |" in text
    # Wilson's coverage here is exact (a binomial sum), not the file's simulated figure
    assert "| 20 | iid | 0.9 | 90.0 ±0.7 | **94.8 ±0.5** | **95.7 exact** |" in text
    assert "| 200 | clustered-10 | 0.9 | 93.0 ±0.6 |  |  |" in text
    assert text.index("| 200 | iid |") < text.index("| 200 | clustered-10 |")
    assert "bleu (sacrebleu is not importable)" in text
    assert "closest to nominal" in text  # the reference rule is stated
    assert "![Coverage against n" in text and "(img/atlas.png)" in text
    if importlib.util.find_spec("matplotlib") is not None:
        assert png.stat().st_size > 1000


def test_derived_auto_reads_the_chosen_column_and_the_summary_counts() -> None:
    base = {"n": 50, "design": "iid", "n_clusters": None, "coverage_se": 0.005, "metric": "f1"}
    row = {
        m: {**base, "method": m, "coverage": c} for m, c in (("percentile", 0.946), ("bca", 0.974))
    }
    d = atlas.derived_auto("f1", row)
    assert d is not None
    assert (d["method"], d["derived_from"], d["coverage"]) == ("auto", "percentile", 0.946)
    assert atlas.derived_auto("accuracy_p0.9", row) is None  # proportions run it themselves
    assert atlas.derived_auto("paired_accuracy_diff", row) is None  # not ci's
    small = {m: {**r, "n": 20} for m, r in row.items()}
    assert atlas.derived_auto("f1", small)["derived_from"] == "bca"  # n < 50
    text = "\n".join(atlas._auto_summary({"f1": [*row.values(), d]}, 0.95, 0.015))
    assert "in band 1;" in text and "worse calibrated than BCa 0" in text
    assert "| f1 | 50 | iid | **94.6 ±0.5**‡ | percentile | 97.4 ±0.5 |" in text
    assert text.rstrip().endswith("| in band | better |")


@pytest.mark.parametrize(("n", "p"), [(20, 0.9), (50, 0.5), (200, 0.99)])
def test_exact_coverage_is_the_binomial_sum_over_ci_itself(n: int, p: float) -> None:
    from scipy import stats

    expected = {"auto": 0.0, "wilson": 0.0}
    for k in range(n + 1):
        for method in expected:
            if method == "auto":  # ci's default on the data themselves
                r = booteval.ci(np.r_[np.ones(k), np.zeros(n - k)], n_resamples=99, seed=0)
            else:
                r = booteval.closed_forms.wilson_interval(k, n)
            expected[method] += stats.binom.pmf(k, n, p) * (r.low <= p <= r.high)
    for method, cov in expected.items():
        assert atlas.exact_coverage(method, n, p) == pytest.approx(cov, abs=1e-12)
    assert atlas.exact_coverage("auto", n, p) == atlas.exact_coverage("jeffreys", n, p)
    assert atlas.exact_coverage("bca", n, p) is None


@pytest.mark.parametrize(("n", "p"), [(20, 0.9), (50, 0.5), (200, 0.99), (37, 0.2)])
def test_attainable_coverage_is_the_smallest_range_probability_at_or_above_nominal(
    n: int, p: float
) -> None:
    from scipy import stats

    pmf = stats.binom.pmf(np.arange(n + 1), n, p)
    sums = [pmf[a : b + 1].sum() for a in range(n + 1) for b in range(a, n + 1)]
    brute = min(x for x in sums if x >= 0.95 - 1e-12)
    assert atlas.attainable_coverage(n, p) == pytest.approx(brute, abs=1e-12)
    # no interval method lands between: the closed forms sit at it or under 95 %
    for method in ("wilson", "jeffreys", "clopper-pearson"):
        cov = atlas.exact_coverage(method, n, p)
        assert cov < 0.95 or cov >= atlas.attainable_coverage(n, p) - 1e-12


def test_the_default_at_the_discrete_limit_is_not_counted_outside() -> None:
    base = {"n": 200, "design": "iid", "coverage_se": 0.0, "exact": True}
    cell = [
        {**base, "method": "auto", "coverage": atlas.attainable_coverage(200, 0.99)},
        {**base, "method": "wilson", "coverage": 0.948},
        {**base, "method": "bca", "coverage": 0.868, "coverage_se": 0.008, "exact": False},
    ]
    text = "\n".join(atlas._auto_summary({"accuracy_p0.99": cell}, 0.95, 0.015))
    assert "at the discrete limit 1; outside the band where some method is in it 0" in text
    assert text.rstrip().endswith("| wilson 94.8 | discrete | better |")


def test_exact_coverage_replaces_only_binomial_forms_of_independent_accuracy_cells() -> None:
    base = {"n": 50, "n_datasets": 2000, "confidence_level": 0.95, "coverage_se": 0.005}
    recs = [
        {**base, "metric": "accuracy_p0.5", "design": "iid", "method": "jeffreys",
         "coverage": 0.93},
        {**base, "metric": "accuracy_p0.5", "design": "stratified", "method": "auto",
         "coverage": 0.932},
        {**base, "metric": "accuracy_p0.5", "design": "iid", "method": "bca", "coverage": 0.965},
        {**base, "metric": "accuracy_p0.5", "design": "clustered-5", "method": "cr2",
         "coverage": 0.94},
        {**base, "metric": "lognormal_mean", "design": "iid", "method": "wilson",
         "coverage": 0.9},
    ]  # fmt: skip
    atlas.with_exact_coverage(recs)
    assert [r.get("exact", False) for r in recs] == [True, True, False, False, False]
    assert recs[0]["coverage"] == pytest.approx(0.9351, abs=1e-4)  # the lattice dip at 0.5
    assert recs[0]["coverage_sim"] == 0.93 and recs[0]["coverage_se"] == 0.0
    assert recs[1]["coverage"] == recs[0]["coverage"]
    assert recs[2]["coverage"] == 0.965
