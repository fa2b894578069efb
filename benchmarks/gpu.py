"""SDCA on one GPU against our CPU estimator on one core of the same machine (issue 33).

One script, run whole on a GPU machine, writing one JSON record::

    python benchmarks/gpu.py --out DIR [--scale 1] [--cpu-cap 120] [--gpu-cap 40]
    python benchmarks/gpu.py --readme README.md --record benchmarks/records/gpu_h100_e6cd9ae.json

What it measures, in this order:

1. the device, and its **read bandwidth**: a sum over a 4 GB float32 array (median of 5,
   CUDA events), the yardstick of an epoch;
2. two problems, drawn on the host from seed 0 (``--scale`` multiplies n): dense
   10,000,000 × 100 float32 (labels of a planted w with 10 % flipped) and CSR
   10,000,000 × 1,000,000 float32 with 50 nonzeros per row (one column drawn in each of 50
   equal bands: distinct and sorted), each at λ = 1/n and 1e-6, no intercept;
3. **our CPU** ``SDCAClassifier`` (``device="cpu"``, permutation sampling, the hinge) on one
   core, each (problem, λ) in its own process started first so that they run beside the GPU
   part, its timed update CPU capped at ``--cpu-cap`` seconds (a cap reached makes the
   speed-up a lower bound, and the record says so); P at epochs 1, 2, 3, 4, 6, 8, 11, ...
   (outside the timed loop);
4. **the GPU** ``SDCAClassifier(device="cuda")`` on the same data (dense under each scheme
   of ``--dense-schemes``: a shared buffer, private buffers, either with at most K blocks),
   run until its certified relative gap is below 1e-9 or its wall time reaches
   ``--gpu-cap`` s; per check: the
   update seconds so far (CUDA events around the update kernels), P and D certified on the
   device; ms per epoch against one read of X at the measured bandwidth;
5. time to relative suboptimality 1e-2 / 1e-4 / 1e-6 of each solver, against the best
   certified lower bound D any run of that (problem, λ) reached (the exact engine is not
   run: on these sizes it does not finish within a minute), so every suboptimality is an
   **upper bound**, certified;
6. a mini-batch Pegasos epoch on the GPU (batch 4096; the dense problem, λ = 1/n);
7. **the dense Newton engine**, ``NewtonSVMClassifier(device="cuda")``, on the dense problem
   at each λ for each loss of ``--newton-losses`` (squared hinge by default: ``LinearSVC``'s
   and cuML's loss; no intercept), until its certified relative gap is below 1e-10 or its wall
   reaches ``--gpu-cap``: per step the device seconds so far and the certified P and D; and,
   where cuML is importable, **cuML's** ``cuml.svm.LinearSVC`` at the same C = 1/(λn) (squared
   hinge, L2, no intercept) across ``tol`` in 1e-2 ... 1e-8, each answer timed (wall, its fit
   synchronised) and certified by our device certificate through its implied dual; where cuML
   is not importable the record says so (``"measured": false``, the import error), with no
   numbers. In the simulator (``--scale`` runs) the Newton engine runs on the dense problem's
   first 200 rows and 8 features (the record's ``shape`` says so): the simulator runs one
   Python thread per GPU thread, and a full-width pass would take minutes there.

``--newton-only`` runs items 1 and 7 alone (and the smoke checks that compile every kernel
first). ``--device-input`` gives X to the GPU fits of items 4, 6 and 7 as device arrays, copied
to the device once before them, as a CuPy user's data already are (issue 52: ``fit`` then
validates and reads them in place, with no host copy); its smoke check fits the same small
problems from device and host X (the record's ``device_input_smoke``). Writes
``DIR/gpu.json`` (the record) and prints a table last. ``--readme`` rewrites the README's
generated GPU block from a record (run here, where the README is).
"""

from __future__ import annotations

import sys
from pathlib import Path

if __name__ == "__main__":
    sys.path[0] = str(Path(__file__).resolve().parents[1])

import argparse
import json
import math
import os
import platform
import subprocess
import time
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp
from numba import cuda, float32

EPSILONS = (1e-2, 1e-4, 1e-6)
#: The records the README's GPU block is generated from (``--readme``'s default).
README_RECORDS = ("benchmarks/records/gpu_h100_e6cd9ae.json",)
MARKERS = ("<!-- gpu-bench:begin (benchmarks/gpu.py --readme) -->", "<!-- gpu-bench:end -->")


# ---------------------------------------------------------------------------- problems
def dense_problem(n: int, d: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d), dtype=np.float32)
    w = rng.standard_normal(d)
    y = np.where(X @ w.astype(np.float32) >= 0, 1.0, -1.0)
    flip = rng.random(n) < 0.1
    y[flip] = -y[flip]
    return X, y


