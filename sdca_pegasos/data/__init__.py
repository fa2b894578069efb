"""Datasets of the two studies: one registry, one module per dataset, acquisition apart.

- :mod:`sdca_pegasos.data.registry`: the one list of datasets (names, loaders, raw folders,
  availability). :func:`load`, :func:`available` and :func:`register` are its functions.
- One module per dataset: :mod:`sdca_pegasos.data.simulated`, :mod:`sdca_pegasos.data.skin`,
- :mod:`sdca_pegasos.data.genomic`, :mod:`sdca_pegasos.data.sparse_synthetic`, and the
- :mod:`sdca_pegasos.data.blood` package (images, crop pipeline by concern, crop cache, PCA); each
- returns a :class:`Dataset` (:mod:`sdca_pegasos.data.dataset`).
- Acquisition: ``python -m sdca_pegasos.data fetch NAME|all`` (``make data``) copies each raw
- folder from ``$DATA_MIRROR`` or downloads it into ``data/raw/<name>/`` and verifies every file
- against the checksums in ``sdca_pegasos/data/checksums/`` (:mod:`sdca_pegasos.data.fetch`).
- Loaders never download: they raise :class:`DataMissingError` naming the file and the command to
- run.

Example
-------
>>> from sdca_pegasos import data
>>> ds = data.load("simulated", seed=0)
>>> ds.X_train.shape, ds.X_test.shape
((670, 10), (330, 10))

Environment: ``SVM_DATA_DIR`` (raw root), ``SVM_CACHE_DIR`` (derived data),
``DATA_MIRROR`` (mirror to copy from); see :mod:`sdca_pegasos.data.paths`.
"""

from . import fetch, registry
from .dataset import Dataset
from .errors import (
    ChecksumError,
    DataError,
    DataMissingError,
    FetchError,
    ManualDownloadRequired,
)
from .paths import cache_root, raw_root
from .registry import available, load, register

__all__ = [
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
    "register",
    "registry",
]


def __getattr__(name: str):
    # `sdca_pegasos.data.blood` without importing OpenCV for users who never touch the images.
    if name == "blood":
        import importlib

        return importlib.import_module(".blood", __name__)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
