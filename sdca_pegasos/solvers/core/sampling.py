"""Index streams drawn by the drivers and handed to the kernels (randomness enters as data).

Every function takes a ``numpy.random.Generator`` and returns an ``int64`` array; kernels never
call a random generator of NumPy's or Numba's (STYLE.md, practice 2). One exception, made
because it pays: SDCA's shrinking shrinks the active set after every pass inside its kernel,
so the next pass's order cannot be drawn before the epoch. The driver then draws one seed
per epoch from its generator, and the kernel draws the passes from it with
:func:`splitmix64` and :func:`uniform_below`, written here in integer arithmetic (the same
bits on every platform and Numba version; their Python twins in ``tests/reference.py``). A
seed replaces an index array of n entries (and its n uniforms and Fisher–Yates pass, 1.1
ms an epoch on skin's 245,057 rows), and only the draws the epoch uses are made.

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

from sdca_pegasos.solvers.core.runtime import caller_stacklevel

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
    if batch_size * batch_size > n_samples:
        sizes = [batch_size] * n_full + ([rest] if rest else [])
        return np.concatenate([rng.choice(n_samples, size, replace=False) for size in sizes])
    out = np.empty(n_samples, dtype=np.int64)
    pos = 0
    # the n_full full batches drawn as one block, then the short one (rest < batch_size)
    for size, count in [(batch_size, n_full)] + ([(rest, 1)] if rest else []):
        block = rng.integers(0, n_samples, size=(count, size))
        while True:
            bad = rows_with_repeats(block)
            if bad.size == 0:
                break
            block[bad] = rng.integers(0, n_samples, size=(bad.size, size))
        out[pos : pos + count * size] = block.ravel()
        pos += count * size
    return out


#: Rows of at most this many entries are checked pair by pair; longer ones are sorted first.
PAIRWISE_ROWS = 16


@njit(cache=True)
def rows_with_repeats(block: np.ndarray) -> np.ndarray:
    """The rows of ``block`` (count, size) holding an index twice, ascending: the rows
    :func:`distinct_batches` redraws. One compiled pass, pair by pair in a short row and
    through a sorted copy in a longer one, where sorting the whole block and comparing
    neighbours in NumPy cost many times the draws themselves on small batches of a large n
    (skin's pairs: the A/B of issue 51 in docs/measurements.md)."""
    count, size = block.shape
    out = np.empty(count, dtype=np.int64)
    found = 0
    for r in range(count):
        repeated = False
        if size <= PAIRWISE_ROWS:
            for a in range(size - 1):
                for b in range(a + 1, size):
                    if block[r, a] == block[r, b]:
                        repeated = True
                        break
                if repeated:
                    break
        else:
            srt = np.sort(block[r])
            for a in range(size - 1):
                if srt[a] == srt[a + 1]:
                    repeated = True
                    break
        if repeated:
            out[found] = r
            found += 1
    return out[:found]


#: SplitMix64's increment and output multipliers (Steele, Lea & Flood, OOPSLA 2014; the
#: constants of Vigna's reference code).
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_LOW32 = np.uint64(0xFFFFFFFF)


@njit(cache=True)
def splitmix64(state):
    """``(next state, 64 random bits)`` of SplitMix64: the generator of the passes that SDCA's
    shrinking draws inside its kernel (:func:`sdca_pegasos.solvers.sdca.shrinking.shrunk_epoch`),
    seeded by the driver's ``numpy.random.Generator`` once per epoch. ``state`` : an integer, read
    as uint64."""
    state = np.uint64(state) + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return state, z ^ (z >> np.uint64(31))


@njit(cache=True)
def uniform_below(state, bound):
    """``(next state, j)``, j uniform in ``[0, bound)`` for ``1 <= bound < 2**32``: Lemire's
    multiply-shift on the top 32 bits of a :func:`splitmix64` word, with his rejection of
    the low products that would bias it (ACM TOMACS 2019), so exactly uniform."""
    b = np.uint64(bound)
    state, z = splitmix64(state)
    m = (z >> np.uint64(32)) * b
    if (m & _LOW32) < b:
        threshold = (_LOW32 + np.uint64(1) - b) % b  # 2**32 mod bound
        while (m & _LOW32) < threshold:
            state, z = splitmix64(state)
            m = (z >> np.uint64(32)) * b
    return state, np.int64(m >> np.uint64(32))


def batch_order(rng: np.random.Generator, n: int, sampling: str, batch_size: int) -> np.ndarray:
    """One epoch's sample order for mini-batches of ``batch_size`` (its consecutive runs):
    a permutation (``"permutation"``), or distinct i.i.d. batches (``"iid"``)."""
    if sampling == "permutation":
        return rng.permutation(n)
    return distinct_batches(rng, n, batch_size)
