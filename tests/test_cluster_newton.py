"""DaskSVMClassifier(method="newton"): truncated Newton steps on the primal whose sums run on
the workers. Checked against the same steps written plainly in NumPy, step by step; the
same steps, passes and optimum whatever the blocks; the exact engine's certified optimum;
the certificate and ``dual_coef_`` recomputed on one machine; refusals by name."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from sdca_pegasos.solvers import ExactSVMClassifier
from sdca_pegasos.solvers.core import objectives
from sdca_pegasos.solvers.core.losses import make_loss

from .conftest import gaussian_problem, local_cluster_client

distributed = pytest.importorskip("distributed")
da = pytest.importorskip("dask.array")

from distributed import get_task_stream  # noqa: E402
from distributed.diagnostics.plugin import SchedulerPlugin  # noqa: E402

from sdca_pegasos.solvers.cluster import newton  # noqa: E402
from sdca_pegasos.solvers.cluster.estimator import DaskSVMClassifier  # noqa: E402
from sdca_pegasos.solvers.gpu.newton_steps import line_search  # noqa: E402


@pytest.fixture(scope="module")
def client():
    with local_cluster_client() as c:
        yield c


def blocks(X, y, k, c=None):
    """X, y (and c) as dask arrays of k row chunks (with ``n_blocks=None``: k blocks)."""
    rows = -(-X.shape[0] // k)
    out = [da.from_array(X, chunks=(rows, -1)), da.from_array(y, chunks=(rows,))]
    if c is not None:
        out.append(da.from_array(c, chunks=(rows,)))
    return out


def curvatures(loss, z):
    """φ'' with the smoothed hinge's upper kink on its curved side (the engine's choice)."""
    u = 1.0 - z
    top = loss.kappa * loss.upper
    return ((u > 0.0) & (u <= top)) / loss.kappa


def numpy_newton(X, y, c, lmbd, loss, bias, steps):
    """The engine's steps with a Hessian, written plainly: g and H from every row at once,
    s = −H⁻¹g, t the line search's (the same function and tolerance), w ← w + ts."""
    n, d = X.shape
    Xt = np.hstack([X, np.full((n, 1), bias)])
    w = np.zeros(d + 1)
    out = []
    for _ in range(steps):
        z = y * (Xt @ w)
        g = lmbd * w - Xt.T @ (c * y * loss.dual_targets(z)) / n
        H = Xt.T @ ((c * curvatures(loss, z))[:, None] * Xt) / n + lmbd * np.eye(d + 1)
        s = -np.linalg.solve(H, g)
        delta = y * (Xt @ s)

        def slope(t, z=z, delta=delta):
            u = z + t * delta
            return (
                float(np.sum(c * loss.dual_targets(u) * delta)),
                float(np.sum(c * curvatures(loss, u) * delta * delta)),
            )

        t, _ = line_search(slope, g @ s, w @ s, s @ s, lmbd, n, newton.LINE_TOL)
        w = w + t * s
        out.append(w.copy())
    return out


@pytest.mark.parametrize(
    "loss,gamma", [("smooth_hinge", 1.0), ("smooth_hinge", 0.3), ("squared_hinge", 1.0)]
)
def test_steps_are_numpy_newton(client, loss, gamma):
    """Four chunks with sample weights and an intercept: every step's w is the NumPy
    Newton step's to 1e-9 relative (the sums' order differs), and the fit is certified at
    the exact engine's optimum."""
    X, y = gaussian_problem(n=160, d=5, seed=3)
    c = np.linspace(0.2, 3.0, 160)
    lmbd = 0.02
    seen = []
    clf = DaskSVMClassifier(
        lmbd=lmbd, loss=loss, gamma=gamma, method="newton", n_blocks=None, tol=1e-12,
        callback=lambda info: seen.append(info.w.copy()),
    )  # fmt: skip
    Xd, yd, cd = blocks(X, y, 4, c)
    clf.fit(Xd, yd, sample_weight=cd)
    ref = numpy_newton(X, y, c, lmbd, make_loss(loss, gamma), 1.0, len(seen))
    assert len(seen) >= 3
    for ours, theirs in zip(seen, ref, strict=True):
        np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-12)
    assert clf.certified_ and clf.rel_gap_ <= 1e-12
    exact = ExactSVMClassifier(lmbd=lmbd, loss=loss, gamma=gamma).fit(X, y, sample_weight=c)
    assert abs(clf.primal_ - exact.primal_) <= 1e-10 * abs(exact.primal_)


