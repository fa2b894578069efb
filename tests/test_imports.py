"""The project's import graph: no cycle, lazy imports included, and no private name imported
across packages.

The graph is built from the source with :mod:`ast`, not by importing anything: every
``import`` and ``from ... import`` statement of the project packages, at module level or
inside a function, is an edge from the importing module to the project module it names
(``from pkg import name`` names the submodule ``pkg.name`` when there is one, else the
package's ``__init__``). The registry's loaders, imported by name on first use
(:mod:`sdca_pegasos.data.registry`), are edges too.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: The import package every project package lives in (``sdca_pegasos.solvers``, ...).
PROJECT = "sdca_pegasos"
PACKAGES = ("cmdline", "solvers", "data", "experiments", "figures", "benchmarks", "compare")


def _folder(pkg: str) -> Path:
    """Where a package's sources are: the benchmarks at the top, the rest in the project's."""
    return ROOT / pkg if pkg == "benchmarks" else ROOT / PROJECT / pkg


def package_of(module: str) -> str | None:
    """The project package (a name of ``PACKAGES``) a dotted module name belongs to, or None
    for anything else (numpy, the top ``sdca_pegasos`` itself)."""
    parts = module.split(".")
    if parts[0] == PROJECT:
        return parts[1] if len(parts) > 1 and parts[1] in PACKAGES else None
    return parts[0] if parts[0] == "benchmarks" else None


def _modules() -> dict[str, Path]:
    mods = {}
    for pkg in PACKAGES:
        for path in sorted(_folder(pkg).rglob("*.py")):
            rel = path.relative_to(ROOT)
            parts = list(rel.with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            mods[".".join(parts)] = path
    return mods


MODULES = _modules()


def _source(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _imports(module: str, path: Path, source: str):
    """(line, target module, imported names or None) for every import statement."""
    tree = ast.parse(source, filename=str(path))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, None
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module
            yield node.lineno, target, [a.name for a in node.names]


def import_graph() -> dict[str, set[str]]:
    """Module -> the project modules it imports (anywhere in its source)."""
    graph = {}
    for module, path in MODULES.items():
        deps = set()
        for _, target, names in _imports(module, path, _source(path)):
            if names is None:
                # `import a.b.c` runs a, a.b and a.b.c
                parts = target.split(".")
                deps |= {".".join(parts[:i]) for i in range(1, len(parts) + 1)}
            else:
                for name in names:
                    sub = f"{target}.{name}"
                    deps.add(sub if sub in MODULES else target)
        graph[module] = {d for d in deps if d in MODULES and d != module}
    from sdca_pegasos.data import registry

    for entry in registry.DATASETS.values():
        if isinstance(entry.loader, str):
            graph["sdca_pegasos.data.registry"].add(entry.loader.partition(":")[0])
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as a list of modules (first == last), or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node):
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*path[path.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_graph_sees_lazy_and_relative_imports():
    graph = import_graph()
    assert (
        "sdca_pegasos.data.blood.cache" in graph["sdca_pegasos.data.blood.pca"]
    )  # `from .cache import ...`
    assert (
        "sdca_pegasos.figures.beyond_lambda" in graph["sdca_pegasos.figures.scorecard"]
    )  # inside a function
    assert (
        "sdca_pegasos.data.blood" in graph["sdca_pegasos.figures.images"]
    )  # `from sdca_pegasos.data import blood`, lazy
    assert (
        "sdca_pegasos.data.blood.loader" in graph["sdca_pegasos.data.registry"]
    )  # the registry's named loaders


def test_cmdline_is_the_bottom_floor():
    """Every command line imports its argument types from :mod:`sdca_pegasos.cmdline`, which
    imports no project package (no upward import from data, the lowest package that uses it)."""
    graph = import_graph()
    assert graph["sdca_pegasos.cmdline"] == set()
    for user in (
        "sdca_pegasos.data.__main__",
        "sdca_pegasos.experiments.__main__",
        "benchmarks.optima",
    ):
        assert "sdca_pegasos.cmdline" in graph[user], user


#: The floors of the layout, bottom first: a package imports only from floors below its own
#: (benchmarks and the solvers sit beside each other: both only read from below).
FLOORS = {"cmdline": 0, "solvers": 1, "data": 1, "experiments": 2, "figures": 3,
          "benchmarks": 3, "compare": 4}  # fmt: skip


def test_no_import_runs_up_a_floor():
    """``compare`` stands above ``experiments`` and ``figures``: nothing below imports it, and
    no package imports one of its own floor or above (lazy imports included)."""
    assert set(FLOORS) == set(PACKAGES)
    upward = sorted(
        f"{a} -> {b}"
        for a, deps in import_graph().items()
        for b in deps
        if package_of(a) != package_of(b) and FLOORS[package_of(b)] >= FLOORS[package_of(a)]
    )
    assert not upward, upward


def test_find_cycle_finds_one():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_no_import_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def _private_uses(module: str, path: Path, source: str):
    """Private names of another project package used by ``module``: imported
    (``from solvers._base import X``, ``from figures import _common``) or read as an
    attribute of an imported project module (``sdca._sdca_epoch``)."""
    own = package_of(module)
    tree = ast.parse(source, filename=str(path))
    bound = {}  # local name -> project module it is bound to
    for line, target, names in _imports(module, path, source):
        if target == PROJECT:  # `from sdca_pegasos import solvers`: names whole packages
            bound |= {n: f"{PROJECT}.{n}" for n in names or [] if n in PACKAGES and n != own}
            continue
        if package_of(target) in (None, own):
            continue
        skip = 1 + (target.split(".")[0] == PROJECT)
        parts = target.split(".")[skip:] + (names or [])
        for part in parts:
            if part.startswith("_") and not part.startswith("__"):
                yield f"{path.relative_to(ROOT)}:{line}: imports {target} {names or ''}"
        for name in names or []:
            if f"{target}.{name}" in MODULES:
                bound[name] = f"{target}.{name}"
    for node in ast.walk(tree):
        if isinstance(node, ast.alias) and node.asname and node.name in bound:
            bound[node.asname] = bound[node.name]
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in bound
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            where = f"{path.relative_to(ROOT)}:{node.lineno}"
            yield f"{where}: uses {bound[node.value.id]}.{node.attr}"


def test_the_private_name_check_catches_both_forms():
    probe = ROOT / "benchmarks" / "probe.py"  # never written: the source is given
    source = (
        "from sdca_pegasos.solvers.driver.estimator import _fingerprint\n"
        "from sdca_pegasos.solvers.sdca import asdca as m\n"
        "from sdca_pegasos.figures import _common\n"
        "m._asdca_epoch\n"
        "from sdca_pegasos.data import fetch\nfetch.available\n"
    )
    found = list(_private_uses("benchmarks.probe", probe, source))
    assert len(found) == 3, found
    assert any("driver.estimator ['_fingerprint']" in f for f in found)
    assert any("_common" in f for f in found)
    assert any("sdca_pegasos.solvers.sdca.asdca._asdca_epoch" in f for f in found)


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_across_packages(module):
    found = list(_private_uses(module, MODULES[module], _source(MODULES[module])))
    found += _private_attributes(module, MODULES[module], _source(MODULES[module]))
    assert not found, "\n".join(found)


@pytest.mark.parametrize("path", sorted((ROOT / "tools").glob("*.py")), ids=lambda p: p.name)
def test_no_tool_reads_a_private_name_of_the_project(path):
    """tools/ (developers' measurements, the mutation runner) reach the solvers through the
    names they export for it (e.g. ``asdca.epoch_kernel``), never a private one."""
    module = f"tools.{path.stem}"
    found = list(_private_uses(module, path, _source(path)))
    found += _private_attributes(module, path, _source(path))
    assert not found, "\n".join(found)


def _private_definitions(source: str) -> set[str]:
    """Private names a module defines: functions, classes, methods, class attributes, module
    variables, and attributes it assigns on ``self``/``cls``/any object (``x._y = ...``)."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
            names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _package_privates() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {pkg: set() for pkg in PACKAGES}
    for module, path in MODULES.items():
        out[package_of(module)] |= _private_definitions(_source(path))
    return out


PRIVATES = _package_privates()


def _private_attributes(module: str, path: Path, source: str, privates=None) -> list[str]:
    """Attributes read on any object (``est._loss_gamma()``, ``cls._supports_sparse``) whose
    private name only another project package defines: a reach into its internals."""
    privates = PRIVATES if privates is None else privates
    own = package_of(module)
    found = []
    for node in ast.walk(ast.parse(source, filename=str(path))):
        if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load)):
            continue
        name = node.attr
        if not name.startswith("_") or name.startswith("__") or name in privates[own]:
            continue
        owners = sorted(pkg for pkg, names in privates.items() if name in names)
        if owners:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}: reads .{name} of {owners}")
    return found


