"""Evaluations of a method rather than of one set of predictions: seeds, training bootstrap,
cross-validation, out-of-bag error, wild and multilabel bootstraps, thresholds, and repeated
samples per item (pass@k)."""
