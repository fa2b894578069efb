"""Slow, readable pure-NumPy twins of the Numba kernels (STYLE.md, practice 6c).

Each twin follows the published update literally, one sample at a time, keeps every iterate
it needs for averaging explicitly (no lazy-averaging algebra), and is fed the same index
arrays as the kernel it checks.
"""

from __future__ import annotations

import numpy as np


def augment(X, bias):
    """x̃_i = (x_i, B)."""
    return np.hstack([np.asarray(X, dtype=np.float64), np.full((X.shape[0], 1), float(bias))])


def sdca_reference(
    X, y, lmbd, index_arrays, *, gamma=0.0, bias=0.0, sgd_init=False, average=False, t0=0, snap=-1
):
    """SDCA with the closed-form coordinate step; returns (w_out, alpha_out, w_last, alpha_last).

    index_arrays : list of int arrays, one per epoch (the first is the SGD epoch if sgd_init).
    average : False, True (mean of iterates t0..T) or "random" (iterate number ``snap``).
    """
    Xt = augment(X, bias)
    n, d1 = Xt.shape
    alpha = np.zeros(n)
    w = np.zeros(d1)
    iterates_w, iterates_a = [], []  # iterate number s is stored at position s

    def record():
        iterates_w.append(w.copy())
        iterates_a.append(alpha.copy())

    record()
    epochs = list(index_arrays)
    if sgd_init:
        first = epochs.pop(0)
        assert sorted(first) == list(range(n)), "the SGD epoch visits every sample once"
        for t, i in enumerate(first, start=1):
            w_prev = Xt.T @ alpha / (lmbd * (t - 1)) if t > 1 else np.zeros(d1)
            # maximise a - γa²/2 - (λt/2)‖w_prev + a y x̃ / (λt)‖² over a = yα in [0, 1]
            q = Xt[i] @ Xt[i]
            denom = q / (lmbd * t) + gamma
            a = 1.0 if denom == 0 else np.clip((1 - y[i] * (Xt[i] @ w_prev)) / denom, 0, 1)
            alpha[i] = y[i] * a
            if t < n:
                record()  # placeholder iterates: the SGD epoch's w^(t) are not SDCA iterates
        w = Xt.T @ alpha / (lmbd * n)
        record()
    for indices in epochs:
        for i in indices:
            q = Xt[i] @ Xt[i]
            a_old = y[i] * alpha[i]
            denom = q / (lmbd * n) + gamma
            if denom == 0:
                a_new = 1.0
            else:
                a_new = np.clip(a_old + (1 - y[i] * (Xt[i] @ w) - gamma * a_old) / denom, 0, 1)
            alpha[i] = y[i] * a_new
            w = w + y[i] * (a_new - a_old) / (lmbd * n) * Xt[i]
            record()
    T = len(iterates_w) - 1
    if average is True and t0 <= T:
        return (
            np.mean(iterates_w[t0:], axis=0),
            np.mean(iterates_a[t0:], axis=0),
            w,
            alpha,
        )
    if average == "random" and snap <= T:
        return iterates_w[snap], iterates_a[snap], w, alpha
    return w, alpha, w, alpha


def primal_reference(X, y, w, lmbd, gamma=0.0, bias=0.0):
    """P(w̃) written out directly."""
    z = y * (augment(X, bias) @ w)
    if gamma == 0:
        loss = np.maximum(0, 1 - z)
    else:
        loss = np.where(
            z >= 1, 0, np.where(z <= 1 - gamma, 1 - z - gamma / 2, (1 - z) ** 2 / (2 * gamma))
        )
    return 0.5 * lmbd * w @ w + loss.mean()


def dual_reference(X, y, alpha, lmbd, gamma=0.0, bias=0.0):
    """D(α) written out directly, with w(α) = X̃ᵀα / (λn)."""
    Xt = augment(X, bias)
    a = y * alpha
    assert np.all((a >= -1e-12) & (a <= 1 + 1e-12))
    w = Xt.T @ alpha / (lmbd * len(y))
    return np.mean(a - gamma / 2 * a * a) - 0.5 * lmbd * w @ w
