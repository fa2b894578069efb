"""Rounds of DaskSVMClassifier by how its rows are blocked, with and without an intercept.

``DaskSVMClassifier`` on a LocalCluster (2 workers × 1 thread) fits the CSR draw of
``benchmarks/beyond_memory.py`` (``--rows`` rows, 40 nonzeros per row over ``--features``
columns, labels with no intercept) with the smoothed hinge at λ = ``--lmbd-n``/n, bias
multiplier 1 (the intercept as a feature of value 1 in every row, regularised) and 0, its
rows blocked four ways:

- K = 1, one chunk: SDCA (each round an epoch on a permutation of all rows; tested bit for
  bit against ``SDCAClassifier``);
- K = 2, one chunk per block: CoCoA+ adding the blocks' updates with σ' = 2
  (tests/test_distributed.py checks those rounds against a NumPy CoCoA+);
- K = 1 of 8 chunks (``n_blocks=1``): SDCA whose epoch visits the chunks one after the other,
  each chunk's rows in a permutation of their own (what lets a block exceed memory);
- K = 2 of 4 chunks each (``n_blocks=2``): both.

Printed: the certified relative gap after every ``--every``-th round and the first round at which
it reaches 1e-4, 1e-6 and 1e-8. ``--dual alpha`` certifies with D(α) alone, as the estimator did
before it took the dual point its primal implies too (``--dual both``, its default:
:func:`sdca_pegasos.solvers.core.objectives.implied_dual`); ``--bias`` picks the multipliers.

    python benchmarks/cocoa_blocks.py
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

if __name__ == "__main__":  # this checkout's packages, and not `benchmarks/` itself on the
    # path: its distributed.py would shadow the `distributed` package
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=200_000)
    parser.add_argument("--features", type=int, default=20_000)
    parser.add_argument("--lmbd-n", type=float, default=130.0, help="λn")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--dual", choices=("both", "alpha"), default="both")
    parser.add_argument("--bias", type=float, nargs="+", default=[1.0, 0.0])
    args = parser.parse_args(argv)

    import dask.array as da
    import numpy as np
    import scipy.sparse as sp
    from sklearn.exceptions import ConvergenceWarning

    from benchmarks.beyond_memory import draw_chunk
    from benchmarks.distributed import local_client
    from sdca_pegasos.solvers import DaskSVMClassifier

    rows = args.rows // 8
    parts = [draw_chunk(c, rows, args.features, 40) for c in range(8)]
    y_all = np.concatenate([p[1] for p in parts])
    n = 8 * rows
    lmbd = args.lmbd_n / n

    def dask_rows(n_chunks):
        step = 8 // n_chunks
        Xs = [sp.vstack([p[0] for p in parts[c : c + step]]).tocsr() for c in range(0, 8, step)]
        X = da.concatenate([da.from_array(x, chunks=x.shape, asarray=False) for x in Xs])
        return X, da.from_array(y_all, chunks=step * rows)

    print(f"n = {n}, d = {args.features}, smooth hinge, lambda = {lmbd:.3g} (lambda n = "
          f"{args.lmbd_n:g}); certified relative gap after rounds 1, "
          f"{1 + args.every}, ...")  # fmt: skip
    layouts = {  # name: (row chunks, n_blocks)
        "K = 1, one chunk (SDCA)": (1, None),
        "K = 2, one chunk per block (CoCoA+)": (2, None),
        "K = 1 of 8 chunks": (8, 1),
        "K = 2 of 4 chunks each": (8, 2),
    }
    out = {}
    DaskSVMClassifier._IMPLIED_DUAL = args.dual == "both"
    bound = "max(D(alpha), D(implied_dual(w)))" if args.dual == "both" else "D(alpha)"
    print(f"dual bound: {bound}")
    with local_client(2), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        warnings.filterwarnings("ignore", "Sending large graph", UserWarning)
        for bias in args.bias:
            for name, (n_chunks, n_blocks) in layouts.items():
                gaps = []
                DaskSVMClassifier(
                    lmbd=lmbd,
                    loss="smooth_hinge",
                    n_blocks=n_blocks,
                    local_epochs=1,  # a round is one pass: rounds compare with SDCA's epochs
                    shrinking=False,  # a plain pass, as SDCA's epoch
                    bias_multiplier=bias,
                    tol=1e-12,
                    max_rounds=args.rounds,
                    check_every=1,  # every round's gap
                    random_state=0,
                    callback=lambda info, gaps=gaps: gaps.append(
                        info.gap / abs(info.primal)  # every round checked
                    ),
                ).fit(*dask_rows(n_chunks))
                first = {
                    eps: next((r + 1 for r, g in enumerate(gaps) if g <= eps), None)
                    for eps in (1e-4, 1e-6, 1e-8)
                }
                out[(bias, name)] = gaps
                reach = ", ".join(f"{e:g}: {'—' if r is None else r}" for e, r in first.items())
                print(f"  B = {bias:g}, {name}: first round to {reach}")
                print("    " + " ".join(f"{g:.1e}" for g in gaps[:: args.every]), flush=True)
    return out


if __name__ == "__main__":
    main()
