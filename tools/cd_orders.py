"""Dual coordinate ascent written plainly in NumPy, by visiting order: the reference for
docs/distributed.md's finding that chunked passes and CoCoA+ slow down, the intercept most.

One problem: 8,000 Gaussian rows × 20 (norms ≈ 1), labels the sign of a planted w plus
noise, the smoothed hinge (γ = 1) at λn = 130, bias multiplier B = 1 and 0. Each line prints
the relative duality gap (P(w) − D(α))/P(w) after each of ``--epochs`` epochs (rounds) of:

- ``permutation``: SDCA, every epoch a permutation of all rows;
- ``chunks S=s``: the rows in 8 fixed chunks of 1,000, each chunk's permutation cut into s
  segments, the 8·s segments visited in a random order (s = 1: one chunk after the other,
  what ``DaskSVMClassifier(n_blocks=...)`` does within a block);
- ``CoCoA+ K=2``: two blocks of 4,000 rows, each an SDCA pass on its local subproblem
  (curvature ×2) from the same w, their updates added (what ``DaskSVMClassifier`` does).

    python tools/cd_orders.py
"""

from __future__ import annotations

import argparse

import numpy as np

N, D, CHUNKS, LMBD_N, KAPPA = 8000, 20, 8, 130.0, 1.0


def problem(bias: float):
    rng = np.random.default_rng(1)
    X = rng.standard_normal((N, D)) / np.sqrt(D)
    y = np.where(X @ rng.standard_normal(D) + 0.3 * rng.standard_normal(N) > 0, 1.0, -1.0)
    return np.hstack([X, np.full((N, 1), bias)]), y


def rel_gap(Xt, y, a, lmbd) -> float:
    w = Xt.T @ (a * y) / (lmbd * N)
    u = 1.0 - y * (Xt @ w)
    phi = np.where(u <= 0, 0.0, np.where(u >= KAPPA, u - KAPPA / 2, u * u / (2 * KAPPA)))
    primal = lmbd / 2 * w @ w + phi.mean()
    dual = np.mean(a - KAPPA * a * a / 2) - lmbd / 2 * w @ w
    return (primal - dual) / primal


def steps(Xt, y, a, v, order, lmbd, sigma=1.0) -> None:
    """Exact coordinate steps on α in ``order`` (in place), v the running w (curvature and
    v's update scaled by σ': the local subproblem of CoCoA+)."""
    for i in order:
        x = Xt[i]
        g = y[i] * x @ v - 1.0 + KAPPA * a[i]
        new = min(max(a[i] - g / (sigma * x @ x / (lmbd * N) + KAPPA), 0.0), 1.0)
        v += sigma * (new - a[i]) * y[i] * x / (lmbd * N)
        a[i] = new


def chunk_order(rng, segments: int) -> np.ndarray:
    size = N // CHUNKS
    parts = []
    for c in range(CHUNKS):
        parts += np.array_split(size * c + rng.permutation(size), segments)
    return np.concatenate([parts[j] for j in rng.permutation(len(parts))])


def run(name: str, bias: float, epochs: int) -> list[float]:
    Xt, y = problem(bias)
    lmbd = LMBD_N / N
    rng = np.random.default_rng(0)
    a, gaps = np.zeros(N), []
    for _ in range(epochs):
        w = Xt.T @ (a * y) / (lmbd * N)
        if name == "permutation":
            steps(Xt, y, a, w, rng.permutation(N), lmbd)
        elif name.startswith("chunks"):
            steps(Xt, y, a, w, chunk_order(rng, int(name.split("=")[1])), lmbd)
        else:  # CoCoA+ K=2: both blocks from the same w, their Δα added
            for block in np.array_split(np.arange(N), 2):
                steps(Xt, y, a, w.copy(), block[rng.permutation(block.shape[0])], lmbd, 2.0)
        gaps.append(rel_gap(Xt, y, a, lmbd))
    return gaps


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args(argv)
    print(f"{N} x {D} Gaussian, smoothed hinge, lambda n = {LMBD_N:g}: relative gap per epoch")
    for bias in (1.0, 0.0):
        for name in ("permutation", "chunks S=1", "chunks S=4", "chunks S=16", "CoCoA+ K=2"):
            gaps = run(name, bias, args.epochs)
            print(f"  B = {bias:g}  {name:<12} " + " ".join(f"{g:.0e}" for g in gaps))


if __name__ == "__main__":
    main()
