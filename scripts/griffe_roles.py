"""A griffe extension for the API reference: numpydoc's Sphinx roles become links.

The docstrings cross-reference in Sphinx's way (``:func:`booteval.ci```,
``:class:`~booteval.metrics.Metric```), which mkdocstrings would show as raw text. Once the
package is loaded, every docstring's roles are rewritten as mkdocs-autorefs references: a
link where the target is on a page of the site, the name in code where it is not (an
optional reference, so a role naming an internal object never breaks the strict build).
``mkdocs.yml`` loads it (``extensions`` of the python handler).
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

#: a Sphinx role: ``:func:`name```, ``:py:class:`~pkg.Name```, ...
ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|mod|data|exc|obj|const|term):`(~?)([^`<>]+?)`")


def _target(obj: Any, name: str) -> str:
    """The full dotted name ``name`` stands for in ``obj``'s scope (as given if unknown)."""
    name = name.strip().lstrip(".")
    if name.startswith("booteval"):
        return name
    try:
        return obj.resolve(name.split(".")[0]) + name[len(name.split(".")[0]) :]
    except Exception:  # a name griffe cannot place: a reference by the name itself
        return f"booteval.{name}"


def convert(text: str, obj: Any) -> str:
    """``text`` with every role replaced by an optional autorefs reference."""

    def link(m: re.Match[str]) -> str:
        short, name = m.group(1), m.group(2).strip()
        shown = name.rsplit(".", 1)[-1] if short else name
        target = html.escape(_target(obj, name), quote=True)
        return (
            f'<autoref identifier="{target}" optional><code>{html.escape(shown)}</code></autoref>'
        )

    return ROLE.sub(link, text)


class SphinxRoles(griffe.Extension):
    """Rewrite the roles of every docstring of a loaded package."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        seen: set[int] = set()
        stack: list[Any] = [pkg]
        while stack:
            obj = stack.pop()
            if id(obj) in seen or obj.is_alias:
                continue
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = convert(obj.docstring.value, obj)
            stack.extend(obj.members.values())