def csr_problem(n: int, d: int, nnz: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    band = d // nnz
    cols = rng.integers(0, band, size=(n, nnz), dtype=np.int32)
    cols += (np.arange(nnz, dtype=np.int32) * band)[None, :]
    data = rng.standard_normal(n * nnz, dtype=np.float32) / np.float32(math.sqrt(nnz))
    indptr = np.arange(0, n * nnz + 1, nnz, dtype=np.int64)
    X = sp.csr_matrix((data, cols.reshape(-1), indptr), shape=(n, d))
    w = rng.standard_normal(d) * (rng.random(d) < 0.1)
    z = X @ w
    y = np.where(z >= np.median(z), 1.0, -1.0)
    flip = rng.random(n) < 0.05
    y[flip] = -y[flip]
    return X, y


def problems(scale: float) -> dict:
    n = max(1000, int(10_000_000 * scale))
    return {
        "dense": ("dense", {"n": n, "d": 100}),
        "csr": ("csr", {"n": n, "d": max(1000, int(1_000_000 * scale)), "nnz": 50}),
    }


def make(kind: str, params: dict):
    return dense_problem(**params) if kind == "dense" else csr_problem(**params)


def on_gpu(X):
    """X copied to the device once, as a CuPy user holds it: a numba device array (dense; it
    carries ``__cuda_array_interface__``, as CuPy's do), or a CSR matrix of device arrays with
    ``cupyx.scipy.sparse.csr_matrix``'s interface (``format``, ``shape``, ``data``,
    ``indices``, ``indptr``)."""
    if not sp.issparse(X):
        return cuda.to_device(X)
    parts = {name: cuda.to_device(getattr(X, name)) for name in ("data", "indices", "indptr")}
    return SimpleNamespace(format="csr", shape=X.shape, **parts)


def lambdas(n: int) -> dict:
    return {"1/n": 1.0 / n, "1e-6": 1e-6}


# ---------------------------------------------------------------------------- CPU baseline
def cpu_baseline(kind: str, params: dict, lmbd: float, cap: float) -> dict:
    """Our CPU estimator on one core: P at epochs 1, 2, 3, 4, 6, 8, ..., update CPU capped."""
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.core import objectives

    X, y = make(kind, params)
    records, total = [], [0.0]
    due = {1, 2, 3, 4}
    e = 4
    while e < 100000:
        e = math.ceil(e * 1.4)
        due.add(e)

    def callback(info):
        total[0] += info.cpu_time
        if info.epoch in due or total[0] >= cap:
            p = objectives.primal(X, y, info.w, lmbd)
            records.append({"epoch": info.epoch, "cpu_s": total[0], "primal": p})
        return total[0] >= cap

    est = SDCAClassifier(
        lmbd,
        shrinking=False,  # the GPU's rounds have no shrinking: plain SDCA on the CPU too
        tol=0.0,
        max_epochs=100000,
        random_state=0,
        bias_multiplier=0.0,
        callback=callback,
    )
    est.fit(X, y)  # fit compiles its kernels on a tiny problem before its clock starts
    return {"records": records, "capped": total[0] >= cap, "cpu_s": total[0]}


def _baseline_main(args) -> None:
    spec = json.loads(args.cpu_baseline)
    out = cpu_baseline(spec["kind"], spec["params"], spec["lmbd"], spec["cap"])
    Path(spec["out"]).write_text(json.dumps(out))


def start_baselines(todo: list[dict], folder: Path) -> list:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
           "MKL_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}  # fmt: skip
    procs = []
    for spec in todo:
        spec = {**spec, "out": str(folder / f"cpu_{spec['key']}.json")}
        cmd = [sys.executable, __file__, "--cpu-baseline", json.dumps(spec)]
        procs.append((spec, subprocess.Popen(cmd, env=env)))
    return procs


# ---------------------------------------------------------------------------- GPU
@cuda.jit
def _ones(v):
    for i in range(cuda.grid(1), v.shape[0], cuda.gridsize(1)):
        v[i] = 1.0


@cuda.jit
def _total(x, out):
    s = float32(0.0)
    for i in range(cuda.grid(1), x.shape[0], cuda.gridsize(1)):
        s += x[i]
    cuda.atomic.add(out, 0, s)


def read_bandwidth(n_bytes: int = 4 << 30, repeats: int = 5) -> float:
    """GB/s of a float32 sum over n_bytes (bytes read / median event time)."""
    from sdca_pegasos.solvers.gpu.data import GRID, TPB

    n = n_bytes // 4
    x = cuda.device_array(n, dtype=np.float32)
    _ones[GRID, TPB](x)  # read real numbers, not whatever the allocation held
    out = cuda.to_device(np.zeros(1, dtype=np.float32))
    sms = getattr(cuda.get_current_device(), "MULTIPROCESSOR_COUNT", 1)
    blocks, threads = (sms * 8, 256) if GRID > 2 else (GRID, TPB)
    _total[blocks, threads](x, out)
    times = []
    for _ in range(repeats):
        a, b = cuda.event(), cuda.event()
        a.record()
        _total[blocks, threads](x, out)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) / 1e3)
    return n_bytes / float(np.median(times)) / 1e9


