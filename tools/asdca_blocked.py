"""Does the dense ASDCA epoch's four-rows-per-pass form pay? Blocked versus row-by-row.

Run with ``.venv/bin/python tools/asdca_blocked.py`` (``--help`` for options). A developer's
measurement, not a benchmark of the solvers' API: it times two forms of the epoch kernel, which
:func:`sdca_pegasos.solvers.sdca.asdca.epoch_kernel` gives. The kernel takes a dense batch four
rows per pass over z and v_e; the row-by-row form (``epoch_kernel(rowwise=True)``) is the same
epoch with the batch products CSR rows use (one row per pass, through the row-access layer),
compiled from the epoch's own source. Both run the same
epochs (same index arrays, same start) on a dense standard-normal X (λ = 0.01 so that θ‖x_i‖²/(γλn)
< 1: the iteration is stable), alternating, each timed in CPU time (``time.process_time``) after a
warm-up; the table gives the median seconds per epoch and their ratio."""

from __future__ import annotations

import argparse
import time

import numpy as np

from sdca_pegasos.solvers.core.rows import kernel_rows
from sdca_pegasos.solvers.core.sampling import distinct_batches
from sdca_pegasos.solvers.sdca import asdca


def _state(n, d, m, theta, lmbd):
    it = asdca.Iterates(
        z=np.zeros(d + 1),
        ve=np.zeros(d + 1),
        dual_coef=np.zeros(n),
        scal=np.array([1.0, 0.0]),
        acc_z=np.zeros(1),
        acc_e=np.zeros(1),
        acc_a=np.zeros(1),
        gz=np.empty(m),
        ge=np.empty(m),
        coef=np.empty(m),
    )
    params = asdca.Params(
        lmbd * n, asdca.losses.make_loss("smooth_hinge", 1.0), theta, 1e-6, False, 0, m
    )
    return it, params


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20_000)
    parser.add_argument("--d", type=int, default=500)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--epochs", type=int, default=3, help="epochs per timed run")
    parser.add_argument("--runs", type=int, default=7, help="timed runs of each form")
    parser.add_argument("--theta", type=float, default=0.15)
    parser.add_argument("--lmbd", type=float, default=0.01, help="(θ d/(λn) < 1: stable)")
    args = parser.parse_args()
    n, d, m = args.n, args.d, args.batch_size
    rng = np.random.default_rng(0)
    X = rng.standard_normal((n, d))
    y = np.where(X[:, 0] + 0.5 * rng.standard_normal(n) > 0, 1.0, -1.0)
    rows = kernel_rows(X, y, np.empty(0), None, 1.0)
    orders = [distinct_batches(rng, n, m) for _ in range(args.epochs)]
    iters = -(-n // m)
    forms = {"blocked": asdca.epoch_kernel(), "rowwise": asdca.epoch_kernel(rowwise=True)}

    def run(kernel):
        it, params = _state(n, d, m, args.theta, args.lmbd)
        start = time.process_time()
        for e, order in enumerate(orders):
            kernel(rows, it, params, order, e * iters)
        return (time.process_time() - start) / args.epochs, it.z.copy()

    results = {name: run(kernel)[1] for name, kernel in forms.items()}  # compile, warm
    gap = np.abs(results["blocked"] - results["rowwise"]).max()
    times = {name: [] for name in forms}
    for _ in range(args.runs):
        for name, kernel in forms.items():
            times[name].append(run(kernel)[0])
    med = {name: float(np.median(t)) for name, t in times.items()}
    print(
        f"n={n} d={d} batch_size={m} theta={args.theta} epochs/run={args.epochs} "
        f"runs={args.runs}; max |z_blocked - z_rowwise| = {gap:.2e}"
    )
    for name in forms:
        print(
            f"{name:8s} median {med[name] * 1e3:8.2f} ms/epoch  "
            f"(min {min(times[name]) * 1e3:.2f}, max {max(times[name]) * 1e3:.2f})"
        )
    print(f"rowwise / blocked = {med['rowwise'] / med['blocked']:.2f}")


if __name__ == "__main__":
    main()
