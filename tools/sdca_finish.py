"""What an exact finish on SDCA's last active set would buy (issue 32, item 2): a measurement.

SDCA with shrinking spends the second half of a fit on a PCA-40-shaped problem (5000 × 40,
λ = 1/n) sweeping an active set of 40-70 samples: coordinate ascent on that block's dual,
whose Gram matrix (rank ≤ 40, more than 40 samples inside the box) is so ill-conditioned that
thousands of passes barely move the gap. This script solves the block exactly instead, once
per shrinking phase (between two restores) when the active set is at most ``--limit``
samples: a primal active-set method for the box QP of the block's dual, the other samples
fixed, with its Hessian in factor form MᵀM (M: the block's rows y_i x_i/√(λn)); a face whose
free rows are dependent is left along a direction of its null space (where the objective is
linear) to the first bound. It then reports the CPU time of whole fits (``tol`` as given, no
intercept, one thread, median of 5 seeds) with and without that finish.

A prototype, not solver code: hinge only, dense X, no sample weights, no intercept, NumPy's
SVD once per iteration (2-45 ms a finish, Python-bound). Measured 2026-11-26 on a loaded 2-core
machine (load 1.7-2.6): to tol 1e-6, 44 ms → 32 ms; to 1e-9, 139 ms → 33 ms (every fit stops
at a gap ≤ 1e-16 after 76-77 epochs, against 280-604 epochs without), the finish itself
about 14 ms of each fit. Run ``python tools/sdca_finish.py``.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import math
import time

import numpy as np

from benchmarks.problems import make_dense
from benchmarks.threads import one_thread
from solvers import SDCAClassifier


def box_qp(M, b, a, u, max_iter=500, tol=1e-12):
    """Minimise ½‖M a‖² + bᵀa over 0 ≤ a ≤ u from the feasible ``a`` (a copy) by a primal
    active-set method; returns ``(a, iterations, converged)``.

    Variables at a bound are fixed; on the free ones F the step is Newton's on the face (the
    least-norm solution of M_Fᵀ M_F p = −g_F, from the SVD of M_F) or, when g_F has a part
    outside M_Fᵀ's range, the descent ray along that part (the objective is linear there),
    each taken up to the first bound it reaches (which is then fixed). At a face's minimum,
    the fixed variable whose gradient most pulls it inside is freed; none: optimal.
    """
    a = np.clip(a, 0.0, u)
    at0, at1 = a <= 0.0, a >= u
    for it in range(max_iter):
        g = M.T @ (M @ a) + b
        free = np.flatnonzero(~(at0 | at1))
        p, ray = np.zeros_like(a), False
        if free.size:
            _, s, Vt = np.linalg.svd(M[:, free], full_matrices=False)
            keep = s > s.max() * 1e-10
            V, s = Vt[keep].T, s[keep]
            proj = V.T @ g[free]
            null = g[free] - V @ proj
            ray = np.linalg.norm(null) > 1e-10 * np.linalg.norm(g[free])
            p[free] = -null if ray else -V @ (proj / (s * s))
        if not ray and np.abs(p).max(initial=0.0) <= tol * max(1.0, np.abs(a).max()):
            pull0 = np.where(at0, -g, -np.inf)  # at 0, a negative gradient pulls inside
            pull1 = np.where(at1, g, -np.inf)
            if max(pull0.max(), pull1.max()) <= tol:
                return a, it, True
            if pull0.max() >= pull1.max():
                at0[np.argmax(pull0)] = False
            else:
                at1[np.argmax(pull1)] = False
            continue
        with np.errstate(divide="ignore", invalid="ignore"):
            reach = np.where(p < 0, -a / p, np.where(p > 0, (u - a) / p, np.inf))
        j = int(np.argmin(reach))
        step = reach[j] if ray else min(1.0, reach[j])
        a[free] += step * p[free]
        if reach[j] <= step:  # the blocking variable is fixed at its bound
            (at1 if p[j] > 0 else at0)[j] = True
            a[j] = u[j] if p[j] > 0 else 0.0
    return a, max_iter, False


class FinishedSDCA(SDCAClassifier):
    """SDCA with shrinking and the exact finish above (hinge, no weights, no intercept)."""

    limit = 60
    finish_cpu = 0.0

    def _shrunk_epoch(self, state, seed):
        active, n = state.active, state.problem.n_samples
        m = int(active.size[0])
        if m == n:
            state.finished = False  # a restore: the next small active set gets a finish
        elif m <= self.limit and not getattr(state, "finished", False):
            state.finished = True
            start = time.process_time()
            block = np.sort(active.samples[:m])
            y, X = state.rows.y[block], state.problem.X[block]
            w, alpha = state.sweep.w, state.sweep.dual_coef
            a0 = y * alpha[block]
            M = (y[:, None] * X).T / math.sqrt(state.params.lmbd_n)
            b = y * (X @ w[:-1]) - 1.0 - M.T @ (M @ a0)
            a, _, _ = box_qp(M, b, a0.copy(), np.ones(m))
            alpha[block] = y * a
            w[:-1] += X.T @ (y * (a - a0)) / state.params.lmbd_n
            FinishedSDCA.finish_cpu += time.process_time() - start
        super()._shrunk_epoch(state, seed)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=60, help="largest active set finished")
    parser.add_argument("--seeds", type=int, default=5)
    args = parser.parse_args(argv)
    X, y = make_dense(5000, 40, seed=0, noise=0.25 * math.sqrt(40))
    lmbd = 1.0 / X.shape[0]
    print(f"5000 x 40 Gaussian, lambda = 1/n, no intercept; CPU s of fit, median of {args.seeds}")
    with one_thread(np.float64):
        for tol in (1e-6, 1e-9):
            for cls in (SDCAClassifier, FinishedSDCA):
                FinishedSDCA.limit, FinishedSDCA.finish_cpu = args.limit, 0.0
                fits = []
                for seed in range(args.seeds):
                    est = cls(lmbd, shrinking=True, tol=tol, max_epochs=100_000,
                              bias_multiplier=0.0, random_state=seed)  # fmt: skip
                    est.fit(X[:20], y[:20])  # compile this class's warm-up first
                    start = time.process_time()
                    est.fit(X, y)
                    fits.append((time.process_time() - start, est.n_epochs_, est.duality_gap_))
                cpu, epochs, gaps = zip(*fits, strict=True)
                print(
                    f"tol {tol:.0e} {cls.__name__:<15} fit {np.median(cpu):.4f} s, epochs "
                    f"{list(epochs)}, gaps {max(gaps):.1e} at most"
                    + (
                        f", finishes {FinishedSDCA.finish_cpu:.3f} s"
                        if cls is FinishedSDCA
                        else ""
                    )
                )


if __name__ == "__main__":
    main()