def gpu_run(X, y, lmbd: float, cap: float) -> dict:
    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers import SDCAClassifier

    checks, total, t0 = [], [0.0], time.perf_counter()

    def callback(info):
        total[0] += info.cpu_time
        if info.gap is not None:
            checks.append(
                {
                    "epoch": info.epoch,
                    "gpu_s": total[0],
                    "primal": info.primal,
                    "dual": info.dual,
                    "gap": info.gap,
                }
            )
        return time.perf_counter() - t0 > cap  # the wall cap; tol stops at 1e-9 relative

    est = SDCAClassifier(
        lmbd, tol=1e-9, tol_gap="relative", max_epochs=100000, random_state=0,
        bias_multiplier=0.0, device="cuda", callback=callback,
    )  # fmt: skip
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a run on its cap: in the record
        est.fit(X, y)
    return {
        "checks": checks,
        "epoch_ms_median": 1e3 * float(np.median(est.epoch_times_)),
        "epoch_ms_min": 1e3 * float(np.min(est.epoch_times_)),
        "epochs": int(est.n_epochs_),
        "sigma_last": float(est.sigma_),
        "wall_s": time.perf_counter() - t0,
    }


def pegasos_epoch(X, y, lmbd: float) -> dict:
    from sdca_pegasos.solvers import PegasosClassifier

    batch = min(4096, X.shape[0])
    est = PegasosClassifier(
        lmbd, batch_size=batch, sampling="permutation", max_epochs=2, random_state=0,
        bias_multiplier=0.0, device="cuda",
    )  # fmt: skip
    est.fit(X, y)
    return {"epoch_ms": [1e3 * t for t in est.epoch_times_], "batch_size": batch}


def smoke() -> dict:
    """Compile every kernel on small problems before anything is timed, and check the device's
    certificate against :func:`sdca_pegasos.solvers.core.objectives.certificate` on the CPU (the
    same pair, dense and CSR): a real-GPU check of what the simulator tests."""
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.core import objectives
    from sdca_pegasos.solvers.gpu.data import SIMULATED

    n = 40 if SIMULATED else 4000
    out = {}
    for kind in ("dense", "csr"):
        if kind == "dense":
            X, y = dense_problem(n, 20, seed=1)
        else:
            X, y = csr_problem(n, 2000, 10, seed=1)
        est = SDCAClassifier(
            1e-3,
            tol=0.0 if SIMULATED else 1e-9,
            tol_gap="absolute",  # the simulator: 5 epochs, no stopping test
            max_epochs=5 if SIMULATED else 3000,
            random_state=0,
            bias_multiplier=1.0,
            device="cuda",
        ).fit(X, y)
        w = np.append(est.coef_[0], est.intercept_[0])
        cpu = objectives.certificate(X, y, w, est.dual_coef_, 1e-3, est.loss_function, 1.0)
        out[kind] = {
            "epochs": int(est.n_epochs_),
            "gpu_primal": est.primal_,
            "gpu_dual": est.dual_,
            "cpu_primal": cpu["primal"],
            "cpu_dual": cpu["dual"],
            "rel_diff_primal": abs(est.primal_ - cpu["primal"]) / abs(cpu["primal"]),
            "rel_diff_dual": abs(est.dual_ - cpu["dual"]) / abs(cpu["dual"]),
        }
        print(f"smoke {kind}: {out[kind]}")
    out["newton_dense"] = newton_smoke(n)
    print(f"smoke newton_dense: {out['newton_dense']}")
    return out


def newton_smoke(n: int) -> dict:
    """The dense Newton engine on the device against its NumPy twin (device='cpu') and the
    CPU certificate, on a small problem: a real-GPU check of what tests/test_gpu_dense.py
    tests in the simulator."""
    from sdca_pegasos.solvers.core import objectives
    from sdca_pegasos.solvers.gpu.newton import NewtonSVMClassifier

    X, y = dense_problem(n, 20, seed=2)
    kw = dict(loss="squared_hinge", tol=1e-10, bias_multiplier=1.0)
    est = NewtonSVMClassifier(1e-3, device="cuda", **kw).fit(X, y)
    twin = NewtonSVMClassifier(1e-3, device="cpu", **kw).fit(X, y)
    w = np.append(est.coef_[0], est.intercept_[0])
    cpu = objectives.certificate(X, y, w, est.dual_coef_, 1e-3, est.loss_function, 1.0)
    return {
        "epochs": int(est.n_epochs_),
        "gpu_primal": float(est.primal_),
        "gpu_dual": float(est.dual_),
        "cpu_primal": cpu["primal"],
        "cpu_dual": cpu["dual"],
        "rel_diff_primal": abs(est.primal_ - cpu["primal"]) / abs(cpu["primal"]),
        "rel_diff_dual": abs(est.dual_ - cpu["dual"]) / abs(cpu["dual"]),
        "rel_gap": float(est.rel_gap_),
        "coef_rel_diff_vs_twin": float(
            np.max(np.abs(est.coef_ - twin.coef_)) / np.max(np.abs(twin.coef_))
        ),
    }


