"""DaskSVMClassifier's rounds aggregated by exact line search (``aggregate="line_search"``):
each block's local step with σ' = 1, the driver's step η along their summed direction,
checked against NumPy; rounds that do not grow with K the way adding's do; the exact
engine's optimum, certified."""

from __future__ import annotations

import contextlib
import os

import numpy as np
import pytest

from sdca_pegasos.solvers import ExactSVMClassifier
from sdca_pegasos.solvers.core.losses import make_loss

from .conftest import gaussian_problem, local_cluster_client

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from sdca_pegasos.solvers.cluster import blocks as _cocoa  # noqa: E402
from sdca_pegasos.solvers.cluster import layout as _cocoa_layout  # noqa: E402
from sdca_pegasos.solvers.cluster import rounds  # noqa: E402
from sdca_pegasos.solvers.cluster.estimator import DaskSVMClassifier  # noqa: E402

local_client = local_cluster_client  # worker processes, as tests/test_distributed.py's


@pytest.fixture(scope="module")
def client():
    with local_client() as c:
        yield c


def blocks(X, y, k):
    """X, y as dask arrays of k row chunks (with ``n_blocks=None``: k blocks)."""
    rows = -(-X.shape[0] // k)
    return da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=(rows,))


def numpy_dual(alpha, Xt, y, c, lmbd, loss):
    """D(α) of the weighted problem (sdca_pegasos.solvers.core.losses), written plainly."""
    n = Xt.shape[0]
    a = y * alpha
    w = Xt.T @ alpha / (lmbd * n)
    return loss.dual_terms(a, c).sum() / n - 0.5 * lmbd * w @ w


@pytest.mark.parametrize(
    "loss,gamma", [("hinge", 0.0), ("smooth_hinge", 0.5), ("squared_hinge", 0.0)]
)
def test_the_drivers_step_is_the_lines_maximum(client, monkeypatch, loss, gamma):
    """Three chunks, block 0 of two (each visited twice a round: ``local_epochs=2``) and
    block 1 of one, with sample weights and an intercept: each round's directions Δα_[k] as
    the blocks left them, and the driver's η, the new α and w are NumPy's arithmetic on
    them to 1e-12, D(α + ηΔα) the largest D on the line within the box; the line search
    cut the step short of the whole direction on some round."""
    X, y = gaussian_problem(n=90, d=4, seed=5)
    c = np.linspace(0.5, 2.0, 90)
    cuts = [(0, 25), (25, 50), (50, 90)]
    # hash=False: another test's release of the same data's key cannot take this one's
    data = [client.scatter(_cocoa.block_data(X[a:b], y[a:b], c[a:b]), hash=False) for a, b in cuts]
    lmbd, bias, n = 0.05, 1.0, 90
    fn = make_loss(loss, gamma)
    problem = rounds.ClusterProblem(n, 4, lmbd, bias, 1.0, None, True)
    engine = rounds.ClusterEngine(
        client, data, [[0, 1], [2]], [b - a for a, b in cuts], problem, loss=fn,
        local_epochs=2, shrinking=True, finish=False, finish_rows=0, tol=0.0, implied=False,
        bias_step=False, folder=None, checkpoint_every=5, max_rounds=10, index=0,
        n_problems=1, rng=np.random.default_rng(0), init=None, aggregate="line_search",
    )  # fmt: skip
    assert engine.sigma == 1.0 and engine.line
    engine.setup()

    def alphas(states):
        return np.concatenate(
            client.gather([client.submit(_cocoa.block_alpha, s) for s in states])
        )

    local = []
    passes = rounds.local_passes

    def kept(client_, states, *args):  # the states the local passes leave, before the step
        ends = passes(client_, states, *args)
        local.append(list(states))
        return ends

    monkeypatch.setattr(rounds, "local_passes", kept)
    Xt = np.hstack([X, np.full((n, 1), bias)])
    curv, box = fn.dual_curvatures(c), fn.box(c)
    cut = []
    for k in range(1, 6):
        before, w_before = alphas(engine.states), engine.w.copy()
        engine.step(k)
        eta, direction = engine.etas[-1], alphas(local[-1]) - before
        after = alphas(engine.states)
        a, delta = y * before, y * direction
        delta_w = Xt.T @ direction / (lmbd * n)
        slope = (delta - curv * a * delta).sum() / n - lmbd * w_before @ delta_w
        curvature = (curv * delta * delta).sum() / n + lmbd * delta_w @ delta_w
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = np.where(
                delta > 0, (box - a) / delta, np.where(delta < 0, -a / delta, np.inf)
            )
        eta_max = max(1.0, ratios.min())
        expected = min(max(slope / curvature, 0.0), eta_max)
        assert eta > 0.0 and abs(eta - expected) <= 1e-12 * expected
        cut.append(eta < 1.0)
        scale = np.abs(before + direction).max()
        np.testing.assert_allclose(after, before + eta * direction, rtol=0, atol=1e-12 * scale)
        np.testing.assert_allclose(
            engine.w, w_before + eta * delta_w, rtol=0, atol=1e-12 * np.abs(engine.w).max()
        )
        assert np.all(y * after >= 0.0) and np.all(y * after <= box)  # within the box
        best = numpy_dual(after, Xt, y, c, lmbd, fn)
        for t in np.linspace(0.0, min(eta_max, 4.0 * eta), 201):
            assert best >= numpy_dual(before + t * direction, Xt, y, c, lmbd, fn) - 1e-13 * abs(
                best
            )
    assert any(cut)


