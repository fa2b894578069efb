"""``python -m experiments compare FILE --out DIR``: the studies' comparison on a user's data.

The file (svmlight/libsvm, ``.npz`` or CSV, see :func:`load_file`) is checked, split once
(stratified, seed 0), registered as a dataset of :mod:`experiments.datasets`, and every λ
becomes an :class:`~experiments.spec.Experiment` run by :func:`experiments.runner.run_experiment`
— the catalogue's engine: seeded runs, CPU-timed update loops, every epoch stored, resumable
(run files under ``DIR/runs``; running the same command again reuses them). Then, in DIR:

- ``compare.parquet``: the long-format report of every λ (one row per run and epoch);
- per λ, the standard figures as PNG and PDF, drawn by :mod:`figures.plots`: training loss
  and test error, primal objective and certified suboptimality P − P* vs epochs and CPU time,
  duality gap of the dual solvers;
- ``SUMMARY.md``: which of the studies' claims hold on this data, with the numbers.

P* is certified by :mod:`experiments.optima` (relative gap 1e-10), on dense and CSR data alike
(the exact engine sweeps CSR rows in O(nnz)).

A file that cannot be used (unreadable, empty, NaN or infinite values, one class, more than two
labels) is refused before anything is written: one line naming the file and the problem.
"""

from __future__ import annotations

import hashlib
import math
import os
from collections.abc import Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from data import Dataset
from data.dataset import labels_pm1

from . import datasets
from .spec import Config, Experiment

#: The studies' main variants (``--solvers`` names -> config), in the figures' order.
SOLVER_CHOICES: dict[str, Config] = {
    "sdca-perm": Config("SDCA-Perm", "sdca", {"sampling": "permutation"}, ("sdca", "algorithms")),
    "sdca-sgd": Config(
        "SDCA-Perm + SGD init", "sdca", {"sampling": "permutation", "sgd_init": True}, ("sdca",)
    ),
    "pegasos": Config("Pegasos", "pegasos", {"batch_size": 1}, ("pegasos", "algorithms")),
    "pegasos-batch": Config(
        "Mini-batch Pegasos k=8",
        "pegasos",
        {"batch_size": 8, "sampling": "iid"},
        ("pegasos", "algorithms"),
    ),
    "asdca": Config(
        "ASDCA paper θ", "asdca", {"batch_size": 8, "gamma": 1.0, "theta": None}, ("asdca",)
    ),
}

#: Dense copies of sparse data for solvers without CSR kernels stay below this many bytes.
_DENSIFY_LIMIT = 512 * 2**20


class BadInputError(ValueError):
    """The input file cannot be used; the message is one line naming the file."""


# ------------------------------------------------------------------------------- loading
def load_file(path: Path) -> tuple[np.ndarray | sp.csr_matrix, np.ndarray]:
    """Read ``(X, y)`` from a svmlight/libsvm file, a ``.npz`` or a CSV.

    - ``.npz``: ``X`` (dense) and ``y``; or a scipy sparse matrix as saved by
      :func:`scipy.sparse.save_npz` plus a ``y`` (or ``labels``) array in the same file.
    - ``.csv``: numbers, comma-separated, the last column the label (a header row is skipped).
    - anything else: svmlight/libsvm (:func:`sklearn.datasets.load_svmlight_file`).

    Raises
    ------
    BadInputError
        With one line: ``<path>: <problem>``.
    """
    if not path.is_file():
        raise BadInputError(f"{path}: no such file")
    if path.stat().st_size == 0:
        raise BadInputError(f"{path}: the file is empty")
    suffix = path.suffix.lower()
    try:
        if suffix == ".npz":
            X, y = _load_npz(path)
        elif suffix == ".csv":
            X, y = _load_csv(path)
        else:
            from sklearn.datasets import load_svmlight_file

            X, y = load_svmlight_file(str(path))
    except BadInputError:
        raise
    except Exception as exc:  # every parser's own error, reduced to one line
        kind = {".npz": "a .npz", ".csv": "a CSV"}.get(suffix, "a svmlight/libsvm")
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise BadInputError(f"{path}: not readable as {kind} file ({text})") from None
    return _checked(path, X, y)