def device_input_smoke(n: int) -> dict:
    """The same small fits from X on the device and from host X (``--device-input``): SDCA on
    the dense and the CSR problem (5 epochs, no stopping test), the Newton engine on the dense
    one; the largest coefficient difference of each (0 where the fit is deterministic: dense
    SDCA's shared buffer and CSR sums use atomics on a GPU) and of the decision values."""
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.gpu.newton import NewtonSVMClassifier

    out = {}
    for kind in ("dense", "csr", "newton_dense"):
        if kind == "csr":
            X, y = csr_problem(n, 2000, 10, seed=1)
        else:
            X, y = dense_problem(n, 20, seed=1 if kind == "dense" else 2)
        fits = []
        for data in (X, on_gpu(X)):
            if kind == "newton_dense":
                est = NewtonSVMClassifier(1e-3, tol=1e-10, device="cuda")
            else:
                est = SDCAClassifier(1e-3, tol=0.0, max_epochs=5, random_state=0, device="cuda")
            fits.append((est.fit(data, y), est.decision_function(data)))
        (host, host_z), (dev, dev_z) = fits
        scale = float(np.max(np.abs(host.coef_)))
        out[kind] = {
            "coef_rel_diff": float(np.max(np.abs(dev.coef_ - host.coef_))) / scale,
            "decision_rel_diff": float(np.max(np.abs(dev_z - host_z)) / np.max(np.abs(host_z))),
            "same_predictions": bool(np.array_equal(dev.predict(on_gpu(X)), host.predict(X))),
        }
        print(f"smoke device input {kind}: {out[kind]}")
    return out


#: cuML's tolerances (its ``tol``), each a fit from scratch.
CUML_TOLS = (1e-2, 1e-4, 1e-6, 1e-8)


def newton_run(X, y, lmbd: float, loss: str, cap: float) -> dict:
    """NewtonSVMClassifier(device='cuda') until a certified relative gap of 1e-10 or the wall
    cap: per step the device seconds so far, P and D certified on the device."""
    import warnings

    from sklearn.exceptions import ConvergenceWarning

    from sdca_pegasos.solvers.gpu.newton import NewtonSVMClassifier

    checks, total, t0 = [], [0.0], time.perf_counter()

    def callback(info):
        total[0] += info.cpu_time
        checks.append(
            {"step": info.epoch, "gpu_s": total[0], "primal": info.primal, "dual": info.dual,
             "gap": info.gap}
        )  # fmt: skip
        return time.perf_counter() - t0 > cap

    est = NewtonSVMClassifier(
        lmbd, loss=loss, tol=1e-10, max_iter=500, bias_multiplier=0.0, device="cuda",
        callback=callback,
    )  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # a run on its cap: in the record
        est.fit(X, y)
    return {
        "checks": checks,
        "steps": int(est.n_epochs_),
        "step_ms": [1e3 * t for t in est.epoch_times_],
        "step_sizes": [float(t) for t in est.step_sizes_],
        "line_search_evals": [int(k) for k in est.line_search_evals_],
        "setup_s": float(est.setup_wall_time_),
        "rel_gap": float(est.rel_gap_),
        "converged": bool(est.converged_),
        "wall_s": time.perf_counter() - t0,
        "coef": est.coef_[0].tolist(),
    }


