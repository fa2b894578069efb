"""Slow, readable pure-NumPy twins of the Numba kernels (STYLE.md, practice 6c).

Each twin follows the published update literally, one sample at a time, keeps every iterate
it needs for averaging explicitly (no lazy-averaging algebra), and is fed the same index
arrays as the kernel it checks.
"""

from __future__ import annotations

import math

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


def sdca_shrinking_reference(
    X, y, lmbd, visited, *, gamma=0.0, bias=0.0, ratio=0.1, sampling="permutation", sgd_init=False
):
    """SDCA with liblinear-style shrinking, one sample at a time, from the steps each epoch
    made (``visited``: the samples, in order, that the kernel drew; the first epoch is the
    modified-SGD one if ``sgd_init``). Checks that every pass is drawn from the right set.

    Returns ``(w, alpha, history)`` with ``history[e] = (active-set size, steps made)`` of
    epoch e. Rules (as documented in ``SDCAClassifier``): G_i = y_i x̃_i·w − 1 + γ a_i; a
    pass records each step's projected gradient before the step and G_i after it. An epoch
    is passes over the active set A: a permutation of A, or A in its order (the same set),
    or |A| i.i.d. draws from A. A pass over every sample sets ε = ratio·(max PG − min PG);
    after a pass over fewer, the epoch ends if its PG range is ≤ ε, and every sample is
    restored. Otherwise after each pass sample i of A leaves if a_i = 0 and G_i > max PG
    (when above 1e-12) or a_i = 1 and G_i < min PG (when below -1e-12), with that pass's PG
    range and the last G_i seen since the last restore (i.i.d.: since the last shrink; none:
    the sample stays). If no sample is left, all return and the epoch ends. Otherwise the
    next pass follows, unless the epoch ran out of steps: another pass of the size before
    the shrink would have taken it past n steps.
    """
    Xt = augment(X, bias)
    n = Xt.shape[0]
    alpha = np.zeros(n)
    w = np.zeros(Xt.shape[1])
    active = list(range(n))
    grad = {}
    eps = np.inf
    history = []
    epochs = list(visited)
    if sgd_init:
        w, alpha, *_ = sdca_reference(
            X, y, lmbd, epochs[:1], gamma=gamma, bias=bias, sgd_init=True
        )
        history.append((n, n))
        epochs = epochs[1:]
    for order in epochs:
        order = [int(i) for i in order]
        history.append((len(active), len(order)))
        start = 0
        while True:
            full = len(active) == n
            chunk = order[start : start + len(active)]
            assert len(chunk) == len(active), "a pass sweeps as many samples as are active"
            if sampling == "iid":
                assert set(chunk) <= set(active), "only active samples are drawn"
            else:
                assert sorted(chunk) == sorted(active), "a pass visits each active sample once"
            pgs = []
            for i in chunk:
                q = Xt[i] @ Xt[i] / (lmbd * n) + gamma
                a_old = y[i] * alpha[i]
                G = y[i] * (Xt[i] @ w) - 1 + gamma * a_old
                pgs.append(min(G, 0.0) if a_old == 0 else max(G, 0.0) if a_old == 1 else G)
                a_new = 1.0 if q == 0 else float(np.clip(a_old - G / q, 0, 1))
                alpha[i] = y[i] * a_new
                w = w + y[i] * (a_new - a_old) / (lmbd * n) * Xt[i]
                grad[i] = G + q * (a_new - a_old)
            start += len(chunk)
            pg_max, pg_min = max(pgs), min(pgs)
            if full:
                eps = ratio * (pg_max - pg_min)
            elif pg_max - pg_min <= eps:
                active, grad = list(range(n)), {}
                break
            upper = pg_max if pg_max > 1e-12 else np.inf
            lower = pg_min if pg_min < -1e-12 else -np.inf
            size = len(active)
            active = [
                i
                for i in active
                if not (
                    (y[i] * alpha[i] == 0 and grad.get(i, np.nan) > upper)
                    or (y[i] * alpha[i] == 1 and grad.get(i, np.nan) < lower)
                )
            ]
            if sampling == "iid":  # the next pass may not visit every survivor
                grad = {}
            if not active:
                active, grad = list(range(n)), {}
                break
            if start == len(order):
                assert start + size > n, "the epoch stopped while another pass fitted"
                break
        assert start == len(order), "the epoch made the passes its rules allow, no more"
    return w, alpha, history


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


def batches(index_arrays, batch_size):
    """The batches of a list of epoch index arrays: consecutive runs of ``batch_size``."""
    for indices in index_arrays:
        for start in range(0, len(indices), batch_size):
            yield np.asarray(indices[start : start + batch_size])


