"""The notebooks are stored without outputs and run top to bottom (tiny configuration)."""

from __future__ import annotations

import os
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))


def test_the_two_notebooks_exist():
    assert {p.name for p in NOTEBOOKS} >= {"image_processing.ipynb", "sdca_vs_pegasos.ipynb"}


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_stored_without_outputs(path):
    book = nbformat.read(path, as_version=4)
    for cell in book.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, path.name


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_runs_top_to_bottom(path, tmp_path, monkeypatch):
    monkeypatch.setenv("NOTEBOOK_TINY", "1")
    monkeypatch.setenv("MPLBACKEND", "Agg")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    monkeypatch.setenv("SVM_FIGURES_DIR", str(tmp_path / "figures"))
    book = nbformat.read(path, as_version=4)
    NotebookClient(
        book, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute()
    errors = [
        o
        for c in book.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "error"
    ]
    assert not errors
    warned = [  # a kernel's warnings are not pytest's: they reach the cells' stderr
        o.text
        for c in book.cells
        if c.cell_type == "code"
        for o in c.outputs
        if o.output_type == "stream" and "Warning" in o.text
    ]
    assert not warned
    assert os.environ.get("NOTEBOOK_TINY") == "1"
