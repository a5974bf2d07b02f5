"""booteval.leaderboard: shared-weight intervals, pairwise tests, ranks, groups, errors."""

from __future__ import annotations

import dataclasses
import itertools
import json
import math

import numpy as np
import pytest
from scipy.special import ndtri

import booteval
from booteval import BootevalWarning, InvalidInputError
from booteval.inference.leaderboard import leaderboard
from booteval.inference.multiple import _letter_groups, adjust_p_values


def _continuous(k=4, n=300, seed=1):
    """Per-row scores with a shared row effect (correlated systems), no repeated values."""
    rng = np.random.default_rng(seed)
    base = rng.normal(size=n)
    return {f"s{i}": base + rng.normal(size=n) + 0.15 * i for i in range(k)}


def _correlated_binary(p_true, n, rng, rho=0.5):
    """0/1 correctness with marginal accuracies ``p_true`` and a shared per-row difficulty."""
    k = len(p_true)
    z = math.sqrt(rho) * rng.standard_normal((n, 1)) + math.sqrt(1 - rho) * rng.standard_normal(
        (n, k)
    )
    return (z < ndtri(np.asarray(p_true))).astype(int)


# ---------------------------------------------------------------- agreement with ci / compare
@pytest.mark.parametrize("method", ["bca", "percentile", "basic", "normal"])
def test_each_system_equals_ci_and_each_pair_equals_compare_on_the_same_weights(method):
    # continuous scores are never compressed: the leaderboard draws exactly the
    # weights that ci() and compare() draw with the same seed
    sc = _continuous()
    b = 2000
    board = leaderboard(sc, n_resamples=b, seed=3, method=method)
    for name, x in sc.items():
        alone = booteval.ci(x, n_resamples=b, seed=3, method=method)
        e = board.entry(name)
        assert (e.estimate, e.low, e.high) == (alone.estimate, alone.low, alone.high)
        np.testing.assert_array_equal(
            board.distribution[:, board.system_names.index(name)], alone.distribution
        )
    assert len(board.pairs) == 6
    for p in board.pairs:
        c = booteval.compare(sc[p.name_a], sc[p.name_b], n_resamples=b, seed=3, method=method)
        assert (p.difference, p.low, p.high) == (c.difference, c.low, c.high)
        assert p.standard_error == pytest.approx(c.standard_error, rel=1e-12)
        d = c.distribution
        if method != "bca" or (np.any(d <= 0) and np.any(d >= 0)):
            assert p.p_value == c.p_value
        else:  # BCa, no replicate crosses 0: the resolution floor (see bootstrap_p_value)
            assert p.p_value == pytest.approx(2 / (b + 1))
            assert p.p_value <= c.p_value
        # the other orientation, recomputed from the stored replicates
        q = board.pair(p.name_b, p.name_a)
        c2 = booteval.compare(sc[p.name_b], sc[p.name_a], n_resamples=b, seed=3, method=method)
        assert (q.difference, q.low, q.high) == (c2.difference, c2.low, c2.high)
        assert (q.p_adjusted, q.separated) == (p.p_adjusted, p.separated)


def test_clustered_binary_systems_equal_ci_and_compare_exactly():
    # cluster designs are never compressed either
    rng = np.random.default_rng(4)
    x = _correlated_binary([0.55, 0.6, 0.7], 600, rng)
    clusters = np.repeat(np.arange(60), 10)
    sc = {"a": x[:, 0], "b": x[:, 1], "c": x[:, 2]}
    board = leaderboard(sc, clusters=clusters, n_resamples=2000, seed=5, method="bca")
    assert board.n_clusters == 60 and "60 clusters" in board.design
    for name, v in sc.items():
        alone = booteval.ci(v, clusters=clusters, method="bca", n_resamples=2000, seed=5)
        assert (board.entry(name).low, board.entry(name).high) == (alone.low, alone.high)
    for p in board.pairs:
        c = booteval.compare(
            sc[p.name_a], sc[p.name_b], clusters=clusters, n_resamples=2000, seed=5,
            method="bca",
        )  # fmt: skip
        assert (p.low, p.high) == (c.low, c.high)


