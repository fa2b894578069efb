"""DaskSVMClassifier (CoCoA+ over a dask cluster) and the shards reader, on one LocalCluster.

Tiny problems at a large λ so that every fit certifies in a few dozen rounds: what is
asserted is mathematics — one block is SDCA bit for bit, the certified optimum is the exact
engine's, a killed worker changes nothing, the certificate bounds the exact optimum.
"""

from __future__ import annotations

import contextlib
import json
import os
import warnings
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning

from sdca_pegasos.solvers import ExactSVMClassifier, SDCAClassifier
from sdca_pegasos.solvers.core import objectives

from .conftest import gaussian_problem, local_cluster_client

distributed = pytest.importorskip("distributed")
dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")

from sdca_pegasos.solvers.cluster import layout as _cocoa_layout  # noqa: E402
from sdca_pegasos.solvers.cluster.estimator import DaskSVMClassifier  # noqa: E402

local_client = local_cluster_client  # worker processes


@pytest.fixture(scope="module")
def client():
    with local_client() as c:
        yield c


@pytest.fixture
def own_client():
    """A cluster for one test that kills a worker: whether its nanny brings the worker back
    (it may not, e.g. when the new process is slow to start) is no concern of the next test,
    and nothing waits for it (an unbounded wait for it hung CI once)."""
    with local_client() as c:
        yield c


def blocks(X, y, k, w=None):
    """X, y (and w) as dask arrays of k row blocks."""
    rows = -(-X.shape[0] // k)
    out = [da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=(rows,))]
    if w is not None:
        out.append(da.from_array(w, chunks=(rows,)))
    return out


def test_one_block_is_sdca_bit_for_bit(client):
    """K = 1: σ' = 1, the local subproblem is the problem and a round an SDCA epoch on the
    same permutations (block 0's stream is ``default_rng(seed).spawn(1)[0]``)."""
    X, y = gaussian_problem(n=80, d=6, seed=3)
    Xd, yd = blocks(X, y, 1)
    dist = DaskSVMClassifier(
        lmbd=0.01, tol=0.0, max_rounds=6, random_state=7, local_epochs=1, shrinking=False
    )
    dist.fit(Xd, yd)
    stream = np.random.default_rng(7).spawn(1)[0]
    ref = SDCAClassifier(
        lmbd=0.01, tol=0, max_epochs=6, random_state=stream, shrinking=False, finish=False
    ).fit(X, y)
    np.testing.assert_array_equal(dist.dual_coef_.compute(), ref.dual_coef_)
    # the returned w is w(α) recomputed with compensated sums; SDCA's is its running iterate
    np.testing.assert_allclose(dist.coef_, ref.coef_, rtol=0, atol=1e-13)
    assert dist.data_passes_ == 6 and dist.n_rounds_ == 6


@pytest.mark.parametrize("sparse", [False, True])
def test_auto_blocks_are_one_per_worker_thread_their_chunks_merged_bit_for_bit(client, sparse):
    """n_blocks="auto" (the default) on a cluster of 2 threads: X in 6 row chunks makes 2
    blocks, X's rows dealt to them in turn (row g to block g mod 2) and merged on their
    worker, so the fit is that of X's even rows and its odd rows as 2 chunks of a block
    each, bit for bit (rounds, coefficients, and α, given back in X's row order and taken
    back from it by warm_start), X in 2 chunks the same, and a round moves the vectors of
    2 blocks, no chains; never more blocks than chunks; None: a block each."""
    X, y = gaussian_problem(n=120, d=5, seed=8)

    def fit(k, rows=slice(None), prior=None, **params):
        Xd, yd = blocks(X[rows], y[rows], k)
        if sparse:
            Xd = Xd.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 5)))
        params = {"lmbd": 0.05, "loss": "smooth_hinge", "tol": 1e-8, **params}
        clf = prior if prior is not None else DaskSVMClassifier(random_state=2)
        return clf.set_params(**params).fit(Xd, yd)

    six = fit(6)
    dealt = np.concatenate([np.arange(0, 120, 2), np.arange(1, 120, 2)])
    two = fit(2, rows=dealt, n_blocks=None)  # a chunk per block: X's even rows, odd rows
    assert six.n_blocks_ == two.n_blocks_ == 2 and six.certified_
    assert six.n_rounds_ == two.n_rounds_ and six.local_epochs_ == two.local_epochs_
    np.testing.assert_array_equal(six.coef_, two.coef_)
    alpha = np.empty(120)
    alpha[dealt] = two.dual_coef_.compute()
    np.testing.assert_array_equal(six.dual_coef_.compute(), alpha)  # back in X's row order
    assert six.dual_coef_.chunks == ((20,) * 6,)
    assert six.bytes_per_round_ == two.bytes_per_round_ == (2 + 2) * 6 * 8
    np.testing.assert_array_equal(fit(2).coef_, six.coef_)  # 2 chunks are dealt the same
    coef = six.coef_.copy()
    again = fit(6, prior=six, warm_start=True)  # its α dealt to the blocks again: still
    assert again.certified_ and again.n_rounds_ == 1  # at the optimum after a round
    np.testing.assert_allclose(again.coef_, coef, rtol=0, atol=1e-6)
    assert fit(6, n_blocks=None).n_blocks_ == 6 and fit(1).n_blocks_ == 1


def test_auto_blocks_chain_their_chunks_when_the_rows_outgrow_the_workers_memory(
    client, monkeypatch
):
    """Rows over AUTO_MERGE_MEMORY of the workers' total memory_limit are not merged: each
    auto block visits its chunks one at a time, as n_blocks=2 does, bit for bit."""
    from sdca_pegasos.solvers.cluster import layout as module

    assert module.merge_fits(100, [400, 0]) and module.merge_fits(100, [None, 10])
    assert module.merge_fits(200, [300, 300]) and not module.merge_fits(201, [300, 300])
    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 6)
    monkeypatch.setattr(module, "AUTO_MERGE_MEMORY", 1e-12)  # planted: no room at all
    params = {"lmbd": 0.05, "loss": "smooth_hinge", "tol": 1e-8, "random_state": 2}
    chained = DaskSVMClassifier(**params).fit(Xd, yd)
    assert chained.n_blocks_ == 2 and chained.bytes_per_round_ == (6 + 2) * 6 * 8
    assert chained.dual_coef_.chunks == ((20,) * 6,)
    ref = DaskSVMClassifier(**params, n_blocks=2).fit(Xd, yd)
    np.testing.assert_array_equal(chained.coef_, ref.coef_)
    assert chained.n_rounds_ == ref.n_rounds_


@pytest.mark.parametrize("finish_rows", [None, 40])
def test_the_finish_certifies_the_hinge_where_cocoa_plus_crawls(client, monkeypatch, finish_rows):
    """The hinge with an intercept over 2 blocks: CoCoA+ alone (finish=False) is still
    above 1e-10 after 60 rounds; with the finish (the default), rounds whose rows nearest
    the margin are solved together on the driver (all 120 rows, or the 40 nearest, each
    block's 20), the fit certifies 1e-10 at the exact engine's optimum; same seed, same
    bits."""
    from sdca_pegasos.solvers.cluster import rounds as _cocoa_rounds

    if finish_rows is not None:
        monkeypatch.setattr(_cocoa_rounds, "FINISH_ROWS", finish_rows)
    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 2)
    params = {"lmbd": 0.05, "tol": 1e-10, "random_state": 2, "max_rounds": 60}
    with pytest.warns(ConvergenceWarning, match="did not converge"):
        crawl = DaskSVMClassifier(**params, finish=False).fit(Xd, yd)
    assert not crawl.certified_ and crawl.n_finishes_ == 0
    done = DaskSVMClassifier(**params).fit(Xd, yd)
    exact = ExactSVMClassifier(lmbd=0.05).fit(X, y)
    assert done.certified_ and done.rel_gap_ <= 1e-10 and done.n_finishes_ >= 1
    assert done.n_rounds_ < 60 and done.dual_ <= exact.primal_ <= done.primal_
    assert abs(done.primal_ - exact.primal_) <= 1e-10 * exact.primal_
    again = DaskSVMClassifier(**params).fit(Xd, yd)
    np.testing.assert_array_equal(again.coef_, done.coef_)
    np.testing.assert_array_equal(again.dual_coef_.compute(), done.dual_coef_.compute())