def test_the_private_attribute_check_catches_a_reach_into_another_package():
    probe = ROOT / PROJECT / "experiments" / "probe.py"  # never written: the source is given
    privates = {pkg: set() for pkg in PACKAGES}
    privates["solvers"] = {"_loss_gamma", "_has_dual"}
    privates["experiments"] = {"_own"}
    source = "est._loss_gamma()\nx = est._has_dual\nself._own\nfig._suptitle\n"
    found = _private_attributes("sdca_pegasos.experiments.probe", probe, source, privates)
    assert len(found) == 2, found
    assert any("._loss_gamma" in f for f in found) and any("._has_dual" in f for f in found)


def _longest_chain(graph: dict[str, set[str]], inside: str) -> list[str]:
    """The longest import chain among the modules under ``inside`` (a list of modules, the
    importer first): how many floors deep that package is."""
    local = {m: {d for d in deps if d.startswith(inside)} for m, deps in graph.items()}
    local = {m: deps for m, deps in local.items() if m.startswith(inside)}
    memo: dict[str, list[str]] = {}

    def chain(module):
        if module not in memo:
            below = [chain(d) for d in sorted(local.get(module, ()))]
            memo[module] = [module, *max(below, key=len, default=[])]
        return memo[module]

    return max((chain(m) for m in sorted(local)), key=len, default=[])


def test_the_longest_chain_is_found():
    graph = {"p.a": {"p.b", "p.c"}, "p.b": {"p.c"}, "p.c": {"q.x"}, "q.x": set()}
    assert _longest_chain(graph, "p") == ["p.a", "p.b", "p.c"]


def test_solvers_is_at_most_ten_floors_deep_in_rooms_of_at_most_ten():
    """ "One fit loop"'s layout targets: the solvers' longest import chain at most 10 modules
    (it was 15 before the rooms, 12 after, when ``row_sq_norms`` sat in ``objectives``), its
    top level at most 12 modules, no folder in it over 10."""
    chain = _longest_chain(import_graph(), f"{PROJECT}.solvers")
    assert len(chain) <= 10, " -> ".join(chain)
    solvers = ROOT / PROJECT / "solvers"
    assert len(list(solvers.glob("*.py"))) <= 12
    for folder in (p for p in solvers.iterdir() if p.is_dir() and p.name != "__pycache__"):
        assert len(list(folder.glob("*.py"))) <= 10, folder.name