def _load_npz(path: Path):
    with np.load(path, allow_pickle=False) as archive:
        keys = set(archive.files)
        label_key = next((k for k in ("y", "labels") if k in keys), None)
        if label_key is None:
            raise BadInputError(f"{path}: no labels: expected an array 'y' (or 'labels')")
        y = archive[label_key]
        if {"data", "indices", "indptr", "shape", "format"} <= keys:
            fmt = archive["format"].item()
            fmt = fmt.decode() if isinstance(fmt, bytes) else str(fmt)
            if fmt not in ("csr", "csc"):
                raise BadInputError(f"{path}: sparse format {fmt!r}; expected csr or csc")
            cls = sp.csr_matrix if fmt == "csr" else sp.csc_matrix
            parts = (archive["data"], archive["indices"], archive["indptr"])
            X = cls(parts, shape=tuple(archive["shape"]))
        elif "X" in keys:
            X = archive["X"]
        else:
            raise BadInputError(
                f"{path}: no data: expected an array 'X', or a sparse matrix saved by "
                f"scipy.sparse.save_npz, next to '{label_key}'"
            )
    return X, y


def _load_csv(path: Path):
    frame = pd.read_csv(path, header=None)
    numeric = frame.apply(pd.to_numeric, errors="coerce")
    if len(frame) and numeric.iloc[0].isna().all():  # a header row
        frame = frame.iloc[1:]
        numeric = numeric.iloc[1:]
    bad = numeric.isna() & frame.notna()
    if bad.to_numpy().any():
        row, col = np.argwhere(bad.to_numpy())[0]
        raise BadInputError(
            f"{path}: not numeric: row {row + 1}, column {col + 1} is {frame.iat[row, col]!r}"
        )
    if numeric.shape[1] < 2:
        raise BadInputError(f"{path}: needs at least one feature column and a label column")
    values = numeric.to_numpy(dtype=np.float64)
    return np.ascontiguousarray(values[:, :-1]), values[:, -1]


def _checked(path: Path, X, y):
    """The checks every format shares (one line each, naming the file)."""
    y = np.asarray(y).ravel()
    n = X.shape[0]
    if n == 0 or X.shape[1] == 0:
        raise BadInputError(f"{path}: no samples or no features ({n} x {X.shape[1]})")
    if y.shape[0] != n:
        raise BadInputError(f"{path}: {y.shape[0]} labels for {n} samples")
    values = X.data if sp.issparse(X) else np.asarray(X)
    if not np.issubdtype(values.dtype, np.number):
        raise BadInputError(f"{path}: the data are not numbers (dtype {values.dtype})")
    if not np.all(np.isfinite(values)):
        raise BadInputError(f"{path}: the data contain NaN or infinite values")
    if np.issubdtype(y.dtype, np.number) and not np.all(np.isfinite(y.astype(np.float64))):
        raise BadInputError(f"{path}: the labels contain NaN or infinite values")
    classes = np.unique(y)
    if classes.shape[0] == 1:
        raise BadInputError(f"{path}: one class only (every label is {classes[0]!r}); need two")
    if classes.shape[0] > 2:
        shown = ", ".join(str(c) for c in classes[:5]) + (", ..." if len(classes) > 5 else "")
        raise BadInputError(
            f"{path}: labels are not two-valued: {classes.shape[0]} distinct labels ({shown})"
        )
    if sp.issparse(X):
        X = X.tocsr()
        if X.dtype not in (np.float32, np.float64):
            X = X.astype(np.float64)
        X.sum_duplicates()  # canonical (sorted, unique indices), as the solvers read it
    else:
        X = np.ascontiguousarray(X, dtype=X.dtype if X.dtype == np.float32 else np.float64)
    return X, np.where(y == classes[1], 1.0, -1.0)


def split_data(path: Path, X, y, test_size: float) -> Dataset:
    """Stratified train/test split with seed 0 (``test_size`` 0: no test set) of ``y`` in ±1."""
    from sklearn.model_selection import train_test_split

    meta = {"title": f"{path.name} (your data)", "file": str(path), "sparse": sp.issparse(X)}
    if test_size == 0:
        return Dataset(X, labels_pm1(y > 0), None, None, meta)
    counts = np.unique(y, return_counts=True)[1]
    n_test = math.ceil(test_size * y.shape[0])
    if counts.min() < 2 or n_test < 2 or y.shape[0] - n_test < 2:
        raise BadInputError(
            f"{path}: too few samples for a test split of {test_size:g} "
            f"({y.shape[0]} samples, smallest class {counts.min()}); pass --test-size 0"
        )
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, y, test_size=test_size, stratify=y, random_state=0
    )
    return Dataset(X_tr, labels_pm1(y_tr > 0), X_te, labels_pm1(y_te > 0), meta)


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:12]