def test_a_fit_that_does_not_certify_over_one_class_blocks_says_to_shuffle(client):
    """Rows sorted by label, cut where the label changes, a block per chunk: each block sees
    one class, and the ConvergenceWarning names those blocks and the fix; with one such
    block, that one; rows in any order, none."""
    X, y = gaussian_problem(n=120, d=5, seed=8)
    order = np.argsort(y, kind="stable")
    negatives = int((y < 0).sum())
    params = {"lmbd": 0.05, "tol": 1e-10, "random_state": 2, "max_rounds": 3, "finish": False}
    params["n_blocks"] = None  # a block per chunk: "auto" would deal the rows to both

    def cut(rows, first):
        return (
            da.from_array(X[rows], chunks=((first, 120 - first), 5)),
            da.from_array(y[rows], chunks=((first, 120 - first),)),
        )

    hint = r"Blocks 0 \(-1\.0\), 1 \(1\.0\) hold one class each: .* shuffle the rows"
    with pytest.warns(ConvergenceWarning, match=hint):
        DaskSVMClassifier(**params).fit(*cut(order, negatives))
    # 30 negatives and every positive, then the other negatives: block 1 holds one class
    rows = np.concatenate([order[:30], order[negatives:], order[30:negatives]])
    one = r"Block 1 \(-1\.0\) holds one class: .* shuffle the rows"
    with pytest.warns(ConvergenceWarning, match=one):
        DaskSVMClassifier(**params).fit(*cut(rows, 30 + 120 - negatives))
    with pytest.warns(ConvergenceWarning, match="did not converge") as seen:
        DaskSVMClassifier(**params).fit(*blocks(X, y, 2))
    assert not any("hold" in str(w.message) for w in seen)


