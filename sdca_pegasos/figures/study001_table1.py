"""Study 001, table 1: the datasets (size, dimension, classes, source; substitutes marked).

Read from the sidecars' ``dataset_meta`` (what the loader returned when the experiment ran),
one row per dataset of study 001. Reports: ``001_simulated``, ``001_genomic``, ``001_skin``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from .common import load_sidecar
from .plots import write_table

MARK = "†"


def _classes(classes: dict) -> str:
    """``"+1: name; −1: name"`` from ``{+1: name, −1: name}`` (keys may be strings in JSON)."""
    by_label = {int(k): v for k, v in (classes or {}).items()}
    return "; ".join(f"{'+1' if k > 0 else '−1'}: {by_label[k]}" for k in sorted(by_label)[::-1])


def dataset_rows(metas: dict[str, dict]) -> pd.DataFrame:
    """One row per report: ``report, dataset, n, n_train, n_test, d, classes, source,
    substitute, substitute_for`` from each ``dataset_meta``."""
    rows = []
    for report, meta in metas.items():
        n_train, n_test = int(meta["n_train"]), int(meta.get("n_test") or 0)
        rows.append(dict(
            report=report, dataset=meta.get("title", meta.get("name", report)),
            n=n_train + n_test, n_train=n_train, n_test=n_test, d=int(meta["n_features"]),
            classes=_classes(meta.get("classes")), source=meta.get("source", ""),
            substitute=bool(meta.get("substitute", False)),
            substitute_for=meta.get("substitute_for") or "",
        ))  # fmt: skip
    return pd.DataFrame(rows)


def draw(spec, out_dir=None, reports_dir=None) -> list[Path]:
    """Write the table (Markdown, CSV, PNG); returns the paths written."""
    data = dataset_rows(
        {name: load_sidecar(name, reports_dir)["dataset_meta"] for name in spec.reports}
    )
    shown = pd.DataFrame(
        {
            "dataset": [
                f"{t} {MARK}" if s else t
                for t, s in zip(data["dataset"], data["substitute"], strict=True)
            ],
            "n (train + test)": [
                f"{n:,} ({a:,} + {b:,})" if b else f"{n:,} (no test split)"
                for n, a, b in zip(data["n"], data["n_train"], data["n_test"], strict=True)
            ],
            "d": data["d"].map(lambda v: f"{v:,}"),
            "classes": data["classes"],
            "source": data["source"],
        }
    )
    notes = [
        f"{MARK} substitute data: {t} stands in for {f}."
        for t, f, s in zip(
            data["dataset"], data["substitute_for"], data["substitute"], strict=True
        )
        if s
    ]
    notes.append("From the dataset metadata stored with each report (its sidecar JSON).")
    return write_table(data, shown, out_dir, spec.name, "Study 001, table 1: datasets", notes)
