"""Datasets as the engine sees them: loaded once per process as a :class:`Split`, resolved λ.

Names, loaders and availability live in :mod:`data.registry` only; :func:`register` adds an
in-memory dataset there (tests, notebooks) and forgets this process's cached loads.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

import data

from .spec import canonical, digest


@dataclass(frozen=True)
class Split:
    """Training and (optional) test arrays with labels in ±1, and the loader's metadata."""

    X_train: np.ndarray
    y_train: np.ndarray
    X_test: np.ndarray | None
    y_test: np.ndarray | None
    meta: dict
    beta: np.ndarray | None = None

    @property
    def n_train(self) -> int:
        return self.X_train.shape[0]


def register(name: str, loader: Callable[..., Split | data.Dataset]) -> None:
    """Make ``loader(**options)`` dataset ``name`` in this process (:func:`data.register`).

    The loader returns a :class:`Split` or a :class:`data.Dataset`.
    """
    data.register(name, loader)
    load.cache_clear()


def dataset_key(name: str, options: dict) -> str:
    """Stable identifier of a (dataset, options) pair, used to key certified optima."""
    return f"{name}-{digest({'name': name, 'options': options}, 8)}"


def _freeze(options: dict) -> tuple:
    return tuple(sorted((k, repr(canonical(v))) for k, v in options.items()))


def load(name: str, options: dict | None = None) -> Split:
    """Load ``name`` with ``options`` (cached per process)."""
    options = dict(options or {})
    return _load_cached(name, _freeze(options), tuple(sorted(options.items())))


@lru_cache(maxsize=4)
def _load_cached(name: str, _frozen: tuple, items: tuple) -> Split:
    options: dict[str, Any] = dict(items)
    ds = data.load(name, **options)
    if isinstance(ds, Split):
        return ds
    return Split(
        X_train=ds.X_train,
        y_train=np.asarray(ds.y_train, dtype=np.float64),
        X_test=ds.X_test,
        y_test=None if ds.y_test is None else np.asarray(ds.y_test, dtype=np.float64),
        meta=dict(ds.meta),
        # the coefficients live in the standardised feature space: compare them with β there
        beta=ds.meta.get("beta_standardised", getattr(ds, "beta", None)),
    )


load.cache_clear = _load_cached.cache_clear  # type: ignore[attr-defined]


def resolve_lmbd(lmbd: float | str, n_train: int) -> float:
    """``"1/n"`` -> 1 / n_train; a number is returned as float."""
    if lmbd == "1/n":
        return 1.0 / n_train
    if isinstance(lmbd, str):
        raise ValueError(f"lmbd must be a number or '1/n', got {lmbd!r}")
    return float(lmbd)
