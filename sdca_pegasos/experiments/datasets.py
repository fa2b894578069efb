"""Datasets as the engine sees them: each a :class:`sdca_pegasos.data.Dataset` loaded once per
process, and λ resolved against its training rows.

Names, loaders and availability live in :mod:`sdca_pegasos.data.registry` only; :func:`register`
adds an in-memory dataset there (tests, notebooks) and forgets this process's cached loads."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any

from sdca_pegasos import data

from .spec import canonical, digest


def register(name: str, loader: Callable[..., data.Dataset]) -> None:
    """Make ``loader(**options)``, which returns a :class:`sdca_pegasos.data.Dataset`, dataset
    ``name`` in this process (:func:`sdca_pegasos.data.register`)."""
    data.register(name, loader)
    load.cache_clear()


def dataset_key(name: str, options: dict) -> str:
    """Stable identifier of a (dataset, options) pair, used to key certified optima."""
    return f"{name}-{digest({'name': name, 'options': options}, 8)}"


def _freeze(options: dict) -> tuple:
    return tuple(sorted((k, repr(canonical(v))) for k, v in options.items()))


def load(name: str, options: dict | None = None) -> data.Dataset:
    """Load ``name`` with ``options`` (cached per process).

    Labels are the loader's int64 ±1: a consumer evaluating objectives every epoch converts
    them to float64 once (:class:`sdca_pegasos.experiments.metrics.Recorder`), not per call.
    """
    options = dict(options or {})
    return _load_cached(name, _freeze(options), tuple(sorted(options.items())))


@lru_cache(maxsize=4)
def _load_cached(name: str, _frozen: tuple, items: tuple) -> data.Dataset:
    options: dict[str, Any] = dict(items)
    ds = data.load(name, **options)
    if not isinstance(ds, data.Dataset):
        raise TypeError(
            f"the loader of dataset {name!r} returned a {type(ds).__name__}; "
            "return a data.Dataset (see data.register)"
        )
    return ds


load.cache_clear = _load_cached.cache_clear  # type: ignore[attr-defined]


def resolve_lmbd(lmbd: float | str, n_train: int) -> float:
    """``"1/n"`` -> 1 / n_train; a number is returned as float."""
    if lmbd == "1/n":
        return 1.0 / n_train
    if isinstance(lmbd, str):
        raise ValueError(f"lmbd must be a number or '1/n', got {lmbd!r}")
    return float(lmbd)
