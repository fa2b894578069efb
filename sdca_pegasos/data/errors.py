"""Exceptions of the data package. Every message names the file concerned and the fix."""

from __future__ import annotations


class DataError(RuntimeError):
    """Base class: something is wrong with a dataset's files."""


class DataMissingError(DataError, FileNotFoundError):
    """A raw file is absent or not verified; the message says which command fixes it."""


class ManualDownloadRequired(DataMissingError):
    """The dataset cannot be fetched automatically; the message says how to get it by hand."""


class ChecksumError(DataError):
    """A file's content differs from the checksum kept in ``sdca_pegasos/data/checksums/``."""


class FetchError(DataError):
    """A copy or download failed part-way (nothing partial was kept)."""