def test_auto_deals_rows_sorted_by_label_to_every_block(client):
    """Rows sorted by label in 4 chunks, two of each class: "auto" deals X's rows to its 2
    blocks in turn (row g to block g mod 2), so each block holds both classes, and the
    defaults certify the exact engine's optimum without a warning; a block per chunk
    leaves each block one class, and CoCoA+ alone (no finish, which here would gather all
    160 rows) warned and far from it."""
    X, y = gaussian_problem(n=160, d=5, seed=8)
    order = np.argsort(y, kind="stable")
    X, y = X[order], y[order]
    a = int((y == y[0]).sum())
    cut = (a // 2, a - a // 2, (160 - a) // 2, 160 - a - (160 - a) // 2)
    assert min(cut) >= 20  # two chunks of each class
    Xd, yd = da.from_array(X, chunks=(cut, -1)), da.from_array(y, chunks=(cut,))
    ref = ExactSVMClassifier(lmbd=0.05, tol=1e-12).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ConvergenceWarning
        clf = DaskSVMClassifier(lmbd=0.05, tol=1e-10).fit(Xd, yd)
    assert clf.certified_ and clf.n_blocks_ == 2
    assert abs(clf.primal_ - ref.primal_) <= 1e-10 * ref.primal_
    with pytest.warns(ConvergenceWarning, match="hold one class each"):
        chunked = DaskSVMClassifier(
            lmbd=0.05, tol=1e-10, n_blocks=None, max_rounds=20, finish=False
        )
        chunked.fit(Xd, yd)
    assert chunked.rel_gap_ > 1e-3


def test_a_row_layout_gives_the_blocks_rows_back_in_xs_order(client):
    """RowLayout of 2 dealt blocks over chunks of 3, 2 and 2 rows: block b holds X's rows
    g = b, b + 2, …; the blocks' values interleaved back in X's order, chunked as X, and
    the inverse; without dealing, the chunks in turn."""
    from sdca_pegasos.solvers.cluster.layout import RowLayout

    layout = RowLayout([3, 2, 2], step=2)
    parts = [client.scatter(np.array([0.0, 2, 4, 6])), client.scatter(np.array([1.0, 3, 5]))]
    rows = layout.to_rows(client, parts, [4, 3])
    assert rows.chunks == ((3, 2, 2),)
    np.testing.assert_array_equal(rows.compute(), np.arange(7.0))
    back = layout.from_rows(rows)
    np.testing.assert_array_equal(back[0].compute(), [0, 2, 4, 6])
    np.testing.assert_array_equal(back[1].compute(), [1, 3, 5])
    plain = RowLayout([3, 4])
    rows = plain.to_rows(client, parts[::-1], [3, 4])
    np.testing.assert_array_equal(rows.compute(), [1, 3, 5, 0, 2, 4, 6])
    assert [b.compute().tolist() for b in plain.from_rows(rows)] == [[1, 3, 5], [0, 2, 4, 6]]


def test_a_finish_gathers_at_most_a_rounds_entries():
    from sdca_pegasos.solvers.cluster.layout import max_finish_rows

    assert max_finish_rows([10 * (3 + 2)], 10) == 2**15  # skin's 3 columns: the row cap
    assert max_finish_rows([100 * (500 + 2), 100 * 502], 200) == 2**23 // 500  # dense 500
    assert max_finish_rows([1000 * (40 + 2)], 1000) == 2**15  # CSR, 40 entries a row
    assert max_finish_rows([2**24 + 2], 1) == 1  # one row longer than a round's work


def play(schedule, rounds):
    """Feed a FinishSchedule rounds of (gap checked or None), each round a finish when the
    schedule said so after the round before; returns the rounds that were finishes."""
    gaps, checked, finishing, made = [], [], False, []
    for r, gap in enumerate(rounds, 1):
        if finishing:
            made.append(r)
        if gap is not None:
            gaps.append(gap)
            checked.append(r)
        finishing = schedule.finish_next(finishing, gaps, gap, checked)
    return made


def test_a_finish_is_due_when_cocoa_plus_stalls_and_again_only_when_one_paid():
    """The first finish once the gap has not halved over two rounds (from the third check
    on); another at once after a finish that cut the gap by more than CoCoA+ did per round
    when the finishes began and by at least 1 %; after one that did not, CoCoA+
    makes 4 rounds (then 8, …), counted at its checks, and must stall again before the
    next; a finish made between checks is judged at the next check."""
    from sdca_pegasos.solvers.cluster.rounds import FinishSchedule

    assert play(FinishSchedule(), [1e-2, 5e-3, 2.4e-3, 1.1e-3, 5e-4]) == []  # halving
    assert play(FinishSchedule(), [1e-2, 1e-3, 4.9e-3, 2.4e-3]) == []  # halved over two
    assert play(FinishSchedule(), [1e-4, 1e-4]) == []  # too few checks to tell
    # stalled at check 3, CoCoA+ cutting sqrt(1e-2 / 5.1e-3) = 1.40x a round: a finish at
    # 4 that cut 5.1e-3 to 3e-3 (1.7x) paid, another at 5 (1.03x) did not
    assert play(FinishSchedule(), [1e-2, 1e-3, 5.1e-3, 3e-3, 2.9e-3, 2.9e-3]) == [4, 5]
    assert play(FinishSchedule(), [1e-2, 1e-3, 5.1e-3, 3.7e-3, 2.9e-3, 2.9e-3]) == [4]  # 1.38x
    crawl = [1.0, 0.999, 0.998, 0.978, 0.958, 0.939]  # CoCoA+ 1.001x a round, finishes 1.02x
    assert play(FinishSchedule(), crawl) == [4, 5, 6]
    # finishes that cut less than FINISH_MIN_CUT (1.01x) do not pay, even where CoCoA+'s
    # gap rose (its rate under 1): one, then 4 rounds of CoCoA+ before the next
    rising = [1.0, 1.01, 1.02, 1.015, 1.012, 1.02, 1.03, 1.03, 1.03, 1.03]
    assert play(FinishSchedule(), rising) == [4, 9]
    flat = [0.2] * 40  # nothing helps: finishes at 4, then after 4, 8, 16 CoCoA+ rounds
    assert play(FinishSchedule(), flat) == [4, 9, 18, 35]
    every_other = [None, 0.2] * 20  # checks at even rounds only: decisions there alone,
    # the waits in rounds: judged at 8, 4 rounds to 12, judged at 14, 8 rounds to 22
    assert play(FinishSchedule(), every_other) == [7, 13, 23]
    assert play(FinishSchedule(), [0.2, 0.2, 0.2, None, 0.2, 0.2]) == [4]  # judged at 5


def test_a_finish_reads_the_gaps_cut_per_round_between_spaced_checks():
    """Checks spaced as CheckSchedule spaces them (rounds 1, 2, 10, 18, …): the stall test
    and the finishes' rate are per round, so a gap halved every second round is no stall
    however far apart the checks, and one cut 1.3x a round is (1.3² < 2)."""
    from sdca_pegasos.solvers.cluster.rounds import FinishSchedule, _cut

    def spaced(per_round, last=26):
        return [
            per_round ** -(r - 1) if r in (1, 2, 10, 18, 26) else None for r in range(1, last + 1)
        ]

    assert play(FinishSchedule(), spaced(2.0**0.5 * 1.01)) == []  # faster than 2 in 2
    schedule = FinishSchedule()
    # 1.3**9 over rounds 1 to 10, under the 2**4.5 of a halving every second round: a
    # finish at 11; judged at 18 (1.3x a round, no more than CoCoA+'s): 4 rounds to wait
    assert play(schedule, spaced(1.3)) == [11]
    assert schedule.rate == pytest.approx(1.3)  # per round, not per check (1.3**8)
    assert _cut(8.0, 2.0, 2) == 2.0 and _cut(8.0, 2.0, 1) == 4.0 and _cut(1.0, 0.0, 3) == np.inf
    assert _cut(2.0**9, 1.0, 3) == pytest.approx(8.0)


def test_shrinking_rounds_are_sdcas_shrinking_epochs_carried_bit_for_bit(client):
    """shrinking=True (the default), K = 2: each round, each block makes ``local_epochs``
    epochs of SDCA with shrinking (:func:`sdca_pegasos.solvers.sdca.shrinking.shrinking_epoch`, a
    seed of the block's stream each) on its local subproblem (λn/σ'), from the active set,
    threshold and gradients its last round left; the replay gives the same α and w bit
    for bit, and ``data_passes_`` is the steps made over n: fewer than the plain passes'
    rounds × H, as rows left the set."""
    from sdca_pegasos.solvers.sdca.kernels import kernel_inputs
    from sdca_pegasos.solvers.sdca.shrinking import PERMUTATION, new_active_set, shrinking_epoch

    X, y = gaussian_problem(n=80, d=4, seed=21)
    Xd, yd = blocks(X, y, 2)
    seen = []
    dist = DaskSVMClassifier(
        lmbd=0.05, tol=0.0, max_rounds=3, random_state=4, local_epochs=3, n_blocks=None,
        callback=lambda info: seen.append((info.w.copy(), info.data_passes)),
    ).fit(Xd, yd)  # fmt: skip
    assert dist.shrinking
    streams = np.random.default_rng(4).spawn(2)
    rows, sweeps, params = [], [], []
    for k in range(2):
        Xk, yk = X[40 * k : 40 * k + 40], y[40 * k : 40 * k + 40]
        r, sw, pa = kernel_inputs(Xk, yk, 0.05, lmbd_n=0.05 * 80 / 2)
        rows.append(r._replace(sq_norms=r.sq_norms + 1.0, bias=1.0))
        sweeps.append(sw._replace(grad=np.full(40, np.nan)))
        params.append(pa)
    w, steps = np.zeros(5), [0, 0]
    actives, eps = [new_active_set(40, PERMUTATION) for _ in range(2)], [np.inf, np.inf]
    for w_round, passes in seen:
        vs = []
        for k in range(2):  # the active set, eps and gradients carried from round to round
            sweeps[k].w[:] = w
            for _ in range(3):
                seed = int(streams[k].integers(2**63))
                made, eps[k] = shrinking_epoch(
                    rows[k], sweeps[k], params[k], actives[k], steps[k], seed, eps[k]
                )
                steps[k] += made
            vs.append(sweeps[k].w.copy())
        w = w + sum((v - w for v in vs), np.zeros(5)) / 2.0
        np.testing.assert_array_equal(w_round, w)
        assert passes == sum(steps) / 80  # so far
    alpha = np.concatenate([sw.dual_coef for sw in sweeps])
    np.testing.assert_array_equal(dist.dual_coef_.compute(), alpha)
    assert dist.data_passes_ == sum(steps) / 80 < 3 * 3


def test_a_rounds_info_splits_its_cpu_by_block_and_times_its_certificate(client):
    """A round's record is every estimator's ``EpochInfo`` (the one fit loop's), with the
    round's own fields: ``block_cpu``, one entry per block (K = 3), summing to ``cpu_time``
    and to ``round_cpu_times_``; ``wall_time`` is ``round_times_``; ``check_wall``, the
    certificate's wall seconds after the round's clock, positive exactly in the rounds the
    loop's schedule checked and 0.0 in the others. With ``check_every=2`` and a target
    (tol=1e-300) the extrapolated log-gap never nears, those are the first two rounds and
    then every second one: 1, 2, 4 (``driver.loop.CheckSchedule``)."""
    X, y = gaussian_problem(n=90, d=4, seed=5)
    seen = []
    clf = DaskSVMClassifier(
        lmbd=0.05, tol=1e-300, max_rounds=5, check_every=2, n_blocks=None, finish=False,
        random_state=0, callback=seen.append,
    )  # fmt: skip
    with pytest.warns(ConvergenceWarning) as caught:
        clf.fit(*blocks(X, y, 3))
    assert [info.epoch for info in seen] == [1, 2, 3, 4, 5]
    assert [info.epoch for info in seen if info.gap is not None] == [1, 2, 4]
    for info, cpu, wall in zip(seen, clf.round_cpu_times_, clf.round_times_, strict=True):
        assert len(info.block_cpu) == 3 and all(c > 0.0 for c in info.block_cpu)
        assert info.cpu_time == sum(info.block_cpu) == cpu and info.wall_time == wall
        assert info.finish is False and 0 < info.data_passes <= info.epoch * clf.local_epochs_
        assert info.data_passes == info.n_samples_seen / 90 and info.dual_coef is None
        if info.gap is not None:
            assert info.check_wall > 0.0 and info.dual <= info.primal
            assert info.gap == info.primal - info.dual and info.bounds()[2] == info.gap
        else:
            assert info.check_wall == 0.0 and info.primal is None
    assert "tol=1e-300 after" in str(caught[0].message)
    # a pass over the rows by each check (the hinge), by the loop's check of round 5 (it
    # made none) and by the certificate of the returned pair, w(α) of that check's α
    assert clf.certificate_passes_ == 3 + 1 + 1
    # a callback that certifies every round on demand and asks what the fit would return
    # changes nothing: the same rounds, checks and bits
    asked, coef, rel_gap = [], clf.coef_.copy(), clf.rel_gap_

    def ask(info):
        asked.append((info.epoch, info.gap, info.bounds(), info.output_w().copy()))

    again = DaskSVMClassifier(**{**clf.get_params(), "callback": ask})
    with pytest.warns(ConvergenceWarning):
        again.fit(*blocks(X, y, 3))
    np.testing.assert_array_equal(again.coef_, coef)
    assert again.rel_gap_ == rel_gap and again.certificate_passes_ == 5
    assert [a[1] for a in asked] == [info.gap for info in seen]
    for _, gap, (primal, dual, on_demand), _ in asked:
        assert (on_demand == gap) if gap is not None else (0.0 < on_demand == primal - dual)
    np.testing.assert_array_equal(asked[-1][3], np.append(coef[0], again.intercept_))


def test_auto_spaces_cocoas_checks_and_checks_every_finish(client):
    """``check_every="auto"``, the default, is the single-process estimators' spacing
    (GAP_CHECK_EVERY = 8) for CoCoA+, whose every check is a compensated pass: with a target
    the extrapolated log-gap never nears (tol=1e-300) rounds 1, 2, 10 and 18 of 20 are
    checked, one certificate pass each, and the loop's check of round 20 and the returned
    pair's. With the finish, the round after one is checked whatever the schedule (its check
    judges it): here the first finish, due at round 10's check, is round 11, and is checked.
    ``method="newton"`` resolves it to 1 (its check reads a free estimate first); a number
    is taken as is."""
    from sdca_pegasos.solvers.driver.loop import GAP_CHECK_EVERY

    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 2)
    params = {"lmbd": 0.05, "tol": 1e-300, "random_state": 2, "max_rounds": 20}
    plain, seen = [], []
    with pytest.warns(ConvergenceWarning):
        clf = DaskSVMClassifier(**params, finish=False, callback=plain.append).fit(Xd, yd)
    assert clf.get_params()["check_every"] == "auto" and clf.check_every_ == GAP_CHECK_EVERY == 8
    assert [i.epoch for i in plain if i.gap is not None] == [1, 2, 10, 18]
    assert clf.certificate_passes_ == 4 + 1 + 1
    with pytest.warns(ConvergenceWarning):
        done = DaskSVMClassifier(**params, callback=seen.append).fit(Xd, yd)
    finishes = [i.epoch for i in seen if i.finish]
    checked = [i.epoch for i in seen if i.gap is not None]
    assert finishes[0] == 11 and done.n_finishes_ == len(finishes)
    assert checked[:4] == [1, 2, 10, 11] and set(finishes) <= set(checked)
    assert len(checked) < 20  # not every round
    newton = DaskSVMClassifier(lmbd=0.05, loss="smooth_hinge", method="newton", tol=1e-8)
    assert newton.fit(Xd, yd).check_every_ == 1
    assert DaskSVMClassifier(**params, check_every=3, finish=False)._check_every() == 3


