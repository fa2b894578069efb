"""Reports -> figure data: the same lines, bands, labels, captions and tables as recorded.

The golden files were captured from the code *before* figures became a registry of plot kinds
and claims a table (issue 14): every output drawn from the synthetic reports of
:func:`tests.test_figures.build_report` is reduced to its matplotlib artists (each line's x and
y data, each band's polygon, markers, error bars, images, texts, axis scales and limits, table
cells) and the files it writes (Markdown, CSV), and each of these records is hashed
(numbers rounded to 10 significant digits). The scorecard is kept as text. A refactoring that
changes a number, a label or a caption fails here and names the record.

Regenerate only for an intended change of an output (and say so in the commit):
``.venv/bin/python -m tests.test_figures_golden``.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import matplotlib.figure
import numpy as np
import pytest
from matplotlib.colors import to_rgba

from tests.test_figures import build_report, fake_blood

GOLDEN = Path(__file__).parent / "golden"
FIGURE_DATA = GOLDEN / "figure_data.json"
SCORECARD = GOLDEN / "scorecard.md"
#: The reports the golden outputs are drawn from (3 seeds, 10 epochs; skin 2 seeds).
REPORTS = (
    "000_blood_raw",
    "000_blood_pca40",
    "001_simulated",
    "001_genomic",
    "001_genomic_lambda",
    "001_skin",
    "beyond_blood_lambda_raw",
    "beyond_blood_lambda_pca40",
    "beyond_skin_shrinking",
)


def build_golden_reports(root: Path) -> Path:
    for name in REPORTS:
        build_report(root, name, seeds=2 if name == "001_skin" else 3, epochs=10)
    return root


def _numbers(values) -> list:
    arr = np.ma.filled(np.ma.asarray(values, dtype=float), np.nan).ravel()
    return [float(f"{v:.10g}") if np.isfinite(v) else str(v) for v in arr]


def _colour(c) -> list:
    return _numbers(to_rgba(c)) if not isinstance(c, np.ndarray) else _numbers(c)


def artist_records(fig) -> dict[str, object]:
    """Everything a reader sees in ``fig``, as JSON-able records keyed by where they are."""
    out: dict[str, object] = {
        "figure texts": [t.get_text() for t in fig.texts],
        "suptitle": fig._suptitle.get_text() if fig._suptitle else "",
    }
    for i, ax in enumerate(fig.axes):
        legend = ax.get_legend()
        out[f"ax{i}"] = {
            "titles": [ax.get_title("left"), ax.get_title(), ax.get_title("right")],
            "labels": [ax.get_xlabel(), ax.get_ylabel()],
            "scales": [ax.get_xscale(), ax.get_yscale()],
            "limits": _numbers([*ax.get_xlim(), *ax.get_ylim()]),
            "visible": ax.get_visible(),
            "legend": [t.get_text() for t in legend.get_texts()] if legend else None,
            "texts": [[t.get_text(), *_numbers(t.get_position())] for t in ax.texts],
            "fixed ticks": [t.get_text() for t in ax.get_xticklabels() if t.get_text()],
        }
        for j, line in enumerate(ax.get_lines()):
            out[f"ax{i} line{j} {line.get_label()}"] = {
                "x": _numbers(line.get_xdata()),
                "y": _numbers(line.get_ydata()),
                "style": [
                    _colour(line.get_color()),
                    line.get_linestyle(),
                    str(line.get_marker()),
                    line.get_linewidth(),
                    line.get_markersize(),
                    _colour(line.get_markerfacecolor()),
                ],
            }
        for j, coll in enumerate(ax.collections):
            paths = [_numbers(p.vertices) for p in coll.get_paths()]
            segments = getattr(coll, "get_segments", lambda: [])()
            out[f"ax{i} collection{j} {type(coll).__name__} {coll.get_label()}"] = {
                "paths": paths,
                "offsets": _numbers(coll.get_offsets()),
                "segments": [_numbers(s) for s in segments],
                "colours": [_numbers(coll.get_facecolor()), _numbers(coll.get_edgecolor())],
            }
        for j, image in enumerate(ax.images):
            out[f"ax{i} image{j}"] = {
                "data": hashlib.sha256(np.ascontiguousarray(image.get_array())).hexdigest(),
                "clim": _numbers(image.get_clim()),
                "cmap": image.get_cmap().name,
            }
        for j, table in enumerate(ax.tables):
            cells = sorted((k, c.get_text().get_text()) for k, c in table.get_celld().items())
            out[f"ax{i} table{j}"] = [[*k, text] for k, text in cells]
    return out


def digest(record) -> str:
    text = json.dumps(record, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def capture_outputs(reports: Path, out: Path, monkeypatch) -> dict[str, dict[str, str]]:
    """Every output of ``python -m sdca_pegasos.figures`` and of
    ``sdca_pegasos.compare.outputs.figures``: the digest of each artist record of each saved figure
    and of each written text file."""
    import pandas as pd

    from sdca_pegasos.compare import outputs as compare_outputs
    from sdca_pegasos.figures import OUTPUTS, common
    from sdca_pegasos.figures.__main__ import main as figures_cli

    captured: dict[str, dict[str, str]] = {}
    original = matplotlib.figure.Figure.savefig

    def savefig(self, fname, *args, **kwargs):
        stem = Path(fname).stem
        if stem not in captured:  # the PDF and the PNG of one figure are one record set
            captured[stem] = {k: digest(v) for k, v in artist_records(self).items()}
        Path(fname).touch()  # the file exists, nothing is rendered (fast)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", savefig)
    try:
        fake_blood(monkeypatch)
        assert figures_cli(["all", "--out", str(out), "--reports", str(reports)]) == 0
        frame = common.load("000_blood_raw", reports)
        compare_outputs.figures(frame, common.load_optima(reports), out / "compare")
    finally:
        monkeypatch.setattr(matplotlib.figure.Figure, "savefig", original)
    for path in sorted(out.rglob("*")):
        if path.suffix in (".md", ".csv"):
            text = path.read_text()
            if path.suffix == ".csv":  # the same numbers, whatever the CSV writer's rounding
                text = pd.read_csv(path).to_json(double_precision=10)
            captured.setdefault(path.stem, {})[f"file {path.name}"] = digest(text)
    assert set(OUTPUTS) <= set(captured), set(OUTPUTS) - set(captured)
    return captured


def scorecard_text(reports: Path, out: Path) -> str:
    from sdca_pegasos.figures import scorecard

    path = scorecard.main(["--out", str(out), "--reports", str(reports)])
    text = path.read_text()
    return re.sub(r"on \d{4}-\d\d-\d\d \d\d:\d\d UTC", "on <date> UTC", text)


@pytest.fixture(scope="module")
def golden_reports(tmp_path_factory) -> Path:
    return build_golden_reports(tmp_path_factory.mktemp("golden_reports"))


def test_every_output_draws_the_recorded_data(golden_reports, tmp_path, monkeypatch):
    expected = json.loads(FIGURE_DATA.read_text())
    got = capture_outputs(golden_reports, tmp_path / "out", monkeypatch)
    assert sorted(got) == sorted(expected), "outputs written differ"
    changed = {
        stem: sorted(
            k
            for k in set(expected[stem]) | set(got[stem])
            if expected[stem].get(k) != got[stem].get(k)
        )
        for stem in expected
    }
    changed = {stem: keys for stem, keys in changed.items() if keys}
    assert not changed, f"records that differ from the golden figure data: {changed}"


def test_the_scorecard_is_the_recorded_text(golden_reports, tmp_path):
    assert scorecard_text(golden_reports, tmp_path / "R.md") == SCORECARD.read_text()


if __name__ == "__main__":  # regenerate the golden files (an intended change of outputs)
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, pytest.MonkeyPatch.context() as mp:
        root = build_golden_reports(Path(tmp) / "reports")
        GOLDEN.mkdir(exist_ok=True)
        data = capture_outputs(root, Path(tmp) / "out", mp)
        FIGURE_DATA.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
        SCORECARD.write_text(scorecard_text(root, Path(tmp) / "R.md"))
        print(f"wrote {FIGURE_DATA} ({len(data)} outputs) and {SCORECARD}")
