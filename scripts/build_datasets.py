"""Rebuild the example data that ships in ``booteval.datasets`` from ``shared/data``.

The package holds gzip-compressed copies of the tidy CSV files described in
``shared/data/README.md`` (each built there from its source repository by its own
script). Compression is deterministic (no timestamp, no file name, level 9), so running
this twice gives the same bytes, and a test compares the packaged files with a rebuild.

Usage::

    python scripts/build_datasets.py [SHARED_DATA_DIR] [--out DIR]
"""

from __future__ import annotations

import argparse
import gzip
import io
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
#: packaged file name -> path under shared/data
SOURCES = {
    "mmlu_pro_correct.csv.gz": "mmlu_pro/mmlu_pro_correct.csv",
    "mmlu_pro_pred.csv.gz": "mmlu_pro/mmlu_pro_pred.csv",
    "summeval_long.csv.gz": "summeval/summeval_long.csv",
    "summeval_ratings.csv.gz": "summeval/summeval_ratings.csv",
    "wmt20_mqm_ende.csv.gz": "wmt20_mqm_ende/mqm_newstest2020_ende.csv",
}


def compress(data: bytes) -> bytes:
    """gzip ``data`` with no timestamp and no file name: the same bytes every time."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as fh:
        fh.write(data)
    return buf.getvalue()


def build(shared: Path, out: Path) -> dict[str, int]:
    """Write every packaged file into ``out``; return their sizes in bytes."""
    out.mkdir(parents=True, exist_ok=True)
    sizes = {}
    for name, source in SOURCES.items():
        data = compress((shared / source).read_bytes())
        (out / name).write_bytes(data)
        sizes[name] = len(data)
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("shared", nargs="?", type=Path, default=REPO.parent / "shared" / "data")
    parser.add_argument("--out", type=Path, default=REPO / "src" / "booteval" / "datasets")
    args = parser.parse_args()
    sizes = build(args.shared, args.out)
    for name, size in sizes.items():
        print(f"{name:28} {size:>9,} bytes")
    print(f"{'total':28} {sum(sizes.values()):>9,} bytes")


if __name__ == "__main__":
    main()