def test_binary_iid_joint_compression_agrees_with_ci_within_monte_carlo_error():
    # 0/1 scores: ci() resamples the 2 cells of one system, the leaderboard the
    # joint cells of all systems. Different weights, same bootstrap distribution.
    rng = np.random.default_rng(6)
    x = _correlated_binary([0.6, 0.65, 0.7], 2000, rng)
    sc = {f"s{i}": x[:, i] for i in range(3)}
    b = 4000
    board = leaderboard(sc, n_resamples=b, seed=7, method="percentile")
    for j, (name, v) in enumerate(sc.items()):
        alone = booteval.ci(v, n_resamples=b, seed=7, method="percentile")
        e = board.entry(name)
        assert not np.array_equal(board.distribution[:, j], alone.distribution)
        assert e.estimate == alone.estimate
        tol = 4 * max(e.mcse_low, e.mcse_high, alone.mcse_low, alone.mcse_high) + 1.5 / 2000
        assert abs(e.low - alone.low) <= tol
        assert abs(e.high - alone.high) <= tol
        assert e.standard_error == pytest.approx(alone.standard_error, rel=0.08)


def test_labels_and_predictions_with_y_true_and_a_loss_metric_ranks_lowest_first():
    rng = np.random.default_rng(8)
    y = rng.normal(size=400)
    preds = {"noisy": y + rng.normal(scale=1.0, size=400)}
    preds["good"] = y + rng.normal(scale=0.3, size=400)
    preds["mid"] = y + rng.normal(scale=0.6, size=400)
    board = leaderboard(preds, y_true=y, metric="mae", n_resamples=1000, seed=0)
    assert board.greater_is_better is False
    assert board.names == ("good", "mid", "noisy")
    assert [e.rank for e in board.entries] == [1, 2, 3]
    assert board.entry("good").estimate == pytest.approx(np.mean(np.abs(preds["good"] - y)))
    # B - A with B the higher-ranked (lower-error) system: negative for a loss
    top_pair = board.pairs[0]
    assert (top_pair.name_b, top_pair.name_a) == ("good", "mid")
    assert top_pair.difference < 0


def test_accuracy_with_y_true():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 3, 500)
    preds = {k: np.where(rng.random(500) < p, y, rng.integers(0, 3, 500)) for k, p in
             (("a", 0.5), ("b", 0.8), ("c", 0.9))}  # fmt: skip
    board = leaderboard(preds, y_true=y, metric="accuracy", n_resamples=1000, seed=0)
    for k, v in preds.items():
        assert board.entry(k).estimate == pytest.approx(np.mean(v == y))
    assert board.names[0] == "c" and board.metric == "accuracy"


# ---------------------------------------------------------------- multiple comparisons
def test_holm_bonferroni_bh_equal_hand_computations():
    p = [0.01, 0.04, 0.03, 0.005, 0.20]
    # sorted: 0.005, 0.01, 0.03, 0.04, 0.20 (m = 5)
    # Holm: 5*.005=.025, 4*.01=.04, 3*.03=.09, max(.09, 2*.04=.08)=.09, max(.09, .2)=.2
    np.testing.assert_allclose(adjust_p_values(p, "holm"), [0.04, 0.09, 0.09, 0.025, 0.20])
    np.testing.assert_allclose(adjust_p_values(p), adjust_p_values(p, "holm"))
    np.testing.assert_allclose(adjust_p_values(p, "bonferroni"), [0.05, 0.2, 0.15, 0.025, 1.0])
    # BH: m p / i = .025, .025, .05, .05, .2; running minimum from the largest down
    np.testing.assert_allclose(adjust_p_values(p, "fdr_bh"), [0.025, 0.05, 0.05, 0.025, 0.2])
    np.testing.assert_allclose(adjust_p_values(p, "none"), p)


def test_adjustments_are_monotone_and_capped_at_one():
    # Holm without the running maximum would give [1.0, 0.6]: not monotone
    np.testing.assert_allclose(adjust_p_values([0.5, 0.6], "holm"), [1.0, 1.0])
    # BH without the running minimum would give [1.0, 0.6]
    np.testing.assert_allclose(adjust_p_values([0.5, 0.6], "fdr_bh"), [0.6, 0.6])
    np.testing.assert_allclose(adjust_p_values([0.3, 0.9], "bonferroni"), [0.6, 1.0])
    rng = np.random.default_rng(0)
    for _ in range(50):
        raw = rng.random(rng.integers(1, 12)) ** 3
        order = np.argsort(raw)
        for corr in ("holm", "bonferroni", "fdr_bh"):
            adj = adjust_p_values(raw, corr)
            assert np.all(adj >= raw - 1e-15) and np.all(adj <= 1.0)
            assert np.all(np.diff(adj[order]) >= -1e-15)
    assert adjust_p_values([], "holm").size == 0


