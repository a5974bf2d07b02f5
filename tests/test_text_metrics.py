"""Corpus BLEU and chrF: equal to sacrebleu on the data, on resamples and left-one-out."""

from __future__ import annotations

import doctest
import sys

import numpy as np
import pytest

import booteval
from booteval import InvalidInputError
from booteval.metrics import get_metric
from booteval.metrics import text as text_module
from booteval.metrics.base import SumEvaluator
from booteval.metrics.text import (
    BLEU,
    CHRF,
    _reference_streams,
    _segment_statistics,
    bleu_from_stats,
)

sacrebleu = pytest.importorskip("sacrebleu")

VOCAB = np.array(
    "the a cat dog sat ran on in park mat house big small red blue quickly slowly "
    "and but with from to of is was . , ! ? Hello World".split()
)


def corpus(n: int, seed: int = 0, n_refs: int = 1) -> tuple[list, list[str]]:
    """Random references and noisy hypotheses, with short and empty rows mixed in."""
    rng = np.random.default_rng(seed)
    refs, hyps = [], []
    for i in range(n):
        k = int(rng.integers(1, 16))
        words = list(rng.choice(VOCAB, k))
        ref_set = [" ".join(words)]
        for _ in range(n_refs - 1):
            alt = [w if rng.random() < 0.7 else str(rng.choice(VOCAB)) for w in words]
            ref_set.append(" ".join(alt))
        hyp = [w if rng.random() < 0.6 else str(rng.choice(VOCAB)) for w in words]
        if rng.random() < 0.2:
            hyp = hyp[: max(0, len(hyp) - 3)]
        if i % 17 == 0:
            hyp = []
        refs.append(ref_set[0] if n_refs == 1 else ref_set)
        hyps.append(" ".join(hyp))
    return refs, hyps


def streams(refs: list) -> list[list]:
    """booteval's per-row references as sacrebleu's reference streams."""
    rows = [(r,) if isinstance(r, str) else tuple(r) for r in refs]
    k = max(len(r) for r in rows)
    return [[r[j] if j < len(r) else None for r in rows] for j in range(k)]


BLEU_PARAMS = [
    {},
    {"smooth_method": "none"},
    {"smooth_method": "floor"},
    {"smooth_method": "floor", "smooth_value": 0.3},
    {"smooth_method": "add-k"},
    {"lowercase": True, "tokenize": "intl"},
    {"tokenize": "char"},
    {"effective_order": True},
    {"max_ngram_order": 2},
]
CHRF_PARAMS = [
    {},
    {"word_order": 2},
    {"beta": 3, "lowercase": True},
    {"whitespace": True},
    {"eps_smoothing": True, "word_order": 1},
]
CASES = [("bleu", p) for p in BLEU_PARAMS] + [("chrf", p) for p in CHRF_PARAMS]
IDS = [f"{name}-{'-'.join(f'{k}={v}' for k, v in p.items()) or 'default'}" for name, p in CASES]


def reference(name: str, params: dict, hyps: list[str], refs: list) -> float:
    """sacrebleu's corpus score of ``hyps`` against per-row ``refs``."""
    scorer = sacrebleu.BLEU(**params) if name == "bleu" else sacrebleu.CHRF(**params)
    return float(scorer.corpus_score(list(hyps), streams(refs)).score)


def resample(x: list, counts: np.ndarray) -> list:
    return [v for v, c in zip(x, counts, strict=True) for _ in range(int(c))]


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
@pytest.mark.parametrize("n_refs", [1, 3])
def test_estimate_equals_sacrebleu(name, params, n_refs):
    refs, hyps = corpus(150, seed=1, n_refs=n_refs)
    got = get_metric(name, **params)(refs, hyps)
    assert got == pytest.approx(reference(name, params, hyps, refs), abs=1e-9)


@pytest.mark.parametrize(("name", "params"), CASES, ids=IDS)
def test_iid_replicates_equal_sacrebleu_on_resampled_corpus(name, params):
    refs, hyps = corpus(60, seed=2, n_refs=2)
    m = get_metric(name, **params)
    design = booteval.core.design.make_design(len(hyps))
    ev = m.bind(m.validate(refs, hyps), design)
    w = design.unit_weights(seed=3, start=0, stop=8)
    # add resamples where nothing matches or all hypotheses are short
    empty = np.zeros(len(hyps))
    empty[0] = 5  # row 0 has an empty hypothesis
    short = np.zeros(len(hyps))
    short[[i for i, h in enumerate(hyps) if 0 < len(h.split()) < 4][:3]] = 2
    w = np.vstack([w, empty, short])
    got = ev.replicates(w)
    for b in range(w.shape[0]):
        want = reference(name, params, resample(hyps, w[b]), resample(refs, w[b]))
        assert got[b] == pytest.approx(want, abs=1e-9), b


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_cluster_replicates_equal_sacrebleu_on_resampled_corpus(name):
    refs, hyps = corpus(80, seed=4)
    clusters = np.arange(80) // 5  # e.g. sentences of the same document
    design = booteval.core.design.make_design(80, clusters=clusters)
    m = get_metric(name)
    ev = m.bind(m.validate(refs, hyps), design)
    w = design.unit_weights(seed=5, start=0, stop=6)
    got = ev.replicates(w)
    for b in range(w.shape[0]):
        counts = design.row_weights(w[b : b + 1])[0]
        want = reference(name, {}, resample(hyps, counts), resample(refs, counts))
        assert got[b] == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_adapter_statistics_sum_to_corpus_score(name):
    """Pins the one use of sacrebleu's internals: summed sentence stats give corpus_score."""
    refs, hyps = corpus(100, seed=6, n_refs=2)
    metric = sacrebleu.BLEU if name == "bleu" else sacrebleu.CHRF
    scorer = metric(references=_reference_streams([tuple(r) for r in refs]))
    stats = _segment_statistics(scorer, hyps)
    assert stats.shape[0] == len(hyps)
    want = metric().corpus_score(hyps, streams(refs)).score
    assert scorer._compute_score_from_stats(list(stats.sum(axis=0))).score == pytest.approx(
        want, abs=1e-9
    )
    assert get_metric(name)(refs, hyps) == pytest.approx(want, abs=1e-9)


