"""The package layout: subpackages with one direction of imports, modules of a readable size.

Checked on the source text: no import cycle among modules (every import, at module level or
inside a function: a cycle closed through a function-level import is still a cycle of
dependencies), no module over 700 lines, no private name (a name or module starting with
``_``) imported from another subpackage, so each subpackage's surface is the names it means
to share, no compiled kernel that imports a metric (kernels read what a statistic
declares), and no random generator built outside the stream registry.

The one reverse dependency is at call time and by name: a result's ``plot()`` loads the
plotting layer (which sits above the results) through :func:`booteval.results.plot_result`.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import booteval

SRC = Path(booteval.__file__).parent
MAX_LINES = 700


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {_module_name(p): p for p in sorted(SRC.rglob("*.py"))}


def _imports(name: str, path: Path, *, top_level: bool) -> list[tuple[str, str, int]]:
    """(module, imported name, line) of each import of booteval (``from ... import`` and
    ``import booteval.x``)."""
    tree = ast.parse(path.read_text())
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    nodes = tree.body if top_level else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "booteval" and alias.name in MODULES:
                    parent, _, last = alias.name.rpartition(".")
                    out.append((parent or alias.name, last, node.lineno))
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "booteval":
                out += [(module, alias.name, node.lineno) for alias in node.names]
    return out


def _target(module: str, imported: str) -> str:
    sub = f"{module}.{imported}"
    return sub if sub in MODULES else module


def _subpackage(module: str) -> str:
    parts = module.split(".")
    if len(parts) > 2 or (len(parts) == 2 and MODULES[module].name == "__init__.py"):
        return parts[1]
    return "."  # booteval itself and its top-level modules


def test_no_module_is_over_700_lines():
    long = {n: len(p.read_text().splitlines()) for n, p in MODULES.items()}
    assert not {n: k for n, k in long.items() if k > MAX_LINES}


def test_no_import_cycles():
    graph = {
        name: {_target(m, i) for m, i, _ in _imports(name, path, top_level=False)} - {name}
        for name, path in MODULES.items()
    }
    state: dict[str, int] = {}
    cycles: list[list[str]] = []

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append([*stack[stack.index(nxt) :], nxt])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    assert not cycles


def test_no_private_name_is_imported_across_subpackages():
    crossing = []
    for name, path in MODULES.items():
        for module, imported, line in _imports(name, path, top_level=False):
            target = _target(module, imported)
            if _subpackage(target) == _subpackage(name):
                continue
            private = [p for p in target.split(".") if p.startswith("_")]
            dunder = imported.startswith("__")
            if private or (target == module and imported.startswith("_") and not dunder):
                crossing.append(f"{path.relative_to(SRC)}:{line} {module} import {imported}")
    assert not crossing


def test_compiled_kernels_import_no_metric():
    """The kernel is chosen from what a statistic declares (``kernel``,
    ``compiled_statistic``), so no kernel module needs a metric class."""
    kernels = [n for n in MODULES if n.startswith("booteval.core.") and "kernel" in n]
    assert "booteval.core.kernel_plan" in kernels and len(kernels) > 8
    bad = [
        f"{n}:{line} {module}"
        for n in kernels
        for module, _, line in _imports(n, MODULES[n], top_level=False)
        if module.startswith("booteval.metrics")
    ]
    assert not bad


def test_the_auto_rule_imports_no_metric_class():
    """``method="auto"`` reads the family a metric declares (``auto_family``,
    ``row_scores``): no ``isinstance`` on metric classes, so it imports none."""
    name = "booteval.inference.auto_method"
    bad = [
        f"{module}.{imported}:{line}"
        for module, imported, line in _imports(name, MODULES[name], top_level=False)
        if module.startswith("booteval.metrics") and imported != "Metric"
    ]
    assert not bad
    assert "isinstance(m" not in MODULES[name].read_text()


def test_random_generators_come_from_the_stream_registry():
    """Only :mod:`booteval.core.streams` builds a generator or a seed sequence."""
    pattern = r"(default_rng|SeedSequence|np\.random\.(Generator|PCG64|Philox))\("
    assert not _code_lines_matching(pattern, "booteval.core.streams")


def test_one_function_runs_the_engine():
    """``core.engine.run_engine`` is the only way into the engine: no other module calls the
    loop (``run_replicates``) or picks a compiled runner (``compiled_runner``,
    ``compiled_with``) itself."""
    pattern = r"\b(run_replicates|compiled_runner|compiled_with|run_on_engine)\("
    assert not _code_lines_matching(pattern, "booteval.core.engine")


def _code_lines_matching(pattern: str, allowed: str) -> list[str]:
    """``file:line: text`` of each line of code (not a comment or a doctest) that matches
    ``pattern``, in every module but ``allowed``."""
    regex = re.compile(pattern)
    found = []
    for name, path in MODULES.items():
        if name == allowed:
            continue
        for i, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            if regex.search(code) and ">>>" not in code and "..." not in code[:8]:
                found.append(f"{path.relative_to(SRC)}:{i}: {line.strip()}")
    return found
