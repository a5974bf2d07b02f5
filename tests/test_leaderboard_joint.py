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
    assert main([*argv, "--joint"]) == 0
    text = capsys.readouterr().out
    assert "probability of being best" in text and "simultaneous intervals" in text
    assert main(argv) == 0
    assert "probability of being best" not in capsys.readouterr().out
