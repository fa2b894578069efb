"""Digest of every solver's iterates and every shared pass's output, for refactors that must
not change a bit.

Fits each estimator in a grid of configurations (solver options × loss × sample weights ×
dense/CSR × float32/float64) on small seeded problems, and hashes every epoch's ``w`` and
``dual_coef`` (through the callback), the fitted ``coef_``/``intercept_``/``dual_coef_``, the
per-epoch records of :class:`sdca_pegasos.solvers.core.monitoring.EpochMetrics` and the outputs
of the :mod:`sdca_pegasos.solvers.core.objectives` passes. Run it before and after a change
and compare::

    python benchmarks/iterates_digest.py --out /tmp/before.json
    ... change ...
    python benchmarks/iterates_digest.py --out /tmp/after.json --against /tmp/before.json

``--against`` prints every entry whose digest changed and exits 1 if any did. Numba's cache
does not follow a kernel's dependencies in other files: delete the ``*.nbi``/``*.nbc`` files
under ``solvers/`` before a run that must see every change.
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":  # this checkout's packages, not an installed copy's
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import hashlib
import json
import warnings

import numpy as np
import scipy.sparse as sp

from sdca_pegasos.solvers import (
    ASDCAClassifier,
    ExactSVMClassifier,
    PegasosClassifier,
    SDCAClassifier,
)
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.monitoring import EpochMetrics


def _problem(n, d, storage, dtype, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d))
    if storage == "csr":
        X[rng.random((n, d)) < 0.7] = 0.0
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    X = X.astype(dtype)
    return (sp.csr_matrix(X) if storage == "csr" else X), y


def _h(*arrays) -> str:
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"none")
            continue
        a = np.ascontiguousarray(np.asarray(a, dtype=np.float64))
        h.update(a.tobytes())
    return h.hexdigest()[:16]


def _configs():
    base = {"lmbd": 0.01, "max_epochs": 6, "random_state": 3, "tol": 0.0}
    sdca = [
        {"sampling": "permutation"},
        {"sampling": "iid"},
        {"sampling": "cyclic"},
        {"sgd_init": True},
        {"average": True, "avg_start": 50},
        {"average": "random"},
        {"shrinking": True, "tol": 1e-6, "max_epochs": 30},
        {"loss": "smooth_hinge", "gamma": 0.5},
        {"loss": "squared_hinge"},
        {"bias_multiplier": 0.0},
        {"shrinking": True, "finish": True, "tol": 1e-9, "max_epochs": 30},
        {
            "shrinking": True,
            "finish": True,
            "tol": 1e-9,
            "max_epochs": 30,
            "loss": "squared_hinge",
        },
    ]
    for opts in sdca:  # shrinking and the finish only where named (their default is "auto")
        yield "sdca", SDCAClassifier, {**base, "shrinking": False, "finish": False, **opts}
    pegasos = [
        {"batch_size": 1},
        {"batch_size": 1, "projection": True, "average": True},
        {"batch_size": 8, "projection": True},
        {"batch_size": 8, "average": "weighted", "sampling": "permutation"},
        {"batch_size": 5, "bias_multiplier": 0.0},
    ]
    for opts in pegasos:
        cfg = {k: v for k, v in base.items() if k != "tol"}
        yield "pegasos", PegasosClassifier, {**cfg, **opts}
    for opts in ({"batch_size": 8}, {"batch_size": 4, "average": True, "theta": 0.3}):
        yield "asdca", ASDCAClassifier, {**base, "gamma": 0.5, **opts}
    for method in ("primal", "gram", "ipm"):
        yield "exact", ExactSVMClassifier, {"lmbd": 0.01, "method": method, "tol": 1e-9}


def digests() -> dict[str, str]:
    """Every entry's digest, keyed by a readable name."""
    out: dict[str, str] = {}
    problems = {}
    for storage in ("dense", "csr"):
        for dtype in (np.float64, np.float32):
            problems[storage, np.dtype(dtype).name] = _problem(240, 13, storage, dtype, 7)
    # long rows: SDCA's fused dense sweep (rows of more than 24 KiB per block of four)
    problems["dense", "float64 long"] = _problem(240, 900, "dense", np.float64, 8)
    weights = np.random.default_rng(11).uniform(0.2, 2.0, 240)
    for (storage, dtype), (X, y) in problems.items():
        for c_name, c in (("", None), ("+weights", weights)):
            for k, (name, cls, params) in enumerate(_configs()):
                key = f"{name}[{k}]{c_name} {storage} {dtype}"
                trace: list[str] = []

                def record(info, trace=trace):
                    trace.append(_h(info.w, info.dual_coef))

                est = cls(**params)
                if name != "exact":
                    est.set_params(callback=record)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    est.fit(X, y, sample_weight=c)
                dual = getattr(est, "dual_coef_", None)
                out[key] = (
                    _h(est.coef_, est.intercept_, dual)
                    + "/"
                    + _h(np.frombuffer("".join(trace).encode(), dtype=np.uint8))
                )
        # the shared passes
        rng = np.random.default_rng(5)
        w = rng.standard_normal(X.shape[1] + 1)
        a = rng.uniform(0.0, 1.0, X.shape[0]) * y
        for c_name, c in (("", None), ("+weights", weights)):
            ac = a if c is None else a * np.minimum(c, 1.0)  # inside the box [0, c_i]
            cert = objectives.certificate(X, y, w, ac, 0.01, 0.5, bias=1.0, sample_weight=c)
            out[f"certificate{c_name} {storage} {dtype}"] = _h(list(cert.values()))
            mon = objectives.monitor(X, y, w, 0.01, 0.5, bias=1.0, dual_coef=ac, sample_weight=c)
            out[f"monitor{c_name} {storage} {dtype}"] = _h(
                [v for v in mon.values() if np.isscalar(v)]
            )
        out[f"margins {storage} {dtype}"] = _h(objectives.margins(X, y, w, 1.0))
        out[f"exact_margins {storage} {dtype}"] = _h(objectives.exact_margins(X, y, w, 1.0))
        out[f"dual_weights {storage} {dtype}"] = _h(objectives.dual_weights(X, a, 0.01, 1.0))
        out[f"exact_dual_weights {storage} {dtype}"] = _h(
            objectives.exact_dual_weights(X, a, 0.01, 1.0)
        )
        out[f"row_sq_norms {storage} {dtype}"] = _h(objectives.row_sq_norms(X, 1.0))
        metrics = EpochMetrics(X, y, 0.01, 0.5, bias=1.0, X_test=X[:50], y_test=y[:50])
        out[f"EpochMetrics {storage} {dtype}"] = _h(
            [v for v in metrics(w, a, w_out=0.5 * w).values() if np.isscalar(v)]
        )
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", required=True, help="JSON file to write the digests to")
    parser.add_argument("--against", help="a JSON file of earlier digests to compare with")
    args = parser.parse_args(argv)
    now = digests()
    with open(args.out, "w") as fh:
        json.dump(now, fh, indent=1, sort_keys=True)
    print(f"{len(now)} digests written to {args.out}")
    if args.against:
        with open(args.against) as fh:
            before = json.load(fh)
        changed = sorted(k for k in before.keys() | now.keys() if before.get(k) != now.get(k))
        for k in changed:
            print(f"changed: {k}: {before.get(k)} -> {now.get(k)}")
        print(f"{len(changed)} of {len(now)} digests changed")
        return 1 if changed else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
