"""Datasets of the two studies: acquisition (``python -m data fetch``) and loaders.

Acquisition and loading are separate:

- ``python -m data fetch NAME|all`` (``make data``) copies each dataset from ``$DATA_MIRROR``
  or downloads it into ``data/raw/<name>/`` and verifies every file against the checksums in
  ``data/checksums/`` (:mod:`data.fetch`). :func:`available` tells whether a dataset is
  verified and complete.
- :func:`load` reads verified raw files (or generates the simulated data) and returns a
  :class:`Dataset`; it never downloads and raises :class:`DataMissingError` naming the file
  and the command to run (:mod:`data.loaders`, :mod:`data.blood`).

Example
-------
>>> import data
>>> ds = data.load("simulated", seed=0)
>>> ds.X_train.shape, ds.X_test.shape
((670, 10), (330, 10))

Environment: ``SVM_DATA_DIR`` (raw root), ``SVM_CACHE_DIR`` (derived data),
``DATA_MIRROR`` (mirror to copy from); see :mod:`data.paths`.
"""

from . import fetch
from .errors import (
    ChecksumError,
    DataError,
    DataMissingError,
    FetchError,
    ManualDownloadRequired,
)
from .fetch import available
from .loaders import DATASET_NAMES, Dataset, load
from .paths import cache_root, raw_root

__all__ = [
    "DATASET_NAMES",
    "ChecksumError",
    "DataError",
    "DataMissingError",
    "Dataset",
    "FetchError",
    "ManualDownloadRequired",
    "available",
    "cache_root",
    "fetch",
    "load",
    "raw_root",
]


def __getattr__(name: str):
    # `data.blood` without importing OpenCV for users who never touch the images.
    if name == "blood":
        import importlib

        return importlib.import_module(".blood", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
