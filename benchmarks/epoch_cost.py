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

import argparse
import time
import tracemalloc
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numba import njit
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import SGDClassifier
from sklearn.svm import LinearSVC
from threadpoolctl import threadpool_limits

import solvers
from solvers import FASTMATH, ASDCAClassifier, PegasosClassifier, SDCAClassifier, objectives
from solvers import sdca as sdca_module


@njit(cache=True, fastmath=FASTMATH)
def _stream_rows(X, v, out):
    """out[i] = X[i] · v for every row, in storage order: one sequential read of X."""
    for i in range(X.shape[0]):
        xi = X[i]
        s = 0.0
        for k in range(X.shape[1]):
            s += xi[k] * v[k]
        out[i] = s


@njit(cache=True, fastmath=FASTMATH)
def _stream_rows4(X, v, out):
    """The same product, four rows at a time: four memory streams in flight instead of one."""
    n, d = X.shape
    for i in range(0, n - n % 4, 4):
        r0, r1, r2, r3 = X[i], X[i + 1], X[i + 2], X[i + 3]
        s0 = s1 = s2 = s3 = 0.0
        for k in range(d):
            vk = v[k]
            s0 += r0[k] * vk
            s1 += r1[k] * vk
            s2 += r2[k] * vk
            s3 += r3[k] * vk
        out[i], out[i + 1], out[i + 2], out[i + 3] = s0, s1, s2, s3
    for i in range(n - n % 4, n):
        s = 0.0
        for k in range(d):
            s += X[i, k] * v[k]
        out[i] = s


@dataclass
class Row:
    name: str
    seconds: float
    target: float | None = None  # max ratio to the bound, if any
    note: str = ""


