"""Deferred imports of heavy optional parts of SciPy.

``scipy.stats`` takes more than half a second to import; most of booteval's work
never touches it. ``stats`` here behaves like the module but imports it on first
attribute access, so ``import booteval`` stays quick.
"""

from __future__ import annotations

from typing import Any

__all__ = ["stats"]


class _DeferredModule:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import importlib

        return getattr(importlib.import_module(self._name), attr)


#: ``scipy.stats``, imported on first use
stats: Any = _DeferredModule("scipy.stats")
