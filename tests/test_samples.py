"""Several samples per question: nested resampling, pass@k and majority vote.

Closed forms and exhaustive enumeration on tiny problems, Miller's variance split on
simulated data with known components, invariances and reproducibility, bad inputs, and
coverage simulations with a known truth.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest

import booteval
from booteval.methods.pass_at_k import _majority_probability

RUN = {"n_resamples": 400, "seed": 0}


def nested_data(rng, m=60, k=5, sd_between=0.15, p0=0.6):
    """0/1 answers: question i has its own chance p_i; k samples each."""
    p_i = np.clip(rng.normal(p0, sd_between, m), 0.02, 0.98)
    scores = (rng.random((m, k)) < p_i[:, None]).astype(float)
    return scores.ravel(), np.repeat(np.arange(m), k), p_i


# ------------------------------------------------------------------ nested_ci
def test_items_resampling_is_ci_on_the_question_means():
    rng = np.random.default_rng(1)
    scores, items, _ = nested_data(rng, m=40, k=4)
    r = booteval.nested_ci(scores, items, method="percentile", **RUN)
    means = scores.reshape(40, 4).mean(axis=1)
    ref = booteval.ci(means, method="percentile", **RUN)
    assert r.estimate == pytest.approx(ref.estimate)
    assert np.array_equal(r.distribution, ref.distribution)
    assert (r.low, r.high) == (ref.low, ref.high)
    assert isinstance(r, booteval.CIResult) and r.resample == "items"


def test_the_estimate_counts_each_question_once():
    scores = [1, 1, 1, 1, 0, 1]  # q1 has 4 samples, q2 has 2
    items = ["q1"] * 4 + ["q2"] * 2
    r = booteval.nested_ci(scores, items, **RUN)
    assert r.estimate == pytest.approx((1.0 + 0.5) / 2)
    assert (r.min_samples, r.max_samples, r.n_items) == (2, 4, 2)


def test_variance_split_recovers_known_components():
    rng = np.random.default_rng(7)
    m, k, sd = 4000, 8, 0.2
    p_i = np.clip(rng.normal(0.5, sd, m), 0, 1)
    scores = (rng.random((m, k)) < p_i[:, None]).astype(float).ravel()
    r = booteval.nested_ci(scores, np.repeat(np.arange(m), k), n_resamples=100, seed=0)
    true_between = float(np.var(p_i))
    true_within = float(np.mean(p_i * (1 - p_i)))
    assert r.var_between == pytest.approx(true_between, rel=0.08)
    assert r.var_within == pytest.approx(true_within, rel=0.03)
    # Miller: Var(mean) = (between + within / K) / n
    miller = math.sqrt((r.var_between + r.var_within / k) / m)
    assert r.se_analytic == pytest.approx(miller, rel=0.01)


@pytest.mark.parametrize("resample", ["items", "samples", "both"])
def test_bootstrap_standard_error_matches_the_analytic_one(resample):
    rng = np.random.default_rng(3)
    scores, items, _ = nested_data(rng, m=200, k=6)
    r = booteval.nested_ci(scores, items, resample=resample, n_resamples=2000, seed=1)
    assert r.standard_error == pytest.approx(r.se_analytic, rel=0.08)


def test_resampling_levels_are_ordered():
    rng = np.random.default_rng(4)
    scores, items, _ = nested_data(rng, m=100, k=3)
    width = {
        rs: booteval.nested_ci(scores, items, resample=rs, n_resamples=2000, seed=2).width
        for rs in ("samples", "items", "both")
    }
    assert width["samples"] < width["items"] < width["both"]


def test_clusters_of_questions_widen_the_interval_and_are_counted():
    rng = np.random.default_rng(5)
    m, k = 120, 3
    topic = np.arange(m) // 12  # 10 topics
    p_i = np.clip(0.5 + 0.25 * rng.standard_normal(10)[topic], 0.05, 0.95)
    scores = (rng.random((m, k)) < p_i[:, None]).astype(float).ravel()
    items, clusters = np.repeat(np.arange(m), k), np.repeat(topic, k)
    plain = booteval.nested_ci(scores, items, n_resamples=2000, seed=0)
    clustered = booteval.nested_ci(scores, items, clusters=clusters, n_resamples=2000, seed=0)
    assert clustered.n_clusters == 10
    assert clustered.width > 1.5 * plain.width
    both = booteval.nested_ci(scores, items, clusters=clusters, resample="both", **RUN)
    assert both.n_clusters == 10


def test_relabelling_and_reordering_change_nothing():
    rng = np.random.default_rng(6)
    scores, items, _ = nested_data(rng, m=30, k=4)
    for resample in ("items", "samples", "both"):
        ref = booteval.nested_ci(scores, items, resample=resample, **RUN)
        # new ids in the same order; the rows of each question shuffled among themselves
        order = np.lexsort((rng.random(items.size), items))
        r = booteval.nested_ci(scores[order], items[order] * 10 + 3, resample=resample, **RUN)
        assert r.estimate == pytest.approx(ref.estimate)
        if resample == "items":
            assert np.array_equal(r.distribution, ref.distribution)
        # within-question draws follow the row order of a question: same distribution in law
        assert r.standard_error == pytest.approx(ref.standard_error, rel=0.25)


@pytest.mark.parametrize("resample", ["samples", "both"])
def test_same_seed_same_replicates_for_any_batch(resample):
    rng = np.random.default_rng(8)
    scores, items, _ = nested_data(rng, m=25, k=3)
    ref = booteval.nested_ci(scores, items, resample=resample, **RUN)
    for batch in (1, 7, 400):
        r = booteval.nested_ci(scores, items, resample=resample, batch=batch, **RUN)
        assert np.array_equal(r.distribution, ref.distribution)
    other = booteval.nested_ci(scores, items, resample=resample, n_resamples=400, seed=1)
    assert not np.array_equal(other.distribution, ref.distribution)


def test_nested_result_reports_and_serialises():
    import pickle

    rng = np.random.default_rng(9)
    scores, items, _ = nested_data(rng, m=20, k=3)
    r = booteval.nested_ci(scores, items, resample="both", **RUN)
    text = r.describe()
    assert "standard deviation between questions" in text and "resampled: both" in text
    d = r.to_dict()
    assert d["resample"] == "both" and d["n_items"] == 20 and "var_within" in d
    back = pickle.loads(pickle.dumps(r))
    assert back.estimate == r.estimate and back.var_between == r.var_between


@pytest.mark.parametrize(
    ("kwargs", "param"),
    [
        ({"scores": [1, 0], "items": [1]}, "items"),
        ({"scores": [1, 0, 1], "items": [1, 1, 2], "clusters": ["a", "b", "b"]}, "clusters"),
        ({"scores": [1, 0], "items": [1, 2], "resample": "rows"}, "resample"),
        (
            {"scores": [1, 0], "items": [1, 2], "method": "studentized", "resample": "both"},
            "method",
        ),
        ({"scores": [1, 0], "items": [{"a": 1}, {"b": 2}]}, "items"),
        ({"scores": ["x", "y"], "items": [1, 2]}, "scores"),
    ],
)
def test_bad_nested_inputs_name_the_parameter(kwargs, param):
    with pytest.raises(booteval.InvalidInputError) as info:
        booteval.nested_ci(**kwargs, **RUN)
    assert info.value.parameter == param


# ------------------------------------------------------------------ pass@k
def brute_pass_at_k(n, c, k):
    outcomes = [1] * c + [0] * (n - c)
    subsets = list(itertools.combinations(range(n), k))
    return Fraction(sum(any(outcomes[i] for i in s) for s in subsets), len(subsets))


SMALL = [(n, c, k) for n in range(1, 8) for c in range(n + 1) for k in range(1, n + 1)]


@pytest.mark.parametrize(("n", "c", "k"), SMALL)
def test_pass_at_k_equals_enumeration(n, c, k):
    got = booteval.methods.pass_at_k.pass_at_k_values(n, c, k)[0]
    assert got == pytest.approx(float(brute_pass_at_k(n, c, k)), abs=1e-12)


def test_pass_at_k_closed_forms_and_large_n():
    assert booteval.methods.pass_at_k.pass_at_k_values(200, 37, 1)[0] == pytest.approx(37 / 200)
    n, c, k = 200, 13, 50
    exact = 1 - Fraction(math.comb(n - c, k), math.comb(n, k))
    assert booteval.methods.pass_at_k.pass_at_k_values(n, c, k)[0] == pytest.approx(
        float(exact), rel=1e-12
    )
    assert booteval.methods.pass_at_k.pass_at_k_values([5, 5], [0, 5], 5).tolist() == [0.0, 1.0]


def test_pass_at_k_interval_is_ci_on_the_per_problem_values():
    rng = np.random.default_rng(10)
    m, n = 50, 10
    correct = (rng.random((m, n)) < rng.random(m)[:, None]).astype(int)
    problems = np.repeat([f"HumanEval/{i}" for i in range(m)], n)
    r = booteval.pass_at_k(correct.ravel(), problems, k=3, **RUN)
    per = booteval.methods.pass_at_k.pass_at_k_values(np.full(m, n), correct.sum(axis=1), 3)
    ref = booteval.ci(per, **RUN)
    assert r.metric == "pass@3"
    assert r.estimate == pytest.approx(per.mean())
    # the problems in another order: the same draws up to the order of summation
    assert np.allclose(r.distribution, ref.distribution, rtol=1e-12, atol=0)
    assert 0 <= r.low <= r.estimate <= r.high <= 1


def test_pass_at_k_refuses_bad_input():
    with pytest.raises(booteval.InvalidInputError, match="`k`"):
        booteval.pass_at_k([1, 0, 1], ["a", "a", "b"], k=2, **RUN)
    with pytest.raises(booteval.InvalidInputError, match="`correct`"):
        booteval.pass_at_k([1, 0.5], ["a", "b"], k=1, **RUN)
    with pytest.raises(booteval.InvalidInputError, match="`c`"):
        booteval.methods.pass_at_k.pass_at_k_values([3], [4], 1)


def test_compare_pass_at_k_pairs_problems_by_id():
    rng = np.random.default_rng(11)
    m = 40
    pa, pb = rng.random(m) * 0.6, rng.random(m) * 0.6 + 0.3
    a = (rng.random((m, 5)) < pa[:, None]).astype(int)
    b = (rng.random((m, 8)) < pb[:, None]).astype(int)  # B drew more samples
    ids_a = np.repeat(np.arange(m), 5)
    ids_b = np.repeat(np.arange(m), 8)
    shuffle = rng.permutation(ids_b.size)  # B's rows in another order
    r = booteval.compare_pass_at_k(a.ravel(), ids_a, b.ravel()[shuffle], ids_b[shuffle], k=2,
                                   **RUN)  # fmt: skip
    va = booteval.methods.pass_at_k.pass_at_k_values(np.full(m, 5), a.sum(axis=1), 2)
    vb = booteval.methods.pass_at_k.pass_at_k_values(np.full(m, 8), b.sum(axis=1), 2)
    ref = booteval.compare(va, vb, **RUN)
    assert r.estimate == pytest.approx(vb.mean() - va.mean())
    assert np.array_equal(r.distribution, ref.distribution)
    assert r.p_value == ref.p_value
    with pytest.raises(booteval.InvalidInputError, match="`items_b`"):
        booteval.compare_pass_at_k([1, 0], ["x", "y"], [1, 0], ["x", "z"], k=1, **RUN)


# ------------------------------------------------------------------ majority vote
def brute_majority(answers, target, k):
    total, win = 0, Fraction(0)
    for subset in itertools.combinations(range(len(answers)), k):
        counts = Counter(answers[i] for i in subset)
        top = max(counts.values())
        tied = [a for a, c in counts.items() if c == top]
        total += 1
        if target in tied:
            win += Fraction(1, len(tied))
    return win / total


@pytest.mark.parametrize(
    "answers",
    [list("aab"), list("abc"), list("aabbc"), list("abcabca"), list("aaaabbbcc"), list("bbbb"),
     list("abcdeab")],
)  # fmt: skip
def test_majority_probability_equals_enumeration(answers):
    uniq, counts = np.unique(answers, return_counts=True)
    for target in ("a", "z"):
        hit = np.flatnonzero(uniq == target)
        idx = int(hit[0]) if hit.size else -1
        for k in range(1, len(answers) + 1):
            got = _majority_probability(counts, idx, k)
            assert got == pytest.approx(float(brute_majority(answers, target, k)), abs=1e-12)


def test_majority_vote_at_k_end_to_end():
    answers = ["4", "4", "5", "7", "8", "8", "1", "2", "3"]
    targets = ["4"] * 3 + ["7"] * 3 + ["3"] * 3
    problems = ["a"] * 3 + ["b"] * 3 + ["c"] * 3
    r = booteval.majority_vote_at_k(answers, targets, problems, **RUN)
    # a: "4" wins; b: "8" wins; c: a three-way tie that "3" wins a third of the time
    assert r.estimate == pytest.approx((1 + 0 + 1 / 3) / 3)
    assert r.metric == "maj@n"
    r1 = booteval.majority_vote_at_k(answers, targets, problems, k=1, **RUN)
    assert r1.estimate == pytest.approx((2 / 3 + 1 / 3 + 1 / 3) / 3)
    with pytest.raises(booteval.InvalidInputError, match="`k`"):
        booteval.majority_vote_at_k(answers, targets, problems, k=4, **RUN)
    with pytest.raises(booteval.InvalidInputError, match="`targets`"):
        booteval.majority_vote_at_k(answers, ["4"] * 8 + ["9"], problems, **RUN)


# ------------------------------------------------------------------ coverage
def _coverage(hits: np.ndarray, nominal: float = 0.95) -> tuple[float, float]:
    rate = float(hits.mean())
    return rate, math.sqrt(nominal * (1 - nominal) / hits.size)


# The simulations below run each interval on one thread (``workers=1``): the replicates do
# not depend on the number of threads, and under pytest-xdist more threads only contend.
# Where the per-replicate work dominates (the two-level "samples" and "both" designs), B is
# 199 rather than 400: the percentile ends are then the 5th and 195th of 199 sorted
# replicates, whose expected levels are 5/200 and 195/200 (exactly 2.5 % and 97.5 %; with
# B = 400 the 10th and 390th, 10/401 and 390/401, hold 94.8 % between them), so the smaller
# B adds noise to each interval but no downward bias to the coverage. Measured on the
# "samples" simulation over 1000 data sets and five seeds: B = 399 0.938-0.952 (mean 0.946),
# B = 199 0.934-0.955 (mean 0.945), B = 200 0.932-0.947 (three seeds, 0.5 points below 400).


@pytest.mark.simulation
@pytest.mark.slow
def test_nested_items_interval_covers_the_population_mean():
    """Questions drawn from a population (true mean 0.6), 5 samples each: the items
    interval covers the population mean at the nominal rate; "both" covers at least."""
    rng = np.random.default_rng(2024)
    reps, m, k = 1000, 80, 5
    hits = {"items": [], "both": []}
    for _ in range(reps):
        p_i = rng.beta(3, 2, m)  # mean 0.6
        scores = (rng.random((m, k)) < p_i[:, None]).astype(float).ravel()
        items = np.repeat(np.arange(m), k)
        for resample in hits:
            if resample == "both" and len(hits["both"]) >= 300:
                continue  # the conservative one needs fewer to show it over-covers
            b = 400 if resample == "items" else 199  # "items" costs the same for any B
            r = booteval.nested_ci(scores, items, resample=resample, method="percentile",
                                   n_resamples=b, seed=int(rng.integers(2**31)),
                                   workers=1)  # fmt: skip
            hits[resample].append(r.low <= 0.6 <= r.high)
    rate, se = _coverage(np.array(hits["items"]))
    print(f"coverage (items) {rate:.3f} +- {se:.3f}")
    assert abs(rate - 0.95) < 3 * se, rate  # 400 resamples add a little error
    rate_both, se_both = _coverage(np.array(hits["both"]))
    print(f"coverage (both) {rate_both:.3f} +- {se_both:.3f}")
    assert rate_both >= 0.95 - 3 * se_both, rate_both


@pytest.mark.simulation
@pytest.mark.slow
def test_nested_samples_interval_covers_the_conditional_mean():
    """Questions fixed: the samples interval covers the mean of the questions' true
    chances (what re-sampling the model on the same questions would average to)."""
    rng = np.random.default_rng(7)
    m, k = 60, 8
    p_i = rng.beta(2, 2, m)
    truth = float(p_i.mean())
    hits = []
    for _ in range(1000):
        scores = (rng.random((m, k)) < p_i[:, None]).astype(float).ravel()
        r = booteval.nested_ci(scores, np.repeat(np.arange(m), k), resample="samples",
                               method="percentile", n_resamples=199,
                               seed=int(rng.integers(2**31)), workers=1)  # fmt: skip
        hits.append(r.low <= truth <= r.high)
    rate, se = _coverage(np.array(hits))
    print(f"coverage {rate:.3f} +- {se:.3f}")
    assert abs(rate - 0.95) < 3 * se, rate


@pytest.mark.simulation
@pytest.mark.slow
def test_pass_at_k_and_its_comparison_cover_the_truth():
    """Problems with known pass rates: pass@k's truth is E[1 - (1 - p)^k]; the paired
    comparison covers the true difference."""
    rng = np.random.default_rng(11)
    m, n, k = 100, 10, 3
    shape_a, shape_b = (2.0, 3.0), (3.0, 2.0)
    # the truths by numerical integration over the Beta populations of problems
    grid = rng.beta(*shape_a, 2_000_000)
    truth_a = float(np.mean(1 - (1 - grid) ** k))
    grid_b = rng.beta(*shape_b, 2_000_000)
    truth_b = float(np.mean(1 - (1 - grid_b) ** k))
    one, two = [], []
    for _ in range(1000):
        pa = rng.beta(*shape_a, m)
        pb = rng.beta(*shape_b, m)
        a = (rng.random((m, n)) < pa[:, None]).astype(int).ravel()
        b = (rng.random((m, n)) < pb[:, None]).astype(int).ravel()
        ids = np.repeat(np.arange(m), n)
        s = int(rng.integers(2**31))
        r = booteval.pass_at_k(a, ids, k=k, method="percentile", n_resamples=400, seed=s,
                               workers=1)  # fmt: skip
        one.append(r.low <= truth_a <= r.high)
        c = booteval.compare_pass_at_k(a, ids, b, ids, k=k, method="percentile",
                                       n_resamples=400, seed=s, workers=1)  # fmt: skip
        two.append(c.low <= truth_b - truth_a <= c.high)
    for hits in (one, two):
        rate, se = _coverage(np.array(hits))
        print(f"coverage {rate:.3f} +- {se:.3f}")
        assert abs(rate - 0.95) < 3 * se, rate


@pytest.mark.simulation
@pytest.mark.slow
def test_majority_vote_interval_covers_the_truth():
    """Three-answer problems of two kinds with known answer distributions: maj@3's truth
    is computed exactly from the distributions."""
    rng = np.random.default_rng(13)
    m, n, k = 80, 7, 3

    def maj_truth(q):  # P(target wins maj@3 with ties split), target = answer 0
        total = 0.0
        for draw in itertools.product(range(3), repeat=k):
            c = Counter(draw)
            top = max(c.values())
            tied = [a for a, v in c.items() if v == top]
            if 0 in tied:
                total += np.prod([q[d] for d in draw]) / len(tied)
        return total

    # problems of two kinds, half each: the truth is the mean over the two
    kinds = [np.array([0.6, 0.3, 0.1]), np.array([0.3, 0.4, 0.3])]
    hits = []
    for _ in range(1000):
        kind = rng.integers(0, 2, m)
        answers = np.stack([rng.choice(3, size=n, p=kinds[t]) for t in kind])
        ids = np.repeat(np.arange(m), n)
        r = booteval.majority_vote_at_k(answers.ravel(), np.zeros(m * n, int), ids, k=k,
                                        method="percentile", n_resamples=400,
                                        seed=int(rng.integers(2**31)))  # fmt: skip
        hits.append(r)
    # k of a problem's n iid samples drawn without replacement are k iid draws: the
    # estimator's expectation is the with-replacement probability, averaged over kinds
    truth = float(np.mean([maj_truth(q) for q in kinds]))
    cover = np.array([h.low <= truth <= h.high for h in hits])
    rate, se = _coverage(cover)
    print(f"coverage {rate:.3f} +- {se:.3f}")
    assert abs(rate - 0.95) < 3 * se, rate
    assert np.mean([h.estimate for h in hits]) == pytest.approx(truth, abs=0.005)


@pytest.mark.parametrize("resample", ["samples", "both"])
def test_the_two_level_weight_source_gives_the_same_replicates_for_any_batch(resample):
    rng = np.random.default_rng(31)
    items = np.repeat(np.arange(60), rng.integers(2, 6, 60))
    scores = rng.random(items.size)
    kw = dict(resample=resample, n_resamples=900, seed=8)
    ref = booteval.nested_ci(scores, items, batch=900, **kw)
    other = booteval.nested_ci(scores, items, batch=41, **kw)
    assert np.array_equal(ref.distribution, other.distribution)
    assert ref.low == other.low and ref.high == other.high


def test_the_advice_of_a_warning_can_be_followed_with_questions_resampled():
    """nested_ci's BCa warning on few questions points to method='auto' or 'studentized':
    with resample="items" (ci on the question means) both are taken, and give ci's
    interval on the means."""
    rng = np.random.default_rng(0)
    items = np.repeat(np.arange(12), 3)
    scores = (rng.random(36) < 0.6).astype(float)
    means = np.array([scores[items == i].mean() for i in range(12)])
    for method in ("auto", "studentized"):
        r = booteval.nested_ci(scores, items, seed=0, n_resamples=500, method=method)
        ref = booteval.ci(means, seed=0, n_resamples=500, method=method)
        assert (r.low, r.high, r.method) == (ref.low, ref.high, ref.method)
    with pytest.raises(booteval.InvalidInputError, match="'percentile', 'basic'"):
        booteval.nested_ci(scores, items, resample="both", method="studentized", n_resamples=100)


@pytest.mark.parametrize("resample", ["samples", "both"])
def test_auto_is_accepted_with_two_level_draws_and_says_what_it_chose(resample):
    """The advice "use method='auto'" must be followable everywhere: with two-level draws
    (no atlas cells) it is BCa, the same interval as naming BCa, and the notes say so."""
    rng = np.random.default_rng(0)
    scores, items = rng.integers(0, 2, 60), np.repeat(np.arange(20), 3)
    auto = booteval.nested_ci(scores, items, resample=resample, method="auto", seed=0,
                              n_resamples=500)  # fmt: skip
    bca = booteval.nested_ci(scores, items, resample=resample, method="bca", seed=0,
                             n_resamples=500)  # fmt: skip
    assert auto.method == "bca" and (auto.low, auto.high) == (bca.low, bca.high)
    assert "method='auto' chose 'bca'" in auto.notes[0]
