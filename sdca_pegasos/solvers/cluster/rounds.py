"""The driver side of :class:`sdca_pegasos.solvers.cluster.estimator.DaskSVMClassifier`'s rounds:
the blocks' local passes submitted as chains of tasks, the certificate over the blocks, the finish,
and the checkpoints. Where the rows live (blocks, their placement, their layout) is
:mod:`sdca_pegasos.solvers.cluster.layout`. The worker side is
:mod:`sdca_pegasos.solvers.cluster.blocks`."""

from __future__ import annotations

import json
import os
from typing import NamedTuple

import numpy as np

from sdca_pegasos.solvers.cluster import blocks as _cocoa
from sdca_pegasos.solvers.core import objectives


class Certified(NamedTuple):
    """What :func:`certify` returns: the certified ``bounds`` (the dict of
    :func:`sdca_pegasos.solvers.core.objectives.certificate`), ``w_alpha`` = w(α), the primal
    ``point`` those bounds certify, and the ``passes`` over the rows that it took."""

    bounds: dict
    w_alpha: np.ndarray
    point: np.ndarray
    passes: int


def local_passes(
    client, states, data, groups, block_rngs, w, epochs: int, shrinking: bool = False
) -> list:
    """Submit one round's local passes (with ``shrinking``, epochs of SDCA with shrinking:
    :func:`sdca_pegasos.solvers.cluster.blocks.local_round`), replacing ``states`` (one per chunk)
    in place; returns one future per block of its (v_k, CPU seconds, coordinate steps). A block of
    one chunk makes its ``local_epochs`` passes in one task; a block of several makes each pass
    chunk by chunk, in an order drawn from the block's stream, v going from each chunk's task to
    the next."""
    ends = []
    for group, block_rng in zip(groups, block_rngs, strict=True):
        carry = (w, 0.0, 0)
        if len(group) == 1:
            visits = [(group[0], epochs)]
        else:
            visits = [
                (group[i], 1) for _ in range(epochs) for i in block_rng.permutation(len(group))
            ]
        for c, passes in visits:
            states[c] = client.submit(
                _cocoa.local_round, states[c], data[c], carry, passes, shrinking, pure=False
            )
            carry = client.submit(_cocoa.local_result, states[c])
        ends.append(carry)
    return ends


def certify(client, states, data, groups, w, lmbd, loss, bias, n, implied, bias_step) -> Certified:
    """Certified bounds of the better of two primal points, from every block's partial
    sums (a block's chunks merge theirs in turn on the workers: one
    part per block reaches the driver).

    The points are w and, for a smooth loss (with ``implied``), w' = w with its bias weight moved
    by one Newton step of P along it (with ``bias_step`` and an intercept: one more pass; a pass
    chunk by chunk leaves the bias weight dragged toward the last chunk's own,
    docs/distributed.md); the dual bound is the larger of D(α) and D(α̃(w')), α̃ the dual point
    that w' implies (:func:`sdca_pegasos.solvers.core.objectives.implied_dual`). Each is a
    certified bound of P*, with its own rounding allowance."""
    implied = implied and loss.smooth
    w_key = w if len(states) == len(groups) else client.scatter(w, hash=False)
    w_implied = None
    passes = 1  # P(w), D(α) and w(α)
    if implied:
        w_implied = w.copy()
        passes += 2  # the margins of w', then P(w') and D(α̃(w'))
        if bias > 0.0 and bias_step:
            passes += 1
            slope = chains(client, groups, _cocoa.bias_slope_sums, states, data, w_key, loss)
            ya, curved = sum(client.gather(slope))
            grad = lmbd * w[-1] - bias * ya / n
            w_implied[-1] -= grad / (lmbd + bias * bias * curved / n)
    parts = chains(client, groups, _cocoa.block_certificate, states, data, w_key, loss, w_implied)
    sums = client.gather(parts)
    bounds, w_alpha = objectives.combine_certificate([p[0] for p in sums], w, lmbd, loss)
    point = w
    if implied:
        other = objectives.combine_certificate([p[1] for p in sums], w_implied, lmbd, loss)[0]
        primal = bounds["primal"]
        if other["primal"] < primal:
            primal, point = other["primal"], w_implied
        bounds = objectives.certified_bounds(primal, max(bounds["dual"], other["dual"]))
    return Certified(bounds, w_alpha, point, passes)


