"""Simultaneous (max-T) intervals and the probability of being best, from a leaderboard."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import booteval


def _board(n=300, k=4, seed=0, gap=0.05, **kwargs):
    """k systems on n rows, system j right with chance 0.7 + gap * j; bootstrap seed 0."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    systems = {f"m{j}": np.where(rng.random(n) < 0.7 + gap * j, y, 1 - y) for j in range(k)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return booteval.leaderboard(systems, y_true=y, metric="accuracy", seed=0, **kwargs)


def test_two_systems_take_the_quantile_of_their_one_pair():
    board = _board(k=2, seed=1, n_resamples=2000)
    joint = board.simultaneous()
    reps = board.distribution
    (pair,) = board.pairs
    ia, ib = board.system_names.index(pair.name_a), board.system_names.index(pair.name_b)
    d = reps[:, ib] - reps[:, ia]
    d_hat = board.entry(pair.name_b).estimate - board.entry(pair.name_a).estimate
    se = d.std(ddof=1)
    t = np.sort(np.abs(d - d_hat) / se)
    c = t[math.ceil(0.95 * t.size) - 1]
    assert joint.critical_value == pytest.approx(c, rel=1e-12)
    (p,) = joint.pairs
    assert (p["low"], p["high"]) == pytest.approx((d_hat - c * se, d_hat + c * se))


def test_more_pairs_need_a_larger_critical_value_and_a_lower_level_a_smaller_one():
    board = _board(k=5, n_resamples=2000, seed=2)
    joint, two = board.simultaneous(), _board(k=2, n_resamples=2000, seed=2).simultaneous()
    assert len(joint.pairs) == 10 and joint.critical_value > two.critical_value
    assert board.simultaneous(0.8).critical_value < joint.critical_value
    assert "simultaneous intervals (bootstrap max-T over 10 pairs" in str(joint)
    with pytest.raises(booteval.InvalidInputError, match="`confidence_level`"):
        board.simultaneous(1.5)


@pytest.mark.simulation
def test_the_intervals_hold_all_together_at_the_stated_level():
    """Five systems of equal accuracy: all ten intervals cover 0 together in about 95 % of
    data sets (400 data sets: SE 1.1 points), where the pairwise intervals alone do not."""
    together = alone = 0
    sets = 400
    for s in range(sets):
        board = _board(n=200, k=5, seed=100 + s, gap=0.0, n_resamples=999)
        joint = board.simultaneous()
        together += all(p["low"] <= 0 <= p["high"] for p in joint.pairs)
        alone += all(p.low <= 0 <= p.high for p in board.pairs)
    assert 0.92 <= together / sets <= 0.98, together / sets
    assert alone / sets < together / sets - 0.05, (alone / sets, together / sets)


def test_probability_of_being_best():
    board = _board(k=4, gap=0.08, n_resamples=2000, seed=3)
    p = board.p_best
    assert list(p) == list(board.names) and sum(p.values()) == pytest.approx(1.0)
    assert p[board.names[0]] > 0.9
    # identical systems share every replicate's win equally
    same = booteval.leaderboard({"a": [1, 0, 1] * 20, "b": [1, 0, 1] * 20}, seed=0,
                                n_resamples=500)  # fmt: skip
    assert same.p_best == {"a": 0.5, "b": 0.5}
    # lower is better for a loss
    loss = booteval.leaderboard({"big": [0.9, 0.8] * 30, "small": [0.1, 0.2] * 30}, metric="mse",
                                y_true=[0.0, 0.0] * 30, seed=0, n_resamples=500)  # fmt: skip
    assert loss.p_best["small"] == 1.0