def test_the_steps_are_recorded_and_checkpoints_resume(client, tmp_path):
    """``step_sizes_`` holds each round's η (NaN for a finish, 1.0 when adding); a fit
    checkpointing every 2 rounds ends at the same pair, bit for bit, and one resumed from
    its round-4 checkpoint (α alone: the driver's w is w(α)) certifies the exact optimum."""
    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 3)
    params = {"lmbd": 0.05, "tol": 1e-10, "random_state": 3, "n_blocks": None}
    params["aggregate"] = "line_search"
    ref = DaskSVMClassifier(**params).fit(Xd, yd)
    assert ref.certified_ and ref.step_sizes_.shape == (ref.n_rounds_,)
    line = ref.step_sizes_[~np.isnan(ref.step_sizes_)]
    assert np.all(line > 0.0) and (line != 1.0).any()
    assert np.isnan(ref.step_sizes_).sum() == ref.n_finishes_
    ck = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path), checkpoint_every=2)
    ck.fit(Xd, yd)
    assert ck.n_rounds_ == ref.n_rounds_
    np.testing.assert_array_equal(ck.coef_, ref.coef_)
    np.testing.assert_array_equal(ck.dual_coef_.compute(), ref.dual_coef_.compute())
    added = DaskSVMClassifier(**{**params, "aggregate": "add"}).fit(Xd, yd)
    assert np.all(np.isnan(added.step_sizes_) | (added.step_sizes_ == 1.0))