@pytest.mark.parametrize("name", ["bleu", "chrf"])
def test_jackknife_equals_brute_force(name):
    refs, hyps = corpus(25, seed=7)
    m = get_metric(name)
    ev = m.bind(m.validate(refs, hyps), booteval.core.design.make_design(25))
    jack = ev.jackknife()
    for i in range(25):
        keep = [j for j in range(25) if j != i]
        want = reference(name, {}, [hyps[j] for j in keep], [refs[j] for j in keep])
        assert jack[i] == pytest.approx(want, abs=1e-9)


def test_cluster_jackknife_equals_brute_force():
    refs, hyps = corpus(30, seed=8)
    clusters = np.arange(30) % 6
    m = get_metric("bleu")
    ev = m.bind(m.validate(refs, hyps), booteval.core.design.make_design(30, clusters=clusters))
    jack = ev.jackknife()
    assert jack.shape == (6,)
    for c in range(6):
        keep = [j for j in range(30) if clusters[j] != c]
        want = reference("bleu", {}, [hyps[j] for j in keep], [refs[j] for j in keep])
        assert jack[c] == pytest.approx(want, abs=1e-9)


def test_ci_runs_and_is_reproducible():
    refs, hyps = corpus(300, seed=9)
    r = booteval.ci(refs, hyps, metric="bleu", seed=0, n_resamples=2000)
    assert r.estimate == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)
    assert 0 <= r.low < r.estimate < r.high <= 100
    again = booteval.ci(refs, hyps, metric="bleu", seed=0, n_resamples=2000, batch=333)
    np.testing.assert_array_equal(again.distribution, r.distribution)
    assert (again.low, again.high) == (r.low, r.high)
    clustered = booteval.ci(
        refs, hyps, metric="chrf", seed=0, n_resamples=500, clusters=np.arange(300) // 10
    )
    assert clustered.n_clusters == 30
    assert clustered.estimate == pytest.approx(sacrebleu.corpus_chrf(hyps, [refs]).score)


def test_compare_pairs_the_systems():
    refs, hyps_a = corpus(300, seed=10)
    # B: A with every fourth hypothesis replaced by its reference
    hyps_b = [r if i % 4 == 0 else h for i, (r, h) in enumerate(zip(refs, hyps_a, strict=True))]
    r = booteval.compare(refs, hyps_a, hyps_b, metric="bleu", method="percentile", seed=0)
    a = sacrebleu.corpus_bleu(hyps_a, [refs]).score
    b = sacrebleu.corpus_bleu(hyps_b, [refs]).score
    assert (r.estimate_a, r.estimate_b) == (pytest.approx(a), pytest.approx(b))
    assert r.difference == pytest.approx(b - a)
    assert r.low > 0 and r.excludes_zero
    # shared weights: each system's replicates are its own ci's with the same seed
    for hyps, dist in ((hyps_a, r.distribution_a), (hyps_b, r.distribution_b)):
        own = booteval.ci(refs, hyps, metric="bleu", method="percentile", seed=0)
        np.testing.assert_allclose(dist, own.distribution, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.distribution, r.distribution_b - r.distribution_a, atol=1e-12)
    bca = booteval.compare(refs, hyps_a, hyps_b, metric="chrf", seed=0, n_resamples=1000)
    assert bca.low < bca.difference < bca.high


def test_inputs_accept_numpy_and_pandas_like_sequences():
    refs, hyps = corpus(40, seed=11, n_refs=2)
    want = get_metric("bleu")(refs, hyps)
    assert get_metric("bleu")(np.array(refs), np.array(hyps)) == pytest.approx(want)
    assert get_metric("bleu")(tuple(map(tuple, refs)), tuple(hyps)) == pytest.approx(want)
    # a variable number of references per row
    ragged = [r[:1] if i % 3 else r for i, r in enumerate(refs)]
    assert get_metric("bleu")(ragged, hyps) == pytest.approx(
        sacrebleu.corpus_bleu(hyps, streams(ragged)).score, abs=1e-9
    )