def test_one_block_with_shrinking_is_sdca_with_shrinking_bit_for_bit(client):
    """K = 1, one pass a round: the active set carried from round to round makes the fit
    SDCAClassifier(shrinking=True)'s epochs on the same stream, bit for bit (α), with as
    many coordinate steps."""
    X, y = gaussian_problem(n=200, d=6, seed=4)
    dist = DaskSVMClassifier(
        lmbd=0.01, tol=0.0, max_rounds=12, random_state=7, local_epochs=1, finish=False
    ).fit(*blocks(X, y, 1))
    stream = np.random.default_rng(7).spawn(1)[0]
    ref = SDCAClassifier(
        lmbd=0.01, tol=0, max_epochs=12, random_state=stream, shrinking=True, finish=False
    ).fit(X, y)
    np.testing.assert_array_equal(dist.dual_coef_.compute(), ref.dual_coef_)
    assert dist.data_passes_ < 12  # rows left the active set


def test_a_block_of_chunks_is_sdca_on_chunkwise_permutations_bit_for_bit(client):
    """n_blocks = 1 over 3 row chunks: a round is one SDCA epoch over all rows, visiting the
    chunks in an order drawn from the block's stream and each chunk's rows in a permutation
    of its own child stream; the kernel's passes over those rows of the whole X, one call
    per chunk, give the same v and α bit for bit."""
    from sdca_pegasos.solvers.sdca.kernels import kernel_inputs, sdca_epoch

    X, y = gaussian_problem(n=90, d=5, seed=11)
    Xd, yd = blocks(X, y, 3)
    dist = DaskSVMClassifier(
        lmbd=0.01, tol=0.0, max_rounds=4, random_state=5, n_blocks=1, shrinking=False
    )
    seen = []
    dist.set_params(callback=lambda info: seen.append(info.w.copy())).fit(Xd, yd)
    block = np.random.default_rng(5).spawn(1)[0]
    chunks = block.spawn(3)
    rows, sweep, params = kernel_inputs(X, y, 0.01)
    rows = rows._replace(sq_norms=rows.sq_norms + 1.0, bias=1.0)
    steps = 0
    for w_round in seen:
        order = block.permutation(3)
        for c in order:  # one kernel call per chunk, as its task makes it
            indices = 30 * c + chunks[c].permutation(30)
            steps += sdca_epoch(rows, sweep, params, indices, steps, 30, -np.inf)
        np.testing.assert_array_equal(w_round, sweep.w)
    np.testing.assert_array_equal(dist.dual_coef_.compute(), sweep.dual_coef)
    assert dist.n_blocks_ == 1 and dist.bytes_per_round_ == (3 + 1) * 6 * 8


@pytest.mark.parametrize("sparse,local_epochs", [(False, 1), (True, 2)])
def test_blocks_of_several_chunks_certify_the_exact_optimum(client, sparse, local_epochs):
    X, y = gaussian_problem(n=120, d=5, seed=12)
    Xd, yd = blocks(X, y, 6)
    if sparse:
        Xd = Xd.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 5)))
    exact = ExactSVMClassifier(lmbd=0.5, loss="smooth_hinge").fit(X, y)
    params = {"lmbd": 0.5, "loss": "smooth_hinge", "tol": 1e-11, "random_state": 0}
    params["finish"] = False  # the rounds are the chained blocks' passes alone
    clf = DaskSVMClassifier(**params, n_blocks=2, local_epochs=local_epochs).fit(Xd, yd)
    assert clf.certified_ and clf.n_blocks_ == 2 and clf.rel_gap_ <= 1e-11
    assert clf.dual_ <= exact.primal_ <= clf.primal_
    assert abs(clf.primal_ - exact.primal_) <= 1e-10 * exact.primal_
    # each chunk's active set carried from its last visit: shrunk passes after the first
    assert 1 <= clf.data_passes_ < clf.n_rounds_ * local_epochs
    assert clf.bytes_per_round_ == (6 + 2) * 6 * 8
    again = DaskSVMClassifier(**params, n_blocks=2, local_epochs=local_epochs).fit(Xd, yd)
    np.testing.assert_array_equal(again.coef_, clf.coef_)  # same seed, same bits
    with pytest.raises(ValueError, match="at least as many row chunks, and X has 6"):
        DaskSVMClassifier(n_blocks=7).fit(Xd, yd)


def numpy_cocoa_plus(X, y, lmbd, kappa, bias, chunks, streams, rounds):
    """CoCoA+ with adding (σ' = K) written plainly: each round, each block's SDCA pass over
    its rows (a permutation from its stream) on the local subproblem from v = w, then
    w += Σ_k (v_k - w)/K. Returns w after each round."""
    n, k_blocks = X.shape[0], len(chunks)
    Xt = np.hstack([X, np.full((n, 1), bias)])
    a, w, out = np.zeros(n), np.zeros(X.shape[1] + 1), []
    for _ in range(rounds):
        vs = []
        for rows, stream in zip(chunks, streams, strict=True):
            v = w.copy()
            for i in rows[stream.permutation(rows.shape[0])]:
                g = y[i] * Xt[i] @ v - 1.0 + kappa * a[i]
                h = k_blocks * Xt[i] @ Xt[i] / (lmbd * n) + kappa
                step = np.clip(a[i] - g / h, 0.0, 1.0) - a[i]
                a[i] += step
                v += k_blocks * step * y[i] * Xt[i] / (lmbd * n)
            vs.append(v)
        w = w + sum(v - w for v in vs) / k_blocks
        out.append(w)
    return out


def test_rounds_are_numpy_cocoa_plus(client):
    """K = 2 blocks (X's even rows and its odd rows: "auto" deals them), the intercept a
    feature of every row: each round's w is that of CoCoA+ written in NumPy on the same
    permutations (what benchmarks/cocoa_blocks.py measures
    is the algorithm's, not the plumbing's)."""
    X, y = gaussian_problem(n=60, d=4, seed=15)
    seen = []
    DaskSVMClassifier(
        lmbd=0.02, loss="smooth_hinge", tol=0.0, max_rounds=6, random_state=3, local_epochs=1,
        shrinking=False,
        callback=lambda info: seen.append(info.w.copy()),
    ).fit(*blocks(X, y, 2))  # fmt: skip
    streams = np.random.default_rng(3).spawn(2)
    chunks = [np.arange(0, 60, 2), np.arange(1, 60, 2)]  # X's rows dealt to the 2 blocks
    ref = numpy_cocoa_plus(X, y, 0.02, 1.0, 1.0, chunks, streams, 6)
    np.testing.assert_allclose(np.array(seen), np.array(ref), rtol=1e-11, atol=1e-13)


def test_rows_are_one_spillable_key_per_chunk():
    """dask spills by ``sizeof``: a chunk's rows weigh what they hold, and a chunk's state
    holds no rows (they would be counted, spilled and read back twice)."""
    from dask.sizeof import sizeof

    from sdca_pegasos.solvers.cluster import blocks as _cocoa
    from sdca_pegasos.solvers.core.losses import make_loss

    X, y = gaussian_problem(n=500, d=40, seed=13)
    for rows in (X, sp.csr_matrix(X)):
        data = _cocoa.block_data(rows, y)
        nbytes = X.nbytes if rows is X else rows.data.nbytes + rows.indices.nbytes
        assert sizeof(data) >= nbytes
        state = _cocoa.init_block(
            data, 0, 1.0, None, True, 1.0, make_loss("hinge"), 0.1, 50.0,
            np.random.default_rng(0),
        )  # fmt: skip
        assert 500 * 8 * 3 <= sizeof(state) < nbytes / 4
        assert not any(a is X or a is data.X for a in vars(state).values())