#: CoCoA+ checks before the first finish, and after a finish that did not pay; each such
#: finish doubles the wait for the next (:class:`FinishSchedule`).
FINISH_WAIT = 2


class FinishSchedule:
    """When the next round is a finish (``finish=True``), decided at each check.

    The first finish comes once CoCoA+ has stalled: the gap above half the one two checks
    before (CoCoA+'s cut per check, the square root of their ratio, under √2 then). A
    finish that paid — it cut the gap, and by more than CoCoA+ did per check when the
    finishes began — is followed by another at once; after one
    that did not, CoCoA+ makes ``wait`` checked rounds before the next can be due and must
    stall again. ``wait`` starts at :data:`FINISH_WAIT`, doubles with each finish that did
    not pay and is back at the start after one that did: where finishes help they follow
    each other, where they do not they become rare and CoCoA+ makes its rounds."""

    def __init__(self):
        self.wait = FINISH_WAIT
        self.since = 0  # CoCoA+ checks since the last finish's
        self.pending = False  # a finish made, its check not seen yet
        self.rate = 1.0  # CoCoA+'s cut per check when the finishes began

    def finish_next(self, finishing: bool, gaps: list, rel_gap: float | None) -> bool:
        """After a round (a finish or not) whose check gave ``rel_gap`` (None: no check;
        ``gaps`` every check's so far): whether the next round is a finish."""
        self.pending = self.pending or finishing
        if rel_gap is None:
            return False
        if self.pending:
            self.pending = False
            self.since = 0
            cut = gaps[-2] / gaps[-1] if len(gaps) >= 2 and gaps[-1] > 0.0 else np.inf
            paid = cut > max(self.rate, 1.0)
            self.wait = FINISH_WAIT if paid else 2 * self.wait
            return paid
        self.since += 1
        if self.since >= self.wait and len(gaps) >= 3 and gaps[-1] > 0.5 * gaps[-3]:
            self.rate = float(np.sqrt(gaps[-3] / gaps[-1])) if gaps[-1] > 0.0 else np.inf
            return True
        return False


#: The finish gathers at most about this many rows, those nearest the margin, from every
#: chunk in proportion to its rows, and fewer where rows are long (the driver holds them:
#: ``DaskSVMClassifier`` caps their stored entries at ``AUTO_ROUND_WORK``, a round's work).
FINISH_ROWS = 2**15
#: Epochs of SDCA with shrinking the finish makes over the rows it gathered.
FINISH_EPOCHS = 50


