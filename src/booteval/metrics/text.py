"""Corpus-level text metrics (BLEU, chrF) from per-sentence sufficient statistics.

Corpus BLEU and chrF are not means of sentence scores: they are functions of
*sums* over sentences (matched and total n-grams per order, hypothesis and
reference lengths). sacrebleu extracts each sentence's statistics once; every
bootstrap replicate is then one ``weights @ stats`` product followed by the
vectorized formulas here (:func:`bleu_from_stats`, :func:`chrf_from_stats`),
with no per-replicate call into sacrebleu, and the jackknife is closed-form
(the total minus one unit's statistics), as for every :class:`SumEvaluator`.

Scores are on sacrebleu's scale (0 to 100) and equal ``sacrebleu.corpus_bleu``
/ ``corpus_chrf`` on the data and on any resample of it.

sacrebleu is an optional dependency (``pip install 'booteval[text]'``),
imported only when a text metric validates or binds data.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ..core.design import Design
from ..core.errors import InvalidInputError
from .base import Evaluator, Metric, SumEvaluator

__all__ = ["BLEU", "CHRF", "bleu_from_stats", "bleu_gradient", "chrf_from_stats"]

SMOOTH_METHODS = ("exp", "floor", "add-k", "none")
# sacrebleu's defaults for smooth_value (BLEU.SMOOTH_DEFAULTS)
_SMOOTH_DEFAULTS: dict[str, float | None] = {"exp": None, "floor": 0.1, "add-k": 1.0, "none": None}
# sacrebleu.utils.my_log: log(0) is floored to this
_LOG_ZERO = -9999999999.0
_INSTALL = "pip install 'booteval[text]'"
# sentences whose statistics are extracted at once (bounds sacrebleu's n-gram tables)
_CHUNK = 4096
# keep the references' n-gram tables for reuse up to this many sentences
_CACHE_ROWS = 20_000


def _sacrebleu() -> Any:
    """Import sacrebleu, or say how to install it."""
    try:
        import sacrebleu
    except ImportError:  # pragma: no cover - exercised only without sacrebleu
        raise ImportError(
            f"booteval's text metrics (bleu, chrf) need sacrebleu, which is not installed: "
            f"{_INSTALL}"
        ) from None
    return sacrebleu


def _reference_streams(references: list[tuple[str, ...]]) -> list[list[str | None]]:
    """Per-row references as sacrebleu's reference streams (None: a row with fewer)."""
    n_refs = max(len(r) for r in references)
    return [[r[j] if j < len(r) else None for r in references] for j in range(n_refs)]


def _segment_statistics(scorer: Any, hypotheses: list[str]) -> np.ndarray:
    """Per-sentence sufficient statistics, shape ``(n, k)``, from a sacrebleu metric.

    ``scorer`` was created with ``references=`` (sacrebleu's public reference
    cache). This is the only place that touches sacrebleu's internals: sacrebleu
    2.x has no public per-sentence-statistics API, and its own paired bootstrap
    (``sacrebleu.significance``) uses ``Metric._extract_corpus_statistics`` as
    done here. tests/test_text_metrics.py checks that the summed statistics
    reproduce ``corpus_score``, so a change in sacrebleu is caught there.
    """
    try:
        stats = scorer._extract_corpus_statistics(hypotheses, None)
    except (AttributeError, TypeError) as exc:  # not the validated (tuples, strings) rows
        raise TypeError(f"text metrics bind validated inputs only ({exc})") from None
    return np.asarray(stats, dtype=np.float64).reshape(len(hypotheses), -1)


def _bleu_input(
    sums: np.ndarray, max_ngram_order: int, smooth_method: str, smooth_value: float | None
) -> tuple[np.ndarray, int, float | None]:
    """The statistics as an ``(m, k)`` float array, the order, and the smoothing value
    (sacrebleu's default for the method where none is given)."""
    s = np.asarray(sums, dtype=np.float64)
    if s.ndim == 1:
        s = s[None, :]
    if smooth_value is None:
        smooth_value = _SMOOTH_DEFAULTS[smooth_method]
    return s, int(max_ngram_order), smooth_value


