"""The one list of datasets: names, loaders, raw folders, availability.

Every package reads dataset names and availability here, and nowhere else:
``sdca_pegasos.data.load`` dispatches through it, ``python -m sdca_pegasos.experiments list
--available`` and ``make reproduce`` ask :func:`available`, the figures ask :func:`folder`, tests
and notebooks :func:`register` in-memory datasets. Acquisition (copying, downloading, checksums) is
:mod:`sdca_pegasos.data.fetch`; an entry only names the raw folder its loader reads (one of
:data:`sdca_pegasos.data.fetch.SOURCES`), or None for generated data.

A loader is named as ``"module:function"`` and imported on first use, so that ``import data``
does not import OpenCV (blood cells) or rdata (genomic) for users who never load them.

Example
-------
>>> from sdca_pegasos import data
>>> data.registry.names()
('simulated', 'skin', 'genomic', 'blood', 'sparse-synthetic')
>>> data.registry.folder("blood"), data.available("simulated")
('blood-cells', True)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from . import fetch

__all__ = [
    "DATASETS",
    "Entry",
    "available",
    "canonical_name",
    "entry",
    "folder",
    "load",
    "names",
    "register",
]


@dataclass(frozen=True)
class Entry:
    """One dataset.

    Attributes
    ----------
    name : str
        What experiments and ``sdca_pegasos.data.load`` call it.
    loader : str or callable
        ``"module:function"`` (imported on first use) or a callable; called as
        ``loader(**options)``, it returns a :class:`~sdca_pegasos.data.dataset.Dataset` (registered
        in-memory datasets may return any object with the same attributes).
    folder : str or None
        Raw folder under ``data/raw/`` (a :data:`sdca_pegasos.data.fetch.SOURCES` key) the loader
        reads; None when the data is generated (always available).
    aliases : tuple of str
        Other names accepted for it.
    summary : str
        One line for listings.
    """

    name: str
    loader: str | Callable[..., Any]
    folder: str | None = None
    aliases: tuple[str, ...] = ()
    summary: str = ""

    def load_function(self) -> Callable[..., Any]:
        """The loader itself (importing its module the first time)."""
        if callable(self.loader):
            return self.loader
        module, _, function = self.loader.partition(":")
        return getattr(importlib.import_module(module), function)


#: Every dataset of the project, in listing order.
DATASETS: dict[str, Entry] = {
    e.name: e
    for e in (
        Entry(
            "simulated",
            "sdca_pegasos.data.simulated:load_simulated",
            summary="generated: study 001's draw or our seeded generator",
        ),
        Entry(
            "skin",
            "sdca_pegasos.data.skin:load_skin",
            folder="skin",
            summary="UCI Skin Segmentation, 245,057 x 3",
        ),
        Entry(
            "genomic",
            "sdca_pegasos.data.genomic:load_genomic",
            folder="genomic",
            summary="SUBSTITUTES Gravier 2010 / Gordon 2002 (or the study's, genomic-original)",
        ),
        Entry(
            "blood",
            "sdca_pegasos.data.blood.loader:load_blood",
            folder="blood-cells",
            aliases=("blood-cells",),
            summary="Kaggle blood cells, 120 x 120 crops or PCA-k",
        ),
        Entry(
            "sparse-synthetic",
            "sdca_pegasos.data.sparse_synthetic:load_sparse_synthetic",
            summary="generated: SYNTHETIC rcv1-like CSR",
        ),
    )
}


def names() -> tuple[str, ...]:
    """Every dataset name, registered ones included."""
    return tuple(DATASETS)


def canonical_name(name: str) -> str:
    """The registry name of ``name`` (aliases resolved); ValueError naming the known ones."""
    if name in DATASETS:
        return name
    for e in DATASETS.values():
        if name in e.aliases:
            return e.name
    raise ValueError(f"unknown dataset {name!r}; known: {', '.join(DATASETS)}")


def entry(name: str) -> Entry:
    """The :class:`Entry` of a dataset (aliases accepted)."""
    return DATASETS[canonical_name(name)]


def folder(name: str) -> str | None:
    """Raw folder a dataset needs (``data/raw/<folder>``), None for generated data."""
    return entry(name).folder


def available(name: str) -> bool:
    """True when a dataset can be loaded here without fetching anything.

    ``name`` is a dataset (generated ones are always available; the others need their raw folder
    verified and complete, :func:`sdca_pegasos.data.fetch.available`) or a raw folder of
    :data:`sdca_pegasos.data.fetch.SOURCES` (``"blood-cells"``, ``"genomic-original"``, ...).
    Cheap: no hashing."""
    if name in DATASETS or any(name in e.aliases for e in DATASETS.values()):
        raw = folder(name)
        return raw is None or fetch.available(raw)
    return fetch.available(name)


def load(name: str, **options: Any):
    """Load dataset ``name`` with its loader's keyword ``options``.

    Returns
    -------
    Dataset

    Raises
    ------
    ValueError
        Unknown name (the message lists the known ones).
    DataMissingError
        The raw data is absent or unverified; the message names the file and the fix
        (``make data`` / ``python -m sdca_pegasos.data fetch NAME``).
    """
    return entry(name).load_function()(**options)


def register(
    name: str, loader: Callable[..., Any], folder: str | None = None, summary: str = ""
) -> Entry:
    """Add (or replace) a dataset for this process: tests, notebooks, your own data.

    ``loader(**options)`` returns a :class:`~sdca_pegasos.data.dataset.Dataset`; ``folder`` names
    the raw folder it needs, if any. Returns the entry."""
    new = Entry(name, loader, folder=folder, summary=summary)
    DATASETS[name] = new
    return new