def test_rows_beyond_the_workers_memory_are_spilled_and_change_nothing(client):
    """Workers whose in-memory store holds about one chunk (memory target 256 kB of a 1 GB
    limit) and hold four times that in rows: dask writes the rows to disk and reads each
    chunk back for the task that needs it; the fit certifies the same pair, bit for bit."""
    X, y = gaussian_problem(n=2400, d=100, seed=14)  # 12 chunks of 160 kB
    Xd, yd = blocks(X, y, 12)
    params = {"lmbd": 1.0, "tol": 1e-8, "random_state": 2, "n_blocks": 2}
    ref = DaskSVMClassifier(**params).fit(Xd, yd)
    ref_dual = ref.dual_coef_.compute()  # on `client`: the cluster below is the default next
    memory = {  # the in-memory store's size; no thresholds on the process's memory
        "distributed.worker.memory.target": 2.56e-4,
        "distributed.worker.memory.spill": False,
        "distributed.worker.memory.pause": False,
        "distributed.worker.memory.terminate": False,
    }
    with (
        dask.config.set(memory),  # the nannies hand it to their workers
        local_client(memory_limit="1GB") as small,
    ):
        spilled = []

        def count_spilled(info):
            on_disk = small.run(
                lambda dask_worker: sum("block_data" in str(k) for k in dask_worker.data.slow)
            )
            spilled.append(sum(on_disk.values()))

        clf = DaskSVMClassifier(**params, callback=count_spilled).fit(Xd, yd)
        assert clf.certified_ and clf.n_rounds_ == ref.n_rounds_
        np.testing.assert_array_equal(clf.coef_, ref.coef_)
        np.testing.assert_array_equal(clf.dual_coef_.compute(), ref_dual)
    assert min(spilled) >= 8, spilled  # of 12 chunks, at most about 2 in memory per worker


@pytest.mark.parametrize(
    "loss,gamma,k,sparse",
    [("hinge", 1.0, 3, False), ("smooth_hinge", 0.5, 2, True), ("squared_hinge", 1.0, 2, False)],
)
def test_certified_optimum_is_the_exact_engines(client, loss, gamma, k, sparse):
    X, y = gaussian_problem(n=120, d=5, seed=1)
    Xd, yd = blocks(X, y, k)
    if sparse:
        Xd = Xd.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 5)))
    lmbd = 0.5
    exact = ExactSVMClassifier(lmbd=lmbd, loss=loss, gamma=gamma).fit(X, y)
    clf = DaskSVMClassifier(lmbd=lmbd, loss=loss, gamma=gamma, tol=1e-11, random_state=0)
    clf.set_params(n_blocks=None).fit(Xd, yd)  # a block per chunk: K = k
    assert clf.certified_ and clf.n_blocks_ == k and clf.rel_gap_ <= 1e-11
    assert clf.dual_ <= exact.primal_ <= clf.primal_  # the certificate bounds P*
    assert abs(clf.primal_ - exact.primal_) <= 1e-10 * exact.primal_
    np.testing.assert_allclose(clf.coef_, exact.coef_, atol=1e-5)
    assert clf.bytes_per_round_ == 2 * k * 6 * 8 == (k + k) * 6 * 8


@pytest.mark.parametrize("loss,gamma", [("smooth_hinge", 0.5), ("squared_hinge", 1.0)])
def test_the_dual_point_the_optimum_implies_certifies_it(loss, gamma):
    """α̃(w*) of the exact engine's optimum w* (weights and intercept included) is feasible
    and certifies w* to the engine's own precision: D(α̃(w*)) = P*. Off the optimum it is
    still a lower bound of P*. For the hinge it is feasible but far from optimal."""
    X, y = gaussian_problem(n=80, d=4, seed=4)
    c = np.random.default_rng(1).uniform(0.2, 2.0, 80)
    exact = ExactSVMClassifier(lmbd=0.1, loss=loss, gamma=gamma).fit(X, y, c)
    w = np.append(exact.coef_.ravel(), exact.intercept_[0])  # bias multiplier 1
    lf = exact.loss_function
    a = objectives.implied_dual(X, y, w, lf, 1.0, c)
    assert np.all(a * y >= 0.0) and np.all(a * y <= c * lf.upper)
    cert = objectives.certificate(X, y, w, a, 0.1, lf, 1.0, c)
    assert cert["dual"] <= exact.primal_ <= cert["primal"] and cert["rel_gap"] <= 1e-10
    off = objectives.implied_dual(X, y, 0.5 * w, lf, 1.0, c)
    assert objectives.certificate(X, y, w, off, 0.1, lf, 1.0, c)["dual"] < exact.primal_
    hinge = ExactSVMClassifier(lmbd=0.1).fit(X, y, c)
    wh = np.append(hinge.coef_.ravel(), hinge.intercept_[0])
    ah = objectives.implied_dual(X, y, wh, "hinge", 1.0, c)
    assert set(np.unique(np.abs(ah))) <= set(np.unique(c)) | {0.0}  # c_i U or 0


def test_the_dual_point_the_primal_implies_certifies_in_fewer_rounds(client, monkeypatch):
    """CoCoA+'s primal runs ahead of its dual (docs/distributed.md): with an intercept over
    4 blocks, max(D(α), D(α̃(w'))) certifies 1e-8 in 51 rounds, D(α) alone (the estimator
    with ``_IMPLIED_DUAL`` off, planted) in 59; both bound P*; each counts its passes."""
    X, y = gaussian_problem(n=400, d=6, seed=3)
    Xd, yd = blocks(X, y, 4)
    params = {"lmbd": 0.1, "loss": "smooth_hinge", "tol": 1e-8, "random_state": 0}
    # the rounds below are CoCoA+'s with one plain pass a round, each checked
    params.update(local_epochs=1, shrinking=False, finish=False, n_blocks=None, check_every=1)
    exact = ExactSVMClassifier(lmbd=0.1, loss="smooth_hinge").fit(X, y)
    both = DaskSVMClassifier(**params, max_rounds=200).fit(Xd, yd)
    monkeypatch.setattr(DaskSVMClassifier, "_IMPLIED_DUAL", False)
    alpha = DaskSVMClassifier(**params, max_rounds=200).fit(Xd, yd)
    for clf in (both, alpha):
        assert clf.certified_ and clf.dual_ <= exact.primal_ <= clf.primal_
    assert (both.n_rounds_, alpha.n_rounds_) == (51, 59)
    # a check every round and one more of the returned w(α): D(α), then (with the implied
    # point) the bias step, the margins of w' and D(α̃(w')): 4 passes a check against 1
    assert both.certificate_passes_ == 4 * (both.n_rounds_ + 1)
    assert alpha.certificate_passes_ == alpha.n_rounds_ + 1


def test_the_bias_step_certifies_passes_chunk_by_chunk_sooner(client, monkeypatch):
    """With an intercept, a pass chunk by chunk leaves the bias weight dragged toward the
    last chunk's own (docs/distributed.md): one Newton step of P along the bias weight
    gives the certificate a primal point w' whose implied dual certifies 1e-6 in 9 rounds
    where 19 are needed without the step (planted: ``_BIAS_STEP`` off). The returned
    coefficients are that w', their P is the certified ``primal_``, and P* lies between."""
    rng = np.random.default_rng(1)
    X = rng.standard_normal((8000, 20)) / np.sqrt(20)  # tools/cd_orders.py's problem
    y = np.where(X @ rng.standard_normal(20) + 0.3 * rng.standard_normal(8000) > 0, 1.0, -1.0)
    Xd, yd = blocks(X, y, 8)
    lmbd = 130 / 8000
    params = {"lmbd": lmbd, "loss": "smooth_hinge", "n_blocks": 1, "tol": 1e-6}
    params.update(shrinking=False, finish=False)  # the rounds below: plain passes alone,
    params.update(check_every=1)  # each checked
    exact = ExactSVMClassifier(lmbd=lmbd, loss="smooth_hinge").fit(X, y)
    step = DaskSVMClassifier(**params, max_rounds=40, random_state=0).fit(Xd, yd)
    monkeypatch.setattr(DaskSVMClassifier, "_BIAS_STEP", False)
    plain = DaskSVMClassifier(**params, max_rounds=40, random_state=0).fit(Xd, yd)
    assert (step.n_rounds_, plain.n_rounds_) == (9, 19)
    for clf in (step, plain):
        assert clf.certified_ and clf.dual_ <= exact.primal_ <= clf.primal_
        w = np.append(clf.coef_.ravel(), clf.intercept_[0])
        p = objectives.primal(X, y, w, lmbd, clf.loss_function, 1.0)
        assert exact.primal_ <= p <= clf.primal_ * (1 + 1e-12)  # the returned point's P
    assert step.certificate_passes_ == 4 * (9 + 1) and plain.certificate_passes_ == 3 * (19 + 1)


