"""Deferred imports: heavy parts of SciPy, and the modules of a subpackage.

``scipy.stats`` takes more than half a second to import; most of booteval's work
never touches it. ``stats`` here behaves like the module but imports it on first
attribute access, so ``import booteval`` stays quick. :func:`submodule_getter` gives a
subpackage the module ``__getattr__`` that imports its modules on first access.
"""

from __future__ import annotations

from typing import Any

__all__ = ["stats", "submodule_getter"]


class _DeferredModule:
    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str) -> Any:
        import importlib

        return getattr(importlib.import_module(self._name), attr)


#: ``scipy.stats``, imported on first use
stats: Any = _DeferredModule("scipy.stats")


def submodule_getter(package: str) -> Any:
    """A module-level ``__getattr__`` for ``package``: ``package.name`` imports the module
    ``package.name`` on first access (an ``AttributeError`` where there is none).

    Examples
    --------
    >>> getter = submodule_getter("booteval.core")
    >>> getter("streams").__name__
    'booteval.core.streams'
    """

    def __getattr__(name: str) -> Any:
        import importlib

        try:
            return importlib.import_module(f"{package}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{package}.{name}":
                raise
            raise AttributeError(f"module {package!r} has no attribute {name!r}") from None

    return __getattr__