@pytest.mark.parametrize("form", ["dense", "csr"])
def test_the_steps_do_not_depend_on_the_blocks(client, monkeypatch, form):
    """K = 1, 3 and 8 blocks make the same Newton steps, conjugate-gradient products,
    line-search evaluations and data passes, and the same coefficients to 1e-10; with the
    Hessian summed (dense, d + 1 ≤ GRAM_WEIGHTS) and by conjugate gradients (CSR, the bound
    planted at 0). Damping the blocks' sums by K (CoCoA+'s σ' = K) would change them."""
    rng = np.random.default_rng(7)
    n, d = 400, 30
    if form == "csr":
        monkeypatch.setattr(newton, "GRAM_WEIGHTS", 0)
        X = sp.random(n, d, density=0.2, format="csr", random_state=7)
        y = np.where(X @ rng.standard_normal(d) + 0.1 * rng.standard_normal(n) > 0, 1.0, -1.0)
    else:
        X, y = gaussian_problem(n=n, d=d, seed=7)
    fits, sums = [], []
    tree_sum = newton.tree_sum

    def counted(*args):  # the reductions the driver waits on, counted apart from the engine
        sums[-1] += 1
        return tree_sum(*args)

    monkeypatch.setattr(newton, "tree_sum", counted)
    for k in (1, 3, 8):
        clf = DaskSVMClassifier(
            lmbd=1e-3, loss="squared_hinge", method="newton", n_blocks=None, tol=1e-10
        )
        sums.append(0)
        fits.append(clf.fit(*blocks(X, y, k)))
        assert clf.round_trips_ == sums[-1] + clf.certificate_passes_
        assert clf.round_trips_ >= clf.data_passes_ + clf.certificate_passes_
    first = fits[0]
    assert first.certified_
    assert (first.cg_iterations_ > 0).all() == (form == "csr")
    for other in fits[1:]:
        assert other.n_rounds_ == first.n_rounds_
        np.testing.assert_array_equal(other.cg_iterations_, first.cg_iterations_)
        np.testing.assert_array_equal(other.line_search_evals_, first.line_search_evals_)
        assert other.data_passes_ == first.data_passes_
        assert other.round_trips_ == first.round_trips_
        np.testing.assert_allclose(other.coef_, first.coef_, rtol=1e-10, atol=1e-12)
        assert other.certified_
    exact = ExactSVMClassifier(lmbd=1e-3, loss="squared_hinge").fit(X, y)
    assert abs(first.primal_ - exact.primal_) <= 1e-10 * abs(exact.primal_)


def test_certificate_and_dual_coef_on_one_machine(client):
    """The returned certificate is objectives.certificate of (w, α̃(w)) on the whole data,
    and ``dual_coef_`` is that α̃(w), in X's row order."""
    X, y = gaussian_problem(n=120, d=4, seed=11)
    loss = make_loss("smooth_hinge", 0.5)
    clf = DaskSVMClassifier(
        lmbd=0.01, loss="smooth_hinge", gamma=0.5, method="newton", n_blocks=None, tol=1e-8
    ).fit(*blocks(X, y, 3))
    w = np.append(clf.coef_[0], clf.intercept_[0])
    alpha = objectives.implied_dual(X, y, w, loss, 1.0)
    np.testing.assert_allclose(np.asarray(clf.dual_coef_), alpha, rtol=1e-12, atol=1e-15)
    cert = objectives.certificate(X, y, w, alpha, 0.01, loss, 1.0)
    assert math.isclose(cert["primal"], clf.primal_, rel_tol=1e-12)
    assert math.isclose(cert["dual"], clf.dual_, rel_tol=1e-12)
    assert clf.certified_ and clf.rel_gap_ <= 1e-8