# ------------------------------------------------------------------------------- running
@dataclass(frozen=True)
class Plan:
    split: Dataset
    dataset: str
    experiments: list[Experiment]
    densified: bool


def plan(
    path: Path,
    lmbds: Sequence[float] | None,
    seeds: int,
    epochs: int,
    solver_names: Sequence[str],
    test_size: float,
) -> Plan:
    """Check and load the file, register it as a dataset, and build one Experiment per λ."""
    X, y = load_file(path)
    configs = tuple(SOLVER_CHOICES[name] for name in solver_names)
    densified = False
    if sp.issparse(X):
        import solvers
        from experiments.spec import SOLVER_CLASSES

        dense_only = [
            c.label
            for c in configs
            if not getattr(solvers, SOLVER_CLASSES[c.solver])().supports_sparse
        ]
        if dense_only:
            size = X.shape[0] * X.shape[1] * X.dtype.itemsize
            if size > _DENSIFY_LIMIT:
                raise BadInputError(
                    f"{path}: sparse data of {size / 2**30:.1f} GiB dense, and "
                    f"{', '.join(dense_only)} have no CSR kernels yet: pass --solvers without "
                    f"them (e.g. --solvers pegasos pegasos-batch asdca)"
                )
            X, densified = X.toarray(), True
    split = split_data(path, X, y, test_size)
    dataset = f"file-{file_digest(path)}"
    datasets.register(dataset, lambda **_options: split)
    options = {"test_size": test_size, "densified": densified}
    n = split.n_train
    exps = []
    for lmbd in lmbds or [1.0 / n]:
        exps.append(
            Experiment(
                name=f"compare_lmbd{lmbd:.6g}",
                study="beyond",
                dataset=dataset,
                dataset_options=options,
                lmbd=float(lmbd),
                epochs=epochs,
                configs=configs,
                seeds=seeds,
                description=f"{path.name}, lambda = {lmbd:g}",
            )
        )
    return Plan(split, dataset, exps, densified)


@contextmanager
def _reports_in(directory: Path):
    """The engine's run files and optima under ``directory`` (``$SVM_REPORTS_DIR``)."""
    old = os.environ.get("SVM_REPORTS_DIR")
    os.environ["SVM_REPORTS_DIR"] = str(directory)
    try:
        yield
    finally:
        if old is None:
            os.environ.pop("SVM_REPORTS_DIR", None)
        else:
            os.environ["SVM_REPORTS_DIR"] = old


def optima_table(p: Plan) -> tuple[pd.DataFrame, str]:
    """Certified bounds on P* per λ, from the exact engine (dense or CSR data)."""
    from . import optima

    records = [r for exp in p.experiments for r in optima.ensure(exp)]
    return pd.DataFrame.from_records(records), (
        "certified by the exact engine (relative duality gap <= 1e-10)"
    )


def run(p: Plan, out: Path, progress: bool = True) -> pd.DataFrame:
    """Run every experiment of the plan (resumable) and return the combined report."""
    from .runner import run_experiment

    with _reports_in(out):
        frames = [run_experiment(exp, n_jobs=1, progress=progress) for exp in p.experiments]
    return pd.concat(frames, ignore_index=True)


