"""The project's commands and imports work from any folder, whatever the folder holds.

Every package lives in one import package, ``sdca_pegasos``, named after the distribution.
Before, the packages were top-level ``data``, ``solvers``, ``experiments``, ``figures``,
``compare`` and ``cmdline``: with the editable install, ``python -m compare`` run from a
folder holding a ``data/`` subfolder (most users' project folders do) imported the user's
folder instead of the project's package and failed with ``ImportError: cannot import name
'Dataset' from 'data'``; a local ``solvers/`` broke ``import solvers`` the same way. The
commands run here are the README's, from a folder holding each of those names as a plain
folder, a package and a module, and the user's own names still import the user's modules.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: The project's old top-level names, each planted in the user's folder in the three forms
#: Python can import it as: a plain folder (a namespace package), a package, a module.
OLD_NAMES = ("data", "solvers", "experiments", "figures", "compare", "cmdline")
FORMS = ("folder", "package", "module")


def _plant(folder: Path, form: str) -> None:
    """The user's own ``data``, ``solvers``, ... in ``folder``, each of which says it is the
    user's when imported (``USERS = True``) and fails loudly when run as ``-m``."""
    for name in OLD_NAMES:
        if form == "folder":
            (folder / name).mkdir()
            (folder / name / "notes.txt").write_text("the user's own files\n")
            continue
        body = f"USERS = True\nif __name__ == '__main__':\n    raise SystemExit('user {name}')\n"
        if form == "package":
            (folder / name).mkdir()
            (folder / name / "__init__.py").write_text("USERS = True\n")
            (folder / name / "__main__.py").write_text(body)
        else:
            (folder / f"{name}.py").write_text(body)


def _run(args: list[str], cwd: Path, timeout: int = 600) -> subprocess.CompletedProcess:
    # the environment of a user's shell: no PYTHONPATH pointing at the checkout
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True,
        timeout=timeout, check=False,
    )  # fmt: skip


@pytest.fixture
def user_file(tmp_path_factory) -> Path:
    """A small separable CSV, as a user keeps it (written to each folder by the tests)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((60, 3))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, "yes", "no")
    lines = ["a,b,c,label"] + [
        f"{r[0]:.6f},{r[1]:.6f},{r[2]:.6f},{lab}" for r, lab in zip(X, y, strict=True)
    ]
    path = tmp_path_factory.mktemp("file") / "mine.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
def test_compare_runs_from_a_folder_holding_the_old_names(tmp_path, user_file, form):
    """``python -m sdca_pegasos.compare`` from a folder with a ``data/`` (and the other old
    names) writes its summary; the user's CSV sits in that ``data/`` when it is a folder."""
    _plant(tmp_path, form)
    source = tmp_path / "data" / "mine.csv" if form == "folder" else tmp_path / "mine.csv"
    source.write_bytes(user_file.read_bytes())
    done = _run(
        ["-m", "sdca_pegasos.compare", str(source.relative_to(tmp_path)), "--out", "out",
         "--solvers", "sdca-perm", "pegasos", "--seeds", "1", "--max-epochs", "2", "--quiet"],
        tmp_path,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    summary = (tmp_path / "out" / "SUMMARY.md").read_text(encoding="utf-8")
    assert "SDCA" in summary and "Pegasos" in summary
    assert "user " not in done.stderr  # no user module ran


@pytest.mark.parametrize("form", FORMS)
def test_the_project_imports_and_commands_ignore_the_users_names(tmp_path, form):
    """From such a folder: the estimators import and fit (converged: gap at most tol), and the
    commands of the README's data, experiments and figures sections answer."""
    _plant(tmp_path, form)
    code = (
        "import numpy as np\n"
        "from sdca_pegasos.solvers import SDCAClassifier\n"
        "from sdca_pegasos import data\n"
        "assert not hasattr(data, 'USERS') and hasattr(data, 'load')\n"
        "rng = np.random.default_rng(0)\n"
        "X = rng.standard_normal((80, 4)); y = np.where(X[:, 0] > 0, 1, -1)\n"
        "est = SDCAClassifier(lmbd=0.1, tol=1e-8, max_epochs=500, random_state=0).fit(X, y)\n"
        "print(bool(est.converged_))\n"
    )
    done = _run(["-c", code], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True"]
    # `data status` exits 1 while a dataset is missing (a fresh checkout has none fetched)
    for args, codes, says in [
        (["-m", "sdca_pegasos.data", "status"], (0, 1), "skin"),
        (["-m", "sdca_pegasos.experiments", "list", "--names"], (0,), "001_simulated"),
        (["-m", "sdca_pegasos.figures", "list"], (0,), "study001_table2"),
    ]:
        done = _run(args, tmp_path)
        assert done.returncode in codes and says in done.stdout, (args, done.stderr)
        assert done.stderr == "", (args, done.stderr)


@pytest.mark.parametrize("form", ("package", "module"))
def test_the_users_own_names_still_import_theirs(tmp_path, form):
    """The converse: with the project installed, a user's ``import data`` (or ``solvers``,
    ...) in their own folder is the user's module, not one of the project's."""
    _plant(tmp_path, form)
    code = "; ".join(f"import {n}; assert {n}.USERS, {n}.__file__" for n in OLD_NAMES)
    done = _run(["-c", code], tmp_path)
    assert done.returncode == 0, done.stderr


def test_no_top_level_module_but_the_project_package():
    """The distribution installs one top-level import name (pyproject's package find), so
    nothing it ships can shadow, or be shadowed by, a user's ``data`` or ``solvers``."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert config["tool"]["setuptools"]["packages"]["find"]["include"] == ["sdca_pegasos*"]
    tops = {p.name for p in ROOT.iterdir() if (p / "__init__.py").is_file()}
    assert tops - {"benchmarks", "tests", "tools"} == {"sdca_pegasos"}, tops