def cuml_runs(X, y, lmbd: float, loss: str) -> dict:
    """cuML's LinearSVC at C = 1/(λn) across CUML_TOLS, each answer certified by our device
    certificate through its implied dual; ``measured: False`` with the reason when cuML is
    not importable (no numbers)."""
    try:
        from cuml.svm import LinearSVC
    except Exception as exc:  # not installed, or installed without a usable GPU
        return {"measured": False, "why": f"cuml.svm.LinearSVC not importable: {exc!r}"}
    from sdca_pegasos.solvers.core import losses
    from sdca_pegasos.solvers.driver.problem import Problem
    from sdca_pegasos.solvers.gpu.data import to_device
    from sdca_pegasos.solvers.gpu.newton_device import GPUNewtonEngine

    n = X.shape[0]
    C = 1.0 / (lmbd * n)
    engine = GPUNewtonEngine(Problem(X, y, lmbd, 0.0), to_device(X), loss=losses.make_loss(loss))
    engine.setup()
    runs = []
    for tol in CUML_TOLS:
        model = LinearSVC(C=C, loss=loss, penalty="l2", fit_intercept=False, tol=tol,
                          max_iter=100_000)  # fmt: skip
        t = time.perf_counter()
        model.fit(X, y)
        cuda.synchronize()
        wall = time.perf_counter() - t
        coef = model.coef_  # NumPy, CuPy (.get()) or cuDF (.to_numpy()), by cuML's settings
        if hasattr(coef, "get"):
            coef = coef.get()
        elif hasattr(coef, "to_numpy"):
            coef = coef.to_numpy()
        w = np.append(np.asarray(coef, dtype=np.float64).reshape(-1), 0.0)
        cert = engine.certify_point(w)
        runs.append({"tol": tol, "wall_s": wall, "primal": float(cert["primal"]),
                     "dual": float(cert["dual"]), "rel_gap": float(cert["rel_gap"])})  # fmt: skip
        print(f"    cuML tol={tol:g}: {wall:.2f} s, certified relative gap {cert['rel_gap']:.2e}")
    return {"measured": True, "version": _version("cuml"), "C": C, "runs": runs}


def newton_section(args, meta: dict) -> dict:
    """Item 7 of the module docstring: the Newton engine (and cuML) on the dense problem."""
    kind, params = problems(args.scale)["dense"]
    X, y = make(kind, params)
    shape = dict(params)
    if meta["simulated"]:  # a full-width pass takes minutes in the simulator
        X, y = np.ascontiguousarray(X[:200, :8]), y[:200]
        shape = {"n": 200, "d": 8, "subsampled_for_simulator": True}
    X_fit = on_gpu(X) if args.device_input else X
    out = {}
    for loss in args.newton_losses.split(","):
        for lname, lmbd in lambdas(params["n"]).items():
            key = f"dense_{lname.replace('/', '')}_{loss}"
            res = newton_run(X_fit, y, lmbd, loss, args.gpu_cap)
            res["cuml"] = cuml_runs(X, y, lmbd, loss) if not meta["simulated"] else {
                "measured": False, "why": "not run in the simulator"}  # fmt: skip
            duals = [c["dual"] for c in res["checks"]]
            duals += [r["dual"] for r in res["cuml"].get("runs", [])]
            res["d_best"] = max(duals) if duals else float("nan")
            res["gpu_time_to"] = time_to(res["checks"], "gpu_s", res["d_best"])
            res.update({"problem": "dense", "loss": loss, "lmbd": lmbd, "lmbd_name": lname,
                        "shape": shape})  # fmt: skip
            out[key] = res
            print(f"  newton {key}: {res['steps']} steps, certified relative gap "
                  f"{res['rel_gap']:.2e}, {res['wall_s']:.1f} s wall")  # fmt: skip
    return out


def newton_table(record: dict) -> str:
    """The Newton engine's (and cuML's) rows of a record, as Markdown ('' without them)."""
    rows = record.get("newton")
    if not rows:
        return ""
    lines = [
        "Dense Newton engine (`NewtonSVMClassifier(device='cuda')`, no intercept): device "
        "seconds of its steps to a certified relative suboptimality ε (against the best "
        "certified dual of that problem, λ and loss); cuML's `LinearSVC` at the same C, "
        "wall seconds of each fit, its answer certified by our device certificate.",
        "",
        "| problem | loss | λ | steps | "
        + " | ".join(f"to {e:g} (s)" for e in EPSILONS)
        + " | certified rel. gap | cuML: tol → s, rel. gap |",
        "|---|---|---|---|" + "---|" * len(EPSILONS) + "---|---|",
    ]
    for res in rows.values():
        shape = res["shape"]
        name = f"dense {shape['n']:,} × {shape['d']:,}"
        cells = [_fmt(res["gpu_time_to"][f"{e:g}"]) for e in EPSILONS]
        cu = res.get("cuml", {})
        if cu.get("measured"):
            cuml = "; ".join(f"{r['tol']:g} → {r['wall_s']:.3g}, {r['rel_gap']:.1e}"
                             for r in cu["runs"])  # fmt: skip
        else:
            cuml = "not measured (" + cu.get("why", "no record") + ")"
        lines.append(
            f"| {name} | {res['loss']} | {res['lmbd_name']} | {res['steps']} | "
            + " | ".join(cells)
            + f" | {res['rel_gap']:.1e} | {cuml} |"
        )
    return "\n".join(lines)


def time_to(trace: list[dict], clock: str, d_best: float) -> dict:
    """First time at which (P − D_best)/|D_best| <= ε, for each ε (None: not reached)."""
    out = {}
    for eps in EPSILONS:
        hit = [r[clock] for r in trace if (r["primal"] - d_best) <= eps * abs(d_best)]
        out[f"{eps:g}"] = min(hit) if hit else None
    return out