def test_adjust_p_values_rejects_bad_input():
    with pytest.raises(InvalidInputError, match=r"correction.*'holm'.*'fdr_bh'"):
        adjust_p_values([0.1], "hochberg")
    with pytest.raises(InvalidInputError, match="p_values"):
        adjust_p_values([0.1, 1.5])
    with pytest.raises(InvalidInputError, match="p_values"):
        adjust_p_values([0.1, np.nan])


def test_correction_is_applied_to_the_family_of_pairs():
    sc = _continuous(k=4, n=200, seed=2)
    boards = {c: leaderboard(sc, n_resamples=1000, seed=1, correction=c) for c in
              ("holm", "bonferroni", "fdr_bh", "none")}  # fmt: skip
    raw = [p.p_value for p in boards["none"].pairs]
    for c, board in boards.items():
        assert board.correction == c
        assert [p.p_value for p in board.pairs] == raw
        np.testing.assert_allclose([p.p_adjusted for p in board.pairs], adjust_p_values(raw, c))
        for p in board.pairs:
            assert p.separated == (p.p_adjusted < 0.05)


def test_bca_p_value_is_the_floor_when_no_replicate_crosses_zero():
    rng = np.random.default_rng(3)
    base = rng.normal(size=300)
    sc = {"low": base, "high": base + 1.0 + 0.1 * rng.normal(size=300)}
    board = leaderboard(sc, n_resamples=999, seed=0)
    (p,) = board.pairs
    assert p.p_value == pytest.approx(2 / 1000)
    assert p.separated


def test_too_few_resamples_for_the_number_of_pairs_warns():
    sc = _continuous(k=7, n=100)  # 21 pairs: 21 * 2 / 501 > 0.05
    with pytest.warns(BootevalWarning, match="no pair can be separated"):
        board = leaderboard(sc, n_resamples=500, seed=0)
    assert any("no pair can be separated" in n for n in board.notes)
    assert not any(p.separated for p in board.pairs)


# ---------------------------------------------------------------- ranks and groups
def test_rank_intervals_are_percentiles_of_replicate_ranks_with_min_ties():
    sc = _continuous(k=5, n=150, seed=11)
    board = leaderboard(sc, n_resamples=1000, seed=2, confidence_level=0.9)
    ranks = board.rank_distribution
    d = board.distribution
    # min rank, computed directly: 1 + number of systems strictly better
    direct = 1 + (d[:, None, :] > d[:, :, None]).sum(axis=2)
    np.testing.assert_array_equal(ranks, direct)
    for j, name in enumerate(board.system_names):
        srt = np.sort(ranks[:, j])
        e = board.entry(name)
        assert e.rank_low == srt[math.ceil(0.05 * 1000) - 1]
        assert e.rank_high == srt[math.ceil(0.95 * 1000) - 1]
        assert e.rank_low <= e.rank <= e.rank_high or e.rank_low <= e.rank_high


def test_identical_systems_tie_with_the_minimum_rank():
    x = _continuous(k=1, n=100)["s0"]
    with pytest.warns(booteval.DegenerateIntervalWarning, match="pair a - b: all 500"):
        board = leaderboard({"a": x, "b": x.copy(), "c": x - 1.0}, n_resamples=500, seed=0)
    assert any(n.startswith("pair a - b: all 500 bootstrap replicates") for n in board.notes)
    assert board.rank_ties == "min"
    assert [(e.name, e.rank, e.rank_low, e.rank_high) for e in board.entries] == [
        ("a", 1, 1, 1), ("b", 1, 1, 1), ("c", 3, 3, 3),
    ]  # fmt: skip
    (ab,) = [p for p in board.pairs if {p.name_a, p.name_b} == {"a", "b"}]
    assert ab.difference == 0 and not ab.separated and ab.p_value == 1.0
    assert board.top_group == ("a", "b")
    assert board.letters == {"a": "a", "b": "a", "c": "b"}


def test_letter_groups_hand_cases():
    # 0-1-2-3 with neighbours not separated: a chain of overlapping letters
    assert _letter_groups(4, {(0, 2), (0, 3), (1, 3)}) == [[0, 1], [1, 2], [2, 3]]
    # only 0 and 1 separated: 2 shares a letter with both
    assert _letter_groups(3, {(0, 1)}) == [[0, 2], [1, 2]]
    assert _letter_groups(3, set()) == [[0, 1, 2]]
    assert _letter_groups(3, {(0, 1), (0, 2), (1, 2)}) == [[0], [1], [2]]


