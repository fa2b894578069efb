"""Small fits without the loop's toll: epochs in one compiled call against one call each.

Without a callback, ``SDCAClassifier`` runs the epochs between two gap checks in one compiled
call where their index arrays hold at most ``BLOCK_SAMPLES`` samples
(:data:`sdca_pegasos.solvers.sdca.estimator.BLOCK_SAMPLES`; the same iterates, tested in
``tests/test_small_fits.py``). This benchmark fits each problem to each tolerance with the
estimator's defaults (shrinking, the finish; no intercept and the absolute gap, as the
time-to-ε bench's ``SDCA-Perm + shrinking + finish (ours)``), in alternated pairs:

- **blocks**: as it is;
- **one per call**: ``BLOCK_SAMPLES = 0``, every epoch a call of its own (the loop as before
  the blocks, save for the kernel each epoch calls: the block kernel with one epoch).

Each fit's CPU (``time.process_time``) and wall seconds of ``fit``, its epochs and certified
gap, and whether the two fits' coefficients are the same bits go to the record, with the load
average before each pair; the medians and the ratio blocks / one per call (median and range
over pairs) are printed. One thread.

Problems: ``pca40-like`` (a stand-in for blood PCA-40 at λ = 1/n: 8,000 × 40 Gaussian
features with scales decaying as a PCA's, 0.9^j, and a linear teacher under noise of twice
its scale; seconds) and the
time-to-ε bench's own (:data:`benchmarks.problems.PROBLEMS`, e.g. ``pca40-1/n`` where blood's
PCA cache is built, ``skin-1/n``, ``dense-1/n``, ``sparse-1/n``).

    python benchmarks/small_fits.py --problems pca40-like skin-1/n --out /tmp/small_fits
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings

if __name__ == "__main__":  # this checkout's packages first
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

import numpy as np

from sdca_pegasos.experiments import reports

TOLS = (1e-2, 1e-4, 1e-6)
VARIANTS = ("blocks", "one per call")


def pca40_like(n: int = 8000, d: int = 40, seed: int = 0):
    """The stand-in for blood PCA-40: Gaussian columns scaled by 0.9^j (a PCA's decaying
    spectrum), labels of a noisy linear teacher, λ = 1/n."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, d)) * 0.9 ** np.arange(d)
    score = X @ rng.standard_normal(d) + 2.0 * rng.standard_normal(n)
    return np.ascontiguousarray(X), np.where(score > 0, 1.0, -1.0), 1.0 / n


def load(name: str):
    """``(X, y, lmbd)`` of a problem by name."""
    if name == "pca40-like":
        return pca40_like()
    if name == "smoke":  # the tests' (a second)
        return pca40_like(n=600, d=10)
    from benchmarks.problems import PROBLEMS, load_problem

    problem = load_problem(next(p for p in PROBLEMS if p.name == name))
    return problem.X, problem.y, problem.lmbd


def one_fit(X, y, lmbd: float, tol: float, variant: str) -> dict:
    """One fit of ``variant``: its seconds, epochs, gap and coefficients."""
    from sdca_pegasos.solvers import SDCAClassifier
    from sdca_pegasos.solvers.sdca import estimator

    default = estimator.BLOCK_SAMPLES
    est = SDCAClassifier(
        lmbd=lmbd, tol=tol, tol_gap="absolute", max_epochs=100_000, bias_multiplier=0.0,
        random_state=0,
    )  # fmt: skip
    estimator.BLOCK_SAMPLES = default if variant == "blocks" else 0
    try:
        wall, cpu = time.perf_counter(), time.process_time()
        est.fit(X, y)
        wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    finally:
        estimator.BLOCK_SAMPLES = default
    return {"cpu": cpu, "wall": wall, "epochs": int(est.n_iter_),
            "gap": float(est.duality_gap_), "coef": est.coef_.ravel().copy()}  # fmt: skip


def measure(name: str, tols, pairs: int) -> list[dict]:
    """Alternated pairs of fits of ``name`` to each of ``tols``: one row per fit."""
    from threadpoolctl import threadpool_limits

    X, y, lmbd = load(name)
    rows = []
    with threadpool_limits(limits=1), warnings.catch_warnings():
        warnings.simplefilter("error")  # an unconverged fit is not a measurement
        for tol in tols:
            for variant in VARIANTS:  # compiled and warm, both
                one_fit(X, y, lmbd, tol, variant)
            for pair in range(pairs):
                load_avg = os.getloadavg()[0]
                fits = {}
                for variant in VARIANTS[:: 1 if pair % 2 == 0 else -1]:
                    fits[variant] = one_fit(X, y, lmbd, tol, variant)
                same = bool(np.array_equal(fits["blocks"]["coef"], fits["one per call"]["coef"]))
                for variant, fit in fits.items():
                    fit.pop("coef")
                    rows.append({"problem": name, "n_samples": X.shape[0],
                                 "n_features": X.shape[1], "tol": tol, "pair": pair,
                                 "variant": variant, "load": load_avg, "same_coef": same,
                                 **fit})  # fmt: skip
    return rows


def summary(rows: list[dict]) -> list[str]:
    """One line per (problem, tol): the median CPU of each variant, the CPU ratio blocks /
    one per call (median, range over pairs), epochs, whether every pair had the same bits,
    and the load range."""
    lines = []
    keys = sorted({(r["problem"], r["tol"]) for r in rows}, key=lambda k: (k[0], -k[1]))
    for problem, tol in keys:
        mine = [r for r in rows if r["problem"] == problem and r["tol"] == tol]
        by = {v: {r["pair"]: r for r in mine if r["variant"] == v} for v in VARIANTS}
        pairs = sorted(by["blocks"])
        ratios = [by["blocks"][p]["cpu"] / by["one per call"][p]["cpu"] for p in pairs]
        cpu = {v: np.median([by[v][p]["cpu"] for p in pairs]) * 1e3 for v in VARIANTS}
        epochs = sorted({r["epochs"] for r in mine})
        loads = [r["load"] for r in mine]
        lines.append(
            f"{problem} ({mine[0]['n_samples']} x {mine[0]['n_features']}), tol {tol:g}: "
            f"blocks {cpu['blocks']:.2f} ms, one per call {cpu['one per call']:.2f} ms "
            f"(median CPU of {len(pairs)}), ratio {np.median(ratios):.3f} "
            f"({min(ratios):.3f}-{max(ratios):.3f}), epochs {epochs}, same bits "
            f"{all(r['same_coef'] for r in mine)}, load {min(loads):.2f}-{max(loads):.2f}"
        )
    return lines


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--problems", nargs="+", default=["pca40-like"])
    parser.add_argument("--tols", nargs="+", type=float, default=list(TOLS))
    parser.add_argument("--pairs", type=int, default=9)
    parser.add_argument("--out", help="folder for the JSON record (small_fits.json)")
    args = parser.parse_args(argv)
    from sdca_pegasos.solvers.sdca.estimator import BLOCK_SAMPLES

    record = {
        **reports.record_head("small_fits"),
        "command": " ".join(["python benchmarks/small_fits.py", *(argv or sys.argv[1:])]),
        "block_samples": BLOCK_SAMPLES,
        "rows": [],
    }
    for name in args.problems:
        record["rows"] += measure(name, args.tols, args.pairs)
        print("\n".join(summary([r for r in record["rows"] if r["problem"] == name])), flush=True)
    record["load_end"] = os.getloadavg()[0]
    print(f"load at the start {record['load_start']:.2f}, at the end {record['load_end']:.2f}")
    if args.out:
        reports.write_record(args.out, "small_fits.json", record)
    return record


if __name__ == "__main__":
    main()
