"""What every report's footer says: the methods (closed forms named as such), the design,
``B``, the seed and the version, once each, and the notes (``method="auto"``'s reasons said
once for all)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .core.intervals import CLOSED_FORMS
from .version import __version__

__all__ = [
    "AUTO_NOTE",
    "ENGINE",
    "auto_reason",
    "collapse",
    "footer_notes",
    "level_text",
    "provenance",
    "provenance_line",
    "unique",
]


def level_text(level: float) -> str:
    return f"{level * 100:g}%"


def unique(values: Sequence[Any]) -> list[Any]:
    return list(dict.fromkeys(values))


#: the suffix of a design run on the compiled engine
ENGINE = ", numba engine"


def provenance_line(prov: dict[str, Any], resampled_for: str = "the distributions") -> str:
    """One footer line: each method named once (a closed form said to be one), the design
    once, then ``B`` and the seed (said to serve the bootstrap only where a closed form
    gave every interval)."""

    def named(methods: Any) -> str:
        listed = methods if isinstance(methods, list) else [methods]
        return ", ".join(f"{x} (closed form)" if x in CLOSED_FORMS else x for x in listed)

    parts = []
    level = prov.get("confidence_level")
    methods = prov.get("method")
    closed_only = False
    pct = f"{level_text(level)} " if level is not None else ""
    if isinstance(methods, dict):  # the systems' (as ci) and the differences' methods
        every = [x for v in methods.values() for x in (v if isinstance(v, list) else [v])]
        closed_only = all(x in CLOSED_FORMS for x in every)
        if len(set(every)) == 1:
            parts.append(f"{pct}{named(every[0])} intervals")
        else:
            listed = "; ".join(f"{what} {named(v)}" for what, v in methods.items())
            parts.append(f"{pct}intervals: {listed}")
    elif methods is not None:
        listed = methods if isinstance(methods, list) else [methods]
        closed_only = all(x in CLOSED_FORMS for x in listed)
        parts.append(f"{pct}{named(methods)} intervals")
    design = prov.get("design")
    if design:
        designs = design if isinstance(design, list) else [design]
        bases = unique([d.removesuffix(ENGINE) for d in designs])
        engine = sum(d.endswith(ENGINE) for d in designs)
        text = "; ".join(bases) + (
            ENGINE if engine == len(designs) else f"{ENGINE} where it applies" if engine else ""
        )
        parts.append(f"resampled for {resampled_for} only: {text}" if closed_only else text)
    b, seed = prov.get("n_resamples"), prov.get("seed")
    if b:
        parts.append(f"B = {b}, seed = {seed}")
    parts.append(f"booteval {prov['booteval']}")
    return "; ".join(parts)


def collapse(values: list[Any]) -> Any:
    u = unique(values)
    return u[0] if len(u) == 1 else u


def provenance(results: Sequence[Any], **extra: Any) -> dict[str, Any]:
    prov: dict[str, Any] = {
        "method": collapse([r.method for r in results]),
        "confidence_level": collapse([r.confidence_level for r in results]),
        "design": collapse([r.design for r in results]),
        "n_resamples": collapse([r.n_resamples for r in results]),
        "seed": collapse([r.seed for r in results]),
    }
    prov.update(extra)
    prov["booteval"] = __version__
    return prov


#: how the note of ``ci(method="auto")`` starts; a report says it once, not per result
AUTO_NOTE = "method='auto' chose "


def auto_reason(note: str) -> bool:
    """Whether ``note`` says why ``method="auto"`` chose a method (a leaderboard's notes
    name their system first)."""
    if note.startswith("system "):
        note = note.partition(": ")[2]
    return note.startswith(AUTO_NOTE)


def footer_notes(pairs: Sequence[tuple[str, Any]]) -> list[str]:
    out = []
    auto = False
    for label, r in pairs:
        notes = [n for n in r.notes if not auto_reason(n)]
        auto = auto or len(notes) < len(r.notes)
        out.extend(f"note ({label}): {n}" if label else f"note: {n}" for n in notes)
        if getattr(r, "n_undefined", 0):
            out.append(f"note ({label}): {r.n_undefined} undefined replicates dropped")
    if auto:
        out.insert(0, (
            "note: method='auto' chose each interval method from the coverage atlas (each "
            "result's notes say why)"
        ))  # fmt: skip
    return out
