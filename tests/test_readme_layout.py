"""The README's Layout names every module of the project, and nothing that is not there."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = (
    "sdca_pegasos/solvers",
    "sdca_pegasos/data",
    "sdca_pegasos/experiments",
    "sdca_pegasos/compare",
    "sdca_pegasos/figures",
    "sdca_pegasos/cmdline",
    "benchmarks",
    "tools",
)


def _layout() -> str:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    start = text.index("\n## Layout")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else len(text)]


def _named(layout: str) -> set[str]:
    """Module paths the Layout names: `pkg/` then `module.py` entries within its paragraph."""
    named = set()
    for block in re.split(r"\n(?=\*\*`)", layout):
        head = re.match(r"\*\*`([\w/]+/)`\*\*", block)
        if not head:
            continue
        for name in re.findall(r"`([\w/]+\.py)`", block):
            named.add(head.group(1) + name)
    return named


def test_the_layout_names_every_module_and_only_those():
    modules = {
        str(p.relative_to(ROOT))
        for pkg in PACKAGES
        for p in (ROOT / pkg).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    modules |= {str(p.relative_to(ROOT)) for p in (ROOT / "sdca_pegasos").glob("*.py")}
    named = _named(_layout())
    assert not modules - named, f"modules the README's Layout omits: {sorted(modules - named)}"
    assert not named - modules, (
        f"the Layout names files that do not exist: {sorted(named - modules)}"
    )


def test_the_layout_check_sees_an_omission():
    layout = (
        "## Layout\n\n**`s/solvers/`** `a.py` one; `b.py` two.\n\n**`s/data/`** `c.py` three.\n"
    )
    assert _named(layout) == {
        "s/solvers/a.py",
        "s/solvers/b.py",
        "s/data/c.py",
    }