def finish(client, states, data, sizes, w, problem, rng, max_rows: int) -> tuple:
    """CoCoA+'s finish, on the driver: the rows nearest the margin at w, about ``max_rows``
    (:func:`sdca_pegasos.solvers.cluster.blocks.finish_candidates`, each chunk's share in
    proportion to its rows, rounded up), solved together by :data:`FINISH_EPOCHS` epochs of SDCA
    with shrinking on the *whole* problem's dual, every other α fixed: σ' = 1, exact coordinate
    ascent, so D(α) cannot decrease, where CoCoA+'s σ' = K damps every block's step. ``problem``:
    (positive, class_weights, two, bias, loss, lmbd) as
    :func:`sdca_pegasos.solvers.cluster.blocks.init_block` takes them. Replaces ``states`` with
    their new α in place; returns the new w (the solve's running iterate), the advanced ``rng``,
    and the solve's coordinate steps and CPU seconds."""
    positive, class_weights, two, bias, loss, lmbd = problem
    n = sum(sizes)
    counts = [-(-max_rows * m // n) for m in sizes]
    parts = client.gather(
        [
            client.submit(_cocoa.finish_candidates, state, block, w, k)
            for state, block, k in zip(states, data, counts, strict=True)
        ]
    )
    gathered = _cocoa.merge_data(*[p[1] for p in parts])
    alpha = np.concatenate([p[2] for p in parts])
    args = positive, class_weights, two, bias, loss, lmbd, lmbd * n
    # the kernels of these rows' types compiled (or loaded) on the driver before the timed
    # solve: an epoch over the first row alone, thrown away
    c = gathered.sample_weight
    one = _cocoa.block_data(gathered.X[:1], gathered.labels[:1], None if c is None else c[:1])
    warm = _cocoa.init_block(one, -1, *args, np.random.default_rng(0), None)
    _cocoa.local_round(warm, one, (w, 0.0, 0), 1, shrinking=True)
    solve = _cocoa.init_block(gathered, -1, *args, rng, alpha)
    solve = _cocoa.local_round(solve, gathered, (w, 0.0, 0), FINISH_EPOCHS, shrinking=True)
    start = 0
    for c, (rows, _, _) in enumerate(parts):
        values = solve.sweep.dual_coef[start : start + rows.shape[0]]
        states[c] = client.submit(_cocoa.set_alpha, states[c], rows, values)
        start += rows.shape[0]
    return solve.v, solve.rng, solve.round_steps, solve.cpu


def chains(client, groups, task, states, data, w_key, loss, *extra) -> list:
    """``task(state, data, w, loss, previous, *extra)`` along each block's chunks in
    turn, on the workers: one future per block, its chunks' results merged."""
    parts = []
    for group in groups:
        part = None
        for c in group:
            part = client.submit(task, states[c], data[c], w_key, loss, part, *extra)
        parts.append(part)
    return parts


def checkpoint(client, states, templates, folder, j, round_, sizes, d, n_problems) -> list:
    """Write every block's checkpoint of problem ``j`` at this round, then the manifest
    that names them (:func:`checkpoint_inits` reads it), then drop the files older than
    the last two rounds kept; every block's chain restarts from its file."""
    paths = [_cocoa.checkpoint_path(folder, j, k, round_) for k in range(len(states))]
    written = [
        client.submit(_cocoa.write_checkpoint, s, p, pure=False)
        for s, p in zip(states, paths, strict=True)
    ]
    client.gather(written)
    _write_manifest(folder, j, round_, paths, sizes, d, n_problems)
    _prune(folder, j, round_)
    return [
        client.submit(_cocoa.restore_block, t, p, pure=False)
        for t, p in zip(templates, paths, strict=True)
    ]


def _manifest_path(folder) -> str:
    return os.path.join(os.fspath(folder), "manifest.json")


def checkpoint_inits(folder, sizes, d, n_problems) -> list | None:
    """The checkpoint's α per problem and block (file paths, read by the workers), when
    ``folder`` holds one of the same data; None when it holds none (or ``folder`` is
    None)."""
    if folder is None or not os.path.exists(_manifest_path(folder)):
        return None
    with open(_manifest_path(folder)) as f:
        manifest = json.load(f)
    found = (manifest["rows"], manifest["n_features"], manifest["n_problems"])
    if found != (list(sizes), d, n_problems):
        raise ValueError(
            f"the checkpoint in {folder} is of blocks {found[0]}, "
            f"{found[1]} features and {found[2]} binary problems, but X has blocks "
            f"{list(sizes)}, {d} features and {n_problems} problems: resume with the "
            "same data and chunks, or use another checkpoint_dir."
        )
    return [[manifest["files"][str(j)][k] for k in range(len(sizes))] for j in range(n_problems)]


def _write_manifest(folder, j, round_, paths, sizes, d, n_problems) -> None:
    path = _manifest_path(folder)
    manifest = {"files": {}}
    if os.path.exists(path):
        with open(path) as f:
            manifest = json.load(f)
    manifest.update(rows=list(sizes), n_features=d, n_problems=n_problems)
    manifest["files"][str(j)] = paths
    manifest.setdefault("rounds", {})[str(j)] = round_
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        json.dump(manifest, f, indent=1)
    os.replace(tmp, path)


def _prune(folder, j, round_) -> None:
    """Remove the problem's checkpoint files older than the last two rounds kept."""
    sub = os.path.join(folder, f"problem-{j}")
    names = [f for f in os.listdir(sub) if f.endswith(".npz")]
    rounds = sorted({int(f.rsplit("-", 1)[1][: -len(".npz")]) for f in names})
    for old in rounds[:-2]:
        for f in os.listdir(sub):
            if f.endswith(f"-round-{old}.npz"):
                os.remove(os.path.join(sub, f))