# ---------------------------------------------------------------------------- main
def run(args) -> dict:
    from sdca_pegasos.solvers.gpu.data import SIMULATED

    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    dev = cuda.get_current_device()
    name = getattr(dev, "name", "Numba CUDA simulator")
    meta = {
        "device": name.decode() if isinstance(name, bytes) else str(name),
        "multiprocessors": int(getattr(dev, "MULTIPROCESSOR_COUNT", 1)),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "commit": args.commit,
        "python": platform.python_version(),
        "numba": __import__("numba").__version__,
        "numba_cuda": _version("numba-cuda"),
        "cpu_count": os.cpu_count(),
        "loadavg_start": os.getloadavg(),
        "scale": args.scale,
        "cpu_cap_s": args.cpu_cap,
        "gpu_cap_s": args.gpu_cap,
        "simulated": SIMULATED,
        "device_input": bool(args.device_input),
    }
    print("device:", meta["device"], "numba", meta["numba"], "numba-cuda", meta["numba_cuda"])
    todo = []
    for name, (kind, params) in problems(args.scale).items():
        for lname, lmbd in lambdas(params["n"]).items():
            todo.append({"key": f"{name}_{lname.replace('/', '')}", "kind": kind,
                         "params": params, "lmbd": lmbd, "cap": args.cpu_cap,
                         "problem": name, "lmbd_name": lname})  # fmt: skip
    meta["smoke"] = smoke()  # fails fast, before the CPU baselines are started
    if args.device_input:
        meta["device_input_smoke"] = device_input_smoke(40 if meta["simulated"] else 4000)
    procs = start_baselines(todo, folder) if args.cpu_cap > 0 and not args.newton_only else []

    bw_bytes = (4 << 30) if not meta["simulated"] else (1 << 12)
    meta["read_bandwidth_GBs"] = read_bandwidth(bw_bytes, 5 if not meta["simulated"] else 1)
    print(f"read bandwidth: {meta['read_bandwidth_GBs']:.0f} GB/s")

    from sdca_pegasos.solvers.gpu import sdca as gpu_sdca

    results = {}
    max_blocks, dense_private = gpu_sdca.MAX_BLOCKS, gpu_sdca.DENSE_PRIVATE
    for name, (kind, params) in problems(args.scale).items():
        if args.newton_only:  # item 7 alone (a device session's short run)
            break
        t = time.perf_counter()
        X, y = make(kind, params)
        parts = (X.data, X.indices, X.indptr) if sp.issparse(X) else (X,)
        x_bytes = int(sum(p.nbytes for p in parts))
        where = "given to fit on the device" if args.device_input else "on the host"
        X_fit = on_gpu(X) if args.device_input else X  # copied once, before every fit
        print(
            f"{name}: drawn in {time.perf_counter() - t:.1f} s; X is {x_bytes / 1e9:.2f} GB, "
            f"{where}"
        )
        schemes = args.dense_schemes.split(",") if kind == "dense" else ["shared"]
        for lname, lmbd in lambdas(params["n"]).items():
            for scheme in schemes:
                key = f"{name}_{lname.replace('/', '')}"
                key += f"_{scheme.replace('@', '')}" if len(schemes) > 1 else ""
                # read by every dense fit: "private" or "shared", "@K" caps the blocks at K
                # (restored before the CSR problem)
                buffers, _, cap = scheme.partition("@")
                gpu_sdca.DENSE_PRIVATE = buffers == "private"
                gpu_sdca.MAX_BLOCKS = int(cap) if cap else max_blocks
                res = gpu_run(X_fit, y, lmbd, args.gpu_cap)
                res["read_ms"] = 1e3 * x_bytes / (meta["read_bandwidth_GBs"] * 1e9)
                res["x_bytes"] = x_bytes
                res.update({"problem": name, "lmbd": lmbd, "lmbd_name": lname, "shape": params})
                res.update({"scheme": scheme, "cpu_key": f"{name}_{lname.replace('/', '')}"})
                results[key] = res
                last = res["checks"][-1] if res["checks"] else {}
                gap = last.get("gap", float("nan"))
                print(
                    f"  {key}: {res['epochs']} epochs, epoch {res['epoch_ms_median']:.2f} ms "
                    f"(one read {res['read_ms']:.2f} ms), gap {gap:.2e}, "
                    f"σ' {res['sigma_last']:.3g}"
                )
        gpu_sdca.DENSE_PRIVATE, gpu_sdca.MAX_BLOCKS = dense_private, max_blocks
        if name == "dense":
            meta["pegasos"] = pegasos_epoch(X_fit, y, 1.0 / params["n"])
        del X, X_fit, y

    cpu_out = {}
    for spec, proc in procs:
        proc.wait()
        path = Path(spec["out"])
        cpu_out[spec["key"]] = (
            json.loads(path.read_text()) if path.exists() else {"error": f"exit {proc.returncode}"}
        )
    for res in results.values():
        res["cpu"] = cpu_out.get(res["cpu_key"], {})
    best = {}  # the best certified dual of each (problem, λ), over every scheme's run
    for res in results.values():
        duals = [c["dual"] for c in res["checks"]] + [best.get(res["cpu_key"], -math.inf)]
        best[res["cpu_key"]] = max(duals)
    for res in results.values():
        d_best = best[res["cpu_key"]]
        d_best = d_best if math.isfinite(d_best) else float("nan")
        res["d_best"] = d_best
        res["gpu_time_to"] = time_to(res["checks"], "gpu_s", d_best)
        cpu = res.get("cpu", {})
        res["cpu_time_to"] = time_to(cpu.get("records", []), "cpu_s", d_best)
        # a cross-check of two implementations: every primal value the CPU measured must
        # lie above the GPU's certified lower bound
        res["cpu_primal_above_d_best"] = all(r["primal"] >= d_best for r in cpu.get("records", []))
    newton = newton_section(args, meta) if args.newton_losses else {}
    meta["loadavg_end"] = os.getloadavg()
    record = {"meta": meta, "results": results, "newton": newton}
    (folder / "gpu.json").write_text(json.dumps(record, indent=1))
    print()
    print(table(record))
    print(targets(record))
    if newton:
        print()
        print(newton_table(record))
    return record