def pegasos_reference(
    X,
    y,
    lmbd,
    index_arrays,
    *,
    batch_size=1,
    projection=False,
    average=False,
    t0=0,
    bias=0.0,
    weights=None,
    t_start=0,
    w_start=None,
    loss=None,
):
    """Mini-batch Pegasos written as seeds/001 algorithm 4, with the plain (unscaled) update; a
    sample of weight c_i adds c_i y_i x̃_i. ``t_start`` iterations already made and ``w_start`` the
    iterate they left (a warm start / partial_fit). ``loss``: a
    :class:`sdca_pegasos.solvers.core.losses.Loss` (None: the hinge); sample i then adds a_i c_i
    y_i x̃_i with a_i = -φ'(z_i) (``loss.dual_targets``), for every i of the batch.

    Returns ``(w_out, w_last, iterates)``; ``iterates[t]`` is the iterate after t iterations.
    average : False, True (mean of iterates t0..T) or "weighted" (step 2/(λ(t+1)) and
    weights t for t >= max(t0, 1)).
    """
    Xt = augment(X, bias)
    c = np.ones(Xt.shape[0]) if weights is None else np.asarray(weights, dtype=float)
    w = np.zeros(Xt.shape[1]) if w_start is None else np.array(w_start, dtype=float)
    iterates = [w.copy()]
    t = t_start
    for batch in batches(index_arrays, batch_size):
        t += 1
        eta = 2 / (lmbd * (t + 1)) if average == "weighted" else 1 / (lmbd * t)
        if loss is None:
            steps = [(i, 1.0) for i in batch if y[i] * (Xt[i] @ w) < 1]  # all margins at w_t
        else:
            steps = [(i, float(loss.dual_targets(y[i] * (Xt[i] @ w)))) for i in batch]
        w = (1 - eta * lmbd) * w + eta / len(batch) * sum(
            (a * c[i] * y[i] * Xt[i] for i, a in steps), np.zeros_like(w)
        )
        if projection:
            w = min(1.0, (1 / np.sqrt(lmbd)) / max(np.linalg.norm(w), 1e-300)) * w
        iterates.append(w.copy())
    T = t - t_start
    if average is True and t0 <= T:
        return np.mean(iterates[t0:], axis=0), w, iterates
    if average == "weighted" and t0 <= T:
        ts = np.arange(max(t0, 1), T + 1)
        return (ts[:, None] * np.array(iterates)[ts]).sum(axis=0) / ts.sum(), w, iterates
    return w, w, iterates


def smooth_hinge_derivative(z, gamma):
    """φ_γ'(z): -1 below 1 - γ, -(1 - z)/γ in between, 0 from 1 on."""
    if z >= 1:
        return 0.0
    if z <= 1 - gamma:
        return -1.0
    return -(1 - z) / gamma


def asdca_reference(
    X,
    y,
    lmbd,
    gamma,
    theta,
    index_arrays,
    *,
    batch_size=8,
    bias=0.0,
    average=False,
    t0=0,
    weights=None,
):
    """Accelerated mini-batch SDCA literally as seeds/001 §2.5 (vector dual variables α_i).

    g(w) = λ/2‖w‖², ∇g*(ᾱ) = ᾱ/λ, φ_i(w) = φ_γ(y_i x̃_iᵀw). Returns ``(w, a)`` with the
    signed scalars a_i such that α_i = a_i x̃_i (checked on the way); with ``average``, the
    means of the iterates t0..T (iterate t: after t iterations) instead, when t0 <= T.
    """
    Xt = augment(X, bias)
    n, d1 = Xt.shape
    c = np.ones(n) if weights is None else np.asarray(weights, dtype=float)  # φ_i = c_i φ_γ
    alpha = np.zeros((n, d1))  # α_i ∈ R^{d+1}, the paper's dual variables
    a = np.zeros(n)
    alpha_bar = np.zeros(d1)
    w = np.zeros(d1)
    iterates = [(w.copy(), a.copy())]
    for batch in batches(index_arrays, batch_size):
        assert len(set(batch.tolist())) == len(batch), "a batch is a set of distinct samples"
        u = (1 - theta) * w + theta * alpha_bar / lmbd
        for i in batch:
            dphi = c[i] * smooth_hinge_derivative(y[i] * (Xt[i] @ u), gamma)
            new = (1 - theta) * alpha[i] - theta * dphi * y[i] * Xt[i]
            alpha_bar = alpha_bar + (new - alpha[i]) / n
            alpha[i] = new
            a[i] = (1 - theta) * a[i] - theta * dphi * y[i]
        w = (1 - theta) * w + theta * alpha_bar / lmbd
        iterates.append((w.copy(), a.copy()))
    np.testing.assert_allclose(alpha, a[:, None] * Xt, rtol=0, atol=1e-12)
    if average and t0 < len(iterates):
        ws, As = zip(*iterates[t0:], strict=True)
        return np.mean(ws, axis=0), np.mean(As, axis=0)
    return w, a


