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
    "methods_text",
    "provenance",
    "provenance_line",
    "unique",
]


def level_text(level: float) -> str:
    """``0.95`` as ``"95%"``.

    Examples
    --------
    >>> level_text(0.9)
    '90%'
    """
    return f"{level * 100:g}%"


def unique(values: Sequence[Any]) -> list[Any]:
    """The distinct values in their first order."""
    return list(dict.fromkeys(values))


def methods_text(methods: Any, level: float | None) -> tuple[str, bool]:
    """The methods part of a footer, each method named once with its kind where kinds mix
    (a closed form is always said to be one), and whether every one is a closed form.

    ``methods``: one name, a list, or ``{"systems": ..., "pairs": ...}`` where the systems'
    and the differences' methods differ.

    Examples
    --------
    >>> methods_text({"systems": "jeffreys", "pairs": ["tango", "bca"]}, 0.95)[0]
    '95% intervals: systems jeffreys (closed form); pairs tango (closed form), bca (bootstrap)'
    >>> methods_text(["jeffreys", "bca"], 0.95)[0]
    '95% jeffreys (closed form), bca (bootstrap) intervals'
    >>> methods_text("bca", 0.9)
    ('90% bca intervals', False)
    """

    pct = f"{level_text(level)} " if level is not None else ""
    groups = methods if isinstance(methods, dict) else {"": methods}
    every = [
        x for v in groups.values() for x in (v if isinstance(v, list | tuple) else [v])
    ]  # fmt: skip
    closed_only = bool(every) and all(x in CLOSED_FORMS for x in every)
    mixed = any(x in CLOSED_FORMS for x in every) and not closed_only

    def named(names: Any) -> str:
        listed = unique(names if isinstance(names, list | tuple) else [names])
        return ", ".join(
            f"{x} (closed form)" if x in CLOSED_FORMS else f"{x} (bootstrap)" if mixed else x
            for x in listed
        )

    if len(set(every)) == 1 or not isinstance(methods, dict):
        return f"{pct}{named(every)} intervals", closed_only
    listed = "; ".join(f"{what} {named(v)}" for what, v in groups.items())
    return f"{pct}intervals: {listed}", closed_only


#: the suffix of a design run on the compiled engine
ENGINE = ", numba engine"


def provenance_line(prov: dict[str, Any], resampled_for: str = "the distributions") -> str:
    """One footer line: each method named once (a closed form said to be one), the design
    once, then ``B`` and the seed (said to serve the bootstrap only where a closed form
    gave every interval)."""

    parts = []
    methods = prov.get("method")
    closed_only = False
    if methods is not None:
        text, closed_only = methods_text(methods, prov.get("confidence_level"))
        parts.append(text)
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
    if note.startswith(("system ", "systems ")):
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