def test_a_killed_worker_and_a_resume_change_nothing(tmp_path):
    """A worker killed at round 3 (its nanny restarts it): its blocks restart from their last
    checkpoint (α alone) and replay the rounds since, the same η sent to each again, so the
    fit ends at the same pair, certified. A fit interrupted at round 3 and resumed from its
    round-2 checkpoint (``warm_start``) certifies the exact optimum."""
    X, y = gaussian_problem(n=120, d=5, seed=8)
    Xd, yd = blocks(X, y, 3)
    params = {"lmbd": 0.05, "tol": 1e-10, "random_state": 3, "checkpoint_every": 2}
    params.update(n_blocks=None, aggregate="line_search")
    with local_client() as own:
        ref = DaskSVMClassifier(**params, checkpoint_dir=str(tmp_path / "a")).fit(Xd, yd)
        killed = []

        def kill_at_round_3(info):
            if info.epoch == 3:
                killed.append(next(iter(_cocoa_layout.workers(own))))
                with contextlib.suppress(Exception):  # its connection closes mid-call
                    own.run(os._exit, 1, workers=killed)

        folder = str(tmp_path / "b")
        clf = DaskSVMClassifier(**params, checkpoint_dir=folder, callback=kill_at_round_3)
        clf.fit(Xd, yd)
        assert killed and clf.certified_ and ref.certified_
        assert clf.n_rounds_ == ref.n_rounds_ > 3
        np.testing.assert_array_equal(clf.coef_, ref.coef_)
        np.testing.assert_array_equal(clf.dual_coef_.compute(), ref.dual_coef_.compute())

        def interrupt(info):
            if info.epoch == 3:
                raise KeyboardInterrupt

        folder = str(tmp_path / "c")
        with pytest.raises(KeyboardInterrupt):
            DaskSVMClassifier(**params, checkpoint_dir=folder, callback=interrupt).fit(Xd, yd)
        resumed = DaskSVMClassifier(**params, checkpoint_dir=folder, warm_start=True)
        resumed.fit(Xd, yd)
        exact = ExactSVMClassifier(lmbd=0.05).fit(X, y)
        assert resumed.certified_ and resumed.n_rounds_ < ref.n_rounds_
        assert abs(resumed.primal_ - exact.primal_) <= 1e-9 * exact.primal_


def rounds_to(k, aggregate):
    """Rounds of a small smooth-hinge problem to a certified 1e-6, K blocks of one chunk,
    one local pass a round, no finish, every round checked (the rounds the algorithm needs,
    not where a spaced check first sees them)."""
    X, y = gaussian_problem(n=200, d=5, seed=1)
    clf = DaskSVMClassifier(
        lmbd=0.5, loss="smooth_hinge", tol=1e-6, n_blocks=None, random_state=0, max_rounds=60,
        finish=False, local_epochs=1, bias_multiplier=0.0, aggregate=aggregate, check_every=1,
    ).fit(*blocks(X, y, k))  # fmt: skip
    assert clf.certified_ and clf.n_blocks_ == k
    return clf.n_rounds_


def test_rounds_do_not_grow_with_the_blocks_as_adding_does(client):
    """Four blocks take at most 1.5 times the rounds of one with the line search (adding,
    σ' = K, takes 10 rounds here against 6: the damping this removes)."""
    one = rounds_to(1, "line_search")
    assert rounds_to(4, "line_search") <= 1.5 * one
    assert rounds_to(1, "add") == one < 1.5 * one < rounds_to(4, "add")  # what it tells apart


@pytest.mark.parametrize("loss", ["hinge", "smooth_hinge"])
@pytest.mark.parametrize("k", [1, 3, 8])
def test_the_certified_optimum_is_the_exact_engines(client, loss, k):
    """With the intercept, K = 1, 3 and 8 blocks: P within 1e-10 (relative) of the exact
    engine's certified optimum, bounded by the certificate."""
    X, y = gaussian_problem(n=160, d=5, seed=2)
    lmbd = 0.1
    exact = ExactSVMClassifier(lmbd=lmbd, loss=loss, gamma=0.5).fit(X, y)
    clf = DaskSVMClassifier(
        lmbd=lmbd, loss=loss, gamma=0.5, tol=1e-11, n_blocks=None, random_state=0,
        aggregate="line_search",
    ).fit(*blocks(X, y, k))  # fmt: skip
    assert clf.certified_ and clf.n_blocks_ == k and clf.rel_gap_ <= 1e-11
    assert clf.dual_ <= exact.primal_ and exact.dual_ <= clf.primal_  # bounds of one P*
    assert abs(clf.primal_ - exact.primal_) <= 1e-10 * exact.primal_