def test_one_vs_rest_and_class_weights(client):
    """Three classes with class weights: each binary problem certified at the exact
    engine's optimum."""
    rng = np.random.default_rng(4)
    X = rng.standard_normal((180, 3))
    y = np.argmax(X @ rng.standard_normal((3, 3)) + 0.3 * rng.standard_normal((180, 3)), 1)
    weights = {0: 1.0, 1: 2.5, 2: 0.5}
    clf = DaskSVMClassifier(
        lmbd=0.01, loss="squared_hinge", method="newton", class_weight=weights, tol=1e-10
    ).fit(X, y)
    exact = ExactSVMClassifier(lmbd=0.01, loss="squared_hinge", class_weight=weights).fit(X, y)
    assert clf.certified_.all()
    np.testing.assert_allclose(clf.primal_, exact.primal_, rtol=1e-10)
    assert (clf.predict(X) == exact.predict(X)).mean() > 0.99


def test_refusals_name_the_fix(client, tmp_path):
    X, y = gaussian_problem(n=40, d=3, seed=1)
    with pytest.raises(ValueError, match=r"method='newton' needs a smooth loss.*'hinge'"):
        DaskSVMClassifier(method="newton").fit(X, y)
    with pytest.raises(ValueError, match=r"writes no checkpoints.*checkpoint_dir=None"):
        DaskSVMClassifier(method="newton", loss="squared_hinge", checkpoint_dir=str(tmp_path)).fit(
            X, y
        )


def test_refit_by_cocoa_drops_the_newton_attributes(client):
    X, y = gaussian_problem(n=60, d=3, seed=2)
    clf = DaskSVMClassifier(method="newton", loss="squared_hinge", tol=1e-8).fit(X, y)
    assert clf.cg_iterations_.shape == (clf.n_rounds_,)
    clf.set_params(method="cocoa").fit(X, y)
    assert not hasattr(clf, "cg_iterations_") and not hasattr(clf, "line_search_evals_")
    assert not hasattr(clf, "round_trips_")


def test_conjugate_gradient_solves_to_its_tolerance():
    """The driver's CG on a small SPD system: ‖Hs + g‖ ≤ rtol·‖g‖, and exact in d steps."""
    rng = np.random.default_rng(0)
    A = rng.standard_normal((6, 6))
    H = A @ A.T + 0.1 * np.eye(6)
    g = rng.standard_normal(6)
    s, made = newton.conjugate_gradient(lambda v: H @ v, g, 1e-3, 100)
    assert np.linalg.norm(H @ s + g) <= 1e-3 * np.linalg.norm(g)
    s, made = newton.conjugate_gradient(lambda v: H @ v, g, 1e-14, 6)
    np.testing.assert_allclose(s, -np.linalg.solve(H, g), rtol=1e-6)
    assert made <= 6


def test_tree_sum_adds_every_part_once(client):
    parts = [client.scatter(np.array([float(2**i)])) for i in range(7)]
    assert client.gather(newton.tree_sum(client, parts))[0] == 127.0