# ------------------------------------------------------------------------------- outputs
def figures(frame: pd.DataFrame, opt: pd.DataFrame, out: Path) -> list[Path]:
    """The standard figures of every λ, in the plot kinds of :mod:`figures.plots` (PNG, PDF)."""
    from figures import ASDCA_NOTE, plots
    from figures import common as fc

    paths: list[Path] = []
    framed = fc.with_suboptimality(frame, opt)
    for lmbd, sub in framed.groupby("lmbd", sort=True):
        stem = f"lmbd{lmbd:.6g}"
        title = fc.suptitle_for(sub, "Training loss and test error")
        fig = plots.curve_figure(sub, "loss_error", title)
        paths += plots.save_figure(fig, out, f"loss_error_{stem}")
        fig = plots.curve_figure(
            sub, "objective", fc.suptitle_for(sub, "Primal objective"), ASDCA_NOTE
        )
        paths += plots.save_figure(fig, out, f"objective_{stem}")
        fig = plots.curve_figure(
            sub,
            plots.vs_epochs_and_time(
                "suboptimality", "P(w) − P* (certified upper bound), log scale"
            ),
            fc.suptitle_for(sub, "Certified suboptimality P(w) − P*"),
        )
        paths += plots.save_figure(fig, out, f"suboptimality_{stem}")
        duals = sub[sub["solver"] != "pegasos"]  # Pegasos keeps no dual point
        if len(duals):
            fig = plots.curve_figure(
                duals,
                plots.vs_epochs_and_time(
                    "gap", "duality gap P(w) − D(α) of the problem solved, log scale"
                ),
                fc.suptitle_for(duals, "Duality gap"),
                "ASDCA: gap of the smoothed problem it solves.",
            )
            paths += plots.save_figure(fig, out, f"duality_gap_{stem}")
    return paths


def _mean_at(frame: pd.DataFrame, config: str, epoch: int, value: str) -> float:
    rows = frame[(frame["config"] == config) & (frame["epoch"] == epoch)]
    return float(rows[value].mean()) if len(rows) else math.nan


def _epochs_to(frame: pd.DataFrame, config: str, threshold: float) -> float:
    from figures import common as fc

    hit = fc.time_to(frame[frame["config"] == config], "rel_sub", threshold)
    return float(hit["epoch"].iloc[0]) if len(hit) else math.nan


def claims(frame: pd.DataFrame) -> list[tuple[str, str, str]]:
    """The studies' claims that can be checked on any data: (claim, verdict, evidence).

    ``frame`` has the ``suboptimality`` column of :func:`figures.common.with_suboptimality`.
    """
    out = []
    configs = set(frame["config"])
    last = int(frame["epoch"].max())
    f = frame.assign(rel_sub=frame["suboptimality"] / frame["p_star_primal"].abs())
    sdca, sgd, peg, batch, asdca = (c.label for c in SOLVER_CHOICES.values())
    if {sdca, peg} <= configs:
        target = 1e-2
        e_s, e_p = _epochs_to(f, sdca, target), _epochs_to(f, peg, target)
        if math.isnan(e_s):
            verdict = "not tested"
            ev = f"SDCA-Perm did not reach a relative suboptimality of {target:g} in {last} epochs"
        elif math.isnan(e_p):
            verdict = "holds"
            ev = (
                f"SDCA-Perm: {e_s:g} epochs to relative suboptimality {target:g}; Pegasos: "
                f"not within {last}"
            )
        else:
            verdict = "holds" if e_p >= 2 * e_s else "differs"
            ev = f"epochs to relative suboptimality {target:g}: SDCA-Perm {e_s:g}, Pegasos {e_p:g}"
        out.append(("SDCA converges faster than Pegasos (study 000: ~3x)", verdict, ev))
        if f["test_error"].notna().any():
            best = f[f["config"] == sdca].groupby("epoch")["test_error"].mean()
            at2 = float(best.loc[min(2, last)])
            verdict = "holds" if at2 <= best.min() + 0.01 else "differs"
            ev = (
                f"SDCA-Perm test error {100 * at2:.1f} % after {min(2, last)} epochs, best "
                f"{100 * best.min():.1f} % (epoch {int(best.idxmin())})"
            )
            out.append(
                ("SDCA reaches its best test error within 2 epochs (study 000)", verdict, ev)
            )
    if {sdca, sgd} <= configs:
        p1 = (_mean_at(f, sgd, 1, "primal"), _mean_at(f, sdca, 1, "primal"))
        pl = (_mean_at(f, sgd, last, "primal"), _mean_at(f, sdca, last, "primal"))
        first_better = p1[0] < p1[1]
        later_same = pl[0] >= pl[1] - 1e-3 * abs(pl[1])
        verdict = "holds" if first_better and later_same else "differs"
        ev = (
            f"P after epoch 1: SGD init {p1[0]:.4g} vs Perm {p1[1]:.4g}; after epoch {last}: "
            f"{pl[0]:.4g} vs {pl[1]:.4g}"
        )
        out.append(("The SGD first epoch only helps the first epoch (study 000)", verdict, ev))
    if {peg, batch} <= configs:
        pk1, pkb = _mean_at(f, peg, last, "primal"), _mean_at(f, batch, last, "primal")
        verdict = "holds" if pk1 <= pkb else "differs"
        ev = f"P after {last} epochs: Pegasos k=1 {pk1:.4g}, mini-batch k=8 {pkb:.4g}"
        out.append(
            (
                "Per sample processed, mini-batches do not speed Pegasos up (study 001)",
                verdict,
                ev,
            )
        )
    if {sdca, asdca} <= configs:
        s_a, s_s = _mean_at(f, asdca, last, "rel_sub"), _mean_at(f, sdca, last, "rel_sub")
        verdict = "holds" if s_a > s_s else "differs"
        ev = (
            f"relative hinge suboptimality after {last} epochs: ASDCA {s_a:.2g}, "
            f"SDCA-Perm {s_s:.2g} (ASDCA solves the smoothed problem, γ = 1)"
        )
        out.append(("ASDCA ends above SDCA in hinge suboptimality (study 001)", verdict, ev))
    return out


