r"""Exact optimum of the linear SVM, with a certificate computed apart from the solver.

Problem and notation
--------------------
The primal :math:`P` and dual :math:`D` of :mod:`sdca_pegasos.solvers.core.objectives`, for every
loss of :mod:`sdca_pegasos.solvers.core.losses` (hinge, :math:`\gamma`-smoothed hinge, squared
hinge: a conjugate of curvature :math:`\kappa` on a box of height :math:`U`) and sample weights
:math:`c_i \ge 0`:

.. math::

    P(\tilde w) = \frac{\lambda}{2}\|\tilde w\|^2
        + \frac1n\sum_i c_i\,\phi(y_i\tilde x_i^\top\tilde w).

With :math:`a_i = y_i\alpha_i \in [0, u_i]`, :math:`u_i = c_i U` (:math:`U = \infty` for the
squared hinge: a one-sided bound), the dual is :math:`D(a) = -f(a)/n` for the convex
quadratic

.. math::

    f(a) = \frac{\lambda n}{2}\|\tilde w(a)\|^2 - \sum_i a_i
        + \sum_i \frac{\kappa}{2c_i}a_i^2,
    \qquad \tilde w(a) = \frac{1}{\lambda n}\sum_i a_i y_i \tilde x_i,

with gradient :math:`G_i = y_i\tilde x_i^\top\tilde w(a) - 1 + \kappa a_i/c_i` (margin minus
one) and Hessian :math:`H = Q + \mathrm{diag}(\kappa/c_i)`,
:math:`Q_{ij} = y_i y_j \tilde x_i^\top\tilde x_j/(\lambda n)`. Minimising :math:`f` over
the box is a box-constrained convex QP. A sample of weight 0 has the box :math:`\{0\}`: it
is taken out of the QP (its :math:`a_i = 0`), and :math:`\lambda n` keeps the full n.

Why this method
---------------
Plain SDCA converges linearly at a rate that degrades as :math:`\lambda n` shrinks, and it
pays for every sample in every epoch. At :math:`\lambda = 1/n` on raw 120×120 crops it left a
relative gap of 1e-1 after 30 s. The solver here chains standard tools so that each regime
costs what it must and no more:

1. **Interior point and crossover wherever a factorisation of the smaller side is
   affordable** (``method="ipm"``). CD's rate depends on the conditioning of :math:`Q`,
   which the shape of X does not predict (raw crops with near-duplicate augmented images
   make it hopeless at small λ: Gram CD with Newton finishes was still at a relative gap of
   1e-3 and 0.6 after 60 s at λ = 1e-3 and 1/n). Mehrotra's predictor-corrector method
   (:func:`sdca_pegasos.solvers.exact.ipm.ipm_iterates`) needs ~15-35 factorisations whatever the
   conditioning, in one of two forms:

   * *Gram form* (n ≤ d): each iteration factors the n × n matrix
     :math:`Q + \mathrm{diag}` by Cholesky, O(n³), after one Gram product O(n² d);
   * *low-rank primal form* (n > d): with :math:`Q = AA^\top` (A the n × (d + 1) scaled
     rows), Woodbury's identity reduces each solve to one Cholesky factorisation of the
     (d + 1) × (d + 1) matrix :math:`I + A^\top D^{-1}A`, formed by BLAS ``dsyrk`` over
     row blocks, O(n d²) per iteration.

   From its iterates a primal-dual active-set crossover
   (:func:`sdca_pegasos.solvers.exact.ipm.crossover`) finds the optimum's partition (each
   :math:`a_i` at 0, at :math:`u_i` or free) and solves it exactly, with the last refinements on a
   compensated gradient computed through X (Q a carries ~1e-9 of cancellation error on raw crops).
   Should it not certify, CD goes on.

2. **Dual coordinate descent with shrinking** (Hsieh et al., ICML 2008; liblinear) where
   the interior point is not affordable (both sides large). Exact coordinate minimisation
   in a seeded random order; a variable at a bound whose gradient pushes it further out
   leaves the sweep, and every shrunk set is restored for a full sweep before a stage is
   declared done. In primal representation (keep :math:`\tilde w`; a step costs O(d), or
   O(nnz of the row) on CSR) or in Gram representation (dense d ≥ n: form Q once and keep
   the gradient; a step costs O(n) whatever d).

3. **Newton finish on the free set** (a projected Newton step, Bertsekas 1982). Once CD has
   identified which :math:`a_i` sit at a bound, the optimum restricted to that partition
   solves one linear system on the free set F, :math:`H_{FF}\Delta = -G_F`: a Cholesky
   factorisation of :math:`H_{FF}` (Gram form, CSR), or the thin SVD of the free rows in
   primal form (:math:`Q_{FF}` has rank ≤ d + 1; with duplicated samples on the margin, as
   in skin, the minimum-norm step). CD then resumes.

4. **Certificate apart from the solver.** :math:`\tilde w` is rebuilt from :math:`\alpha`, then
4. :func:`sdca_pegasos.solvers.core.objectives.certificate` computes :math:`P(\tilde w)`,
4. :math:`D(\alpha)` and the gap in one fused pass over X with exact products and compensated sums,
4. each bound moved outward by its rounding allowance, so rounding cannot fake a 1e-10 relative
4. gap. The run stops once :math:`(P - D)/|P| \le` ``tol``, or when the CPU budget ends, in which
4. case the result says ``certified=False`` and carries the gap it reached: never a silent claim.
4. Its ``w`` is then the point of lowest certified :math:`P` among every point the solve certified
4. (the interior point's last iterate, crossover and CD points, and :math:`w = 0`), and its
4. ``dual_coef`` the one of highest :math:`D`: never worse than :math:`w = 0` unless :math:`w = 0`
4. is the best point found.

The budget is the solve's own: CPU seconds of the calling thread (``time.thread_time``),
with BLAS pinned to that one thread for the solve (threadpoolctl), so that neither BLAS
helper threads nor other threads of the process spend it. (Process CPU time with the
default two BLAS threads on two busy cores counted both threads, and the factorisations
ran several times slower: a 73,421 × 4,126 CSR solve spent its 60 s in the interior point
and returned w = 0; on one BLAS thread it certified in 28 s.)

Which method runs where: :func:`choose_method` (:mod:`sdca_pegasos.solvers.exact.choice`, with the
measured table). The modules: the box QP and its representations in
:mod:`sdca_pegasos.solvers.exact.qp`, the interior point and crossover in
:mod:`sdca_pegasos.solvers.exact.ipm`, the coordinate-descent sweeps and Newton finishes in
:mod:`sdca_pegasos.solvers.exact.cd`; the driver that chains them, the certificate and the
estimator here.

Randomness enters as data: the driver draws each sweep's order from
``numpy.random.default_rng(seed)``, so the same seed gives the same bits.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions

from sdca_pegasos.solvers.core import losses, objectives
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.runtime import blas_single_thread, caller_stacklevel
from sdca_pegasos.solvers.driver.estimator import WARM_UP_LMBD, WARMED, BaseLinearSVM, layout_key
from sdca_pegasos.solvers.driver.problem import BinaryFit, Problem
from sdca_pegasos.solvers.exact.cd import newton_stage
from sdca_pegasos.solvers.exact.choice import MethodChoice, choose_method, ipm_costs
from sdca_pegasos.solvers.exact.ipm import crossover, implied_rel_gap, ipm_iterates
from sdca_pegasos.solvers.exact.qp import Gram, Primal, make_qp

__all__ = ["ExactResult", "ExactSVMClassifier", "MethodChoice", "choose_method", "solve_exact"]


def _cpu_clock() -> float:
    """The engine's clock: CPU seconds of the calling thread, on which BLAS runs alone during
    a solve (:func:`solve_exact` pins one BLAS thread), so no other thread spends its budget."""
    return time.thread_time()


@dataclass(frozen=True)
class ExactResult:
    """An optimum and its certificate.

    Attributes
    ----------
    w : ndarray of shape (n_features + 1,)
        Last entry the bias weight (see :mod:`sdca_pegasos.solvers.core.objectives`). Certified:
        :math:`\\tilde w(\\alpha)` of ``dual_coef``. Not certified (the budget ended): the
        point of lowest certified :math:`P` among every point the solve certified, the
        interior point's last iterate and :math:`w = 0` included.
    dual_coef : ndarray of shape (n_samples,)
        Signed dual variables :math:`\\alpha_i = y_i a_i` (0 for a sample of weight 0). Not
        certified: the dual point of highest certified :math:`D` found.
    primal, dual, gap, rel_gap : float
        :math:`P(w)`, :math:`D(\\alpha)`, :math:`P - D \\ge 0` and :math:`(P - D)/|P|`,
        from the independent certificate. ``dual <= P* <= primal`` holds whatever the gap.
    certified : bool
        Exactly ``rel_gap <= tol``.
    cpu_seconds : float
        CPU time of the whole solve on the calling thread (Gram product, sweeps, Newton
        steps, certificates), BLAS included: it runs on that thread alone during the solve.
    method : str
        ``"primal-cd+newton"``, ``"gram-cd+newton"``, ``"gram-ipm+crossover"`` or
        ``"primal-ipm+crossover"`` (with ``"+cd+newton"`` when CD had to go on after the
        crossover).
    epochs : int
        CD sweeps (over the active set) run.
    newton_steps : int
        Newton steps taken.
    tol : float
    ipm_iterations : int
        Interior-point iterations run.
    loss : str
        ``"hinge"``, ``"smooth_hinge"`` or ``"squared_hinge"``.
    """

    w: np.ndarray
    dual_coef: np.ndarray
    primal: float
    dual: float
    gap: float
    rel_gap: float
    certified: bool
    cpu_seconds: float
    method: str
    epochs: int
    newton_steps: int
    tol: float
    ipm_iterations: int = 0
    loss: str = "hinge"


# ---------------------------------------------------------------------------- driver
def _resolve_loss(loss, gamma) -> Loss:
    """The :class:`~sdca_pegasos.solvers.core.losses.Loss` of ``loss`` and ``gamma``."""
    if gamma is None:
        return losses.make_loss(loss)
    if not (isinstance(gamma, int | float) and math.isfinite(gamma) and gamma >= 0.0):
        raise ValueError(f"gamma must be a finite number >= 0, got {gamma!r}")
    if isinstance(loss, str) and loss in ("hinge", "smooth_hinge"):
        # "hinge" with gamma: the γ-smoothed hinge (0: the hinge), the older spelling
        return losses.make_loss(float(gamma)) if loss == "hinge" else losses.make_loss(loss, gamma)
    raise ValueError(
        f"gamma={gamma!r} applies to the hinge and the smoothed hinge only, not to "
        f"loss={loss!r}; drop gamma (or pass loss='smooth_hinge', gamma=...)"
    )


def solve_exact(
    X,
    y,
    lmbd: float,
    *,
    loss: str | Loss | float = "hinge",
    gamma: float | None = None,
    bias: float = 0.0,
    sample_weight=None,
    tol: float = 1e-10,
    max_cpu: float = 60.0,
    method: str = "auto",
    seed: int = 0,
) -> ExactResult:
    r"""Minimise :math:`P` to a certified relative duality gap :math:`(P - D)/|P| \le` ``tol``.

    Parameters
    ----------
    X : ndarray or scipy.sparse matrix of shape (n_samples, n_features), float32 or float64
        Sparse input is read as CSR (converted once if in another format), never densified.
    y : ndarray of shape (n_samples,), labels in {-1, +1}
    lmbd : float
        :math:`\lambda > 0`.
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, Loss or float, default="hinge"
        The loss (:mod:`sdca_pegasos.solvers.core.losses`); a number is the γ-smoothed hinge (0:
        the hinge).
    gamma : float or None, default=None
        Smoothing of ``"smooth_hinge"`` (None: 1.0). With ``loss="hinge"`` a γ > 0 selects
        the γ-smoothed hinge too (the older spelling ``solve_exact(..., gamma=1.0)``).
    bias : float, default=0.0
        Bias multiplier :math:`B` (constant feature, regularised like the others).
    sample_weight : ndarray of shape (n_samples,) or None, default=None
        Weights :math:`c_i \ge 0` of the samples' losses (None: every weight 1); a weight of
        0 fixes :math:`\alpha_i = 0`.
    tol : float, default=1e-10
        Target relative gap.
    max_cpu : float, default=60.0
        CPU-second budget of the whole solve, on the calling thread's clock
        (``time.thread_time``); BLAS is pinned to one thread, that one, for the solve
        (threadpoolctl), so neither BLAS helper threads nor other threads of the process
        spend it. When it ends first: ``certified=False``, ``w`` the lowest-:math:`P` point
        certified (never worse than :math:`w = 0`), ``dual_coef`` the highest-:math:`D` one,
        ``primal``, ``dual`` and ``rel_gap`` their bounds.
    method : {"auto", "ipm", "primal", "gram"}, default="auto"
        ``auto``: :func:`choose_method` (the interior point where its factorisations fit
        three quarters of the budget and the memory limit, else coordinate descent).
        ``ipm``: the interior point in its cheaper form, whatever it costs; it goes on with
        coordinate descent (in its representation) should its crossover not certify within
        the budget. ``primal``, ``gram``: coordinate descent with Newton finishes in that
        representation.
    seed : int, default=0
        Seed of the sweep orders.

    Returns
    -------
    ExactResult
    """
    start = _cpu_clock()
    with blas_single_thread():
        return _solve(
            start, X, y, lmbd, loss, gamma, bias, sample_weight, tol, max_cpu, method, seed
        )


def _solve(start, X, y, lmbd, loss, gamma, bias, sample_weight, tol, max_cpu, method, seed):
    """The body of :func:`solve_exact` (its clock started at ``start``), on one BLAS thread."""
    X = objectives.as_data(X)
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()  # the row norms read each stored entry as one coordinate
    n, d = X.shape
    y = objectives.as_labels(y, n)
    loss = _resolve_loss(loss, gamma)
    weights = objectives.as_sample_weight(sample_weight, n)
    if weights is not None and np.all(weights == 1.0):
        weights = None  # the unweighted kernels, bit for bit
    if not (np.isfinite(lmbd) and lmbd > 0.0):
        raise ValueError(f"lmbd must be a finite number > 0, got {lmbd!r}")
    if not (tol > 0.0):
        raise ValueError(f"tol must be > 0, got {tol!r}")
    if method not in ("auto", "primal", "gram", "ipm"):
        raise ValueError(f"method must be 'auto', 'primal', 'gram' or 'ipm', got {method!r}")
    lmbd, bias = float(lmbd), float(bias)
    qp = make_qp(X, y, lmbd, loss, bias, weights)
    nnz = X.nnz if sp.issparse(X) else None
    if method == "auto":
        choice = choose_method(qp.n, d, nnz, itemsize=X.dtype.itemsize, max_cpu=max_cpu)
        method, form = choice.method, choice.form
    elif method == "ipm":
        costs = ipm_costs(qp.n, d, nnz, X.dtype.itemsize)
        form = min(costs, key=lambda f: costs[f][0])
    else:
        form = method
    rng = np.random.default_rng(seed)
    epochs = newton_steps = ipm_iterations = 0
    best = None  # (w, α, certificate, a) of the smallest gap: the pair CD goes on from
    bounds = _Bounds()  # the lowest P and the highest D of every point certified

    def cpu() -> float:
        return _cpu_clock() - start

    def certify(a) -> bool:
        """The certificate of ``a`` (the QP's variables), kept if it is the best so far;
        True when it certifies."""
        nonlocal best
        alpha = np.zeros(n)
        if qp.n == n:
            alpha[:] = y * a
        else:
            alpha[weights > 0.0] = qp.y * a
        w = objectives.exact_dual_weights(X, alpha, lmbd, bias)
        cert = objectives.certificate(X, y, w, alpha, lmbd, loss, bias, weights)
        bounds.add(w, alpha, cert)
        if best is None or cert["gap"] < best[2]["gap"]:
            best = (w, alpha, cert, a.copy())
        return cert["rel_gap"] <= tol

    rep = (Gram if form == "gram" else Primal)(qp)
    a = np.zeros(qp.n)
    all_samples = np.arange(qp.n, dtype=np.int64)
    eps = 0.1  # projected-gradient spread that ends a CD stage; tightened stage by stage
    skip_newton = False

    if method == "ipm":
        # ---- interior point: a crossover each time mu has fallen tenfold below 1e-6 (times
        # the mean weight: mu scales with the box), and, should that not yet certify, the
        # iterate itself once the gap its gradient implies is below tol/2 (enough for
        # loose targets, but its a_i are never exactly at a bound)
        next_crossover = 1e-6 * (1.0 if qp.weights is None else float(qp.weights.mean()))
        for a_in, z, s, mu, g in ipm_iterates(rep):
            if cpu() >= max_cpu:
                certify(a_in)  # the budget ends the interior point: its iterate is a candidate
                break
            if mu <= next_crossover:
                next_crossover = mu * 0.1
                if certify(crossover(rep, a_in, z, s)):
                    break
            if implied_rel_gap(rep, a_in, g) <= 0.5 * tol and certify(a_in):
                break
            ipm_iterations += 1
        label = f"{form}-ipm+crossover"
        if best is not None:
            a = np.clip(best[3], 0.0, qp.upper)  # CD goes on from the best point
            if best[2]["rel_gap"] > tol and cpu() < max_cpu:
                label += "+cd+newton"
    else:
        label = rep.method
    rep.refresh(a)

    # at least one stage unless the interior point has certified or used the budget
    while best is None or (best[2]["rel_gap"] > tol and cpu() < max_cpu):
        # ---- stage 1: shrinking CD until the spread of projected gradients is below eps
        # (or 200 sweeps' worth of work: an ill-conditioned stage is handed to Newton)
        active = all_samples
        pg_hi, pg_lo = np.inf, -np.inf
        work = 0
        while cpu() < max_cpu and work < 200 * qp.n:
            order = rng.permutation(active)
            work += order.shape[0]
            keep = np.empty(order.shape[0], dtype=np.bool_)
            hi, lo = rep.sweep(a, order, pg_hi, pg_lo, keep)
            epochs += 1
            active = order[keep]
            if active.shape[0] == 0 or hi - lo <= eps:
                if order.shape[0] == qp.n:
                    break  # a full sweep met the stage's tolerance
                active, pg_hi, pg_lo = all_samples, np.inf, -np.inf
                continue
            pg_hi = hi if hi > 0.0 else np.inf
            pg_lo = lo if lo < 0.0 else -np.inf
        # ---- stage 2: projected Newton steps while they lower f (:func:`newton_stage`); a
        # stage that does not cut the KKT residual tenfold makes the later ones skip Newton
        rep.refresh(a)
        if not skip_newton:
            steps, cut = newton_stage(rep, a, lambda: cpu() < max_cpu)
            newton_steps += steps
            skip_newton = not cut
        # ---- stage 3: the certificate, computed apart from the solver's state
        certify(a)
        eps = max(eps * 0.01, 1e-15)

    if best[2]["rel_gap"] <= tol:  # certified: the pair itself, w = w̃(α)
        w, alpha, cert, _ = best
    else:  # the budget ended: the lowest P and the highest D of every point, w = 0 included
        zero_w, zero_alpha = np.zeros(d + 1), np.zeros(n)
        bounds.add(
            zero_w,
            zero_alpha,
            objectives.certificate(X, y, zero_w, zero_alpha, lmbd, loss, bias, weights),
        )
        w, alpha, cert = bounds.w, bounds.alpha, bounds.certificate()
    return _result(w, alpha, cert, tol, cpu(), label, epochs, newton_steps, ipm_iterations, loss)


class _Bounds:
    """The lowest certified primal value P(w) and the highest dual value D(α) over every
    point certified, each with its point: the bounds D ≤ P* ≤ P of a solve that the budget
    ends, at least as tight as those of any one pair."""

    def __init__(self):
        self.primal, self.w = math.inf, None
        self.dual, self.alpha = -math.inf, None

    def add(self, w, alpha, cert) -> None:
        if cert["primal"] < self.primal:
            self.primal, self.w = cert["primal"], w
        if cert["dual"] > self.dual:
            self.dual, self.alpha = cert["dual"], alpha

    def certificate(self) -> dict[str, float]:
        """``primal``, ``dual``, ``gap`` and ``rel_gap`` of the two (as
        :func:`sdca_pegasos.solvers.core.objectives.certificate` computes them for one pair)."""
        gap = self.primal - self.dual
        rel = gap / abs(self.primal) if self.primal != 0.0 else (0.0 if gap == 0 else np.inf)
        return {"primal": self.primal, "dual": self.dual, "gap": gap, "rel_gap": rel}


def _result(w, alpha, cert, tol, cpu_seconds, label, epochs, newton_steps, ipm_iterations, loss):
    return ExactResult(
        w=w,
        dual_coef=alpha,
        primal=cert["primal"],
        dual=cert["dual"],
        gap=cert["gap"],
        rel_gap=cert["rel_gap"],
        certified=bool(cert["rel_gap"] <= tol),
        cpu_seconds=cpu_seconds,
        method=label,
        epochs=epochs,
        newton_steps=newton_steps,
        tol=float(tol),
        ipm_iterations=ipm_iterations,
        loss=loss.name,
    )


# ---------------------------------------------------------------------------- the estimator
class ExactSVMClassifier(BaseLinearSVM):
    r"""The linear SVM solved to a certified optimum: :func:`solve_exact` as a classifier.

    Minimises :math:`P(\tilde w) = \frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i
    \phi(y_i\tilde x_i^\top\tilde w)` (hinge, smoothed hinge or squared hinge; sample and
    class weights :math:`c_i`) by an interior point with an active-set crossover where its
    factorisations are affordable, else by shrinking coordinate descent with Newton finishes
    (:func:`choose_method`), and returns the optimum with its certificate: the pair
    :math:`(\tilde w, \alpha)` whose independently computed relative duality gap
    :math:`(P - D)/|P|` is at most ``tol``. Where ``LinearSVC`` returns an approximate
    optimum, this one says how far from the optimum it is, bounds included
    (``dual_ <= P* <= primal_``). Two classes or more (one-vs-rest, as ``LinearSVC``), dense
    or CSR, float32 or float64.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        Regularisation λ > 0 (``LinearSVC``'s ``C = 1/(λ n)``). ``"auto"`` (the default):
        λ = 1/n, n the number of rows of X, resolved at ``fit`` (``lmbd_``): ``LinearSVC``'s
        default ``C = 1`` (with sample weights n still counts the rows: each weight
        multiplies its sample's loss, as in ``LinearSVC(C=1)``).
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, default="hinge"
    gamma : float, default=1.0
        Smoothing γ > 0 of ``"smooth_hinge"`` (ignored by the other losses).
    tol : float, default=1e-10
        Relative duality gap to certify, (P − D)/|P|.
    max_cpu : float, default=60.0
        CPU seconds per binary problem, the engine's own: measured on the fitting thread
        (``time.thread_time``), with BLAS pinned to that one thread during the fit
        (threadpoolctl), so BLAS helper threads and other threads of the process neither
        spend it nor slow the factorisations down. When they end before ``tol`` is
        certified, ``coef_`` is the point of lowest certified objective the engine found
        (never worse than w = 0: its interior-point iterate, crossover and CD points and
        w = 0 compared), ``primal_`` its objective, ``dual_`` the highest dual bound found,
        ``certified_`` is False and a ``ConvergenceWarning`` says the gap reached.
    method : {"auto", "ipm", "primal", "gram"}, default="auto"
        :func:`solve_exact`'s ``method`` (``"auto"``: :func:`choose_method`).
    bias_multiplier : float, default=1.0
        The constant feature B appended to every sample (regularised like the others); the
        intercept is ``B * w_b``. The default 1.0 is ``LinearSVC``'s intercept
        (``intercept_scaling=1``, regularised too); 0: no intercept, as in the studies.
    class_weight : dict, "balanced" or None, default=None
        scikit-learn's meaning; multiplies ``sample_weight``.
    random_state : int or None, default=None
        Seed of the coordinate-descent sweep orders (None: 0). The result is deterministic.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    dual_coef_ : ndarray of shape (n_samples,) or (n_classes, n_samples)
        Signed dual variables α_i = y_i a_i, a_i in [0, c_i U]: certified, the dual point of
        ``coef_`` (w = w̃(α)); not certified, the dual point of highest D found.
    duality_gap_, rel_gap_ : float or ndarray of shape (n_classes,)
        P − D and (P − D)/|P| of the returned pair, from the certificate.
    primal_, dual_ : float or ndarray of shape (n_classes,)
        The certified bounds ``dual_ <= P* <= primal_``.
    certified_ : bool or ndarray of shape (n_classes,)
        Exactly ``rel_gap_ <= tol`` (also ``converged_``).
    method_ : str or ndarray of shape (n_classes,)
        What ran (:class:`ExactResult`'s ``method``).
    cpu_seconds_ : float or ndarray of shape (n_classes,)
        CPU seconds of each solve (also ``epoch_times_``; ``n_epochs_`` is 1: one solve).
    ipm_iterations_, cd_epochs_, newton_steps_ : int or ndarray of shape (n_classes,)
    lmbd_ : float
        The λ of the fit (``1/n_samples`` when ``lmbd="auto"``).
    classes_, n_features_in_

    Examples
    --------
    >>> from sklearn.datasets import load_breast_cancer
    >>> from sklearn.preprocessing import StandardScaler
    >>> X, y = load_breast_cancer(return_X_y=True)
    >>> clf = ExactSVMClassifier().fit(StandardScaler().fit_transform(X), y)  # λ = 1/n, intercept
    >>> bool(clf.certified_), bool(clf.rel_gap_ <= 1e-10), clf.lmbd_ == 1 / X.shape[0]
    (True, True, True)
    """

    _parameter_constraints: dict = {
        "lmbd": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "loss": [StrOptions(set(losses.LOSSES))],
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "max_cpu": [Interval(Real, 0, None, closed="left")],
        "method": [StrOptions({"auto", "ipm", "primal", "gram"})],
        "bias_multiplier": [Interval(Real, 0, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "random_state": [Interval(Integral, 0, None, closed="left"), None],
    }

    _supports_sparse = True

    #: What the driver reads of an epoch-based solver: the engine solves each binary
    #: problem once, from scratch (an interior point has no use for a start point), and
    #: reports no epochs to a callback.
    max_epochs = 1
    warm_start = False
    callback = None

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="hinge",
        gamma=1.0,
        tol=1e-10,
        max_cpu=60.0,
        method="auto",
        bias_multiplier=1.0,
        class_weight=None,
        random_state=None,
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.tol = tol
        self.max_cpu = max_cpu
        self.method = method
        self.bias_multiplier = bias_multiplier
        self.class_weight = class_weight
        self.random_state = random_state

    def _fit_binary(self, problem: Problem) -> BinaryFit:
        """One certified solve of the binary problem (the engine owns its clock)."""
        wall = time.perf_counter()
        res = solve_exact(
            problem.X,
            problem.y,
            problem.lmbd,
            loss=self.loss_function,
            bias=problem.bias,
            sample_weight=problem.sample_weight,
            tol=float(self.tol),
            max_cpu=float(self.max_cpu),
            method=self.method,
            seed=0 if self.random_state is None else int(self.random_state),
        )
        wall = time.perf_counter() - wall
        if not res.certified and self._warn_unconverged:
            which = "" if len(self.classes_) == 2 else f" (class {problem.positive_class})"
            warnings.warn(
                f"{type(self).__name__} did not certify the optimum{which}: relative duality "
                f"gap {res.rel_gap:.3g} > tol={self.tol:g} when max_cpu={self.max_cpu:g} CPU "
                f"seconds ended ({res.method}). coef_ is the lowest-objective point found "
                f"(primal_ = {res.primal:.6g}), dual_ = {res.dual:.6g} the highest dual bound "
                f"(dual_ <= P* <= primal_, certified_=False); increase max_cpu or tol.",
                ConvergenceWarning,
                stacklevel=caller_stacklevel(),
            )
        return BinaryFit.of_epochs(
            [res.cpu_seconds],  # one solve, timed as one epoch
            [wall],
            w=res.w,
            dual_coef=res.dual_coef,
            setup_time=0.0,
            setup_wall_time=0.0,
            converged=res.certified,
            duality_gap=res.gap,
            attributes={
                "certified_": res.certified,
                "rel_gap_": res.rel_gap,
                "primal_": res.primal,
                "dual_": res.dual,
                "method_": res.method,
                "cpu_seconds_": res.cpu_seconds,
                "ipm_iterations_": res.ipm_iterations,
                "cd_epochs_": res.epochs,
                "newton_steps_": res.newton_steps,
            },
        )

    def _warm_up_for(self, X, weighted: bool = False) -> None:
        """Compile the engine's kernels for X's layout (and weights) before the timed solve:
        a tiny solve by each method, and one sweep in each representation (a budget of 0
        ends those solves before their first sweep, which then compiled inside the first
        real solve's budget). The on-disk cache makes this milliseconds after the first
        process."""
        key = (type(self), layout_key(X), weighted, self._kernel_key())
        if key in WARMED:
            return
        rng = np.random.default_rng(0)
        Xt = rng.standard_normal((8, 3)).astype(X.dtype)
        if sp.issparse(X):
            Xt = sp.csr_matrix(Xt)
            Xt.indices = Xt.indices.astype(X.indices.dtype)
            Xt.indptr = Xt.indptr.astype(X.indptr.dtype)
        elif not X.flags.writeable:
            Xt.setflags(write=False)
        yt = np.array([1.0, -1.0] * 4)
        weights = np.linspace(0.5, 1.5, 8) if weighted else None
        loss, bias = self.loss_function, float(self.bias_multiplier)
        for method in ("ipm", "primal", "gram"):
            solve_exact(
                Xt,
                yt,
                WARM_UP_LMBD,
                loss=loss,
                bias=bias,
                sample_weight=weights,
                method=method,
                max_cpu=0.0,
            )
        with blas_single_thread():  # as every solve: the caller's BLAS setting given back
            qp = make_qp(objectives.as_data(Xt), yt, WARM_UP_LMBD, loss, bias, weights)
            for representation in (Primal, Gram):
                keep = np.empty(qp.n, dtype=np.bool_)
                sweep = representation(qp).sweep
                sweep(np.zeros(qp.n), np.arange(qp.n), np.inf, -np.inf, keep)
        WARMED.add(key)
