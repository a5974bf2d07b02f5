"""The longer evidence of :data:`booteval.inference.auto_method.RULES`' rows, each the atlas
cells (``"; "``-separated, :mod:`booteval.inference.atlas_cite` reads them) and the study
behind one row of ``method="auto"``'s rule."""

from __future__ import annotations

__all__ = [
    "AUC_FEW_ROWS_EVIDENCE",
    "BOUNDED_MEAN_EVIDENCE",
    "FEW_CLUSTERS_T_EVIDENCE",
    "JACKKNIFE_T_EVIDENCE",
    "MEAN_FEW_CLUSTERS_EVIDENCE",
    "PEARSON_EVIDENCE",
    "PEARSON_TRANSFORM_EVIDENCE",
    "TANGO_EVIDENCE",
]

#: the evidence for the jackknife t interval (over rows, on Fisher's z scale) for Pearson's r
#: on independent rows (benchmarks/pearson_families.py, benchmarks/atlas_families.py)
PEARSON_EVIDENCE = (
    "Pearson r, bivariate normal, n = 20: jackknife t 94.0 %, percentile 92.1 %, BCa 93.1 %; "
    "bivariate normal, n = 50: 96.0 %, 94.3 %, 94.4 %; bivariate normal, n = 1,000: 95.9 %, "
    "95.8 %, 95.7 %; lognormal margins, n = 20: 92.4 %, 92.0 %, 89.8 %; lognormal margins, "
    "n = 200: 93.6 %, 93.2 %, 88.5 %; bivariate t3, n = 50: 93.9 %, 92.3 %, 89.4 %; "
    "bivariate t3, n = 1,000: 94.6 %, 92.7 %, 87.2 %; held out after the choice, a 1-5 "
    "rating against a continuous score, n = 20: 94.4 %, 91.9 %, 92.9 %; held out, two "
    "ratings, n = 50: 95.7 %, 94.0 %, 94.3 %; held out, heteroscedastic noise, n = 200: "
    "93.9 %, 93.3 %, 93.0 %; held out, a contaminated normal, n = 50: 85.1 %, 80.4 %, "
    "80.7 %; 1,000 data sets a cell, benchmarks/pearson_families.py; over the 16 held-out "
    "cells 11 in band against 7 for the percentile interval and 8 for BCa, mean distance "
    "from 95 % 2.2 points against 3.8 and 3.3, never farther from 95 % than either by more "
    "than Monte Carlo error; the bootstrap still runs, for with_method"
)
#: the evidence for CR2 (on the scores' natural scale) for a clustered mean with fewer than
#: 10 clusters (``VERY_FEW_CLUSTERS``) (benchmarks/range_check.py)
MEAN_FEW_CLUSTERS_EVIDENCE = (
    "averaged epochs (scores in [0, 1], clusters of geometric sizes, held out, 1,000 data "
    "sets a cell), n = 16, 4 clusters: CR2 97.2 %, symmetric bootstrap-t 97.6 % (277 of "
    "them infinite, 901 outside [0, 1]); n = 24, 6 clusters: 95.7 %, 92.8 %; n = 32, 8 "
    "clusters: 95.3 %, 92.0 %; lognormal scores, n = 16, 4 clusters: 93.1 %, 94.0 % "
    "(median widths 4.8 and 11.6); lognormal scores, n = 32, 8 clusters: 90.4 %, 89.2 %; "
    "skewed paired "
    "scores, n = 45, 5 clusters: CR2 95.7 %, BCa 82.9 %"
)
#: the evidence for the quasi-binomial Wilson interval for a mean of [0, 1] scores on
#: independent rows (benchmarks/evalstats_comparison.py)
BOUNDED_MEAN_EVIDENCE = (
    "scores in [0, 1], 80 % exact 1s, n = 10: quasi-Wilson 95.2 %; 0 / 0.5 / 1 scores, "
    "n = 10: 96.2 %; Beta(1, 20) scores, n = 10: 92.6 %; over 13 shapes and 11 sizes from 10 "
    "to 100, 4,000 data sets each, 138 of 143 conditions within 1.5 points of 95 % (the "
    "logit-t interval: 134), mean distance from 95 % 0.49 points (0.58)"
)
#: the evidence for Newcombe's score interval for ROC-AUC with few rows of one class
#: (benchmarks/auc_score.py)
AUC_FEW_ROWS_EVIDENCE = (
    "ROC-AUC of binormal scores, n = 100, AUC 0.76, prevalence 0.05 (5 rows of the rarer "
    "class): Newcombe 95.6 %, BCa 84.7 %, DeLong bootstrap-t 94.1 %; n = 100, AUC 0.92: "
    "95.3 %, 82.9 %, 95.4 %; n = 60, AUC 0.98: 96.1 %, 48.8 %, 49.4 %; n = 20, AUC 0.98, "
    "prevalence 0.3: 96.6 %, 44.6 %, 44.7 % (1,000 data sets a cell, "
    "benchmarks/auc_score.py); the rule, Newcombe below 8 rows of the rarer class and BCa "
    "from 8, over 224 cells of binormal (fitted), held-out and fresh families (exponential, "
    "unequal spreads, rounded probabilities, Beta, ratings, mixtures): 113 in band against "
    "BCa's 83, never farther from 95 % than BCa by more than Monte Carlo error (from 9 "
    "rows Newcombe's model variance is too small for a mixture of easy and hard positives); "
    "on 48 cells of 3 families run after the threshold was fixed: 28 in band against 22, "
    "lowest 89.9 % against 57.1 %; "
    "with strata too: resampled within classes (the class sizes fixed) the atlas's ROC-AUC "
    "at 20 rows covers 96.5 % with Newcombe's interval and 95.0 % with BCa, but with every "
    "positive above every negative the stratified bootstrap gives a point; on the 17 "
    "families resampled within classes, run after the threshold was fixed, 129 of 272 cells "
    "in band against BCa's 91, none farther from 95 % than BCa by more than Monte Carlo "
    "error; "
    "with near-perfect separation the bootstrap-t has replicates of zero standard error "
    "and an infinite endpoint"
)
#: the evidence for the cluster jackknife t interval for a metric without an analytic
#: standard error and fewer than 30 clusters (the coverage atlas's grid)
JACKKNIFE_T_EVIDENCE = (
    "average precision, n = 50, 5 clusters: jackknife t 93.8 %, nested bootstrap-t 88.0 %, "
    "BCa 80.0 %; n = 50, 10 clusters: jackknife t 94.3 %, nested bootstrap-t 92.4 %, BCa "
    "87.5 %; n = 200, 10 clusters: jackknife t 94.0 %, BCa 87.2 %; n = 1,000, 5 clusters: "
    "jackknife t 91.3 %, BCa 79.3 %; Kendall, n = 20, 5 clusters: jackknife t 95.8 %, BCa "
    "88.5 %; Kendall, n = 50, 5 clusters: jackknife t 93.2 %, nested bootstrap-t 88.8 %, BCa "
    "82.2 %; Kendall, n = 200, 5 clusters: jackknife t 85.2 %, BCa 69.0 %; the nested "
    "bootstrap-t figures are the rule before as ci ran it, with the jackknife t where its "
    "interval spans the whole range (the atlas columns, which count those as covering, read "
    "94.5 to 95.8 %); held out, clusters of "
    "geometric sizes: Kendall 93.7 to 94.3 %, average precision 91.9 to 93.8 %, BCa 65.5 to "
    "85.2 % (benchmarks/few_cluster_fallback.py); it costs one evaluation of the metric a "
    "cluster, not B times an inner bootstrap"
)
#: the evidence for the percentile interval of Pearson's r on independent rows
#: (benchmarks/atlas_families.py)
PEARSON_TRANSFORM_EVIDENCE = (
    "Pearson r, lognormal margins, n = 20: percentile 93.5 %, studentized 86.2 %, BCa "
    "90.2 %; n = 50: 95.2 %, 92.5 %, 90.2 %; n = 300: 94.0 %, 92.2 %, 89.8 %; bivariate "
    "t3 (held out), n = 50: 91.5 %, 90.5 %, 87.5 %; n = 300: 93.2 %, 93.2 %, 88.2 %; "
    "bivariate normal (the grid's own data sets), n = 20: 90.5 %, 95.0 %, 91.5 %; "
    "n = 50: 92.8 %, 95.5 %, 92.8 %; n = 1,000: 96.2 %, 95.0 %, 95.5 % (400 data sets "
    "a cell, benchmarks/atlas_families.py); fitted on lognormal margins and the grid "
    "together, the percentile interval at every n is never farther from 95 % than BCa "
    "by more than Monte Carlo error, where the bootstrap-t below 50 rows is, on "
    "lognormal margins at 20 rows"
)
#: the evidence for Tango's score interval of a paired difference of accuracies with few
#: discordant rows (tests/test_paired_proportions.py)
TANGO_EVIDENCE = (
    "paired difference of accuracies, n = 50 (about 6 discordant rows): Tango 95.7 %, "
    "Newcombe 96.7 % (both exact), basic 94.5 %, BCa 91.0 %; n = 20: 98.8 %, 99.0 %, "
    "89.7 %, 70.1 %; n = 200: 95.0 %, 95.4 %, 94.9 %, 93.5 %; over 60 tables with "
    "fewer than 30 expected discordant rows (tests/test_paired_proportions.py), mean "
    "distance from 95 % 1.6 points against Newcombe's 2.2, lowest 93.6 % against 94.7 %; "
    "with every row the same difference (one system right wherever the other is "
    "wrong) the bootstrap gives a point, Tango's interval keeps a width"
)
#: the evidence for the symmetric bootstrap-t of a clustered metric with an analytic
#: standard error and fewer than 30 clusters (the coverage atlas's grid)
FEW_CLUSTERS_T_EVIDENCE = (
    "F1, n = 200, 5 clusters: the default 94.5 %, symmetric bootstrap-t 95.1 %, "
    "equal-tailed 93.2 %, BCa 83.4 %; ROC-AUC, n = 50, 5 clusters: 94.9 %, 96.1 %, "
    "94.8 %, 84.5 %; Pearson, n = 20, 5 clusters: 95.5 %, 96.0 %, 93.5 %, 86.2 %; the "
    "bootstrap-t columns count as covering the intervals that span the whole range (a "
    "tenth to a third of the data sets with 5 clusters), where the default gives the "
    "cluster jackknife t instead; over the 32 clustered cells of F1, macro-F1, ROC-AUC "
    "and Pearson with 5 or 10 clusters that this row takes, 25 in band against the "
    "equal-tailed one's 9 (BCa's 0)"
)
