"""Index streams drawn by the drivers and handed to the kernels (randomness enters as data).

Every function takes a ``numpy.random.Generator`` and returns an ``int64`` array; kernels never
draw random numbers themselves (STYLE.md, practice 2).
"""

from __future__ import annotations

import numpy as np

SAMPLINGS = ("perm", "random", "cyclic")


def epoch_indices(
    rng: np.random.Generator, n_samples: int, sampling: str, cyclic_order: np.ndarray | None
) -> np.ndarray:
    """Indices of one epoch of ``n_samples`` single-sample steps.

    ``perm``: a fresh permutation (SDCA-Perm); ``random``: ``n_samples`` i.i.d. uniform draws
    with replacement; ``cyclic``: the fixed ``cyclic_order`` drawn once by the caller.
    """
    if sampling == "perm":
        return rng.permutation(n_samples)
    if sampling == "random":
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


def active_indices(
    rng: np.random.Generator, active: np.ndarray, sampling: str, sweeps: int = 1
) -> np.ndarray:
    """``sweeps`` consecutive passes over the ``active`` samples only (SDCA's shrinking).

    Each pass is ``len(active)`` entries: a fresh permutation of ``active`` (``perm``), as
    many i.i.d. uniform draws among them (``random``), or ``active`` itself in its order
    (``cyclic``: the caller keeps it in the cyclic order). Returns a new ``int64`` array of
    ``sweeps * len(active)`` entries.
    """
    if sampling == "perm":
        return np.concatenate([rng.permutation(active) for _ in range(sweeps)])
    if sampling == "random":
        return active[rng.integers(0, active.shape[0], size=sweeps * active.shape[0])]
    if sampling == "cyclic":
        return np.tile(active, sweeps)
    raise ValueError(f"unknown sampling {sampling!r}; expected one of {SAMPLINGS}")
