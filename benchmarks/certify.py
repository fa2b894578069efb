r"""ε targets and certified bounds on P*, the reference every suboptimality is measured from.

Every dual value is a lower bound and every primal value an upper bound of P* (weak duality). One
run of the exact engine (:func:`sdca_pegasos.solvers.exact.engine.solve_exact`) starts the bounds,
both recomputed here by :func:`sdca_pegasos.solvers.core.objectives.certificate` from the returned
point (the engine's own numbers are not trusted; the certificate's bounds include their rounding,
so they bound P* as real numbers and never cross), and every later fit may tighten them
(:meth:`Bounds.add`). Suboptimality is reported as ``(P(w) − D*)/D*`` with ``D*`` the best dual
value: an upper bound of the true ``(P(w) − P*)/P*``, larger by at most the certificate's relative
gap, so every "reached ε" is certified."""

from __future__ import annotations

import hashlib
import json
import math
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import HINGE
from sdca_pegasos.solvers.exact.engine import solve_exact

from .problems import Problem

#: Relative suboptimalities (P(w) − P*)/P* every benchmark reports the time to.
TARGETS = (1e-2, 1e-4, 1e-6)
#: Relative certificate gap (D* ≤ P* ≤ P_best) aimed at: 1 % of the smallest target.
CERT_TARGET = 1e-8
#: Name of the certifier in the reports (and, its last part, in the bounds' cache keys).
CERTIFIER = "sdca_pegasos.solvers.exact.engine.solve_exact"


@dataclass
class Bounds:
    """Weak-duality bounds ``lower <= P* <= upper`` and where each came from."""

    upper: float = math.inf
    lower: float = -math.inf
    upper_source: str = ""
    lower_source: str = ""
    certifier: str = ""
    certifier_cpu: float = 0.0

    def add(self, primal: float, dual: float, source: str) -> None:
        if primal < self.upper:
            self.upper, self.upper_source = primal, source
        if np.isfinite(dual) and dual > self.lower:
            self.lower, self.lower_source = dual, source

    @property
    def gap(self) -> float:
        return (self.upper - self.lower) / abs(self.lower)

    def rel(self, primal: float) -> float:
        return (primal - self.lower) / abs(self.lower)


def evaluate(X, y, coef, dual_coef, lmbd: float) -> tuple[float, float]:
    """``(primal, dual)``: an upper bound of P(w) and a lower bound of D(α), rounding included
    (:func:`sdca_pegasos.solvers.core.objectives.certificate`), so that they bound P* as real
    numbers. The dual point is made feasible by clipping ``y_i α_i`` to [0, 1] first (any feasible
    α gives a valid lower bound: the certificate rebuilds w(α) itself); without one the dual is
    NaN."""
    a = np.zeros(len(y)) if dual_coef is None else np.asarray(dual_coef, dtype=np.float64)
    cert = objectives.certificate(X, y, coef, y * HINGE.project(a * y), lmbd, HINGE)
    return cert["primal"], math.nan if dual_coef is None else cert["dual"]


def exact_bounds(X, y, lmbd: float, tol: float, max_cpu: float) -> Bounds:
    """Bounds from one run of the exact engine to relative gap ``tol`` within ``max_cpu`` CPU
    seconds; ``certifier_cpu`` covers the run and the evaluation."""
    bounds = Bounds(certifier=CERTIFIER)
    start = time.process_time()
    result = solve_exact(X, y, lmbd, tol=tol, max_cpu=max_cpu)
    w = np.asarray(result.w, dtype=np.float64)
    bounds.add(*evaluate(X, y, w[: X.shape[1]], result.dual_coef, lmbd), CERTIFIER)
    bounds.certifier_cpu = time.process_time() - start
    return bounds


def data_digest(X, y, lmbd: float) -> str:
    """Digest of (X, y, λ), dense or CSR: what a cached certificate is valid for."""
    h = hashlib.blake2b(digest_size=12)
    if hasattr(X, "indptr"):
        for part in (X.data, X.indices, X.indptr):
            h.update(np.ascontiguousarray(part).view(np.uint8))
    else:
        h.update(np.ascontiguousarray(X).view(np.uint8))
    h.update(np.ascontiguousarray(y, dtype=np.float64).view(np.uint8))
    h.update(repr((X.shape, str(X.dtype), float(lmbd))).encode())
    return h.hexdigest()


def store_bounds(bounds: Bounds, path: Path | None, max_cpu: float) -> None:
    """Keep the bounds for the next run (valid whatever code produced them: weak duality
    on the same data, which the file name's digest pins)."""
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        record = {**bounds.__dict__, "gap": bounds.gap, "max_cpu": max_cpu}
        path.write_text(json.dumps(record, indent=2) + "\n")


def certify(
    problem: Problem, max_cpu: float, cache_dir: Path | None
) -> tuple[Bounds, Path | None]:
    """Bounds on P* from the exact engine, run to a relative gap of CERT_TARGET / 10 or until
    ``max_cpu`` is spent. Cached on disk under a digest of (X, y, λ) and the certifier;
    returns the bounds and that path."""
    X, y, lmbd = problem.X, problem.y, problem.lmbd
    path = None
    if cache_dir is not None:
        key = f"{data_digest(X, y, lmbd)}-{CERTIFIER.rsplit('.', 1)[-1]}"
        path = cache_dir / f"{problem.spec.name.replace('/', '_')}-{key}.json"
        if path.exists():
            stored = json.loads(path.read_text())
            if stored["gap"] <= CERT_TARGET or stored["max_cpu"] >= max_cpu:
                return Bounds(**{k: stored[k] for k in Bounds.__dataclass_fields__}), path
    bounds = exact_bounds(X, y, lmbd, tol=CERT_TARGET / 10, max_cpu=max_cpu)
    store_bounds(bounds, path, max_cpu)
    return bounds, path
