"""CPU cost of one epoch of each solver against the memory-bandwidth bound, measured together.

Run with ``make bench`` (or ``python benchmarks/epoch_cost.py --help``). On a dense
``n x d`` float64 (or ``--dtype float32``) problem with λ = 1/n, it prints for each solver
the *marginal* CPU cost of one more epoch (one pass over the n samples) and its ratio to
the one-pass bound: the CPU time of the fastest single streaming read of X (a Numba row-dot
pass and a single-threaded BLAS ``X @ v``, best of several repeats; ``sgemv`` for float32),
measured in the same run on the same array.

Then, on a sparse CSR problem (default 50,000 × 200,000, 40 nonzeros per row in uniformly
drawn columns, float64), the same marginal epoch costs against one ``X @ v`` pass
(scipy's CSR product, one thread, best of several repeats) over the same matrix, and the
peak memory the SDCA fit allocates (``tracemalloc``, after warm-up) against the n × d
that a dense copy would take. Target: an SDCA-Perm epoch costs at most 2.5 ``X @ v``
passes, with no allocation proportional to n × d.

Marginal costs: our solvers report the update-loop CPU time of every epoch
(``epoch_times_``); the median over epochs 2..K is used. scikit-learn's solvers are timed
as ``(cpu(fit with k2 epochs) - cpu(fit with k1 epochs)) / (k2 - k1)``, which cancels their
set-up cost. All BLAS pools are limited to one thread, so every row is single-core work.
Speed goals are checked here, by eye and by the printed verdicts, never in unit tests.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages (benchmarks.*, solvers, ...)
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC

from benchmarks.bandwidth import stream_passes
from benchmarks.problems import make_dense, make_sparse_rows
from benchmarks.threads import one_thread
from sdca_pegasos import solvers
from sdca_pegasos.solvers import ASDCAClassifier, PegasosClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.sdca import kernels as sdca_kernels


@dataclass
class Row:
    name: str
    seconds: float
    target: float | None = None  # max ratio to the bound, if any
    note: str = ""


def print_rows(rows: list[Row], bound: float, unit: str) -> None:
    """One line per solver: ms per epoch, the ratio to ``bound`` (column ``unit``) and the
    verdict against the row's target."""
    header = f"{'solver':<48} {'ms/epoch':>9} {unit:>8}  {'target':>8}  note"
    print(header)
    print("-" * len(header))
    for row in rows:
        ratio = row.seconds / bound
        target = ""
        if row.target is not None:
            target = f"<= {row.target:.2f} " + ("ok" if ratio <= row.target else "MISSED")
        print(f"{row.name:<48} {row.seconds * 1e3:9.2f} {ratio:8.2f}  {target:>8}  {row.note}")


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def one_pass_bound(X: np.ndarray, repeats: int) -> tuple[float, dict[str, float]]:
    """The CPU time of each single read of X (best of ``repeats``) and the fastest one."""
    passes = {
        name: min(cpu(read) for _ in range(repeats)) for name, read in stream_passes(X).items()
    }
    return min(passes.values()), passes