def test_weights_and_no_bias_agree_with_the_exact_engine(client):
    X, y = gaussian_problem(n=90, d=4, seed=2)
    c = np.random.default_rng(0).uniform(0.2, 2.0, 90)
    Xd, yd, cd = blocks(X, y, 2, c)
    params = {"lmbd": 0.5, "bias_multiplier": 0.0, "class_weight": {-1.0: 2.0, 1.0: 0.5}}
    exact = ExactSVMClassifier(**params).fit(X, y, c)
    clf = DaskSVMClassifier(**params, tol=1e-11, random_state=1).fit(Xd, yd, cd)
    assert clf.certified_
    assert abs(clf.primal_ - exact.primal_) <= 1e-10 * exact.primal_
    assert clf.intercept_[0] == 0.0


def test_one_vs_rest_and_balanced_weights(client):
    rng = np.random.default_rng(4)
    X = rng.standard_normal((60, 3))
    y = np.argmax(X @ rng.standard_normal((3, 3)), axis=1)
    Xd, yd = blocks(X, y, 2)
    exact = ExactSVMClassifier(lmbd=1.0, class_weight="balanced").fit(X, y)
    clf = DaskSVMClassifier(lmbd=1.0, class_weight="balanced", tol=1e-11, random_state=2)
    clf.fit(Xd, yd)
    assert np.all(clf.certified_) and clf.coef_.shape == (3, 3)
    np.testing.assert_allclose(clf.primal_, exact.primal_, rtol=1e-10)
    np.testing.assert_array_equal(clf.predict(Xd).compute(), exact.predict(X))


def test_warm_start_continues_from_the_last_dual_point(client):
    X, y = gaussian_problem(n=100, d=5, seed=5)
    Xd, yd = blocks(X, y, 2)
    cold = DaskSVMClassifier(lmbd=0.5, tol=1e-9, random_state=0).fit(Xd, yd)
    warm = DaskSVMClassifier(lmbd=0.5, tol=1e-9, random_state=0, warm_start=True)
    warm.fit(Xd, yd)
    rounds = warm.n_rounds_
    warm.fit(Xd, yd)  # starts at a certified point: one round certifies again
    assert warm.certified_ and warm.n_rounds_ < rounds == cold.n_rounds_


def test_max_rounds_warns_with_the_gap_reached(client):
    """The warning (the one fit loop's) gives the gap of the last round's check; with an
    intercept and several blocks it also says why CoCoA+ is slow there
    (docs/distributed.md), and not without one or with one block."""
    X, y = gaussian_problem(n=60, d=4, seed=6)
    seen = []
    with pytest.warns(ConvergenceWarning, match="did not converge: relative duality") as caught:
        clf = DaskSVMClassifier(lmbd=1e-3, tol=1e-12, max_rounds=2, callback=seen.append)
        clf.fit(*blocks(X, y, 2))
    assert not clf.certified_ and clf.rel_gap_ > 1e-12 and clf.n_rounds_ == 2
    rel = seen[-1].gap / abs(seen[-1].primal)  # tol bounds the relative gap: so does the text
    said = f"relative duality gap {rel:.3g} > tol=1e-12 after max_rounds=2"
    assert said in str(caught[0].message)
    assert "docs/distributed.md" in str(caught[0].message)
    for params, k in (({"bias_multiplier": 0.0}, 2), ({}, 1)):
        with pytest.warns(ConvergenceWarning) as caught:
            DaskSVMClassifier(lmbd=1e-3, tol=1e-12, max_rounds=2, **params).fit(*blocks(X, y, k))
        assert "docs/distributed.md" not in str(caught[0].message)


@pytest.mark.parametrize("n_blocks", [None, 2, "auto"])
def test_block_k_is_built_on_the_kth_worker(client, n_blocks):
    """Block k's chunks on worker k mod W, whichever layout: left to dask, every chunk of a
    from_array X was built on one worker, and the blocks' first passes ran one by one."""
    X, y = gaussian_problem(n=80, d=3, seed=1)
    Xd, yd = blocks(X, y, 4)
    groups = _cocoa_layout.chunk_groups(client, 4, n_blocks)
    assert len(groups) == (4 if n_blocks is None else 2)
    futures = _cocoa_layout.persist_blocks(client, Xd, yd, None, groups)
    distributed.wait(futures)
    where = client.who_has(futures)
    workers = sorted(_cocoa_layout.workers(client))
    assert len(workers) == 2
    for k, group in enumerate(groups):
        for c in group:
            assert where[futures[c].key] == (workers[k % 2],)


def test_placement_asks_the_scheduler_not_the_clients_cache(client, monkeypatch, tmp_path):
    """``Client.scheduler_info()`` returns the client's cached identity, which a periodic
    callback rewrites every few seconds without its workers (``n_workers=0``): CI once read
    it between the refresh and the return, placed no block and failed on a None chunk.
    Planted as the cache that callback leaves, an "auto" fit (chunks dealt and merged) is
    the same bit for bit, and blocks and shards are still placed on every worker."""
    from sdca_pegasos.solvers.cluster.shards import _read_placed

    X, y = gaussian_problem(n=90, d=4, seed=12)
    Xd, yd = blocks(X, y, 6)
    Xd = Xd.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 4)))

    def fit():
        clf = DaskSVMClassifier(lmbd=0.05, loss="smooth_hinge", tol=1e-8, random_state=3)
        return clf.fit(Xd, yd)

    before = fit()

    def stale(*args, **kwargs):
        client.sync(client._update_scheduler_info)  # the periodic callback's refresh
        return client._scheduler_identity

    monkeypatch.setattr(client, "scheduler_info", stale)
    assert stale()["workers"] == {}  # the planted cache names no worker
    after = fit()
    assert after.n_iter_ == before.n_iter_
    np.testing.assert_array_equal(after.coef_, before.coef_)
    np.testing.assert_array_equal(after.intercept_, before.intercept_)
    names = sorted(_cocoa_layout.workers(client))
    assert len(names) == 2
    groups = _cocoa_layout.chunk_groups(client, 4, None)
    futures = _cocoa_layout.persist_blocks(client, *blocks(X, y, 4), None, groups)
    distributed.wait(futures)
    where = client.who_has(futures)
    assert [where[f.key] for f in futures] == [(names[k % 2],) for k in range(4)]
    paths = []
    for k in range(3):
        paths.append(tmp_path / f"shard-{k}.svm")
        paths[-1].write_text("1 1:0.5\n-1 2:1.5\n")
    read = _read_placed(client, [str(p) for p in paths], 2)
    distributed.wait(read)
    where = client.who_has(read)
    assert [where[f.key] for f in read] == [(names[k % 2],) for k in range(3)]
    monkeypatch.setattr(_cocoa_layout, "workers", lambda c: {})  # a cluster of none
    with pytest.raises(RuntimeError, match="the dask cluster has no workers: start some"):
        _cocoa_layout.persist_blocks(client, *blocks(X, y, 4), None, groups)


def test_auto_local_epochs_are_the_work_of_a_round_over_the_largest_blocks_pass(client):
    """``local_epochs="auto"``: ⌈AUTO_ROUND_WORK / the largest block's work per pass⌉
    passes, between 1 and 64, the work of a pass its stored entries and two per row; a
    block of several chunks makes one pass a round."""
    from sdca_pegasos.solvers.cluster import blocks as _cocoa
    from sdca_pegasos.solvers.cluster.layout import (
        AUTO_MAX_EPOCHS,
        AUTO_ROUND_WORK,
        auto_local_epochs,
    )

    assert AUTO_ROUND_WORK == 2**23 and AUTO_MAX_EPOCHS == 64
    assert auto_local_epochs([2**17]) == 64 and auto_local_epochs([2**18, 5]) == 32
    assert auto_local_epochs([3 * 2**17, 2**17]) == 22  # ⌈64 / 3⌉, the largest block
    assert auto_local_epochs([2**23 + 1]) == 1 and auto_local_epochs([2**30]) == 1
    assert auto_local_epochs([2**16]) == 64  # 128, capped
    assert auto_local_epochs([1000]) == 64 and auto_local_epochs([0]) == 64
    dense = _cocoa.block_data(np.ones((10, 3)), np.ones(10))
    assert _cocoa.block_work(dense) == 10 * 3 + 2 * 10
    csr = sp.csr_matrix(np.array([[1.0, 0, 2], [0, 0, 0], [0, 3, 0], [4, 5, 6]]))
    assert _cocoa.block_work(_cocoa.block_data(csr, np.ones(4))) == 6 + 2 * 4
    X, y = gaussian_problem(n=120, d=5, seed=2)
    Xd, yd = blocks(X, y, 4)
    params = {"lmbd": 0.5, "tol": 1e-6, "random_state": 0, "shrinking": False, "finish": False}
    auto = DaskSVMClassifier(**params).fit(Xd, yd)
    assert auto.local_epochs_ == 64 and auto.data_passes_ == 64 * auto.n_rounds_
    chained = DaskSVMClassifier(**params, n_blocks=2).fit(Xd, yd)
    assert chained.local_epochs_ == 1 and chained.data_passes_ == chained.n_rounds_
    fixed = DaskSVMClassifier(**params, local_epochs=3).fit(Xd, yd)
    assert fixed.local_epochs_ == 3 and fixed.data_passes_ == 3 * fixed.n_rounds_
    exact = ExactSVMClassifier(lmbd=0.5).fit(X, y)
    for clf in (auto, chained, fixed):
        assert clf.certified_ and clf.dual_ <= exact.primal_ <= clf.primal_