def _version(name: str) -> str:
    try:
        from importlib.metadata import version

        return version(name)
    except Exception:
        return "unknown"


def _fmt(v) -> str:
    return "—" if v is None else f"{v:.3g}"


def table(record: dict) -> str:
    """The Markdown table of a record (what the README's generated block holds)."""
    meta = record["meta"]
    how = record.get("annotation", {})
    rounds = how.get("dense_rounds")
    rounds = f"dense rounds with {rounds} block buffers; " if rounds else ""
    smoke = meta.get("smoke", {})
    agree = max(
        (max(v["rel_diff_primal"], v["rel_diff_dual"]) for v in smoke.values()), default=None
    )
    lines = [
        f"Measured on {meta['device']} ({meta['date']}, commit {meta['commit']}; {rounds}read "
        f"bandwidth {meta['read_bandwidth_GBs']:.0f} GB/s measured by a 4 GB sum), numba-cuda "
        f"{meta['numba_cuda']}. CPU: our estimator on one core of the same machine, its timed "
        f"updates capped at {meta['cpu_cap_s']:g} s (load average "
        f"{meta['loadavg_start'][0]:.1f} at the start on {meta['cpu_count']} cores). "
        "Suboptimality is (P − D)/|D| against the best certified dual D any run of that "
        "(problem, λ) reached: an upper bound. A time is the first measured point below ε "
        "(CPU: P at epochs 1, 2, 3, 4, then ×1.4; GPU: its gap checks, every epoch to 10, "
        "then every epoch/10), so each "
        "can be late by up to that spacing. — means not reached (GPU runs capped at "
        f"{meta['gpu_cap_s']:g} s of wall time)."
        + (
            f" The device's certificate agreed with the CPU's on the same pair to "
            f"{agree:.1e} (relative)."
            if agree is not None
            else ""
        )
        + (f" {how['readme']}" if "readme" in how else "")
        + (
            " X was given to the GPU fits as device arrays (`--device-input`), read in place."
            if meta.get("device_input")
            else ""
        ),
        "",
        "| problem | λ | GPU epoch (ms) | one read of X (ms) | ratio | "
        + " | ".join(f"to {e:g}: GPU s / CPU s" for e in EPSILONS)
        + " |",
        "|---|---|---|---|---|" + "---|" * len(EPSILONS),
    ]
    for res in record["results"].values():
        shape = res["shape"]
        name = f"{res['problem']} {shape['n']:,} × {shape['d']:,}"
        if res.get("scheme") and res["problem"] == "dense":
            buffers, _, cap = res["scheme"].partition("@")
            name += f" ({buffers} buffers{f', K ≤ {cap}' if cap else ''})"
        cpu = res.get("cpu", {})
        cells = []
        for e in EPSILONS:
            g, c = res["gpu_time_to"][f"{e:g}"], res["cpu_time_to"][f"{e:g}"]
            if c is None and cpu.get("capped"):
                cell = f"{_fmt(g)} / > {cpu['cpu_s']:.0f}"
                if g:
                    cell += f" (≥ {cpu['cpu_s'] / g:.0f}×)"
            else:
                cell = f"{_fmt(g)} / {_fmt(c)}"
                if g and c:
                    cell += f" ({c / g:.0f}×)"
            cells.append(cell)
        ratio = res["epoch_ms_median"] / res["read_ms"]
        lines.append(
            f"| {name} | {res['lmbd_name']} | {res['epoch_ms_median']:.2f} | "
            f"{res['read_ms']:.2f} | {ratio:.1f}× | " + " | ".join(cells) + " |"
        )
    return "\n".join(lines)


