"""Reference values for the interval methods, computed once with R's ``boot`` package.

R 4 with ``boot`` 1.3-28 computed every number hard-coded below; the R code is in
the comment above each block, so the values can be regenerated. The tests do not
need R at run time.

The replicate vectors are deterministic (no RNG), so Python and R see the same
numbers, up to the last bit of ``qnorm`` vs ``scipy.special.ndtri`` (hence the
1e-12 tolerances rather than exact equality). ``B = 999`` makes R's
``(B + 1) * alpha`` order statistics integers that coincide with booteval's
``ceil(p * B)`` rule at 90 % and 95 % (50/950 and 25/975), so percentile, basic
and studentized endpoints must agree with R exactly. R's BCa interpolates between
two order statistics where booteval does not; for BCa the tests pin down ``z0``,
the acceleration and the adjusted levels exactly, and the endpoint to the
``ceil(level * B)``-th order statistic, which lies in the bracket around R's
interpolated endpoint.

Every R session below starts with::

    library(boot)
    options(digits = 17)
    B <- 999
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ndtr, ndtri

from booteval.core.intervals import bca_levels, compute_interval

B = 999
TOL = 1e-12

# --------------------------------------------------------------------------------------
# Case "skewed": a smooth log-normal-shaped replicate vector, estimate not on a replicate.
#
#   t  <- exp(0.3 * qnorm((1:B - 0.5) / B))
#   t0 <- 0.98
#   n  <- 20
#   jack <- 1 - 0.002 * (1:n) * (1:n)
#   L <- (n - 1) * (mean(jack) - jack)          # R's jackknife influence values
#   b <- boot(1:10, function(d, i) mean(d[i]), R = B)
#   b$t[, 1] <- t
#   b$t0 <- t0
#   for (conf in c(0.90, 0.95)) {
#     ci <- boot.ci(b, conf = conf, type = c("norm", "basic", "perc", "bca"), L = L)
#     print(ci$normal); print(ci$basic); print(ci$percent); print(ci$bca)
#     w <- qnorm(sum(t < t0) / length(t))
#     a <- sum(L^3) / (6 * sum(L^2)^1.5)
#     zalpha <- qnorm((1 + c(-conf, conf)) / 2)
#     adj <- pnorm(w + (w + zalpha) / (1 - a * (w + zalpha)))
#     k <- trunc((B + 1) * adj)                 # R interpolates between t_(k), t_(k+1)
#     st <- sort(t)
#     cat(w, a, adj, k, st[k], st[k + 1], sum(t < t0), "\n")
#   }
#
# sum(t < t0) = 473;  w = -0.066541213278142108;  a = 0.02264801222573171
# --------------------------------------------------------------------------------------
SKEWED_T0 = 0.98
SKEWED_R = {
    0.90: {
        "normal": (0.38662321962011059, 1.4414637123406964),
        "basic": (0.31987724843227916, 1.3502895383628182),
        "percentile": (0.60971046163718179, 1.6401227515677208),
        "bca": (0.59706892130627232, 1.6035648617616769),
        "adj": (0.043257197608603526, 0.94182505819526086),
        "k": (43, 941),
        "bracket_low": (0.59656073588359748, 0.5985230202964652),
        "bracket_high": (1.6001492193312687, 1.6042939833839931),
    },
    0.95: {
        "normal": (0.28558347984820609, 1.5425034521126011),
        "basic": (0.15520047715888463, 1.4059218393266193),
        "percentile": (0.55407816067338067, 1.8047995228411153),
        "bca": (0.54665675637022448, 1.7784451646255377),
        "adj": (0.022528671030884937, 0.97204353047060843),
        "k": (22, 972),
        "bracket_low": (0.5449901140885054, 0.54811504717727455),
        "bracket_high": (1.7780770040244398, 1.7866576711349933),
    },
}
SKEWED_R_BELOW = 473
SKEWED_R_Z0 = -0.066541213278142108
SKEWED_R_ACC = 0.02264801222573171

# --------------------------------------------------------------------------------------
# Case "ties": an accuracy-like metric on n = 50 items (40 correct), replicates k/50
# with 230 of the 999 exactly on the estimate 40/50.
#
#   t  <- rep((36:44) / 50, times = c(20, 60, 130, 200, 230, 180, 110, 50, 19))
#   t0 <- 40 / 50
#   jack <- c(rep(39 / 49, 40), rep(40 / 49, 10))
#   n <- length(jack)
#   L <- (n - 1) * (mean(jack) - jack)
#   b <- boot(1:10, function(d, i) mean(d[i]), R = B)
#   b$t[, 1] <- t
#   b$t0 <- t0
#   (then the same loop as for the skewed case)
#
# sum(t < t0) = 410;  sum(t == t0) = 230
# w = -0.22648937660749191;  a = -0.035355339059326987  (= -sqrt(2)/40)
# --------------------------------------------------------------------------------------
TIES_VALUES = np.arange(36, 45) / 50
TIES_COUNTS = np.array([20, 60, 130, 200, 230, 180, 110, 50, 19])
TIES_T0 = 40 / 50
TIES_R = {
    0.90: {
        "normal": (0.74536918002227259, 0.85839458374149125),
        "basic": (0.7400000000000001, 0.8600000000000001),
        "percentile": (0.73999999999999999, 0.85999999999999999),
        "bca": (0.71999999999999997, 0.83999999999999997),
        "adj": (0.012859915404369995, 0.86952423124252998),
        "k": (12, 869),
        "bracket_low": (0.71999999999999997, 0.71999999999999997),
        "bracket_high": (0.83999999999999997, 0.83999999999999997),
    },
    0.95: {
        "normal": (0.73454284423196703, 0.86922091953179681),
        "basic": (0.7400000000000001, 0.8600000000000001),
        "percentile": (0.73999999999999999, 0.85999999999999999),
        "bca": (0.71999999999999997, 0.83999999999999997),
        "adj": (0.0047141294764094319, 0.92026850840110319),
        "k": (4, 920),
        "bracket_low": (0.71999999999999997, 0.71999999999999997),
        "bracket_high": (0.83999999999999997, 0.83999999999999997),
    },
}
TIES_R_BELOW = 410
TIES_R_EQUAL = 230
TIES_R_Z0 = -0.22648937660749191
TIES_R_ACC = -0.035355339059326987

# --------------------------------------------------------------------------------------
# Studentized: the skewed t with a non-monotone per-replicate variance.
#
#   t  <- exp(0.3 * qnorm((1:B - 0.5) / B))
#   t0 <- 0.98
#   v  <- (0.1 * (1.5 + cos(1:B)))^2
#   v0 <- 0.01
#   b2 <- boot(1:10, function(d, i) c(mean(d[i]), var(d[i])), R = B)
#   b2$t[, 1] <- t
#   b2$t[, 2] <- v
#   b2$t0 <- c(t0, v0)
#   for (conf in c(0.90, 0.95)) print(boot.ci(b2, conf = conf, type = "stud")$student)
# --------------------------------------------------------------------------------------
STUD_R = {
    0.90: (0.31750595374271651, 1.3538539539202461),
    0.95: (0.10422645152833665, 1.5074134667445755),
}

CASES = {"skewed": SKEWED_R, "ties": TIES_R}
LEVELS = (0.90, 0.95)


def _skewed() -> tuple[float, np.ndarray, np.ndarray]:
    i = np.arange(1, B + 1)
    t = np.exp(0.3 * ndtri((i - 0.5) / B))
    j = np.arange(1, 21)
    jack = 1 - 0.002 * j * j
    return SKEWED_T0, t, jack


def _ties() -> tuple[float, np.ndarray, np.ndarray]:
    t = np.repeat(TIES_VALUES, TIES_COUNTS)
    jack = np.concatenate([np.full(40, 39 / 49), np.full(10, 40 / 49)])
    return TIES_T0, t, jack


DATA = {"skewed": _skewed, "ties": _ties}


def _order_stat(values: np.ndarray, level: float) -> float:
    """The ceil(level * B)-th smallest value, 1-based (booteval's documented rule)."""
    srt = np.sort(values)
    return float(srt[math.ceil(level * srt.size) - 1])


def test_fixtures_match_r() -> None:
    # The deterministic vectors really are what R saw.
    t0, t, _ = _skewed()
    assert t.size == B
    assert int(np.sum(t < t0)) == SKEWED_R_BELOW
    assert not np.any(t == t0)
    t0, t, _ = _ties()
    assert t.size == B
    assert int(np.sum(t < t0)) == TIES_R_BELOW
    assert int(np.sum(t == t0)) == TIES_R_EQUAL


# ---------------------------------------------------------------------- normal
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("conf", LEVELS)
def test_normal_matches_r_norm(case: str, conf: float) -> None:
    t0, t, _ = DATA[case]()
    out = compute_interval("normal", t0, t, conf)
    r_low, r_high = CASES[case][conf]["normal"]
    assert out.low == pytest.approx(r_low, abs=1e-10)
    assert out.high == pytest.approx(r_high, abs=1e-10)
    assert out.notes == ()


# -------------------------------------------------------- percentile and basic
@pytest.mark.parametrize("case", sorted(CASES))
@pytest.mark.parametrize("conf", LEVELS)
@pytest.mark.parametrize("method", ["percentile", "basic"])
def test_percentile_and_basic_match_r_exactly(case: str, conf: float, method: str) -> None:
    t0, t, _ = DATA[case]()
    out = compute_interval(method, t0, t, conf)
    r_low, r_high = CASES[case][conf][method]
    assert out.low == pytest.approx(r_low, abs=TOL)
    assert out.high == pytest.approx(r_high, abs=TOL)
    # the (B + 1) * alpha order statistics of R are booteval's ceil(p * B)-th
    alpha = 1 - conf
    if method == "percentile":
        assert out.low == _order_stat(t, alpha / 2)
        assert out.high == _order_stat(t, 1 - alpha / 2)
    else:
        assert out.low == 2 * t0 - _order_stat(t, 1 - alpha / 2)
        assert out.high == 2 * t0 - _order_stat(t, alpha / 2)


# --------------------------------------------------------------- BCa vs R boot
@pytest.mark.parametrize(
    ("case", "r_z0", "r_acc"),
    [("skewed", SKEWED_R_Z0, SKEWED_R_ACC), ("ties", TIES_R_Z0, TIES_R_ACC)],
)
@pytest.mark.parametrize("conf", LEVELS)
def test_bca_ties_below_matches_r_boot(case: str, r_z0: float, r_acc: float, conf: float) -> None:
    t0, t, jack = DATA[case]()
    ref = CASES[case][conf]

    lev_lo, lev_hi, z0, acc, notes = bca_levels(t0, t, jack, 1 - conf, ties="below")
    assert notes == []
    assert z0 == pytest.approx(r_z0, abs=TOL)
    assert acc == pytest.approx(r_acc, abs=TOL)
    assert lev_lo == pytest.approx(ref["adj"][0], abs=TOL)
    assert lev_hi == pytest.approx(ref["adj"][1], abs=TOL)

    out = compute_interval("bca", t0, t, conf, jackknife=jack, ties="below")
    assert out.notes == ()
    assert out.details["z0"] == pytest.approx(r_z0, abs=TOL)
    assert out.details["acceleration"] == pytest.approx(r_acc, abs=TOL)
    assert out.details["levels"] == pytest.approx(ref["adj"], abs=TOL)

    srt = np.sort(t)
    for end, level, k, bracket, r_end in (
        (out.low, ref["adj"][0], ref["k"][0], ref["bracket_low"], ref["bca"][0]),
        (out.high, ref["adj"][1], ref["k"][1], ref["bracket_high"], ref["bca"][1]),
    ):
        # the recorded bracket is t_(k), t_(k+1) here too, and holds R's endpoint
        assert srt[k - 1] == pytest.approx(bracket[0], abs=TOL)
        assert srt[k] == pytest.approx(bracket[1], abs=TOL)
        assert bracket[0] - TOL <= r_end <= bracket[1] + TOL
        # booteval takes the ceil(level * B)-th order statistic, inside that bracket
        assert math.ceil(level * B) in (k, k + 1)
        assert end == _order_stat(t, level)
        assert bracket[0] - TOL <= end <= bracket[1] + TOL


def test_bca_ties_endpoints_equal_r_where_bracket_collapses() -> None:
    # In the ties case both brackets are one repeated value, so R's interpolated
    # endpoint and booteval's order statistic must coincide.
    t0, t, jack = _ties()
    for conf in LEVELS:
        out = compute_interval("bca", t0, t, conf, jackknife=jack, ties="below")
        assert (out.low, out.high) == pytest.approx(TIES_R[conf]["bca"], abs=TOL)


def test_bca_ties_half_closed_form_and_direction() -> None:
    t0, t, jack = _ties()
    # z0 with half the ties counted below: (410 + 230 / 2) / 999 = 525 / 999
    z0_half = float(ndtri((TIES_R_BELOW + TIES_R_EQUAL / 2) / B))
    # acceleration of a proportion p = 40/50 on n = 50 units (two distinct
    # leave-one-out values): (1 - 2p) / (6 sqrt(n p (1 - p))) = -sqrt(2)/40
    p, n = 0.8, 50
    acc = (1 - 2 * p) / (6 * math.sqrt(n * p * (1 - p)))
    assert acc == pytest.approx(-math.sqrt(2) / 40, abs=1e-15)
    assert acc == pytest.approx(TIES_R_ACC, abs=TOL)

    for conf in LEVELS:
        alpha = 1 - conf
        half = compute_interval("bca", t0, t, conf, jackknife=jack, ties="half")
        below = compute_interval("bca", t0, t, conf, jackknife=jack, ties="below")
        assert half.notes == ()
        # documented direction: ties at the estimate push z0 up under "half"
        assert half.details["z0"] > below.details["z0"]
        assert half.details["z0"] == pytest.approx(z0_half, abs=TOL)
        assert below.details["z0"] == pytest.approx(TIES_R_Z0, abs=TOL)
        assert half.details["acceleration"] == pytest.approx(acc, abs=TOL)
        levels = []
        for z in (ndtri(alpha / 2), ndtri(1 - alpha / 2)):
            w = z0_half + z
            levels.append(float(ndtr(z0_half + w / (1 - acc * w))))
        assert half.details["levels"] == pytest.approx(levels, abs=TOL)
        assert half.low == _order_stat(t, levels[0])
        assert half.high == _order_stat(t, levels[1])
        # and the two conventions give different intervals here
        assert (half.low, half.high) != (below.low, below.high)
        assert half.low >= below.low and half.high >= below.high


def test_bca_default_ties_is_half() -> None:
    t0, t, jack = _ties()
    default = compute_interval("bca", t0, t, 0.90, jackknife=jack)
    assert default.details["z0"] == pytest.approx(ndtri(525 / B), abs=TOL)


# ----------------------------------------------------------------- studentized
@pytest.mark.parametrize("conf", LEVELS)
def test_studentized_matches_r_stud(conf: float) -> None:
    t0, t, _ = _skewed()
    v = (0.1 * (1.5 + np.cos(np.arange(1, B + 1)))) ** 2
    out = compute_interval(
        "studentized",
        t0,
        t,
        conf,
        standard_error=math.sqrt(0.01),
        replicate_standard_errors=np.sqrt(v),
    )
    assert out.notes == ()
    assert out.low == pytest.approx(STUD_R[conf][0], abs=1e-10)
    assert out.high == pytest.approx(STUD_R[conf][1], abs=1e-10)


# ---------------------------------------------- published: Efron & Tibshirani
# Spatial test data "A" (Efron & Tibshirani 1993, Table 14.1; R package bootstrap,
# spatial$A); theta = plug-in variance (divisor n) = 171.5 (171.534023668639...).
# E&T Table 14.2 (B = 2,000) gives the 90 % BCa interval (115.8, 259.6) and the
# percentile interval (100.8, 233.9).
#
#   A <- c(48, 36, 20, 29, 42, 42, 20, 42, 22, 41, 45, 14, 6,
#          0, 33, 28, 34, 4, 32, 24, 47, 41, 24, 26, 30, 41)
#   n <- length(A)
#   pvar <- function(d, i) { x <- d[i]; mean((x - mean(x))^2) }
#   jack <- sapply(1:n, function(j) pvar(A[-j], 1:(n - 1)))
#   L <- (n - 1) * (mean(jack) - jack)
#   sum(L^3) / (6 * sum(L^2)^1.5)            # a = 0.061240119812307453
#   set.seed(1)
#   b <- boot(A, pvar, R = 200000)
#   boot.ci(b, conf = 0.90, type = c("bca", "perc"), L = L)
#   # bca:  115.55621301775147, 260.86235188702432   (w = 0.17727803888991825)
#   # perc:  97.918639053254438, 235.23224852071004
#   # set.seed(2): bca 115.94082840236686, 261.90532544378698
#   # set.seed(3): bca 116.1301775147929,  261.38465648190828
#
# Tolerances: over 400 seeds, booteval's BCa endpoints at B = 20,000 have Monte
# Carlo SDs of 0.67 (low) and 1.25 (high); R's at B = 200,000 about sqrt(10) less
# (0.21, 0.39; the three seeds above agree). The combined SDs are 0.70 and 1.31, so
# +-3 and +-5.5 are about 4.2 SD. Dropping the acceleration would move the endpoints
# by about -5 and -10, and the percentile interval is 18 and 25 away.
# fmt: off
SPATIAL_A = np.array([
    48, 36, 20, 29, 42, 42, 20, 42, 22, 41, 45, 14, 6,
    0, 33, 28, 34, 4, 32, 24, 47, 41, 24, 26, 30, 41,
], dtype=float)
# fmt: on
SPATIAL_R_BCA90 = (115.55621301775147, 260.86235188702432)
SPATIAL_R_ACC = 0.061240119812307453
SPATIAL_ET_BCA90 = (115.8, 259.6)  # published, B = 2,000; recorded, not asserted


def test_bca_efron_tibshirani_spatial_variance() -> None:
    x = SPATIAL_A
    n = x.size
    theta = float(np.var(x))
    assert theta == pytest.approx(171.534023668639, abs=1e-9)
    jack = np.array([np.var(np.delete(x, i)) for i in range(n)])
    rng = np.random.default_rng(1993)
    reps = np.var(x[rng.integers(0, n, size=(20_000, n))], axis=1)
    out = compute_interval("bca", theta, reps, 0.90, jackknife=jack, ties="below")
    assert out.notes == ()
    assert out.details["acceleration"] == pytest.approx(SPATIAL_R_ACC, abs=TOL)
    assert out.low == pytest.approx(SPATIAL_R_BCA90[0], abs=3.0)
    assert out.high == pytest.approx(SPATIAL_R_BCA90[1], abs=5.5)
