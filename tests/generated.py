"""Checks that a committed document's generated block is what its committed record gives."""

from __future__ import annotations

import shutil
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def regenerated(main, doc: str, records, tmp_path: Path) -> str:
    """Run a benchmark's ``main(["--readme", COPY, "--record", *records])`` on a copy of
    ``doc`` (a path in the checkout) and assert the copy did not change: a block edited by
    hand, or a record committed without ``--readme``, fails. Returns the text."""
    copy = tmp_path / Path(doc).name
    shutil.copy(ROOT / doc, copy)
    main(["--readme", str(copy), "--record", *[str(ROOT / r) for r in records]])
    text = copy.read_text()
    assert text == (ROOT / doc).read_text(), f"{doc}'s generated block is not its record's"
    return text