def sdca_loss_reference(X, y, lmbd, index_arrays, *, kappa, upper, weights=None, bias=0.0):
    """SDCA for any loss of the box-conjugate family (κ, U) and sample weights c, one sample
    at a time: a_i maximises (1/n)(a - κa²/(2c_i)) - (λ/2)‖w_{-i} + a y_i x̃_i/(λn)‖² over
    [0, c_i U], with w_{-i} = w - α_i x̃_i/(λn) (the sample's own contribution removed: a
    different form of the step than the kernels' a - G/h). Returns (w, α)."""
    Xt = augment(X, bias)
    n = Xt.shape[0]
    c = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    alpha = np.zeros(n)
    w = np.zeros(Xt.shape[1])
    for indices in index_arrays:
        for i in indices:
            if c[i] == 0.0:
                continue
            w_rest = w - alpha[i] * Xt[i] / (lmbd * n)
            curvature = Xt[i] @ Xt[i] / (lmbd * n) + kappa / c[i]
            target = (1.0 - y[i] * (Xt[i] @ w_rest)) / curvature if curvature > 0 else np.inf
            a = float(np.clip(target, 0.0, c[i] * upper))
            alpha[i] = y[i] * a
            w = w_rest + alpha[i] * Xt[i] / (lmbd * n)
    return w, alpha


def exact_dot(a, b) -> float:
    """Σ a_k b_k of the real numbers, correctly rounded: each product split exactly into
    p + e (Dekker, by Veltkamp splitting; |a|, |b| < 1e150), all summed by math.fsum."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)

    def split(v):
        t = 134217729.0 * v  # 2**27 + 1
        hi = t - (t - v)
        return hi, v - hi

    p = a * b
    (ah, al), (bh, bl) = split(a), split(b)
    e = (((ah * bh - p) + ah * bl) + al * bh) + al * bl
    return math.fsum(np.concatenate([p, e]))


# ---------------------------------------------------------------- the passes' generator
MASK64 = (1 << 64) - 1


def splitmix64_reference(state):
    """(next state, output) of SplitMix64 (Vigna's reference C code), in Python integers."""
    state = (state + 0x9E3779B97F4A7C15) & MASK64
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return state, z ^ (z >> 31)


def uniform_below_reference(state, bound):
    """(next state, j) with j uniform in [0, bound): Lemire's multiply-shift on the top 32
    bits of each output, drawing again while the low half of the product is below
    2**32 mod bound."""
    while True:
        state, z = splitmix64_reference(state)
        m = (z >> 32) * bound
        if (m & 0xFFFFFFFF) >= (2**32 - bound) % bound:
            return state, m >> 32


def shuffle_reference(values, state):
    """(a uniformly random permutation of ``values``, the state after it): the "inside-out"
    Fisher–Yates shuffle (Durstenfeld), entry k placed at a uniform position among the first
    k + 1."""
    out = []
    for k, v in enumerate(values):
        state, j = uniform_below_reference(state, k + 1)
        out.append(v)
        out[k], out[j] = out[j], v
    return out, state


def distinct_batches_reference(rng, n_samples, batch_size):
    """The mini-batch draws of sampling.distinct_batches in NumPy alone (the implementation
    before its repeat check was compiled): the batches of each size drawn as one block, rows
    with a repeated index found by sorting the block and redrawn, in ascending order, until
    none is left; batches of more than √n drawn one by one without replacement."""
    if batch_size == 1:
        return rng.integers(0, n_samples, size=n_samples)
    n_full, rest = divmod(n_samples, batch_size)
    sizes = [batch_size] * n_full + ([rest] if rest else [])
    if batch_size * batch_size > n_samples:
        return np.concatenate([rng.choice(n_samples, size, replace=False) for size in sizes])
    out = np.empty(n_samples, dtype=np.int64)
    pos = 0
    for size in sorted(set(sizes), reverse=True):
        count = sizes.count(size)
        block = rng.integers(0, n_samples, size=(count, size))
        while True:
            srt = np.sort(block, axis=1)
            bad = np.flatnonzero((srt[:, 1:] == srt[:, :-1]).any(axis=1))
            if bad.size == 0:
                break
            block[bad] = rng.integers(0, n_samples, size=(bad.size, size))
        out[pos : pos + count * size] = block.ravel()
        pos += count * size
    return out