@pytest.mark.parametrize(
    ("refs", "hyps", "parameter", "match"),
    [
        (["a b", "c d"], ["a b"], "hypotheses", "same number of rows"),
        (["a b", "c d"], ["a b", 3], "hypotheses", "int in row 1"),
        (["a b", "c d"], ["a b", None], "hypotheses", "missing value"),
        (["a b", "c d"], "a b", "hypotheses", "single string"),
        (["a b", 7], ["a b", "c d"], "references", "int in row 1"),
        (["a b", ["c", 1]], ["a b", "c d"], "references", "holding a int"),
        (["a b", []], ["a b", "c d"], "references", "empty list in row 1"),
        ([], [], "references", "at least one row"),
    ],
)
def test_invalid_inputs_name_the_parameter(refs, hyps, parameter, match):
    with pytest.raises(InvalidInputError, match=match) as info:
        booteval.ci(refs, hyps, metric="bleu", seed=0, n_resamples=100)
    assert info.value.parameter == parameter


def test_sacrebleu_streams_get_a_hint():
    refs, hyps = corpus(5, seed=12)
    with pytest.raises(InvalidInputError, match="zip"):
        get_metric("bleu")([refs], hyps)


def test_invalid_parameters():
    with pytest.raises(InvalidInputError, match="smooth_method"):
        BLEU(smooth_method="laplace")
    with pytest.raises(InvalidInputError, match="tokenize"):
        BLEU(tokenize="nope")(["a b"], ["a b"])
    with pytest.raises(InvalidInputError, match="word_order"):
        CHRF(word_order=-1)
    with pytest.raises(InvalidInputError, match="metric_kwargs"):
        booteval.ci(["a"], ["a"], metric="bleu", metric_kwargs={"foo": 1})


def test_missing_sacrebleu_says_how_to_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "sacrebleu", None)
    with pytest.raises(ImportError, match=r"booteval\[text\]"):
        BLEU()(["a b"], ["a b"])


def test_from_stats_accepts_one_dimensional_sums():
    assert bleu_from_stats(np.array([4, 4, 4, 3, 2, 1, 4, 3, 2, 1])).tolist() == [
        pytest.approx(100.0)
    ]


@pytest.mark.parametrize("obj", [BLEU, CHRF])
def test_docstring_examples_that_need_sacrebleu(obj):
    """The examples marked +SKIP (so the docs run without sacrebleu) are checked here."""
    source = obj.__doc__.replace("# doctest: +SKIP", "")
    test = doctest.DocTestParser().get_doctest(
        source, dict(vars(text_module)), obj.__name__, None, 0
    )
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.failures == 0


def test_a_reused_metric_object_recomputes_for_new_references():
    m = BLEU()
    refs, hyps = corpus(50, seed=13)
    refs2, hyps2 = corpus(50, seed=14)
    assert m(refs, hyps) == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs]).score, abs=1e-9)
    assert m(refs2, hyps) == pytest.approx(sacrebleu.corpus_bleu(hyps, [refs2]).score, abs=1e-9)
    assert m(refs2, hyps2) == pytest.approx(sacrebleu.corpus_bleu(hyps2, [refs2]).score)


@pytest.mark.parametrize("clustered", [False, True])
def test_blas_product_is_bit_identical_to_the_fixed_order_sums(clustered):
    refs, hyps = corpus(3000, seed=15)
    design = booteval.core.design.make_design(
        3000, clusters=np.arange(3000) // 3 if clustered else None
    )
    m = get_metric("bleu")
    ev = m.bind(m.validate(refs, hyps), design)
    assert ev._exact
    slow = SumEvaluator(ev._args["stats"], design, ev.from_sums)
    w = design.unit_weights(seed=0, start=0, stop=300)
    np.testing.assert_array_equal(ev.replicates(w), slow.replicates(w))
    for lo, hi in ((0, 7), (7, 300), (150, 151)):
        np.testing.assert_array_equal(ev.replicates(w[lo:hi]), slow.replicates(w)[lo:hi])
    # fractional weights take the fixed-order path
    frac = w[:5] * 0.5
    np.testing.assert_array_equal(ev.replicates(frac), slow.replicates(frac))
    assert type(ev.with_design(design)) is type(ev)


@pytest.mark.parametrize("cache_rows", [0, 1000])
def test_chunked_extraction_equals_one_pass(monkeypatch, cache_rows):
    monkeypatch.setattr(text_module, "_CHUNK", 7)
    monkeypatch.setattr(text_module, "_CACHE_ROWS", cache_rows)
    refs, hyps_a = corpus(100, seed=16, n_refs=3)
    refs = [r[:1] if i % 4 else r for i, r in enumerate(refs)]  # 1 or 3 references per row
    _, hyps_b = corpus(100, seed=17)
    for name in ("bleu", "chrf"):
        m = get_metric(name)
        for hyps in (hyps_a, hyps_b, hyps_a):  # the second and third reuse cached references
            assert m(refs, hyps) == pytest.approx(reference(name, {}, hyps, refs), abs=1e-9)
        assert (m._refs_cache is not None) == (cache_rows > 0)