def bleu_from_stats(
    sums: np.ndarray,
    *,
    max_ngram_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> np.ndarray:
    """Corpus BLEU (0 to 100) from summed statistics, one value per row of ``sums``.

    The formula of ``sacrebleu.BLEU.compute_bleu`` (brevity penalty, clipped
    n-gram precisions, smoothing, geometric mean), vectorized over rows.

    Parameters
    ----------
    sums : array-like, shape (m, 2 + 2 * max_ngram_order)
        Columns as sacrebleu's BLEU statistics: hypothesis length, reference
        length, matched n-grams for orders 1..N, total hypothesis n-grams for
        orders 1..N.
    max_ngram_order : int
    smooth_method : {"exp", "floor", "add-k", "none"}
    smooth_value : float, optional
        For ``"floor"`` (default 0.1) and ``"add-k"`` (default 1).
    effective_order : bool
        Average only over the orders with hypothesis n-grams.

    Returns
    -------
    ndarray, shape (m,)

    Examples
    --------
    >>> s = [[4, 4, 4, 3, 2, 1, 4, 3, 2, 1]]   # a perfect four-word hypothesis
    >>> bleu_from_stats(s).round(6).tolist()
    [100.0]
    >>> bleu_from_stats([[3, 4, 3, 2, 1, 0, 3, 2, 1, 0]]).round(4).tolist()  # 3 of 4 words
    [0.0]
    >>> bleu_from_stats([[3, 4, 3, 2, 1, 0, 3, 2, 1, 0]], effective_order=True).round(4).tolist()
    [71.6531]
    """
    s, order, smooth_value = _bleu_input(sums, max_ngram_order, smooth_method, smooth_value)
    sys_len, ref_len = s[:, 0], s[:, 1]
    correct, total = s[:, 2 : 2 + order], s[:, 2 + order : 2 + 2 * order]
    m = s.shape[0]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        bp = np.where(
            sys_len < ref_len,
            np.where(sys_len > 0, np.exp(1.0 - ref_len / sys_len), 0.0),
            1.0,
        )
        any_correct = (correct != 0).any(axis=1)
        alive = np.ones(m, dtype=bool)  # no order with zero total n-grams yet
        smooth_mteval = np.ones(m)
        eff = np.full(m, order)
        logs = np.empty((m, order))
        for j in range(order):
            c, t = correct[:, j], total[:, j]
            if smooth_method == "add-k" and j > 0:
                c, t = c + smooth_value, t + smooth_value
            alive &= t != 0
            if effective_order:
                eff = np.where(alive, j + 1, eff)
            zero = alive & (c == 0)
            if smooth_method == "exp":
                smooth_mteval = np.where(zero, smooth_mteval * 2.0, smooth_mteval)
                p_zero = 100.0 / (smooth_mteval * t)
            elif smooth_method == "floor":
                p_zero = 100.0 * float(smooth_value) / t  # type: ignore[arg-type]
            else:
                p_zero = np.zeros(m)
            p = np.where(alive, np.where(c == 0, p_zero, 100.0 * c / t), 0.0)
            logs[:, j] = np.where(p == 0.0, _LOG_ZERO, np.log(np.where(p > 0, p, 1.0)))
        acc = np.zeros(m)
        for j in range(order):  # summed in order, as sacrebleu does
            acc = acc + np.where(j < eff, logs[:, j], 0.0)
        score = bp * np.exp(acc / eff)
    return np.where(any_correct, score, 0.0)


def bleu_gradient(
    sums: np.ndarray,
    *,
    max_ngram_order: int = 4,
    smooth_method: str = "exp",
    smooth_value: float | None = None,
    effective_order: bool = False,
) -> np.ndarray:
    """The gradient of :func:`bleu_from_stats` with respect to the summed statistics.

    BLEU is ``bp * exp(mean_j log p_j)``, so its gradient is BLEU times that of its
    logarithm: ``1 / (N c_j)`` on the matches and ``-1 / (N t_j)`` on the totals of each
    order ``j`` counted (``N`` of them), and, when the hypothesis is shorter than the
    reference, ``r / h^2`` on the hypothesis length ``h`` and ``-1 / h`` on the reference
    length ``r``. An order without matches takes its smoothed precision, whose matches
    are held at 0 (only the total enters); a score of 0 has a zero gradient.

    Examples
    --------
    >>> s = np.array([[18.0, 20.0, 12.0, 8.0, 5.0, 3.0, 18.0, 17.0, 16.0, 15.0]])
    >>> g = bleu_gradient(s)
    >>> e = np.zeros(10); e[2] = 1e-6
    >>> bool(abs(g[0, 2] - (bleu_from_stats(s + e) - bleu_from_stats(s - e))[0] / 2e-6) < 1e-6)
    True
    """
    s, order, smooth_value = _bleu_input(sums, max_ngram_order, smooth_method, smooth_value)
    score = bleu_from_stats(
        s, max_ngram_order=order, smooth_method=smooth_method, smooth_value=smooth_value,
        effective_order=effective_order,
    )  # fmt: skip
    m = s.shape[0]
    hyp, ref = s[:, 0], s[:, 1]
    correct, total = s[:, 2 : 2 + order], s[:, 2 + order : 2 + 2 * order]
    grad = np.zeros_like(s)
    short = (hyp < ref) & (hyp > 0)
    h = np.where(short, hyp, 1.0)
    grad[:, 0] = np.where(short, ref / (h * h), 0.0)
    grad[:, 1] = np.where(short, -1.0 / h, 0.0)
    alive = np.ones(m, dtype=bool)
    counted = np.zeros((m, order), dtype=bool)
    for j in range(order):
        add = float(smooth_value) if smooth_method == "add-k" and j > 0 else 0.0
        c, t = correct[:, j] + add, total[:, j] + add
        alive &= t != 0
        counted[:, j] = alive
        matched = alive & (c != 0)
        grad[:, 2 + j] = np.where(matched, 1.0 / np.where(matched, c, 1.0), 0.0)
        # a smoothed zero (exp, floor) still moves with its total; "none" is a constant
        moves = matched | (alive & (smooth_method in ("exp", "floor")))
        grad[:, 2 + order + j] = np.where(moves, -1.0 / np.where(alive, t, 1.0), 0.0)
    if effective_order:
        eff = np.maximum(counted.sum(axis=1), 1)
    else:
        eff = np.full(m, order)
        # an order with no n-grams ends the product: every later order is 0 as well
        grad[:, 2:] = np.where(np.tile(counted, 2), grad[:, 2:], 0.0)
    grad[:, 2:] /= eff[:, None]
    return grad * score[:, None]


def chrf_from_stats(
    sums: np.ndarray, *, beta: float = 2, eps_smoothing: bool = False
) -> np.ndarray:
    """Corpus chrF (0 to 100) from summed statistics, one value per row of ``sums``.

    The formula of ``sacrebleu.CHRF`` (character and word n-gram F-beta,
    averaged over the orders present, or chrF++.py's eps smoothing),
    vectorized over rows.

    Parameters
    ----------
    sums : array-like, shape (m, 3 * n_orders)
        ``(hypothesis n-grams, reference n-grams, matches)`` for each
        character order, then each word order.
    beta : float
    eps_smoothing : bool

    Returns
    -------
    ndarray, shape (m,)

    Examples
    --------
    >>> chrf_from_stats([[4, 4, 4, 3, 3, 3]]).tolist()   # two orders, all matched
    [100.0]
    >>> chrf_from_stats([[4, 4, 2, 3, 3, 1]]).round(4).tolist()
    [41.6667]
    """
    s = np.asarray(sums, dtype=np.float64)
    if s.ndim == 1:
        s = s[None, :]
    eps = 1e-16
    factor = beta**2
    m = s.shape[0]
    n_orders = s.shape[1] // 3
    score = np.zeros(m)
    avg_prec, avg_rec = np.zeros(m), np.zeros(m)
    n_eff = np.zeros(m)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(n_orders):
            n_hyp, n_ref, n_match = s[:, 3 * i], s[:, 3 * i + 1], s[:, 3 * i + 2]
            prec = np.where(n_hyp > 0, n_match / n_hyp, eps)
            rec = np.where(n_ref > 0, n_match / n_ref, eps)
            denom = factor * prec + rec
            score = score + np.where(denom > 0, (1 + factor) * prec * rec / denom, eps)
            both = (n_hyp > 0) & (n_ref > 0)
            avg_prec = avg_prec + np.where(both, prec, 0.0)
            avg_rec = avg_rec + np.where(both, rec, 0.0)
            n_eff = n_eff + both
        if eps_smoothing:
            return 100 * score / n_orders
        avg_prec = np.where(n_eff == 0, 0.0, avg_prec / n_eff)
        avg_rec = np.where(n_eff == 0, 0.0, avg_rec / n_eff)
        f = (1 + factor) * avg_prec * avg_rec
        f = f / (factor * avg_prec + avg_rec)
        return np.where(avg_prec + avg_rec != 0, 100 * f, 0.0)


class _CountEvaluator(SumEvaluator):
    """A :class:`SumEvaluator` of integer statistics: each batch is one BLAS product.

    :class:`SumEvaluator` sums column by column in a fixed order so that a
    replicate is bit-identical whatever batch it is computed in. With integer
    statistics and integer weights (bootstrap counts, 0/1 swaps) every partial
    sum is an integer below 2**53, so float64 arithmetic is exact in *any*
    order, and one ``weights @ stats`` product (several times faster) gives the
    same bits. Weights whose first row is not integral use the fixed-order path.
    """

    def __init__(
        self, stats: np.ndarray, design: Design, from_sums: Any, gradient: Any = None
    ) -> None:
        super().__init__(stats, design, from_sums, gradient=gradient)
        s = np.asarray(self.unit_stats)
        bound = float(design.n_units) * float(np.abs(s).sum(axis=0).max(initial=0.0))
        self._exact = bool(np.array_equal(s, np.rint(s))) and bound < 2.0**53

    def with_design(self, design: Design) -> _CountEvaluator:
        return _CountEvaluator(self._args["stats"], design, self.from_sums, self.gradient)

    def replicates(self, unit_weights: np.ndarray) -> np.ndarray:
        w = np.asarray(unit_weights, dtype=np.float64)
        if self._exact and w.shape[0] and np.array_equal(w[0], np.rint(w[0])):
            return np.asarray(self.from_sums(w @ self.unit_stats), dtype=float)
        return super().replicates(w)


def _as_strings(x: object, name: str) -> list[Any]:
    """The user's per-row sequence as a list (pandas, NumPy, any sequence)."""
    if x is None or isinstance(x, str | bytes):
        got = "None" if x is None else "a single string"
        raise InvalidInputError(name, "a sequence with one entry per row", got)
    if hasattr(x, "tolist"):
        out = x.tolist()  # NumPy arrays and pandas Series
        if not isinstance(out, list):
            raise InvalidInputError(name, "a sequence with one entry per row", "a scalar")
        return out
    try:
        return list(x)  # type: ignore[call-overload]
    except TypeError:
        raise InvalidInputError(
            name, "a sequence with one entry per row", type(x).__name__
        ) from None


def _describe(v: object) -> str:
    missing = v is None or (isinstance(v, float) and v != v)
    return "a missing value (None/NaN)" if missing else f"a {type(v).__name__}"


def _check_hypotheses(x: object) -> np.ndarray:
    rows = _as_strings(x, "hypotheses")
    if not rows:
        raise InvalidInputError("hypotheses", "at least one row", "an empty sequence")
    out = np.empty(len(rows), dtype=object)
    for i, v in enumerate(rows):
        if not isinstance(v, str):
            raise InvalidInputError(
                "hypotheses", "one string per row", f"{_describe(v)} in row {i}"
            )
        out[i] = str(v)
    return out


def _check_references(x: object) -> np.ndarray:
    rows = _as_strings(x, "references")
    if not rows:
        raise InvalidInputError("references", "at least one row", "an empty sequence")
    out = np.empty(len(rows), dtype=object)
    expected = "a string or a non-empty list of strings per row"
    for i, v in enumerate(rows):
        if isinstance(v, str):
            out[i] = (str(v),)
            continue
        if isinstance(v, Sequence | np.ndarray) and not isinstance(v, bytes):
            refs = list(v)
            bad = next((r for r in refs if not isinstance(r, str)), None)
            if refs and bad is None:
                out[i] = tuple(str(r) for r in refs)
                continue
            what = "an empty list" if not refs else f"a list holding {_describe(bad)}"
            raise InvalidInputError("references", expected, f"{what} in row {i}")
        raise InvalidInputError("references", expected, f"{_describe(v)} in row {i}")
    return out


class _TextMetric(Metric):
    """A corpus metric of sacrebleu's per-sentence statistics: ``(references, hypotheses)``."""

    input_names: ClassVar[tuple[str, ...]] = ("references", "hypotheses")
    bounds = (0.0, 100.0)
    row_local: ClassVar[bool] = True

    def __init__(self, **params: Any) -> None:
        super().__init__(**params)
        # one-entry caches: the references' n-grams (the two systems of `compare`
        # share them) and the statistics of the last validated arrays bound
        # (a clustered `ci` binds them twice)
        self._refs_cache: tuple[list[tuple[str, ...]], list[Any]] | None = None
        self._stats_cache: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None

    def _scorer(self, references: list[list[str | None]] | None = None) -> Any:
        """The sacrebleu metric object, with ``references`` cached when given."""
        raise NotImplementedError

    def _from_sums(self, sums: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        _sacrebleu()
        refs = _check_references(arrays[0])
        hyps = _check_hypotheses(arrays[1])
        if refs.shape[0] != hyps.shape[0]:
            raise InvalidInputError(
                "hypotheses",
                f"the same number of rows as `references` ({refs.shape[0]})",
                f"{hyps.shape[0]} rows",
                "`references` holds one entry per row (a string, or a list of strings for "
                "several references); turn sacrebleu-style reference streams "
                "[refs_1, refs_2] into rows with list(zip(refs_1, refs_2)).",
            )
        return refs, hyps

    def statistics(self, arrays: tuple[np.ndarray, ...]) -> np.ndarray:
        """Per-sentence sufficient statistics of validated ``(references, hypotheses)``.

        Extracted in chunks of rows, so that sacrebleu's n-gram tables of the
        references never hold more than a chunk; up to ``_CACHE_ROWS`` rows they
        are kept for the next call with the same references (the other system
        of a comparison).
        """
        refs, hyps = arrays
        c = self._stats_cache
        if c is not None and c[0] is refs and c[1] is hyps:
            return c[2]
        rows, hyp_rows = refs.tolist(), hyps.tolist()
        n = len(rows)
        cache = self._refs_cache
        scorers = cache[1] if cache is not None and cache[0] == rows else None
        keep = []
        parts = []
        for k, lo in enumerate(range(0, n, _CHUNK)):
            hi = min(lo + _CHUNK, n)
            if scorers is not None:
                scorer = scorers[k]
            else:
                try:
                    scorer = self._scorer(_reference_streams(rows[lo:hi]))
                except (AttributeError, TypeError) as exc:  # not validated references
                    raise TypeError(f"text metrics bind validated inputs only ({exc})") from None
                if n <= _CACHE_ROWS:
                    keep.append(scorer)
            parts.append(_segment_statistics(scorer, hyp_rows[lo:hi]))
        if scorers is None:
            self._refs_cache = (rows, keep) if n <= _CACHE_ROWS else None
        stats = np.concatenate(parts, axis=0)
        self._stats_cache = (refs, hyps, stats)
        return stats

    def _gradient(self, sums: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def bind(self, arrays: tuple[np.ndarray, ...], design: Design) -> Evaluator:
        own = type(self)._gradient is not _TextMetric._gradient
        gradient = self._gradient if own else None
        return _CountEvaluator(self.statistics(arrays), design, self._from_sums, gradient)


class BLEU(_TextMetric):
    """Corpus BLEU (0 to 100), as ``sacrebleu.corpus_bleu``.

    Inputs are ``references`` (per row: a string, or a list of strings for
    several references) and ``hypotheses`` (a string per row). Each
    replicate sums the resampled sentences' n-gram statistics; the score
    equals sacrebleu's corpus BLEU of the resampled corpus. Needs sacrebleu
    (``pip install 'booteval[text]'``).

    Parameters
    ----------
    tokenize : str, optional
        sacrebleu's tokenizer (``"13a"`` by default; ``"intl"``, ``"char"``,
        ``"zh"``, ``"none"``, ...).
    lowercase : bool
    smooth_method : {"exp", "floor", "add-k", "none"}
    smooth_value : float, optional
        For ``"floor"`` (default 0.1) and ``"add-k"`` (default 1).
    max_ngram_order : int
    effective_order : bool

    Examples
    --------
    >>> BLEU(tokenize="intl").label
    "bleu(tokenize='intl')"
    >>> import booteval
    >>> refs = ["the cat sat on the mat", "a dog ran in the park", "it is raining again today"]
    >>> hyps = ["the cat sat on a mat", "the dog ran in the park", "it rains today"]
    >>> refs, hyps = refs * 20, hyps * 20
    >>> round(BLEU()(refs, hyps), 4)  # doctest: +SKIP
    52.5134
    >>> r = booteval.ci(refs, hyps, metric="bleu", n_resamples=1000, seed=0)  # doctest: +SKIP
    >>> print(r.format(digits=2))  # doctest: +SKIP
    52.51 (46.35, 58.04)
    """

    name = "bleu"
    auto_family: ClassVar[str] = "bleu"

    def __init__(
        self,
        *,
        tokenize: str | None = None,
        lowercase: bool = False,
        smooth_method: str = "exp",
        smooth_value: float | None = None,
        max_ngram_order: int = 4,
        effective_order: bool = False,
    ) -> None:
        if smooth_method not in SMOOTH_METHODS:
            raise InvalidInputError(
                "smooth_method", f"one of {', '.join(map(repr, SMOOTH_METHODS))}",
                repr(smooth_method),
            )  # fmt: skip
        if isinstance(max_ngram_order, bool) or not isinstance(max_ngram_order, int | np.integer):
            raise InvalidInputError("max_ngram_order", "a positive integer", repr(max_ngram_order))
        if max_ngram_order < 1:
            raise InvalidInputError("max_ngram_order", "a positive integer", repr(max_ngram_order))
        given = {
            "tokenize": (tokenize, None), "lowercase": (lowercase, False),
            "smooth_method": (smooth_method, "exp"), "smooth_value": (smooth_value, None),
            "max_ngram_order": (max_ngram_order, 4), "effective_order": (effective_order, False),
        }  # fmt: skip
        super().__init__(**{k: v for k, (v, default) in given.items() if v != default})
        self.tokenize = tokenize
        self.lowercase = bool(lowercase)
        self.smooth_method = smooth_method
        self.smooth_value = smooth_value
        self.max_ngram_order = int(max_ngram_order)
        self.effective_order = bool(effective_order)

    def _scorer(self, references: list[list[str | None]] | None = None) -> Any:
        sacrebleu = _sacrebleu()
        try:
            return sacrebleu.BLEU(
                tokenize=self.tokenize, lowercase=self.lowercase,
                smooth_method=self.smooth_method, smooth_value=self.smooth_value,
                max_ngram_order=self.max_ngram_order, effective_order=self.effective_order,
                references=references,
            )  # fmt: skip
        except KeyError:
            names = ", ".join(sacrebleu.BLEU.TOKENIZERS)
            raise InvalidInputError(
                "tokenize", f"one of sacrebleu's tokenizers ({names})", repr(self.tokenize)
            ) from None

    def validate(self, *arrays: object) -> tuple[np.ndarray, ...]:
        out = super().validate(*arrays)
        self._scorer()  # an unknown tokenizer fails here, before any resampling
        return out

    @property
    def _options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`bleu_from_stats` and :func:`bleu_gradient`."""
        return {
            "max_ngram_order": self.max_ngram_order, "smooth_method": self.smooth_method,
            "smooth_value": self.smooth_value, "effective_order": self.effective_order,
        }  # fmt: skip

    def _from_sums(self, sums: np.ndarray) -> np.ndarray:
        return bleu_from_stats(sums, **self._options)

    def _gradient(self, sums: np.ndarray) -> np.ndarray:
        return bleu_gradient(sums, **self._options)


class CHRF(_TextMetric):
    """Corpus chrF (0 to 100), as ``sacrebleu.corpus_chrf``; chrF++ with ``word_order=2``.

    Inputs as for :class:`BLEU`. With several references per row, each
    sentence uses the reference that gives it the best sentence-level F
    score (sacrebleu's rule). Needs sacrebleu (``pip install 'booteval[text]'``).

    Parameters
    ----------
    char_order : int
        Maximum character n-gram order.
    word_order : int
        Maximum word n-gram order (0: chrF; 2: chrF++).
    beta : int
        Recall is weighted ``beta`` times as much as precision.
    lowercase : bool
    whitespace : bool
        Keep whitespace in character n-grams.
    eps_smoothing : bool
        chrF++.py / NLTK / Moses smoothing instead of sacrebleu's effective order.

    Examples
    --------
    >>> CHRF(word_order=2).label
    'chrf(word_order=2)'
    >>> refs = ["the cat sat on the mat", "a dog ran in the park", "it is raining again today"]
    >>> hyps = ["the cat sat on a mat", "the dog ran in the park", "it rains today"]
    >>> refs, hyps = refs * 20, hyps * 20
    >>> round(CHRF()(refs, hyps), 4)  # doctest: +SKIP
    58.6343
    """

    name = "chrf"

    def __init__(
        self,
        *,
        char_order: int = 6,
        word_order: int = 0,
        beta: int = 2,
        lowercase: bool = False,
        whitespace: bool = False,
        eps_smoothing: bool = False,
    ) -> None:
        for key, value, low in (("char_order", char_order, 1), ("word_order", word_order, 0)):
            if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < low:
                raise InvalidInputError(key, f"an integer >= {low}", repr(value))
        if isinstance(beta, bool) or not isinstance(beta, int | float) or not beta > 0:
            raise InvalidInputError("beta", "a positive number", repr(beta))
        given = {
            "char_order": (char_order, 6), "word_order": (word_order, 0), "beta": (beta, 2),
            "lowercase": (lowercase, False), "whitespace": (whitespace, False),
            "eps_smoothing": (eps_smoothing, False),
        }  # fmt: skip
        super().__init__(**{k: v for k, (v, default) in given.items() if v != default})
        self.char_order = int(char_order)
        self.word_order = int(word_order)
        self.beta = beta
        self.lowercase = bool(lowercase)
        self.whitespace = bool(whitespace)
        self.eps_smoothing = bool(eps_smoothing)

    def _scorer(self, references: list[list[str | None]] | None = None) -> Any:
        return _sacrebleu().CHRF(
            char_order=self.char_order, word_order=self.word_order, beta=self.beta,
            lowercase=self.lowercase, whitespace=self.whitespace,
            eps_smoothing=self.eps_smoothing, references=references,
        )  # fmt: skip

    def _from_sums(self, sums: np.ndarray) -> np.ndarray:
        return chrf_from_stats(sums, beta=self.beta, eps_smoothing=self.eps_smoothing)


METRICS: dict[str, type[Metric]] = {"bleu": BLEU, "chrf": CHRF}
