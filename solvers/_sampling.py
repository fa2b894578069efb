"""Index streams drawn by the drivers and handed to the kernels (randomness enters as data).

Every function takes a ``numpy.random.Generator`` and returns an ``int64`` array; kernels never
draw random numbers themselves (STYLE.md, practice 2).

One vocabulary for the order in which an epoch visits the samples, in every solver,
experiment and figure (``sampling=``):

``"iid"``
    Independent uniform draws, with replacement across draws: n i.i.d. indices per epoch
    (SDCA), or independent mini-batches, each a uniform subset of distinct samples
    (Pegasos; i.i.d. indices when the batch is one sample). The sampling the convergence
    theorems analyse.
``"permutation"``
    A fresh random permutation of the samples each epoch, cut into consecutive batches:
    every sample exactly once per epoch, without replacement (SDCA-Perm; Pegasos' "epoch"
    partition of seeds/000).
``"cyclic"``
    One permutation drawn at the start of the fit, repeated every epoch (SDCA only).

Why these names: they say what the index array *is*, which is what differs between the
options. The older spellings named something else: SDCA's ``"random"`` (a permutation is
random too), ``"perm"`` (an abbreviation), and Pegasos' ``"epoch"`` (every option runs in
epochs) — and two solvers used two words for one draw. The old spellings are accepted for
one release: :func:`resolve_sampling` maps them to the new ones (the same draws, the same
bits) and warns with a ``FutureWarning`` naming the new spelling.
"""

from __future__ import annotations

import warnings

import numpy as np
from numba import njit

from ._problem import caller_stacklevel

SAMPLINGS = ("iid", "permutation", "cyclic")

#: Deprecated spelling -> new spelling, per estimator (only the spellings it accepted).
DEPRECATED_SAMPLINGS = {
    "SDCAClassifier": {"random": "iid", "perm": "permutation"},
    "PegasosClassifier": {"epoch": "permutation"},
}


def resolve_sampling(owner: str, sampling: str, warn: bool = False) -> str:
    """The current spelling of ``owner``'s ``sampling`` (a deprecated alias is translated).

    With ``warn``, a deprecated alias emits a ``FutureWarning`` that names the new spelling
    (the estimators warn once per ``fit``).
    """
    new = DEPRECATED_SAMPLINGS.get(owner, {}).get(sampling)
    if new is None:
        return sampling
    if warn:
        warnings.warn(
            f"{owner}(sampling={sampling!r}) is deprecated and will be removed in the next "
            f"release: use sampling={new!r} (the same draws, the same results).",
            FutureWarning,
            stacklevel=caller_stacklevel(),  # the user's line that called fit
        )
    return new


def epoch_indices(
    rng: np.random.Generator, n_samples: int, sampling: str, cyclic_order: np.ndarray | None
) -> np.ndarray:
    """Indices of one epoch of ``n_samples`` single-sample steps.

    ``permutation``: a fresh permutation (SDCA-Perm); ``iid``: ``n_samples`` i.i.d. uniform
    draws with replacement; ``cyclic``: the fixed ``cyclic_order`` drawn once by the caller.
    """
    if sampling == "permutation":
        return rng.permutation(n_samples)
    if sampling == "iid":
        return rng.integers(0, n_samples, size=n_samples)
    if sampling == "cyclic":
        if cyclic_order is None:
            raise ValueError("cyclic sampling needs the order drawn at the start of fit")
        return cyclic_order
    raise ValueError(f"unknown sampling {sampling!r}; expected one of {SAMPLINGS}")


def distinct_batches(rng: np.random.Generator, n_samples: int, batch_size: int) -> np.ndarray:
    """One epoch of i.i.d. mini-batches, each a uniform subset of ``batch_size`` distinct indices.

    The result has ``n_samples`` entries, read as consecutive batches of ``batch_size`` (the
    last one smaller when ``batch_size`` does not divide ``n_samples``). Batches are
    independent of each other; inside a batch, indices are distinct (a subset ``A_t`` of
    size ``k``, as seeds/001 algorithm 4). While ``k² <= n`` a batch with a repeat is
    redrawn (rejection sampling, accepted with probability about exp(-k²/2n) >= 0.6),
    which leaves each batch uniform over subsets; for larger batches, where rejection would
    almost never accept, each batch is drawn directly without replacement (fewer than √n
    batches then).
    """
    if batch_size > n_samples:
        raise ValueError(f"batch_size={batch_size} exceeds n_samples={n_samples}")
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


@njit(cache=True)
def _shuffled_passes(values, uniforms, out):
    """``out`` = consecutive random permutations of ``values``, each from ``len(values)``
    entries of ``uniforms`` (Fisher–Yates in Durstenfeld's form: position k takes the entry
    at ⌊u·(k + 1)⌋ ≤ k, u uniform in [0, 1)). ``out`` : (passes · m,) int64."""
    m = values.shape[0]
    for start in range(0, out.shape[0], m):
        out[start : start + m] = values
        for k in range(m - 1, 0, -1):
            j = start + min(int(uniforms[start + k] * (k + 1)), k)  # rounding never gives k+1
            tmp = out[start + k]
            out[start + k] = out[j]
            out[j] = tmp


def shuffled_passes(rng: np.random.Generator, values: np.ndarray, passes: int) -> np.ndarray:
    """``passes`` consecutive uniform random permutations of ``values`` in one compiled call,
    from ``passes * len(values)`` uniforms of ``rng`` (a uniform in [0, 1) carries 53 random
    bits: the bias of ⌊u·(k + 1)⌋ is below 2^-53·k). For many passes over a small set (a
    shrunk active set: up to n/|A| per epoch) this is what ``rng.permutation`` would cost
    once per pass in call overhead alone (PCA-40 at λ = 1/n: a third of a fit's CPU time)."""
    values = np.ascontiguousarray(values, dtype=np.int64)
    out = np.empty(passes * values.shape[0], dtype=np.int64)
    if out.shape[0]:
        _shuffled_passes(values, rng.random(out.shape[0]), out)
    return out


def active_indices(
    rng: np.random.Generator, active: np.ndarray, sampling: str, sweeps: int = 1
) -> np.ndarray:
    """``sweeps`` consecutive passes over the ``active`` samples only (SDCA's shrinking).

    Each pass is ``len(active)`` entries: a fresh permutation of ``active``
    (``permutation``, :func:`shuffled_passes`), as many i.i.d. uniform draws among them
    (``iid``), or ``active`` itself in its order (``cyclic``: the caller keeps it in the
    cyclic order). Returns a new ``int64`` array of ``sweeps * len(active)`` entries.
    """
    if sampling == "permutation":
        return shuffled_passes(rng, active, sweeps)
    if sampling == "iid":
        return active[rng.integers(0, active.shape[0], size=sweeps * active.shape[0])]
    if sampling == "cyclic":
        return np.tile(active, sweeps)
    raise ValueError(f"unknown sampling {sampling!r}; expected one of {SAMPLINGS}")