def cpu(fn: Callable[[], object]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def one_pass_bound(X: np.ndarray, repeats: int) -> tuple[float, dict[str, float]]:
    v = np.ones(X.shape[1], dtype=X.dtype)  # float32 X: sgemv (a float64 v would copy X)
    out = np.empty(X.shape[0])
    _stream_rows(X, v, out)  # compile
    _stream_rows4(X, v, out)
    passes = {
        "numba row-dot pass": min(cpu(lambda: _stream_rows(X, v, out)) for _ in range(repeats)),
        "numba 4-row pass": min(cpu(lambda: _stream_rows4(X, v, out)) for _ in range(repeats)),
        "BLAS X @ v (1 thread)": min(cpu(lambda: X @ v) for _ in range(repeats)),
    }
    return min(passes.values()), passes


def sdca_arithmetic_in_cache(X, y, lmbd, repeats: int) -> float:
    """One SDCA epoch's arithmetic with every row already in cache: n steps cycling over
    the first 8 rows (128 KB at d = 2000). Not a solver: the compute floor of the kernel."""
    n = X.shape[0]
    Xc, yc = np.ascontiguousarray(X[:8]), np.ascontiguousarray(y[:8], dtype=np.float64)
    idx = np.tile(np.arange(8), n // 8 + 1)[:n]
    rows, sweep, params = sdca_module.kernel_inputs(Xc, yc, lmbd, lmbd_n=lmbd * n, shrinking=True)

    def epoch():
        sdca_module.sdca_epoch_kernel(rows, sweep, params, idx, 0, n, -np.inf)

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


def rows_for(X, y, lmbd, args) -> list[Row]:
    """The solvers to time; later issues append theirs here."""
    seed = 0
    n = X.shape[0]
    rows = [
        Row(
            "SDCA-Perm, hinge",
            own_epoch(lambda: SDCAClassifier(lmbd=lmbd, random_state=seed), X, y, args.epochs),
            target=1.25,
        ),
        Row(
            "SDCA-Perm, hinge, averaged output",
            own_epoch(
                lambda: SDCAClassifier(lmbd=lmbd, average=True, avg_start=0, random_state=seed),
                X,
                y,
                args.epochs,
            ),
            note="averages every step",
        ),
    ]
    rows.append(
        Row(
            "  (SDCA arithmetic alone, rows in cache)",
            sdca_arithmetic_in_cache(X, y, lmbd, args.repeats),
            note="diagnostic: compute floor, no DRAM traffic",
        )
    )
    k_big = min(100, n)
    pegasos = [
        ("Pegasos k=1 (iid)", {}, 1.5, ""),
        (
            "Pegasos k=1, averaged output",
            {"average": True, "avg_start": 0},
            None,
            "avg every step",
        ),
        ("Pegasos k=1, projection", {"projection": True}, None, ""),
        (
            f"Pegasos k={k_big} (permutation sampling)",
            {"batch_size": k_big, "sampling": "permutation"},
            1.5,
            "",
        ),
    ]
    for name, params, target, note in pegasos:
        rows.append(
            Row(
                name,
                own_epoch(
                    lambda p=params: PegasosClassifier(lmbd=lmbd, random_state=seed, **p),
                    X,
                    y,
                    args.epochs,
                ),
                target=target,
                note=note,
            )
        )
    m = min(8, n)
    rows.append(
        Row(
            f"ASDCA m={m}, smoothed hinge (gamma=1)",
            own_epoch(
                lambda: ASDCAClassifier(lmbd=lmbd, batch_size=m, random_state=seed),
                X,
                y,
                args.epochs,
            ),
        )
    )
    C = objectives.lmbd_to_C(lmbd, n)
    rows.append(
        Row(
            "scikit-learn LinearSVC (liblinear, hinge, dual)",
            sklearn_epoch(
                lambda k: LinearSVC(
                    loss="hinge",
                    dual=True,
                    fit_intercept=False,
                    C=C,
                    tol=1e-12,
                    max_iter=k,
                    random_state=seed,
                ),
                X,
                y,
                2,
                2 + args.epochs,
                args.repeats,
            ),
            note="shrinking: later epochs skip bound samples",
        )
    )
    rows.append(
        Row(
            "scikit-learn SGDClassifier(loss='hinge')",
            sklearn_epoch(
                lambda k: SGDClassifier(
                    loss="hinge",
                    alpha=lmbd,
                    fit_intercept=False,
                    max_iter=k,
                    tol=None,
                    random_state=seed,
                ),
                X,
                y,
                2,
                2 + args.epochs,
                args.repeats,
            ),
        )
    )
    return rows


# ---------------------------------------------------------------------------- sparse
#: An SDCA-Perm epoch on the sparse problem costs at most this many ``X @ v`` passes.
SPARSE_TARGET = 2.5


def sparse_problem(n: int, d: int, nnz: int, seed: int = 0) -> tuple[sp.csr_matrix, np.ndarray]:
    """CSR with exactly ``min(nnz, d)`` stored entries per row in distinct, uniformly drawn
    columns (sorted), standard normal values, and noisy linear labels."""
    rng = np.random.default_rng(seed)
    k = min(nnz, d)
    cols = np.sort(rng.integers(0, d, (n, k)), axis=1)
    while True:  # redraw the rows that drew a column twice (rare when k << d)
        dup = np.flatnonzero((np.diff(cols, axis=1) == 0).any(axis=1))
        if dup.size == 0:
            break
        cols[dup] = np.sort(rng.integers(0, d, (dup.size, k)), axis=1)
    X = sp.csr_matrix(
        (rng.standard_normal(n * k), cols.ravel(), np.arange(0, n * k + 1, k)), shape=(n, d)
    )
    y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    return X, y


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
    seed = 0
    return [
        Row(
            "CSR SDCA-Perm, hinge",
            own_epoch(lambda: SDCAClassifier(lmbd=lmbd, random_state=seed), X, y, args.epochs),
            target=SPARSE_TARGET,
        ),
        Row(
            "CSR SDCA-Perm, averaged output",
            own_epoch(
                lambda: SDCAClassifier(lmbd=lmbd, average=True, avg_start=0, random_state=seed),
                X,
                y,
                args.epochs,
            ),
            note="averages every step",
        ),
        Row(
            "CSR Pegasos k=1 (iid)",
            own_epoch(lambda: PegasosClassifier(lmbd=lmbd, random_state=seed), X, y, args.epochs),
        ),
        Row(
            "CSR ASDCA m=8, smoothed hinge (gamma=1)",
            own_epoch(
                lambda: ASDCAClassifier(
                    lmbd=lmbd, batch_size=min(8, X.shape[0]), random_state=seed
                ),
                X,
                y,
                args.epochs,
            ),
        ),
    ]


def sparse_section(args) -> tuple[float, list[Row]]:
    """Print the sparse problem's table; returns (one ``X @ v`` pass in s, rows)."""
    X, y = sparse_problem(args.sparse_n, args.sparse_d, args.sparse_nnz)
    n, d = X.shape
    lmbd = 1.0 / n
    v = np.ones(d)
    with threadpool_limits(limits=1):
        solvers.warm_up(dtypes=(X.dtype,), readonly=False)
        _ = X @ v  # first touch
        bound = min(cpu(lambda: X @ v) for _ in range(max(args.repeats, 3)))
        rows = sparse_rows(X, y, lmbd, args)
        peak = peak_fit_bytes(
            lambda: SDCAClassifier(lmbd=lmbd, max_epochs=2, tol=0, random_state=0), X, y
        )
    mb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 1e6
    print(
        f"\nProblem: sparse CSR {n} x {d}, {X.nnz / n:.0f} nonzeros per row, float64 "
        f"({mb:.0f} MB), lambda = 1/n, 1 thread"
    )
    print(f"  scipy X @ v (1 thread)       {bound * 1e3:8.2f} ms\n")
    header = f"{'solver':<48} {'ms/epoch':>9} {'x X @ v':>8}  {'target':>8}  note"
    print(header)
    print("-" * len(header))
    for row in rows:
        ratio = row.seconds / bound
        target = ""
        if row.target is not None:
            target = f"<= {row.target:.2f} " + ("ok" if ratio <= row.target else "MISSED")
        print(f"{row.name:<48} {row.seconds * 1e3:9.2f} {ratio:8.2f}  {target:>8}  {row.note}")
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

    rng = np.random.default_rng(0)
    X = rng.standard_normal((args.n, args.d)).astype(args.dtype)
    y = np.where(X @ rng.standard_normal(args.d) + rng.standard_normal(args.n) > 0, 1.0, -1.0)
    lmbd = 1.0 / args.n

    with threadpool_limits(limits=1):
        solvers.warm_up(dtypes=(X.dtype,), readonly=False)
        bound, passes = one_pass_bound(X, args.repeats)
        rows = rows_for(X, y, lmbd, args)

    mb = X.nbytes / 1e6
    print(
        f"\nProblem: dense {args.n} x {args.d} {args.dtype} ({mb:.0f} MB), lambda = 1/n, 1 thread"
    )
    for name, seconds in passes.items():
        print(f"  {name:<28} {seconds * 1e3:8.2f} ms  ({mb / 1e3 / seconds:5.1f} GB/s)")
    print(f"  one-pass bound (fastest)     {bound * 1e3:8.2f} ms\n")
    header = f"{'solver':<48} {'ms/epoch':>9} {'x bound':>8}  {'target':>8}  note"
    print(header)
    print("-" * len(header))
    for row in rows:
        ratio = row.seconds / bound
        target = ""
        if row.target is not None:
            target = f"<= {row.target:.2f} " + ("ok" if ratio <= row.target else "MISSED")
        print(f"{row.name:<48} {row.seconds * 1e3:9.2f} {ratio:8.2f}  {target:>8}  {row.note}")
    by_name = {r.name: r.seconds for r in rows}
    sdca = by_name["SDCA-Perm, hinge"]
    svc = by_name["scikit-learn LinearSVC (liblinear, hinge, dual)"]
    verdict = "ok" if svc / sdca >= 3 else "MISSED"
    print(f"\nSDCA epoch vs LinearSVC epoch: {svc / sdca:.1f}x faster (target >= 3x: {verdict})")
    return rows + sparse_section(args)[1]


if __name__ == "__main__":
    main()