def test_checkpoints_change_no_bit(client, tmp_path):
    """A fit that checkpoints every 2 rounds restarts each block's chain from its file
    (α, steps, stream and the shrinking state carried between rounds): the same rounds,
    α and coefficients bit for bit as the same fit without checkpoints."""
    X, y = gaussian_problem(n=150, d=5, seed=9)
    params = {"lmbd": 0.05, "tol": 1e-10, "random_state": 3, "n_blocks": None, "local_epochs": 2}
    params["check_every"] = 1  # every round checked: certified at round 6
    ref = DaskSVMClassifier(**params).fit(*blocks(X, y, 3))
    ck = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path), checkpoint_every=2)
    ck.fit(*blocks(X, y, 3))
    assert ref.n_rounds_ == ck.n_rounds_ > 4 and ref.data_passes_ == ck.data_passes_
    np.testing.assert_array_equal(ck.coef_, ref.coef_)
    np.testing.assert_array_equal(ck.dual_coef_.compute(), ref.dual_coef_.compute())
    # every 4 rounds: the fit certified at its 6th writes a checkpoint of its last state
    late = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path / "4"), checkpoint_every=4)
    late.fit(*blocks(X, y, 3))
    assert ref.n_rounds_ == 6 and late.n_rounds_ == 6 and late.certified_
    manifest = json.loads((tmp_path / "4" / "manifest.json").read_text())
    assert manifest["rounds"] == {"0": 6}
    np.testing.assert_array_equal(late.coef_, ref.coef_)


def test_dealt_rows_take_chunks_shorter_than_the_blocks(client):
    """Chunks of 1, 1 and 7 rows dealt to 2 blocks (the first chunk has no row for block
    1), dense and CSR, with sample weights: the exact engine's optimum, α in X's order."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((9, 3))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    c = np.linspace(0.5, 2.0, 9)
    ref = ExactSVMClassifier(lmbd=0.1, tol=1e-12).fit(X, y, sample_weight=c)
    cut = (1, 1, 7)
    for sparse in (False, True):
        Xd = da.from_array(X, chunks=(cut, 3))
        if sparse:
            Xd = Xd.map_blocks(sp.csr_matrix, meta=sp.csr_matrix((0, 3)))
        yd, cd = da.from_array(y, chunks=(cut,)), da.from_array(c, chunks=(cut,))
        clf = DaskSVMClassifier(lmbd=0.1, tol=1e-10).fit(Xd, yd, sample_weight=cd)
        assert clf.n_blocks_ == 2 and clf.certified_
        assert abs(clf.primal_ - ref.primal_) <= 1e-10 * ref.primal_
        alpha = clf.dual_coef_.compute()
        assert alpha.shape == (9,) and clf.dual_coef_.chunks == (cut,)
        w = (alpha @ np.hstack([X, np.ones((9, 1))])) / (0.1 * 9)  # w(α), X's row order
        np.testing.assert_allclose(w[:-1], clf.coef_[0], rtol=0, atol=1e-9)


def test_a_killed_worker_changes_nothing(own_client, tmp_path):
    """A worker killed mid-fit (its nanny restarts it): its blocks restart from their last
    checkpoint and replay the rounds since, so the fit ends at the same pair, certified."""
    assert distributed.get_client() is own_client  # the cluster the fits run on
    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 3)
    params = {"lmbd": 0.5, "tol": 1e-10, "random_state": 3, "checkpoint_every": 2}
    ref = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path / "a")).fit(Xd, yd)
    killed = []

    def kill_at_round_5(info):
        if info.epoch == 5:
            killed.append(next(iter(_cocoa_layout.workers(own_client))))
            # the connection to the killed worker closes mid-call
            with contextlib.suppress(Exception):
                own_client.run(os._exit, 1, workers=killed)

    clf = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path / "b"), callback=kill_at_round_5)
    clf.fit(Xd, yd)
    left = _cocoa_layout.workers(own_client)
    assert killed and left and killed[0] not in left  # it did die, and the scheduler answered
    assert clf.certified_ and ref.certified_ and clf.n_rounds_ == ref.n_rounds_ > 5
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    np.testing.assert_array_equal(clf.dual_coef_.compute(), ref.dual_coef_.compute())


@pytest.mark.parametrize("n_blocks", [None, 1])
def test_a_worker_killed_during_a_round_changes_nothing(own_client, tmp_path, n_blocks):
    """A worker process that dies as it starts a block's local pass (its 6th; a worker
    plugin exits it, once): the round in flight loses that block's state and dask recomputes
    it from the chain, from the last checkpoint; the fit ends at the same pair, certified.
    With ``n_blocks=1`` the one block's three chunks sit on one worker, which dies with its
    rows and v halfway through the block's chain of chunks."""
    from distributed.diagnostics.plugin import WorkerPlugin

    assert distributed.get_client() is own_client  # the cluster the fits run on
    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 3)
    params = {"lmbd": 0.5, "tol": 1e-10, "random_state": 3, "checkpoint_every": 2}
    params["n_blocks"] = n_blocks
    ref = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path / "a")).fit(Xd, yd)
    flag = str(tmp_path / "killed")

    class ExitOnce(WorkerPlugin):
        def __init__(self):
            self.started = 0

        def transition(self, key, start, finish, **kwargs):
            if finish == "executing" and str(key).startswith("local_round"):
                self.started += 1
                if self.started == 6 and not os.path.exists(flag):
                    open(flag, "w").close()  # the restarted worker gets the plugin again
                    os._exit(1)

    own_client.register_plugin(ExitOnce(), name="exit-once")
    try:
        clf = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path / "b")).fit(Xd, yd)
    finally:
        own_client.unregister_worker_plugin("exit-once")
    assert os.path.exists(flag), "no worker died during the fit"
    assert clf.certified_ and ref.certified_ and clf.n_rounds_ == ref.n_rounds_
    np.testing.assert_array_equal(clf.coef_, ref.coef_)
    np.testing.assert_array_equal(clf.dual_coef_.compute(), ref.dual_coef_.compute())


def test_ctrl_c_leaves_a_checkpoint_to_resume_from(client, tmp_path):
    X, y = gaussian_problem(n=100, d=5, seed=9)
    Xd, yd = blocks(X, y, 2)
    folder = str(tmp_path)
    params = {"lmbd": 0.5, "tol": 1e-10, "random_state": 4, "checkpoint_dir": folder}
    params["local_epochs"] = 1  # rounds of one pass: round 1's gap is far from round 6's

    def interrupt(info):
        if info.epoch == 7:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt) as caught:
        DaskSVMClassifier(**params, checkpoint_every=3, callback=interrupt).fit(Xd, yd)
    note = " ".join(getattr(caught.value, "__notes__", []))
    assert "round 6" in note and "warm_start=True" in note and folder in note
    first = []

    def first_gap(info):
        if info.gap is not None:  # the checked rounds (the first two always)
            first.append(info.gap / abs(info.primal))

    resumed = DaskSVMClassifier(**params, warm_start=True, callback=first_gap).fit(Xd, yd)
    exact = ExactSVMClassifier(lmbd=0.5).fit(X, y)
    assert resumed.certified_ and resumed.dual_ <= exact.primal_ <= resumed.primal_
    assert abs(resumed.primal_ - exact.primal_) <= 1e-10 * exact.primal_
    with pytest.warns(ConvergenceWarning):  # a cold start's first round, for comparison
        cold = DaskSVMClassifier(
            lmbd=0.5, tol=1e-10, max_rounds=1, random_state=4, local_epochs=1
        ).fit(Xd, yd)
    assert first[0] < 1e-2 * cold.rel_gap_  # the resumed fit went on from round 6