def summary(frame: pd.DataFrame, opt: pd.DataFrame, how: str, p: Plan) -> str:
    from figures import common as fc

    f = fc.with_suboptimality(frame, opt)
    s = p.split
    kind = "sparse CSR" if sp.issparse(s.X_train) else "dense"
    if p.densified:
        kind = "sparse, densified (a chosen solver has no CSR kernels)"
    lines = [
        f"# Do the studies' conclusions hold on {s.meta['file']}?",
        "",
        f"- data: {s.n_train} training samples × {s.X_train.shape[1]} features ({kind}), "
        + ("no test set" if s.X_test is None else f"{s.X_test.shape[0]} test samples"),
        f"- {frame['seed_index'].nunique()} seeds per solver, {int(frame['epoch'].max())} epochs; "
        f"an epoch is n samples processed whatever the batch size",
        f"- P*: {how}",
        "",
    ]
    for lmbd, sub in f.groupby("lmbd", sort=True):
        lines += [f"## {fc.lmbd_text(lmbd, s.n_train)}", "", "| claim | verdict | evidence |"]
        lines += ["|---|---|---|"]
        lines += [f"| {c} | {v} | {e} |" for c, v, e in claims(sub)]
        last = fc.final(sub)
        table = last.groupby("config", sort=False).agg(
            primal=("primal", "mean"),
            subopt=("suboptimality", "mean"),
            test_error=("test_error", "mean"),
            cpu=("cpu_time_cum", "mean"),
        )
        lines += [
            "",
            "| solver | final P(w) | P − P* | test error | CPU s |",
            "|---|---|---|---|---|",
        ]
        for config, r in table.iterrows():
            err = "–" if math.isnan(r["test_error"]) else f"{100 * r['test_error']:.1f} %"
            lines.append(
                f"| {config} | {r['primal']:.6g} | {r['subopt']:.2g} | {err} | {r['cpu']:.3g} |"
            )
        lines.append("")
    lines.append(
        "Verdicts compare means over seeds by the rule stated in each claim; figures in this "
        "folder show the 10–90 % bands."
    )
    return "\n".join(lines) + "\n"


def compare(
    path: Path,
    out: Path,
    lmbds: Sequence[float] | None = None,
    seeds: int = 5,
    epochs: int = 20,
    solver_names: Sequence[str] = tuple(SOLVER_CHOICES),
    test_size: float = 0.25,
    progress: bool = True,
) -> list[Path]:
    """Check the file, run, and write report, figures and summary to ``out``.

    Raises
    ------
    BadInputError
        Before anything is written.
    """
    p = plan(path, lmbds, seeds, epochs, solver_names, test_size)
    out.mkdir(parents=True, exist_ok=True)
    frame = run(p, out, progress)
    with _reports_in(out):
        opt, how = optima_table(p)
    report = out / "compare.parquet"
    from . import reports

    reports.atomic_write_parquet(frame, report)
    paths = [report, *figures(frame, opt, out)]
    md = out / "SUMMARY.md"
    reports.atomic_write_text(summary(frame, opt, how, p), md)
    return [*paths, md]