def sdca_arithmetic_in_cache(X, y, lmbd, repeats: int) -> float:
    """One SDCA epoch's arithmetic with every row already in cache: n steps cycling over
    the first 8 rows (128 KB at d = 2000). Not a solver: the compute floor of the kernel."""
    n = X.shape[0]
    Xc, yc = np.ascontiguousarray(X[:8]), np.ascontiguousarray(y[:8], dtype=np.float64)
    idx = np.tile(np.arange(8), n // 8 + 1)[:n]
    rows, sweep, params = sdca_kernels.kernel_inputs(Xc, yc, lmbd, lmbd_n=lmbd * n, shrinking=True)

    def epoch():
        sdca_kernels.sdca_epoch(rows, sweep, params, idx, 0, n, -np.inf)

    epoch()
    return min(cpu(epoch) for _ in range(repeats))


def own_epoch(make: Callable[[], solvers.BaseLinearSVM], X, y, epochs: int) -> float:
    est = make()
    est.set_params(max_epochs=epochs)
    if "tol" in est.get_params():  # Pegasos has no stopping test
        est.set_params(tol=0)
    est.fit(X, y)
    return float(np.median(est.epoch_times_[1:]))


def sklearn_epoch(make: Callable[[int], object], X, y, k1: int, k2: int, repeats: int) -> float:
    def fit_cpu(k):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            return cpu(lambda: make(k).fit(X, y))

    diffs = [(fit_cpu(k2) - fit_cpu(k1)) / (k2 - k1) for _ in range(repeats)]
    # a difference below zero is timer noise (tiny problems): the marginal cost is ~0 there
    return max(0.0, float(np.median(diffs)))


#: Parameters of the averaged-output variants: the running average updated at every step.
AVERAGED = {"average": True, "avg_start": 0}


def own_rows(X, y, lmbd, epochs: int, table: list[tuple]) -> list[Row]:
    """One :class:`Row` per ``(name, estimator class, parameters, target, note)`` of ``table``:
    the marginal epoch cost of that estimator, with ``lmbd`` and seed 0, on (X, y)."""
    rows = []
    for name, cls, params, target, note in table:

        def make(cls=cls, params=params):
            return cls(lmbd=lmbd, bias_multiplier=0.0, random_state=0, **params)

        rows.append(Row(name, own_epoch(make, X, y, epochs), target, note))
    return rows


def rows_for(X, y, lmbd, args) -> list[Row]:
    """The solvers to time; later issues append theirs here."""
    n = X.shape[0]
    k_big, m = min(100, n), min(8, n)
    sdca = own_rows(X, y, lmbd, args.epochs, [
        ("SDCA-Perm, hinge", SDCAClassifier, {"shrinking": False}, 1.25, ""),
        ("SDCA-Perm, hinge, averaged output", SDCAClassifier, AVERAGED, None,
         "averages every step"),
    ])  # fmt: skip
    in_cache = Row(
        "  (SDCA arithmetic alone, rows in cache)",
        sdca_arithmetic_in_cache(X, y, lmbd, args.repeats),
        note="diagnostic: compute floor, no DRAM traffic",
    )
    others = own_rows(X, y, lmbd, args.epochs, [
        ("Pegasos k=1 (iid)", PegasosClassifier, {}, 1.5, ""),
        ("Pegasos k=1, averaged output", PegasosClassifier, AVERAGED, None, "avg every step"),
        ("Pegasos k=1, projection", PegasosClassifier, {"projection": True}, None, ""),
        (f"Pegasos k={k_big} (permutation sampling)", PegasosClassifier,
         {"batch_size": k_big, "sampling": "permutation"}, 1.5, ""),
        (f"ASDCA m={m}, smoothed hinge (gamma=1)", ASDCAClassifier, {"batch_size": m}, None, ""),
    ])  # fmt: skip
    C = objectives.lmbd_to_C(lmbd, n)

    def liblinear(k):
        return LinearSVC(
            loss="hinge", dual=True, fit_intercept=False, C=C, tol=1e-12, max_iter=k,
            random_state=0,
        )  # fmt: skip

    def sgd(k):
        return SGDClassifier(
            loss="hinge", alpha=lmbd, fit_intercept=False, max_iter=k, tol=None, random_state=0
        )

    k1, k2 = 2, 2 + args.epochs
    return [
        *sdca,
        in_cache,
        *others,
        Row(
            "scikit-learn LinearSVC (liblinear, hinge, dual)",
            sklearn_epoch(liblinear, X, y, k1, k2, args.repeats),
            note="shrinking: later epochs skip bound samples",
        ),
        Row(
            "scikit-learn SGDClassifier(loss='hinge')",
            sklearn_epoch(sgd, X, y, k1, k2, args.repeats),
        ),
    ]


# ---------------------------------------------------------------------------- sparse
#: An SDCA-Perm epoch on the sparse problem costs at most this many ``X @ v`` passes.
SPARSE_TARGET = 2.5


def peak_fit_bytes(make: Callable[[], solvers.BaseLinearSVM], X, y) -> int:
    """Peak bytes allocated (NumPy arrays included) during one fit, warm-up excluded."""
    make().set_params(max_epochs=1).fit(X, y)  # compiles, outside the trace
    tracemalloc.start()
    try:
        make().fit(X, y)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def sparse_rows(X, y, lmbd, args) -> list[Row]:
    m = min(8, X.shape[0])
    return own_rows(X, y, lmbd, args.epochs, [
        ("CSR SDCA-Perm, hinge", SDCAClassifier, {"shrinking": False}, SPARSE_TARGET, ""),
        ("CSR SDCA-Perm, averaged output", SDCAClassifier, AVERAGED, None,
         "averages every step"),
        ("CSR Pegasos k=1 (iid)", PegasosClassifier, {}, None, ""),
        ("CSR ASDCA m=8, smoothed hinge (gamma=1)", ASDCAClassifier, {"batch_size": m}, None,
         ""),
    ])  # fmt: skip


def sparse_section(args) -> tuple[float, list[Row]]:
    """Print the sparse problem's table; returns (one ``X @ v`` pass in s, rows)."""
    X, y = make_sparse_rows(args.sparse_n, args.sparse_d, args.sparse_nnz)
    n, d = X.shape
    lmbd = 1.0 / n
    v = np.ones(d)
    with one_thread(X.dtype):
        _ = X @ v  # first touch
        bound = min(cpu(lambda: X @ v) for _ in range(max(args.repeats, 3)))
        rows = sparse_rows(X, y, lmbd, args)
        peak = peak_fit_bytes(
            lambda: SDCAClassifier(
                lmbd=lmbd,
                shrinking=False,
                max_epochs=2,
                tol=0,
                bias_multiplier=0.0,
                random_state=0,
            ),
            X,
            y,
        )
    mb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 1e6
    print(
        f"\nProblem: sparse CSR {n} x {d}, {X.nnz / n:.0f} nonzeros per row, float64 "
        f"({mb:.0f} MB), lambda = 1/n, 1 thread"
    )
    print(f"  scipy X @ v (1 thread)       {bound * 1e3:8.2f} ms\n")
    print_rows(rows, bound, "x X @ v")
    ratio = rows[0].seconds / bound
    dense_bytes = n * d * 8
    verdict = "ok" if ratio <= SPARSE_TARGET else "MISSED"
    print(
        f"\nSparse SDCA-Perm epoch / one X @ v pass: {ratio:.2f} (target <= {SPARSE_TARGET}: "
        f"{verdict})"
    )
    alloc = "ok" if peak < 0.01 * dense_bytes else "MISSED"
    print(
        f"Peak allocation of a 2-epoch SDCA fit: {peak / 1e6:.2f} MB (a dense n x d copy: "
        f"{dense_bytes / 1e6:.0f} MB; nothing proportional to n x d: {alloc})"
    )
    return bound, rows


def main(argv: list[str] | None = None) -> list[Row]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=5000, help="samples (default 5000)")
    parser.add_argument("--d", type=int, default=2000, help="features (default 2000)")
    parser.add_argument("--epochs", type=int, default=10, help="epochs timed per solver")
    parser.add_argument("--repeats", type=int, default=5, help="repeats of each measurement")
    parser.add_argument("--dtype", choices=["float64", "float32"], default="float64")
    parser.add_argument("--sparse-n", type=int, default=50_000, help="sparse problem: samples")
    parser.add_argument("--sparse-d", type=int, default=200_000, help="sparse: features")
    parser.add_argument("--sparse-nnz", type=int, default=40, help="sparse: nonzeros per row")
    parser.add_argument("--only-sparse", action="store_true", help="skip the dense problem")
    args = parser.parse_args(argv)
    if args.only_sparse:
        return sparse_section(args)[1]

    X, y = make_dense(args.n, args.d, seed=0, dtype=args.dtype)
    lmbd = 1.0 / args.n

    with one_thread(X.dtype):
        bound, passes = one_pass_bound(X, args.repeats)
        rows = rows_for(X, y, lmbd, args)

    mb = X.nbytes / 1e6
    print(
        f"\nProblem: dense {args.n} x {args.d} {args.dtype} ({mb:.0f} MB), lambda = 1/n, 1 thread"
    )
    for name, seconds in passes.items():
        print(f"  {name:<28} {seconds * 1e3:8.2f} ms  ({mb / 1e3 / seconds:5.1f} GB/s)")
    print(f"  one-pass bound (fastest)     {bound * 1e3:8.2f} ms\n")
    print_rows(rows, bound, "x bound")
    by_name = {r.name: r.seconds for r in rows}
    sdca = by_name["SDCA-Perm, hinge"]
    svc = by_name["scikit-learn LinearSVC (liblinear, hinge, dual)"]
    verdict = "ok" if svc / sdca >= 3 else "MISSED"
    print(f"\nSDCA epoch vs LinearSVC epoch: {svc / sdca:.1f}x faster (target >= 3x: {verdict})")
    return rows + sparse_section(args)[1]


if __name__ == "__main__":
    main()