def test_a_fit_without_a_client_says_how_to_start_one(monkeypatch):
    """No dask.distributed client: the error names the fix (a Client, local or remote),
    not dask's own "No clients found"."""

    def none():
        raise ValueError("No clients found")

    monkeypatch.setattr(distributed, "get_client", none)
    X, y = gaussian_problem(n=20, d=3)
    Xd, yd = blocks(X, y, 2)
    with pytest.raises(ValueError, match=r"there is none: start one first, e\.g\. `client ="):
        DaskSVMClassifier().fit(Xd, yd)


# ------------------------------------------------------------------ shards
def test_split_then_read_svmlight_shards_gives_the_data_back(client, tmp_path):
    from sklearn.datasets import dump_svmlight_file, load_svmlight_file

    from sdca_pegasos.solvers.cluster.shards import _read_placed, read_shards, split_svmlight

    X, y = gaussian_problem(n=50, d=6, seed=10)
    X[:, 5] = 0.0  # the last feature is absent from every line: n_features says the width
    dump_svmlight_file(X, y, str(tmp_path / "all.svm"))
    X = load_svmlight_file(str(tmp_path / "all.svm"), n_features=6)[0].toarray()  # as read
    paths = split_svmlight(tmp_path / "all.svm", tmp_path / "shards", rows_per_shard=20)
    assert [os.path.basename(p) for p in paths] == [f"shard-0000{i}.svm" for i in range(3)]
    Xd, yd = read_shards(tmp_path / "shards", client, n_features=6)
    assert Xd.chunks == ((20, 20, 10), (6,))
    # shard k read on worker k mod W, where the fit puts block k (test_block_k_is_built_
    # on_the_kth_worker): a fit of one block per shard moves no rows
    read = _read_placed(client, paths, 6)
    distributed.wait(read)
    where, workers = client.who_has(read), sorted(_cocoa_layout.workers(client))
    assert [where[f.key] for f in read] == [(workers[k % 2],) for k in range(3)]
    np.testing.assert_array_equal(Xd.compute().toarray(), X)
    np.testing.assert_array_equal(yd.compute(), y)
    clf = DaskSVMClassifier(lmbd=1.0, tol=1e-10, random_state=0).fit(Xd, yd)
    exact = ExactSVMClassifier(lmbd=1.0).fit(X, y)
    assert clf.certified_ and abs(clf.primal_ - exact.primal_) <= 1e-10 * exact.primal_


def test_npz_and_parquet_shards(client, tmp_path):
    import pandas as pd

    from sdca_pegasos.solvers.cluster.shards import read_shards

    X, y = gaussian_problem(n=30, d=3, seed=11)
    (tmp_path / "npz").mkdir()
    (tmp_path / "pq").mkdir()
    for k in range(3):
        rows = slice(10 * k, 10 * k + 10)
        np.savez(tmp_path / "npz" / f"part-{k}.npz", X=X[rows], y=y[rows])
        frame = pd.DataFrame(X[rows], columns=["a", "b", "c"]).assign(y=y[rows])
        frame.to_parquet(tmp_path / "pq" / f"part-{k}.parquet")
    for folder in ("npz", "pq"):
        Xd, yd = read_shards(tmp_path / folder, client)
        np.testing.assert_array_equal(Xd.compute(), X)
        np.testing.assert_array_equal(yd.compute(), y)


def test_bad_shards_are_named(client, tmp_path):
    from sdca_pegasos.solvers.cluster.shards import read_shards

    X, y = gaussian_problem(n=30, d=3, seed=12)
    np.savez(tmp_path / "a.npz", X=X[:10], y=y[:10])
    np.savez(tmp_path / "c.npz", X=X[20:], y=y[20:])
    np.savez(tmp_path / "b.npz", X=X[10:20, :2], y=y[10:20])
    with pytest.raises(ValueError, match=r"shard .*b\.npz has 2 features but .*a\.npz has 3"):
        read_shards(tmp_path, client)
    np.savez(tmp_path / "b.npz", X=X[10:20], y=np.where(y[10:20] > 0, 1, 0))
    with pytest.raises(ValueError, match=r"shard .*b\.npz has labels \[0\] that no other"):
        read_shards(tmp_path, client)
    with pytest.raises(ValueError, match=r"shard .*b\.npz has labels \[0\] outside classes"):
        read_shards(tmp_path, client, classes=[-1, 1])
    np.savez(tmp_path / "b.npz", X=X[10:20], y=y[10:20])
    (tmp_path / "d.svm").write_text("1 1:0.5\n")
    with pytest.raises(ValueError, match="mixes shard formats"):
        read_shards(tmp_path, client)
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match="holds no shard"):
        read_shards(tmp_path / "empty", client)


def test_split_refuses_a_folder_with_shards_and_leaves_none_when_interrupted(
    tmp_path, capsys, monkeypatch
):
    """A second split into the same folder would mix old and new shards under a reader: it is
    refused by name (exit 2 on the command line, nothing written). A split that fails midway
    (here: a line that cannot be decoded, after three shards were written) removes its shards."""
    from sdca_pegasos.solvers.cluster.shards import main, split_svmlight

    src = tmp_path / "all.svm"
    src.write_text("".join(f"{1 if i % 2 else -1} 1:{i}.5 3:2\n" for i in range(10)))
    assert len(split_svmlight(src, tmp_path / "s", rows_per_shard=4)) == 3
    with pytest.raises(SystemExit) as exc:
        main([str(src), str(tmp_path / "s"), "--rows", "4"])
    assert exc.value.code == 2
    assert "already holds 3 shard(s)" in capsys.readouterr().err
    assert sorted(p.name for p in (tmp_path / "s").iterdir()) == [
        f"shard-0000{k}.svm" for k in range(3)
    ]
    with pytest.raises(SystemExit) as exc:
        main([str(tmp_path / "missing.svm"), str(tmp_path / "t"), "--rows", "0"])
    assert exc.value.code == 2 and "--rows" in capsys.readouterr().err
    bad = tmp_path / "bad.svm"  # 20,000 good lines (past the read buffer), then not UTF-8
    bad.write_bytes(src.read_bytes() * 2000 + b"1 1:\xff\n")
    written = []
    real_open = open

    def spy(path, *args, **kwargs):
        if str(path).endswith(".svm") and "u" in Path(path).parent.name:
            written.append(path)
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr("builtins.open", spy)
    with pytest.raises(UnicodeDecodeError):
        split_svmlight(bad, tmp_path / "u", rows_per_shard=4)
    assert len(written) > 100, "shards were written before the bad line"
    assert list((tmp_path / "u").iterdir()) == []


def _misaligned(a: np.ndarray) -> np.ndarray:
    """A copy of ``a`` one byte into a buffer: what a chunk received over the wire can be."""
    buf = np.zeros(a.nbytes + 1, dtype=np.uint8)
    out = np.frombuffer(buf.data, dtype=a.dtype, count=a.size, offset=1).reshape(a.shape)
    out[...] = a
    return out


def test_a_misaligned_chunk_is_made_aligned_on_its_worker_with_the_same_values():
    """A chunk that arrives as a view at an odd byte offset is copied once, aligned (NumPy
    gives misaligned arrays no BLAS: X @ w ~15× slower on dense-full's chunk), with its
    values: dense, CSR's three arrays, the labels and the weights; aligned ones are kept."""
    from sdca_pegasos.solvers.cluster import blocks as _cocoa

    X = np.random.default_rng(0).normal(size=(40, 7))
    y = np.where(X[:, 0] > 0, 1.0, -1.0)
    c = np.linspace(0.5, 2.0, 40)
    bad = _misaligned(X)
    assert not bad.flags.aligned and bad.flags.c_contiguous
    data = _cocoa.block_data(bad, _misaligned(y), _misaligned(c))
    for got, want in ((data.X, X), (data.labels, y), (data.sample_weight, c)):
        assert got.flags.aligned and np.array_equal(got, want)
    csr = sp.csr_matrix(np.where(np.abs(X) > 1.0, X, 0.0))
    parts = [_misaligned(a) for a in (csr.data, csr.indices, csr.indptr)]
    sparse = _cocoa.block_data(sp.csr_matrix(tuple(parts), shape=csr.shape), y)
    assert all(a.flags.aligned for a in (sparse.X.data, sparse.X.indices, sparse.X.indptr))
    assert np.array_equal(sparse.X.toarray(), csr.toarray())
    kept = np.ascontiguousarray(X)
    assert _cocoa.block_data(kept, y).X is kept
