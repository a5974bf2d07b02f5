"""The command line never changes the user's data and never writes where it should not.

Each test reproduces a case where an earlier version printed a wrong number with exit
status 0, overwrote a file, or failed only after printing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import booteval
from booteval.cli import main

pd = pytest.importorskip("pandas")


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main([*map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if "error" in line]
    assert len(lines) == 1, err
    return lines[0]


@pytest.fixture
def labels(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("a.csv").write_text("y,p\n1,1\n0,1\n1,1\n0,0\n1,1\n0,0\n")
    return tmp_path


# ---------------------------------------------------------------- text read as written
REF = ['"Hello," he said', "  The cat sat on the mat.", "A\ttab here", "It's 'quoted'"]
HYP = ['"Hello," he said', "  The cat sat on a mat.", "A\ttab here", "It is 'quoted'"]


def test_tsv_fields_keep_their_quotes(tmp_path, capsys):
    pytest.importorskip("sacrebleu")
    rows = [("ref", "hyp")] + [(r, h) for r, h in zip(REF, HYP, strict=True) if "\t" not in r]
    path = tmp_path / "q.tsv"
    path.write_text("".join(f"{r}\t{h}\n" for r, h in rows))
    code, out, _ = run(capsys, "ci", path, "--y-true", "ref", "--y-pred", "hyp", "-m", "bleu",
                       "-B", "50", "--seed", "1", "-f", "json", "-q")  # fmt: skip
    assert code == 0
    ref, hyp = zip(*rows[1:], strict=True)
    api = booteval.ci(list(ref), list(hyp), metric="bleu", n_resamples=50, seed=1)
    assert json.loads(out)["results"][0]["estimate"] == pytest.approx(api.estimate, abs=1e-12)


def test_plain_text_line_files_are_read_verbatim(tmp_path, capsys):
    pytest.importorskip("sacrebleu")
    (tmp_path / "ref.txt").write_text("\n".join(REF) + "\n")
    (tmp_path / "hyp.txt").write_text("\r\n".join(HYP))  # CRLF, no final line ending
    code, out, _ = run(capsys, "ci", tmp_path / "ref.txt", tmp_path / "hyp.txt", "--y-true", "ref",
                       "--y-pred", "hyp", "-m", "bleu", "-m", "chrf", "-B", "50", "--seed", "1",
                       "-f", "json", "-q")  # fmt: skip
    assert code == 0
    got = {r["metric"]: r["estimate"] for r in json.loads(out)["results"]}
    for metric in ("bleu", "chrf"):
        api = booteval.ci(REF, HYP, metric=metric, n_resamples=50, seed=1)
        assert got[metric] == pytest.approx(api.estimate, abs=1e-12)


def test_line_files_must_pair_line_by_line(tmp_path, capsys):
    (tmp_path / "ref.txt").write_text("a\nb\nc\n")
    (tmp_path / "hyp.txt").write_text("a\nb\n")
    code, _, err = run(capsys, "ci", tmp_path / "ref.txt", tmp_path / "hyp.txt", "--y-true",
                       "ref", "--y-pred", "hyp", "-m", "bleu")  # fmt: skip
    assert code == 2
    assert "hyp.txt" in one_error_line(err) and "2 lines" in err and "3" in err


def test_read_lines_keeps_spaces_quotes_and_empty_lines():
    from booteval.core.tables import read_lines

    class Stdin:
        def read(self):
            return 'x \n\n"q"\r\n'

    assert read_lines("-", stdin=Stdin()).to_dict("list") == {"line": ["x ", "", '"q"']}


# ---------------------------------------------------------------- nothing overwritten
def test_output_equal_to_an_input_is_refused_and_the_input_is_kept(labels, capsys):
    before = Path("a.csv").read_bytes()
    for target in ("a.csv", "./a.csv", str(labels / "a.csv")):
        code, out, err = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p", "-o", target)
        assert code == 2 and out == ""
        assert "input" in one_error_line(err) and "overwrite" in err
    code, _, err = run(capsys, "ci", "*.csv", "--y-true", "y", "--y-pred", "p", "-o", "a.csv")
    assert code == 2
    assert Path("a.csv").read_bytes() == before


@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--plot", "missing/fig.png", "does not exist"),
        ("-o", "missing/out.csv", "does not exist"),
        ("-o", ".", "directory"),
        ("--scale", "nan", "--scale nan"),
        ("--scale", "0", "--scale 0"),
        ("--digits", "-1", "--digits -1"),
        ("--digits", "99", "--digits 99"),
    ],
)
def test_bad_output_options_fail_before_any_output(labels, capsys, flag, value, needle):
    code, out, err = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p", "-B", "50",
                         flag, value)  # fmt: skip
    assert code == 2
    assert out == ""  # nothing printed: the check comes before the run
    assert needle in one_error_line(err)
    assert "warning" not in err  # the bootstrap never ran


def test_plot_and_output_may_not_be_the_same_file(labels, capsys):
    code, _, err = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p",
                       "--plot", "x.png", "-o", "./x.png")  # fmt: skip
    assert code == 2 and "same file" in err


# ---------------------------------------------------------------- columns that are not data
def test_duplicate_headers_are_refused(tmp_path, capsys):
    (tmp_path / "d.csv").write_text("y,p,p\n1,1,0\n0,0,1\n")
    (tmp_path / "d.tsv").write_text("y\tp\tp\n1\t1\t0\n0\t0\t1\n")
    for name in ("d.csv", "d.tsv"):
        code, _, err = run(capsys, "ci", tmp_path / name, "--y-true", "y", "--y-pred", "p")
        assert code == 2
        assert "'p' twice" in one_error_line(err)


def test_timestamps_and_list_columns_are_not_scores(tmp_path, capsys):
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"t": pd.date_range("2024-01-01", periods=6),
                          "l": [[1, 2]] * 6, "y": [1, 0, 1, 1, 0, 1]})  # fmt: skip
    frame.to_parquet(tmp_path / "t.parquet")
    (tmp_path / "t.jsonl").write_text(
        "".join(f'{{"timestamp": "2024-01-0{i}", "y": 1}}\n' for i in range(1, 7))
    )
    cases = [
        ("t.parquet", ["--score", "t"], "dates or times"),
        ("t.parquet", ["--score", "l"], "found a list"),
        ("t.parquet", ["--y-true", "y", "--y-pred", "l"], "found a list"),
        ("t.parquet", ["--score", "y", "--cluster", "l"], "scalar"),
        ("t.jsonl", ["--score", "timestamp"], "'2024-01-01'"),
    ]
    for name, cols, needle in cases:
        code, _, err = run(capsys, "ci", tmp_path / name, *cols, "-B", "50")
        assert code == 2, (name, cols, err)
        assert needle in one_error_line(err)


def test_a_glob_never_takes_an_id_column_for_a_system(tmp_path, capsys):
    (tmp_path / "w.csv").write_text(
        "doc_id,questionId,idx,model_a,model_b,y\n1,7,0,1,0,1\n2,8,1,0,1,1\n3,9,2,1,1,0\n"
    )
    code, out, _ = run(capsys, "ci", tmp_path / "w.csv", "--y-true", "y", "--y-pred", "*",
                       "-B", "50", "-f", "json", "-q")  # fmt: skip
    assert code == 0
    assert [r["system"] for r in json.loads(out)["results"]] == ["model_a", "model_b"]


def test_id_like_names():
    from booteval.core.tables import is_id_like

    ids = ["id", "ID", "doc_id", "task-id", "questionId", "docID", "idx", "sample_idx", "index",
           "Unnamed: 0", "doc_hash", "uuid"]  # fmt: skip
    systems = ["model_a", "valid", "paid", "grid", "Android", "ideal", "indexer", "gpt-4o", "PAID"]
    assert all(is_id_like(c) for c in ids)
    assert not any(is_id_like(c) for c in systems)


# ---------------------------------------------------------------- output that stays output
@pytest.fixture
def odd_names(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pd.DataFrame({
        "sys": ["a\nb"] * 6 + ["=HYPERLINK(\"x\")"] * 6 + ["-2+3"] * 6,
        "y": [1, 0, 1, 1, 0, 1] * 3, "p": [1, 1, 1, 0, 0, 1] * 3,
    }).to_csv("n.csv", index=False)  # fmt: skip
    return tmp_path


@pytest.mark.parametrize("fmt", ["text", "markdown", "latex"])
def test_names_with_line_breaks_keep_tables_one_line_per_row(odd_names, capsys, fmt):
    code, out, _ = run(capsys, "ci", "n.csv", "--system", "sys", "--y-true", "y", "--y-pred", "p",
                       "-B", "50", "--seed", "1", "-f", fmt, "-q")  # fmt: skip
    assert code == 0
    rows = [line for line in out.splitlines() if "0.6667" in line or "0.66667" in line]
    assert len(rows) == 3, out
    shown = "a\\textbackslash{}nb" if fmt == "latex" else "a\\nb"
    assert any(shown in line for line in rows)


def test_csv_output_cannot_start_a_spreadsheet_formula(odd_names, capsys):
    code, out, _ = run(capsys, "ci", "n.csv", "--system", "sys", "--y-true", "y", "--y-pred", "p",
                       "-B", "50", "--seed", "1", "-f", "csv", "-q")  # fmt: skip
    assert code == 0
    import csv
    import io

    records = list(csv.DictReader(io.StringIO(out)))
    assert [r["system"] for r in records] == ["a\nb", '\'=HYPERLINK("x")', "'-2+3"]
    for r in records:  # numbers stay numbers
        float(r["estimate"]), float(r["low"])
        assert not any(v.startswith(("=", "+", "@")) for v in r.values())


def test_json_writes_big_seeds_as_text_too(labels, capsys):
    big = 2**100 + 7  # e.g. the 128-bit integer of a spawned SeedSequence, passed back
    code, out, _ = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p", "-B", "50",
                       "--seed", str(big), "-f", "json", "-q")  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    assert doc["results"][0]["seed"] == big
    assert doc["results"][0]["seed_text"] == str(big)
    code, out, _ = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p", "-B", "50",
                       "-f", "json", "-q")  # fmt: skip
    drawn = json.loads(out)["results"][0]
    assert drawn["seed"] < 2**32 and "seed_text" not in drawn  # a drawn seed is short


# ---------------------------------------------------------------- errors on one line
def test_a_pasted_value_is_shortened_in_the_error(labels, capsys):
    code, _, err = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p",
                       "-m", "f1:average=" + "x" * 5000)  # fmt: skip
    assert code == 2
    line = one_error_line(err)
    assert len(line) < 500 and "characters)" in line and "`average`" in line


def test_without_pandas_the_command_says_what_to_install(labels):
    script = (
        "import sys; sys.modules['pandas'] = None\n"
        "from booteval.cli import main\n"
        "sys.exit(main(['ci', 'a.csv', '--y-true', 'y', '--y-pred', 'p']))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=labels, timeout=120)  # fmt: skip
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        'booteval ci: error: pandas is not installed; this needs it: pip install "booteval[cli]"'
    ]


@pytest.mark.parametrize(("module", "args", "extra"), [
    ("sacrebleu", ["ci", "t.csv", "--y-true", "r", "--y-pred", "h", "-m", "bleu"], "text"),
    ("matplotlib", ["ci", "a.csv", "--y-true", "y", "--y-pred", "p", "--plot", "f.png"], "plot"),
])  # fmt: skip
def test_a_missing_optional_module_names_its_own_extra(labels, module, args, extra):
    (labels / "t.csv").write_text("r,h\nthe cat sat,the cat sat\na dog,a dog ran\n")
    script = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "from booteval.cli import main\n"
        f"sys.exit(main({args!r}))\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                         cwd=labels, timeout=120)  # fmt: skip
    assert out.returncode == 2
    line = out.stderr.strip().splitlines()[-1]
    assert module in line and f"booteval[{extra}]" in line, out.stderr


def test_cli_and_api_agree_after_the_checks(labels, capsys):
    code, out, _ = run(capsys, "ci", "a.csv", "--y-true", "y", "--y-pred", "p", "-B", "200",
                       "--seed", "3", "-f", "json", "-q")  # fmt: skip
    assert code == 0
    api = booteval.ci(np.array([1, 0, 1, 0, 1, 0]), np.array([1, 1, 1, 0, 1, 0]),
                      metric="accuracy", n_resamples=200, seed=3)  # fmt: skip
    rec = json.loads(out)["results"][0]
    assert (rec["estimate"], rec["low"], rec["high"]) == (api.estimate, api.low, api.high)