def test_letter_groups_share_a_letter_iff_not_separated():
    rng = np.random.default_rng(5)
    for _ in range(200):
        k = int(rng.integers(2, 8))
        pairs = list(itertools.combinations(range(k), 2))
        sep = {pq for pq in pairs if rng.random() < 0.5}
        groups = _letter_groups(k, sep)
        assert all(any(i in g for g in groups) for i in range(k))
        for i, j in pairs:
            share = any(i in g and j in g for g in groups)
            assert share == ((i, j) not in sep)


def test_top_group_and_letters_follow_the_separations():
    rng = np.random.default_rng(12)
    x = _correlated_binary([0.70, 0.69, 0.55, 0.54, 0.40], 1500, rng)
    sc = dict(zip("ABCDE", x.T, strict=True))
    board = leaderboard(sc, n_resamples=2000, seed=0)
    assert set(board.names[:2]) == {"A", "B"} and set(board.names[2:4]) == {"C", "D"}
    lead = board.names[0]
    for name in board.names[1:]:
        sep = board.pair(name, lead).separated
        assert board.entry(name).in_top_group == (not sep)
    assert set(board.top_group) == {"A", "B"}
    lt = board.letters
    for a, b in itertools.combinations(board.names, 2):
        share = bool(set(lt[a]) & set(lt[b]))
        assert share == (not board.pair(a, b).separated)
    assert lt[lead].startswith("a")


# ---------------------------------------------------------------- result object
def test_result_is_frozen_plain_data_and_renders():
    sc = _continuous(k=3, n=120)
    board = leaderboard(sc, n_resamples=1000, seed=4)
    with pytest.raises(dataclasses.FrozenInstanceError):
        board.seed = 1  # type: ignore[misc]
    with pytest.raises(ValueError):
        board.distribution[0, 0] = 1.0
    d = board.to_dict()
    json.dumps(d)  # plain data only
    assert d["method"] == "auto" and d["correction"] == "holm" and d["n_resamples"] == 1000
    assert d["seed"] == 4 and d["design"] == "paired iid bootstrap (120 rows), numba engine"
    assert [r["name"] for r in board.records] == list(board.names)
    assert len(board.pair_records) == 3 and set(board.pair_records[0]) >= {
        "name_a", "name_b", "difference", "low", "high", "p_value", "p_adjusted", "separated",
    }  # fmt: skip
    text = str(board)
    assert text == board.to_text()
    lines = text.splitlines()
    assert lines[0].startswith("rank  system")
    col = lines[0].index("mean (95% CI)")
    for line, e in zip(lines[1:4], board.entries, strict=True):
        assert line[col:].startswith(f"{e.estimate:.4f} ({e.low:.4f}, {e.high:.4f})")
    assert "B = 1000, seed = 4" in text and "holm-adjusted" in text
    md = board.to_markdown(scale=100, digits=1, pairs="all")
    assert md.splitlines()[1].startswith("| ---: |")
    assert md.count("\n| s") == 3 and "| pair (B - A) |" in md
    assert len(board.to_text(pairs="adjacent").split("\n\n")[1].splitlines()) == 1 + 2
    with pytest.raises(InvalidInputError, match="pairs"):
        board.to_text(pairs="some")
    assert "LeaderboardResult(" in repr(board)
    with pytest.raises(InvalidInputError, match="`name`"):
        board.entry("nope")
    with pytest.raises(InvalidInputError, match="`name`"):
        board.pair("s0", "nope")
    with pytest.raises(InvalidInputError, match="`b`"):
        board.pair("s0", "s0")
    assert [(p.name_b, p.name_a) for p in board.adjacent] == list(itertools.pairwise(board.names))


def test_same_seed_same_result_for_any_batch_or_workers():
    sc = _continuous(k=3, n=200)
    a = leaderboard(sc, n_resamples=1500, seed=9)
    b = leaderboard(sc, n_resamples=1500, seed=9, batch=7, workers=1)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert a.records == b.records and a.pair_records == b.pair_records