def test_the_command_line_prints_the_same_joint_figures(tmp_path, capsys):
    import json

    from booteval.cli import main

    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 200)
    systems = {k: np.where(rng.random(200) < p, y, 1 - y) for k, p in (("a", 0.7), ("b", 0.8))}
    path = tmp_path / "runs.csv"
    lines = [f"{u},{v}" for u, v in zip(systems["a"], systems["b"], strict=True)]
    path.write_text("a,b\n" + "\n".join(lines) + "\n")
    board = booteval.leaderboard(systems, seed=0, n_resamples=1000)
    argv = ["leaderboard", str(path), "--score", "a", "--score", "b", "-B", "1000", "--seed", "0"]
    assert main([*argv, "--joint", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["p_best"] == pytest.approx(board.p_best)
    assert out["simultaneous"]["critical_value"] == board.simultaneous().critical_value
    assert out["expected_rank"] == pytest.approx(board.expected_rank)
    assert out["simultaneous"]["tied_with_leader"] == list(board.tied_with_leader())
    assert out["simultaneous"]["leader"] == board.names[0]
    assert main([*argv, "--joint"]) == 0
    text = capsys.readouterr().out
    assert "probability of being best" in text and "simultaneous intervals" in text
    assert "E[rank]" in text and board.simultaneous().tied_line in text
    assert main(argv) == 0
    assert "probability of being best" not in capsys.readouterr().out
    # --plot: each system's interval and rank interval; --plot-pairs: the heatmap
    pytest.importorskip("matplotlib")
    figs = (tmp_path / "board.png", tmp_path / "pairs.png")
    assert main([*argv, "-q", "--plot", str(figs[0]), "--plot-pairs", str(figs[1])]) == 0
    capsys.readouterr()
    assert all(f.stat().st_size > 1000 for f in figs)
    assert main([*argv, "--plot-pairs", str(tmp_path / "pairs.txt")]) == 2
    assert "--plot-pairs" in capsys.readouterr().err


# ----------------------------------------------------------------- against direct loops
def _direct_max_t(board, level):
    """The max-T critical value and intervals with plain loops over pairs and replicates."""
    reps = np.asarray(board.distribution)
    col = {n: j for j, n in enumerate(board.system_names)}
    est = {e.name: e.estimate for e in board.entries}
    b = reps.shape[0]
    worst = np.zeros(b)
    rows = []
    for p in board.pairs:
        d = reps[:, col[p.name_b]] - reps[:, col[p.name_a]]
        d_hat = est[p.name_b] - est[p.name_a]
        se = d.std(ddof=1)
        rows.append((p.name_a, p.name_b, d_hat, se))
        for r in range(b):
            worst[r] = max(worst[r], abs(d[r] - d_hat) / se)
    c = np.sort(worst)[math.ceil(level * b) - 1]
    return c, [(a, bb, d - c * s, d + c * s) for a, bb, d, s in rows]


def _direct_ranks(board):
    """Each replicate's competition ranks (1 = best, ties share the smallest), by loops."""
    reps = np.asarray(board.distribution)
    sign = 1.0 if board.greater_is_better else -1.0
    ranks = np.zeros(reps.shape, dtype=int)
    for r in range(reps.shape[0]):
        for j in range(reps.shape[1]):
            ranks[r, j] = 1 + sum(
                sign * reps[r, i] > sign * reps[r, j] for i in range(reps.shape[1])
            )
    return ranks


def test_max_t_tied_set_p_best_and_expected_rank_equal_a_direct_computation():
    """Six systems, some close: the critical value, every simultaneous interval, the set tied
    with the leader, P(best) and the expected ranks from loops over the stored replicates."""
    board = _board(n=400, k=6, gap=0.03, seed=5, n_resamples=1500)
    for level in (0.95, 0.8):
        joint = board.simultaneous(level)
        c, rows = _direct_max_t(board, level)
        assert joint.critical_value == pytest.approx(c, rel=1e-12)
        for p, (a, b, low, high) in zip(joint.pairs, rows, strict=True):
            assert (p["name_a"], p["name_b"]) == (a, b)
            assert (p["low"], p["high"]) == pytest.approx((low, high), rel=1e-12, abs=1e-15)
        leader = board.names[0]
        tied = [leader] + [
            (a if b == leader else b) for a, b, low, high in rows
            if leader in (a, b) and low <= 0 <= high
        ]  # fmt: skip
        expected = tuple(n for n in board.names if n in tied)
        assert joint.tied_with_leader == expected == board.tied_with_leader(level)
        if level == 0.95:
            assert 1 < len(expected) < 6  # a set worth checking: some tied, some not
            assert f"tied with the leader {leader}" in joint.to_text()
    # P(best): each replicate's winners share it equally
    reps = np.asarray(board.distribution)
    share = np.zeros(reps.shape[1])
    for row in reps:
        best = np.flatnonzero(row == row.max())
        share[best] += 1.0 / len(best)
    share /= reps.shape[0]
    col = {n: j for j, n in enumerate(board.system_names)}
    assert board.p_best == pytest.approx({n: share[col[n]] for n in board.names}, abs=1e-12)
    # the expected rank: the mean of each replicate's min ranks
    ranks = _direct_ranks(board)
    np.testing.assert_array_equal(board.rank_distribution, ranks)
    mean = ranks.mean(axis=0)
    assert board.expected_rank == {n: pytest.approx(mean[col[n]], abs=1e-12) for n in board.names}
    assert list(board.expected_rank) == list(board.names)
    records = board.records
    assert [r["expected_rank"] for r in records] == list(board.expected_rank.values())
    assert board.to_dict()["systems"][0]["expected_rank"] == records[0]["expected_rank"]


def test_expected_rank_follows_the_rank_convention_for_a_loss_and_ties():
    # identical systems share the minimum rank in every replicate; lower is better for mse
    same = booteval.leaderboard({"a": [1, 0, 1] * 20, "b": [1, 0, 1] * 20, "c": [0, 0, 1] * 20},
                                seed=0, n_resamples=400)  # fmt: skip
    assert same.expected_rank["a"] == same.expected_rank["b"] == 1.0
    assert same.expected_rank["c"] == 3.0
    loss = booteval.leaderboard({"big": [0.9, 0.8] * 30, "small": [0.1, 0.2] * 30}, metric="mse",
                                y_true=[0.0, 0.0] * 30, seed=0, n_resamples=300)  # fmt: skip
    assert loss.expected_rank == {"small": 1.0, "big": 2.0}


def test_the_tied_set_is_the_leader_alone_when_everything_is_separated():
    board = _board(n=600, k=3, gap=0.1, seed=6, n_resamples=1000)
    joint = board.simultaneous()
    assert joint.tied_with_leader == (board.names[0],)
    assert joint.leader == board.names[0] and joint.names == board.names
    assert "contains 0): 0 systems" in joint.to_text()


def test_the_text_with_joint_shows_p_best_expected_rank_and_the_tied_set():
    board = _board(n=400, k=4, gap=0.03, seed=5, n_resamples=1000)
    text = board.to_text(scale=100, digits=1, joint=True)
    head, *rows = text.split("\n\n")[0].splitlines()
    assert head.split()[-2:] == ["P(best)", "E[rank]"]
    for row, e in zip(rows, board.entries, strict=True):
        assert row.split()[-2:] == [f"{board.p_best[e.name]:.3f}", f"{e.expected_rank:.2f}"]
    assert board.simultaneous().tied_line in text
    assert "E[rank]: mean rank across resamples" in text
    assert "P(best)" not in board.to_text() and "E[rank]" in board.to_markdown(joint=True)