def _rel_gap(res: dict):
    """The last certified relative gap (P − D)/|D| of a GPU run (None without a check)."""
    last = res["checks"][-1] if res["checks"] else None
    return None if last is None else last["gap"] / abs(last["dual"])


def targets(record: dict) -> str:
    """Issue 33's targets, each met or missed on this record (a sentence of the README)."""
    if record["meta"].get("simulated"):
        return "Targets: not measured (the record is the CUDA simulator's)."
    rows = list(record["results"].values())
    dense = [r for r in rows if r["problem"] == "dense"]
    csr = [r for r in rows if r["problem"] == "csr"]

    def ratio(r):
        return r["epoch_ms_median"] / r["read_ms"]

    def label(r):
        scheme = r.get("scheme") if r["problem"] == "dense" else None
        return r["lmbd_name"] + (f", {scheme}" if scheme else "")

    out = []
    for rows_, name, bound in ((dense, "dense", 2.0), (csr, "CSR", 3.0)):
        if rows_:
            best = min(rows_, key=ratio)
            verdict = "met" if ratio(best) <= bound else "missed"
            out.append(
                f"{name} epoch ≤ {bound:g}× one read of X: {verdict} (best {ratio(best):.1f}×, "
                f"{label(best)})"
            )
    speedups = []
    for r in dense:
        g, c = r["gpu_time_to"]["0.0001"], r["cpu_time_to"]["0.0001"]
        if g is None:
            continue
        if c is None and r.get("cpu", {}).get("capped"):
            speedups.append((r["cpu"]["cpu_s"] / g, "≥ ", r))
        elif c is not None:
            speedups.append((c / g, "", r))
    if speedups:
        x, sign, r = max(speedups, key=lambda t: t[0])
        verdict = "met" if x >= 30 else "missed"
        out.append(f"dense time to 1e-4 ≥ 30× the CPU's: {verdict} ({sign}{x:.0f}×, {label(r)})")
    elif dense:
        gaps = ", ".join(
            f"{_rel_gap(r):.2g} ({label(r)})" for r in dense if _rel_gap(r) is not None
        )
        out.append(
            "dense time to 1e-4 ≥ 30× the CPU's: missed (no GPU run reached 1e-4; certified "
            f"relative gaps at the cap: {gaps})"
        )
    return "Targets (issue 33): " + "; ".join(out) + "."


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="output/bench/gpu")
    parser.add_argument("--scale", type=float, default=1.0)
    parser.add_argument("--cpu-cap", type=float, default=120.0)
    parser.add_argument("--gpu-cap", type=float, default=40.0)
    parser.add_argument("--commit", default="unknown")
    parser.add_argument(
        "--dense-schemes",
        default="shared,private",
        help="dense rounds to run, comma-separated: private (a buffer per block, CoCoA+) "
        "and/or shared (one buffer through atomics), each optionally @K (at most K blocks)",
    )
    parser.add_argument(
        "--newton-losses",
        default="squared_hinge",
        help="losses the dense Newton engine (and cuML) runs, comma-separated among "
        "squared_hinge and smooth_hinge; '' skips it",
    )
    parser.add_argument(
        "--newton-only",
        action="store_true",
        help="run the smoke checks, the bandwidth and the dense Newton engine (and cuML) only: "
        "no SDCA, Pegasos or CPU baseline",
    )
    parser.add_argument(
        "--device-input",
        action="store_true",
        help="give X to the GPU fits as device arrays, copied to the device once before them "
        "(what a CuPy user's data are): fit reads them in place; host X still serves the CPU "
        "baseline, cuML and the smoke checks, which add the same fits from device and host X",
    )
    parser.add_argument("--cpu-baseline", help=argparse.SUPPRESS)
    parser.add_argument("--readme", help="rewrite this README's GPU block from --record")
    parser.add_argument(
        "--record",
        nargs="+",
        default=list(README_RECORDS),
    )
    args = parser.parse_args(argv)
    if args.cpu_baseline:
        _baseline_main(args)
    elif args.readme:
        from sdca_pegasos.experiments.reports import rewrite_block

        records = [json.loads(Path(p).read_text()) for p in args.record]
        tables = [
            table(r) + "\n\n" + targets(r) + (f"\n\n{newton_table(r)}" if r.get("newton") else "")
            for r in records
        ]
        rewrite_block(args.readme, MARKERS, "\n\n".join(tables))
    else:
        run(args)


if __name__ == "__main__":
    main()