# ---------------------------------------------------------------- long tables
def test_long_dataframe_equals_the_mapping():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(13)
    x = _correlated_binary([0.5, 0.6, 0.62], 300, rng)
    src = np.repeat(np.arange(30), 10)
    names = ["m1", "m2", "m3"]
    long = pd.DataFrame(
        {
            "model": np.repeat(names, 300),
            "qid": np.tile(np.arange(300), 3),
            "correct": x.T.reshape(-1),
            "src": np.tile(src, 3),
        }
    ).sample(frac=1.0, random_state=0)
    a = leaderboard(
        long, system_col="model", row_col="qid", output_col="correct", clusters="src",
        n_resamples=1000, seed=1,
    )  # fmt: skip
    b = leaderboard(dict(zip(names, x.T, strict=True)), clusters=src, n_resamples=1000, seed=1)
    assert a.system_names == b.system_names or set(a.system_names) == set(names)
    assert a.records == b.records and a.n_clusters == 30
    wide = leaderboard(pd.DataFrame(x, columns=names), clusters=src, n_resamples=1000, seed=1)
    assert wide.records == b.records


def test_long_dataframe_with_labels():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(14)
    y = rng.integers(0, 2, 200)
    preds = {"p": np.where(rng.random(200) < 0.7, y, 1 - y), "q": y.copy()}
    long = pd.DataFrame(
        [{"sys": s, "row": i, "pred": v[i], "gold": y[i]} for s, v in preds.items()
         for i in range(200)]
    )  # fmt: skip
    # q is right on every row: method="auto" gives it ci's Jeffreys interval, which has width
    board = leaderboard(
        long, system_col="sys", row_col="row", output_col="pred", label_col="gold",
        metric="accuracy", n_resamples=500, seed=0,
    )  # fmt: skip
    assert board.names == ("q", "p") and board.entry("q").estimate == 1.0
    assert board.system_methods[0] == "jeffreys" and board.entry("q").low < 0.99
    with pytest.warns(booteval.DegenerateIntervalWarning, match="system q"):
        leaderboard(
            long, system_col="sys", row_col="row", output_col="pred", label_col="gold",
            metric="accuracy", n_resamples=500, seed=0, method="bca",
        )  # fmt: skip
    bad = long.copy()
    bad.loc[0, "gold"] = 1 - bad.loc[0, "gold"]
    with pytest.raises(InvalidInputError, match=r"label_col.*one value per 'row'"):
        leaderboard(bad, system_col="sys", row_col="row", output_col="pred",
                    label_col="gold", metric="accuracy", n_resamples=500, seed=0)  # fmt: skip


def test_long_dataframe_errors():
    pd = pytest.importorskip("pandas")
    long = pd.DataFrame({"m": ["a", "a", "b"], "r": [0, 1, 0], "s": [1.0, 0.0, 1.0]})
    with pytest.raises(InvalidInputError, match=r"outputs of system b.*1 missing"):
        leaderboard(long, system_col="m", row_col="r", output_col="s", n_resamples=100)
    dup = pd.concat([long, long.iloc[:1]])
    with pytest.raises(InvalidInputError, match="duplicate"):
        leaderboard(dup, system_col="m", row_col="r", output_col="s", n_resamples=100)
    with pytest.raises(InvalidInputError, match="output_col"):
        leaderboard(long, system_col="m", row_col="r", output_col="score", n_resamples=100)
    with pytest.raises(InvalidInputError, match="y_true"):
        leaderboard(long, y_true=[0, 1], system_col="m", row_col="r", output_col="s")


# ---------------------------------------------------------------- errors
def test_errors_name_the_parameter():
    x = np.arange(10.0)
    with pytest.raises(InvalidInputError, match=r"`systems`.*at least two systems.*1 system"):
        leaderboard({"only": x})
    with pytest.raises(InvalidInputError, match="`systems`: expected a mapping"):
        leaderboard([x, x])
    with pytest.raises(InvalidInputError, match=r"`scores of system b`.*\(10\).*9 rows"):
        leaderboard({"a": x, "b": x[:-1]})
    with pytest.raises(
        InvalidInputError, match=r"`correction`.*'holm', 'bonferroni', 'fdr_bh', 'none'"
    ):
        leaderboard({"a": x, "b": x}, correction="tukey")
    with pytest.raises(InvalidInputError, match=r"`method`.*'studentized-symmetric'"):
        leaderboard({"a": x, "b": x}, method="bcaa")
    with pytest.raises(InvalidInputError, match=r"`y_true`.*labels for metric 'accuracy'"):
        leaderboard({"a": x, "b": x}, metric="accuracy")
    with pytest.raises(InvalidInputError, match=r"`y_true`.*None for metric 'mean'"):
        leaderboard({"a": x, "b": x}, y_true=x, metric="mean")
    with pytest.raises(InvalidInputError, match="`metric`"):
        leaderboard({"a": x, "b": x}, y_true=x)
    y = np.array([0.0, 1.0, 2.0, 3.0, 4.0, 5.0])
    with pytest.raises(InvalidInputError, match=r"`y of system flat`.*'pearson' is defined"):
        leaderboard({"ok": y + 0.5, "flat": np.ones(6)}, y_true=y, metric="pearson")


