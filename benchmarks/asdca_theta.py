"""How fast ASDCA converges with the paper's θ (γ/R² in place of γ) versus hand-tuned θ.

Run with ``.venv/bin/python benchmarks/asdca_theta.py`` (``--help`` for options). For each
problem (λ = 1/n, γ = 1, m = 8) the smoothed optimum is certified first by
``SDCAClassifier(loss="smooth_hinge", tol=1e-10)``: its dual value D* satisfies
D* <= P* <= D* + 1e-10. ASDCA is then run with each θ and several seeds; after every epoch
(outside the timer) the smoothed primal of the iterate gives the relative suboptimality
``(P_γ(w) - D*) / D*`` (an upper bound, off by at most 1e-10 / D*). The table reports the
median over seeds of the first epoch (one epoch = n samples = ⌈n/m⌉ iterations) at which
it is <= 1e-3 and <= 1e-6; ``>E`` means not within ``--max-epochs``, ``div`` that the
objective became non-finite or exceeded 10 P_γ(0). SDCA-Perm on the same smoothed problem
is listed for scale (its epochs are the same n samples).

Problems: ``simulated`` is study B's (seeds/001): X ~ N(0, 1) of shape 1000 x 10,
β ~ N(0, 1), y = sign(Xβ + N(0, 1)), features standardised; ``cancer`` is scikit-learn's
breast-cancer data (569 x 30), standardised; ``simulated x10`` is ``simulated`` with
features multiplied by 10 (R >> 1), where the paper's formula with plain γ diverges.
"""

from __future__ import annotations

import argparse
import contextlib

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.preprocessing import StandardScaler

from sdca_pegasos.solvers import ASDCAClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.sdca.asdca import paper_theta

THRESHOLDS = (1e-3, 1e-6)


class _Reached(Exception):
    """Raised by the callback to stop a run once the last threshold is met."""


def simulated(seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((1000, 10))
    beta = rng.standard_normal(10)
    y = np.sign(X @ beta + rng.standard_normal(1000))
    return StandardScaler().fit_transform(X), y


def cancer() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X), np.where(y == 1, 1.0, -1.0)


def certified_dual(X, y, lmbd, gamma) -> float:
    est = SDCAClassifier(
        lmbd=lmbd,
        loss="smooth_hinge",
        gamma=gamma,
        tol=1e-10,
        tol_gap="absolute",
        max_epochs=10**6,
        bias_multiplier=0.0,  # the objectives here have no intercept
        random_state=0,
    ).fit(X, y)
    assert est.converged_ and est.duality_gap_ <= 1e-10
    return objectives.dual(X, y, est.dual_coef_, lmbd, gamma)


def epochs_to(make, X, y, lmbd, gamma, d_star, max_epochs) -> tuple[list[float], bool]:
    """Epochs at which the relative suboptimality first drops below each threshold."""
    p0 = objectives.primal(X, y, np.zeros(X.shape[1]), lmbd, gamma)
    hits: list[float] = [np.inf] * len(THRESHOLDS)
    diverged = False

    def callback(info):
        nonlocal diverged
        p = objectives.primal(X, y, info.w, lmbd, gamma)
        if not np.isfinite(p) or p > 10 * p0:
            diverged = True
            raise _Reached
        rel = (p - d_star) / d_star
        for k, eps in enumerate(THRESHOLDS):
            if rel <= eps and hits[k] == np.inf:
                hits[k] = info.epoch
        if hits[-1] < np.inf:
            raise _Reached

    with contextlib.suppress(_Reached):
        make(callback, max_epochs).fit(X, y)
    return hits, diverged


def fmt(values: list[float], diverged: int, max_epochs: int) -> str:
    if diverged:
        return "div"
    med = float(np.median(values))
    return f">{max_epochs}" if med == np.inf else f"{med:g}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--max-epochs", type=int, default=3000)
    parser.add_argument(
        "--grid",
        type=float,
        nargs="+",
        default=[0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.5, 0.75, 1.0],
    )
    args = parser.parse_args(argv)
    gamma, m = 1.0, 8

    X_sim, y_sim = simulated()
    problems = {
        "simulated": (X_sim, y_sim),
        "cancer": cancer(),
        "simulated x10": (10 * X_sim, y_sim),
    }
    for name, (X, y) in problems.items():
        n = X.shape[0]
        lmbd = 1.0 / n
        r2 = float(objectives.row_sq_norms(X).max())
        d_star = certified_dual(X, y, lmbd, gamma)
        thetas = {
            "paper, gamma/R^2 (default)": paper_theta(gamma / r2, lmbd, n, m),
            "paper, plain gamma": paper_theta(gamma, lmbd, n, m),
            **{f"{t:g}" + (" (study)" if t in (0.15, 0.75) else ""): t for t in args.grid},
        }
        print(f"\n{name}: n={n}, d={X.shape[1]}, lambda=1/n, gamma={gamma}, m={m}, R^2={r2:.1f}")
        print(f"  certified D* = {d_star:.12f} (P* - D* <= 1e-10)")
        header = f"  {'theta':<28} {'value':>8} {'epochs to 1e-3':>15} {'epochs to 1e-6':>15}"
        print(header)
        print("  " + "-" * (len(header) - 2))
        for label, theta in thetas.items():
            runs = [
                epochs_to(
                    _asdca(lmbd, gamma, m, theta, seed), X, y, lmbd, gamma, d_star, args.max_epochs
                )
                for seed in range(args.seeds)
            ]
            div = sum(d for _, d in runs)
            cols = [fmt([h[k] for h, _ in runs], div, args.max_epochs) for k in range(2)]
            print(f"  {label:<28} {theta:8.4f} {cols[0]:>15} {cols[1]:>15}")
        sdca = [
            epochs_to(_sdca(lmbd, gamma, seed), X, y, lmbd, gamma, d_star, args.max_epochs)
            for seed in range(args.seeds)
        ]
        cols = [fmt([h[k] for h, _ in sdca], 0, args.max_epochs) for k in range(2)]
        print(f"  {'(SDCA-Perm, for scale)':<28} {'':>8} {cols[0]:>15} {cols[1]:>15}")


def _every_epoch(estimator, seed, **params):
    """``make(callback, max_epochs)``: an ``estimator`` with ``params`` that runs every epoch
    (``tol=0``), without an intercept, seeded by ``seed``."""

    def make(callback, max_epochs):
        return estimator(
            **params,
            max_epochs=max_epochs,
            tol=0,
            bias_multiplier=0.0,
            random_state=seed,
            callback=callback,
        )

    return make


def _asdca(lmbd, gamma, m, theta, seed):
    return _every_epoch(ASDCAClassifier, seed, lmbd=lmbd, gamma=gamma, batch_size=m, theta=theta)


def _sdca(lmbd, gamma, seed):
    return _every_epoch(
        SDCAClassifier, seed, lmbd=lmbd, loss="smooth_hinge", gamma=gamma, shrinking=False
    )


if __name__ == "__main__":
    main()