def test_checks_read_the_estimate_until_it_may_pass(client, monkeypatch):
    """A check's reading is P(w) and D(α̃(w)) from the gradient's sums while that estimate
    is above twice tol: each is objectives.certificate of the same (w, α̃(w)) on one machine
    to 1e-11 of P, the estimate is read at some checks but not at the last, whose reading
    is the returned pair's full certificate. A check makes no pass over the rows of its
    own but the certificate's: each step's passes (its products, the margins along it and
    the gradient's at its new w, which the check and the next step read) are counted in
    its round."""
    X, y = gaussian_problem(n=300, d=6, seed=9)
    loss = make_loss("smooth_hinge", 1.0)
    seen, passes = [], []

    def record(info):
        passes.append(info.data_passes)
        if info.gap is not None:
            seen.append((info.primal, info.dual, info.gap, info.w.copy()))

    certify, made = newton.NewtonClusterEngine.certify, []

    def counted(engine, *args, **kwargs):  # the passes a check makes itself
        before = engine.passes
        out = certify(engine, *args, **kwargs)
        made.append(engine.passes - before)
        return out

    monkeypatch.setattr(newton.NewtonClusterEngine, "certify", counted)
    clf = DaskSVMClassifier(
        lmbd=0.003, loss="smooth_hinge", method="newton", n_blocks=None, tol=1e-9,
        callback=record,
    )  # fmt: skip
    clf.fit(*blocks(X, y, 3))
    assert 1 <= clf.estimated_checks_ < len(seen)
    assert len(made) >= len(seen) and not any(made)
    assert passes == list(1 + np.cumsum(2 + clf.cg_iterations_))
    assert clf.data_passes_ == passes[-1] and clf.certificate_passes_ == 1
    for primal, dual, _, w in seen:
        alpha = objectives.implied_dual(X, y, w, loss, 1.0)
        full = objectives.certificate(X, y, w, alpha, 0.003, loss, 1.0)
        assert abs(primal - full["primal"]) <= 1e-11 * abs(full["primal"])
        assert abs(dual - full["dual"]) <= 1e-11 * abs(full["primal"])
    *_, (primal, dual, gap, w) = seen
    assert clf.certified_ and (clf.primal_, clf.dual_) == (primal, dual)
    assert gap <= 1e-9 * abs(primal)


class Restrictions(SchedulerPlugin):
    """The worker restrictions of every task the scheduler sends to a worker, by key."""

    def __init__(self, scheduler):
        self.scheduler, self.seen = scheduler, {}

    def transition(self, key, start, finish, *args, **kwargs):
        if finish == "processing":
            ts = self.scheduler.tasks[key]
            self.seen[key] = (ts.worker_restrictions, ts.processing_on.address)


def test_every_pass_runs_where_its_chunk_is(client, monkeypatch):
    """A slot's tasks run on the worker that holds its chunk, never moving it, even with one
    chunk on two workers, where dask's own placement ran them on the idle worker: every slot
    task reaches the scheduler pinned to one worker, a chunk's (a deterministic check: dask
    moved an unpinned chunk in some fits only), and the task stream shows no transfer into
    a slot task and every slot task on the chunk's worker. A CSR chunk (CG products, many
    passes) and the Hessian's width planted at 0."""
    monkeypatch.setattr(newton, "GRAM_WEIGHTS", 0)
    scheduler = client.cluster.scheduler
    pinned = Restrictions(scheduler)
    scheduler.add_plugin(pinned, name="restrictions")
    try:
        rng = np.random.default_rng(3)
        X = sp.random(600, 40, density=0.2, format="csr", random_state=3)
        y = np.where(X @ rng.standard_normal(40) > 0, 1.0, -1.0)
        name = lambda t: str(t["key"][0] if isinstance(t["key"], tuple) else t["key"])  # noqa: E731
        for k in (1, 2, 1, 2):  # dask's placement left to itself moved a chunk in some fits only
            with get_task_stream(client) as tasks:
                clf = DaskSVMClassifier(
                    lmbd=1e-4, loss="squared_hinge", method="newton", n_blocks=None, tol=1e-12
                ).fit(*blocks(X, y, k))
            assert clf.n_rounds_ >= 3 and clf.cg_iterations_.sum() >= 10
            stream = tasks.data
            homes = {t["worker"] for t in stream if name(t).startswith("checked_block_data")}
            slot_tasks = [t for t in stream if name(t).startswith("slot_")]
            assert len(homes) == k and len(slot_tasks) >= clf.round_trips_
            assert {t["worker"] for t in slot_tasks} == homes
            assert not [
                s for t in slot_tasks for s in t["startstops"] if s["action"] == "transfer"
            ]
            restricted = [
                v for key, v in pinned.seen.items() if name({"key": key}).startswith("slot_")
            ]
            assert len(restricted) == len(slot_tasks)
            assert all(on in homes and only == {on} for only, on in restricted)
            pinned.seen.clear()
    finally:
        scheduler.remove_plugin(name="restrictions")