# ---------------------------------------------------------------- simulations
@pytest.mark.simulation
@pytest.mark.slow
def test_rank_intervals_cover_the_true_ranks():
    # true accuracies: a close group (0.60 .. 0.63) and two far leaders; true rank =
    # 1 + number of systems with a strictly larger true accuracy
    p_true = np.array([0.60, 0.61, 0.62, 0.63, 0.70, 0.80])
    true_rank = 1 + (p_true[None, :] > p_true[:, None]).sum(axis=1)
    reps, n = 250, 1000
    rng = np.random.default_rng(2024)
    covered = np.zeros(p_true.size)
    exact_far = 0
    for r in range(reps):
        x = _correlated_binary(p_true, n, rng)
        board = leaderboard({f"s{i}": x[:, i] for i in range(p_true.size)},
                            n_resamples=1000, seed=r)  # fmt: skip
        for i in range(p_true.size):
            e = board.entry(f"s{i}")
            covered[i] += e.rank_low <= true_rank[i] <= e.rank_high
        exact_far += board.entry("s5").rank_low == board.entry("s5").rank_high == 1
    coverage = covered / reps
    margin = 3 * math.sqrt(0.95 * 0.05 / reps)
    assert np.all(coverage >= 0.95 - margin), coverage
    assert coverage.mean() >= 0.95
    # not trivially wide: the far leader is ranked exactly first almost always
    assert exact_far / reps >= 0.95


@pytest.mark.simulation
@pytest.mark.slow
def test_holm_keeps_the_familywise_error_rate_under_the_global_null():
    k, n, reps = 5, 500, 400
    rng = np.random.default_rng(77)
    any_holm = any_raw = any_bh = 0
    for r in range(reps):
        x = _correlated_binary([0.7] * k, n, rng, rho=0.3)
        board = leaderboard({f"s{i}": x[:, i] for i in range(k)}, n_resamples=1000, seed=r)
        raw = np.array([p.p_value for p in board.pairs])
        any_holm += any(p.separated for p in board.pairs)
        any_raw += bool((raw < 0.05).any())
        any_bh += bool((adjust_p_values(raw, "fdr_bh") < 0.05).any())
    margin = 3 * math.sqrt(0.05 * 0.95 / reps)
    assert any_holm / reps <= 0.05 + margin
    # under the global null the FDR is the FWER, so BH controls it too
    assert any_bh / reps <= 0.05 + margin
    # ten unadjusted tests reject somewhere far more often
    assert any_raw / reps >= 0.15


# ---------------------------------------------------------------- real data
@pytest.mark.slow
def test_mmlu_pro_clustering_by_source_separates_fewer_pairs():
    pytest.importorskip("pandas")
    df = booteval.datasets.mmlu_pro()
    models = list(df.columns[4:])
    assert len(models) == 20 and len(df) == 12032
    rows = leaderboard(df[models], seed=0)
    by_src = leaderboard(df[models], clusters=df["src"], seed=0)
    assert by_src.n_clusters == 91
    assert rows.names[0] == by_src.names[0] == "Meta-Llama-3-70B"
    assert [e.estimate for e in rows.entries] == [e.estimate for e in by_src.entries]
    sep_rows = sum(p.separated for p in rows.adjacent)
    sep_src = sum(p.separated for p in by_src.adjacent)
    assert sep_src < sep_rows
    width = {b: sum(e.rank_high - e.rank_low for e in b.entries) for b in (rows, by_src)}
    assert width[by_src] > width[rows]
    for e_rows, e_src in zip(rows.entries, by_src.entries, strict=True):
        assert e_src.high - e_src.low > 3 * (e_rows.high - e_rows.low)
