r"""A primal Newton method for the smooth losses on dense data, certified through the implied
dual: :class:`NewtonSVMClassifier` (``device="cuda"``:
:mod:`sdca_pegasos.solvers.gpu.newton_device`; ``device="cpu"``: the same steps in NumPy,
:class:`~sdca_pegasos.solvers.gpu.newton_steps.NewtonEngine`, which the tests take as the
device's twin; the host's part of a step in :mod:`sdca_pegasos.solvers.gpu.newton_steps`).

The problem
-----------
For a smooth loss of :mod:`sdca_pegasos.solvers.core.losses` (the squared hinge, or the
:math:`\gamma`-smoothed hinge: :math:`\phi` is :math:`1/\kappa`-smooth, :math:`\phi'` piecewise
linear) the primal :math:`P(\tilde w) = \frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i
\phi(z_i)`, :math:`z_i = y_i\tilde x_i^\top\tilde w`, has the gradient and the generalised
Hessian (Mangasarian 2002)

.. math::

    g = \lambda\tilde w + \frac1n\sum_i c_i\phi'(z_i)\,y_i\tilde x_i
      = \lambda\big(\tilde w - \tilde w(a)\big),
    \qquad
    H = \lambda I + \frac1n\sum_i c_i\phi''(z_i)\,\tilde x_i\tilde x_i^\top,

with :math:`a_i = -c_i\phi'(z_i) \in [0, c_iU]` the dual point the primal point implies
(:func:`sdca_pegasos.solvers.core.objectives.implied_dual`, :math:`\alpha_i = y_i a_i`) and
:math:`\phi'' = 1/\kappa` where :math:`0 < 1 - z < \kappa U`, else 0. One pass over X gives both
(on the device: :func:`sdca_pegasos.solvers.gpu._kernels.newton_pass_dense`); H is
:math:`(d+1) \times (d+1)`.

One step
--------
1. **Direction**: :math:`s = -H^{-1}g` by Cholesky on the host
   (:func:`~sdca_pegasos.solvers.gpu.newton_steps.newton_direction`);
   H is positive definite (:math:`\lambda I`).
2. **Exact line search** along :math:`\tilde w + ts`: :math:`f(t) = P(\tilde w + ts)` is convex
   and piecewise quadratic, :math:`f'` continuous, piecewise linear and increasing, with
   :math:`f'(0) = g^\top s < 0`. With :math:`\delta_i = y_i\tilde x_i^\top s` (one more pass over
   X) every evaluation of :math:`f'(t) = \lambda(\tilde w^\top s + t\|s\|^2) - \frac1n\sum_i c_i
   a^*(z_i + t\delta_i)\delta_i` and :math:`f''(t)` is a pass over n-vectors only
   (:func:`sdca_pegasos.solvers.gpu._kernels.newton_slope`).
   :func:`~sdca_pegasos.solvers.gpu.newton_steps.line_search` takes Newton
   steps on :math:`f'` from :math:`t = 1` inside a bracket (bisection when a step leaves it):
   exact on the last linear piece, so it ends there in one more evaluation. The step is the
   root, not a sufficient decrease: P never increases, and t may exceed 1.
3. :math:`\tilde w \leftarrow \tilde w + ts`.

The fit loop (:func:`sdca_pegasos.solvers.driver.loop.run`) certifies every iterate
(``check_every=1``: a Newton step costs more than a certificate): the pair is
:math:`(\tilde w, \alpha(\tilde w))`, the implied dual, whose gap
:math:`P(\tilde w) - D(\alpha(\tilde w))` falls to 0 at the optimum (for a smooth loss
:math:`\alpha(\cdot)` is Lipschitz: the primal point certifies itself). On the device the
certificate is :meth:`sdca_pegasos.solvers.gpu.certificate.Certifier.pair` (outward-rounded, as
SDCA's); on the CPU :func:`sdca_pegasos.solvers.core.objectives.certificate`.

Why Newton with a line search, not SDCA, and not TRON
-----------------------------------------------------
On dense tall data (10M × 100) the GPU's block-parallel SDCA rounds never reached a relative gap
of 1e-4 at λ = 1/n or 1e-6 (:mod:`sdca_pegasos.solvers.gpu.sdca`, "Known limit"): thousands of
blocks update the same d + 1 weights from a stale w. A second-order primal method needs no such
coordination: a pass over X is a reduction (each block sums its rows' outer products, the
partial sums are added in a fixed order), the GPU's strength, and the number of passes does not
grow with the conditioning as first-order methods' do (the tests' 200 × 5 problems at λ = 1/n
and 1e-6 certify 1e-10 within the 12 steps they allow; not yet measured at GPU scale). With
d ≤ a few thousand the Hessian is formed and factored exactly (O(nd²) per pass on the device,
O(d³) on the host), so the trust region of LIBLINEAR's TRON (Lin, Weng & Keerthi 2008), which
there guards truncated conjugate-gradient steps on a Hessian it never forms, has nothing to
guard. The line search here is exact, and cheap: n-vectors, not X.
The hinge is not smooth (no Hessian): SDCA stays its engine, and so does CSR data
(``SDCAClassifier(device="cuda")``).
"""

from __future__ import annotations

import dataclasses
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions

from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.driver.estimator import WARM_UP_LMBD, WARMED, BaseLinearSVM, layout_key
from sdca_pegasos.solvers.driver.loop import Settings
from sdca_pegasos.solvers.driver.problem import Problem
from sdca_pegasos.solvers.gpu.device import DEVICE_CONSTRAINT, DeviceMixin
from sdca_pegasos.solvers.gpu.newton_steps import NewtonEngine

__all__ = ["MAX_FEATURES", "NewtonSVMClassifier"]

#: Largest n_features: the Hessian is (d + 1)² float64, formed on the device and factored on
#: the host.
MAX_FEATURES = 4096


# ---------------------------------------------------------------------------- the estimator
class NewtonSVMClassifier(DeviceMixin, BaseLinearSVM):
    r"""The L2-regularised linear SVM with a smooth loss (squared hinge or smoothed hinge) on
    dense data, solved to a certified optimum by a primal Newton method with an exact line
    search; on a GPU with ``device="cuda"``.

    Each step makes one pass over X for the gradient and the generalised Hessian
    (:math:`(d+1) \times (d+1)`, formed on the device and factored by Cholesky on the host) and
    one for the line search's :math:`\tilde x_i^\top s` (:mod:`sdca_pegasos.solvers.gpu.newton`
    says why this method and not SDCA or a trust region). Every iterate is certified through
    the dual point it implies, :math:`\alpha_i = -y_i c_i\phi'(z_i)`: ``dual_ <= P* <= primal_``
    with the rounding allowance of the other engines, and the fit stops once
    :math:`(P - D)/|P| \le` ``tol``.

    Why its own estimator: it is the GPU's answer for dense tall data, where
    ``SDCAClassifier(device="cuda")``'s block-parallel rounds stall; a Newton method inside a
    class named SDCA would misname what runs, and ``ExactSVMClassifier`` is one CPU solve
    under a CPU budget, not an engine driven by the fit loop. The hinge (not smooth: no
    Hessian) and CSR data (the Hessian of sparse rows is what SDCA avoids) are refused with
    a ValueError / TypeError naming ``SDCAClassifier(device="cuda")``.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        λ > 0; ``"auto"`` is 1/n (``LinearSVC``'s ``C = 1``), resolved at ``fit`` (``lmbd_``).
    loss : {"squared_hinge", "smooth_hinge"}, default="squared_hinge"
        The squared hinge (``LinearSVC``'s default, the L2-SVM) or the γ-smoothed hinge.
        ``"hinge"`` is refused (a ValueError names SDCA).
    gamma : float, default=1.0
        Smoothing γ > 0 of ``"smooth_hinge"`` (ignored by the squared hinge).
    max_iter : int, default=50
        At most this many Newton steps.
    tol : float, default=1e-10
        Relative duality gap (P − D)/|P| to certify (always relative, as
        ``ExactSVMClassifier``'s). Checked after every step.
    bias_multiplier : float, default=1.0
        B ≥ 0: the intercept through a constant feature (regularised; ``LinearSVC``'s
        ``intercept_scaling=1``); 0: no intercept.
    class_weight : dict, "balanced" or None, default=None
    callback : callable or None, default=None
        Called with an :class:`sdca_pegasos.solvers.EpochInfo` after every step (with its
        certified ``gap``, ``primal``, ``dual``); True stops.
    device : {"cpu", "cuda"}, default="cpu"
        ``"cuda"``: the passes run on the GPU (numba-cuda), the step time is the CUDA events'
        around a step (its Cholesky on the host included); X already on the GPU (CuPy) is
        validated and read there, never copied to the host
        (:mod:`sdca_pegasos.solvers.gpu.device`). ``"cpu"``: NumPy/BLAS.

    Attributes
    ----------
    coef_, intercept_, dual_coef_, classes_, lmbd_
        As the other estimators'; ``dual_coef_`` is the implied dual of ``coef_``.
    primal_, dual_, rel_gap_ : float or ndarray of shape (n_classes,)
        The certified bounds ``dual_ <= P* <= primal_`` and (P − D)/|P|.
    duality_gap_, converged_, n_epochs_ (Newton steps), epoch_times_, epoch_wall_times_
    step_sizes_, line_search_evals_ : ndarray of shape (n_epochs_,), or a list of them
        The line search's t of each step, and its evaluations of f'.
    """

    _parameter_constraints: dict = {
        "lmbd": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "loss": [StrOptions(set(losses.LOSSES))],  # "hinge" refused with advice (_check_params)
        "gamma": [Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "bias_multiplier": [Interval(Real, 0, None, closed="left")],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "callback": [callable, None],
        **DEVICE_CONSTRAINT,
    }

    #: What the driver reads of the other estimators: no warm start, no randomness.
    warm_start = False
    random_state = None

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="squared_hinge",
        gamma=1.0,
        max_iter=50,
        tol=1e-10,
        bias_multiplier=1.0,
        class_weight=None,
        callback=None,
        device="cpu",
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.max_iter = max_iter
        self.tol = tol
        self.bias_multiplier = bias_multiplier
        self.class_weight = class_weight
        self.callback = callback
        self.device = device

    @property
    def max_epochs(self) -> int:
        """The driver's step budget: ``max_iter``."""
        return self.max_iter

    def fit(self, X, y, sample_weight=None):
        """Fit on dense X (see :meth:`sdca_pegasos.solvers.driver.estimator.BaseLinearSVM.fit`;
        with ``device="cuda"`` X may be on the GPU: :mod:`sdca_pegasos.solvers.gpu.device`);
        sparse X, on the host or the device, is refused with a TypeError that names the
        alternative."""
        if sp.issparse(X) or getattr(X, "format", None) == "csr":
            self._validate_params()
            raise TypeError(
                f"{type(self).__name__} takes dense X only: it forms the (n_features + 1)² "
                "Hessian from dense rows. For sparse (CSR) X use "
                "SDCAClassifier(device='cuda'), whose rounds read the stored entries only "
                "(or X.toarray() if n_features is small)."
            )
        return super().fit(X, y, sample_weight)

    def _check_params(self) -> None:
        if self.loss == "hinge":
            raise ValueError(
                f"{type(self).__name__} needs a smooth loss (loss='squared_hinge' or "
                "'smooth_hinge'): the hinge has no second derivative, so no Newton step. "
                "For the hinge use SDCAClassifier(device='cuda') (or ExactSVMClassifier on the "
                "CPU for a certified optimum)."
            )

    def _check_problem(self, problem: Problem) -> None:
        if problem.n_features > MAX_FEATURES:
            raise ValueError(
                f"{type(self).__name__} forms the (n_features + 1)² Hessian: at most "
                f"{MAX_FEATURES} features, got {problem.n_features}. Use "
                "SDCAClassifier(device='cuda') for wide data."
            )

    def _kernel_key(self) -> tuple:
        return (self.device,)

    def _engine(self, problem: Problem, rng: np.random.Generator) -> NewtonEngine:
        return NewtonEngine(problem, loss=self.loss_function)

    def _gpu_fit(self, problem: Problem, data):
        """One binary problem on the device:
        :class:`~sdca_pegasos.solvers.gpu.newton_device.GPUNewtonEngine` driven by the fit
        loop."""
        from sdca_pegasos.solvers.driver.loop import run
        from sdca_pegasos.solvers.gpu.newton_device import GPUNewtonEngine

        engine = GPUNewtonEngine(problem, data, loss=self.loss_function)
        return run(engine, self._settings(problem, ", device='cuda'"))

    def _settings(self, problem: Problem, where: str = "") -> Settings:
        """The base's settings, with every step checked and the budget named ``max_iter``."""
        return dataclasses.replace(
            super()._settings(problem, where),
            check_every=1,
            steps_name="max_iter",
            advice="A Newton method converges in a few tens of steps when the data are "
            "scaled; more steps than that suggest a badly scaled problem.",
        )

    def _store(self, fits) -> None:
        """The base's attributes; the per-step arrays of a one-vs-rest fit, whose lengths
        differ by class, as a list of them."""
        ragged = {
            name: [f.attributes.pop(name) for f in fits]
            for name in ("step_sizes_", "line_search_evals_")
        }
        super()._store(fits)
        for name, values in ragged.items():
            setattr(self, name, values[0] if len(fits) == 1 else values)

    def _warm_up_for(self, X, weighted: bool = False) -> None:
        """Compile the device's kernels (or nothing on the CPU) on an 8 × 3 problem of X's
        dtype before the timed fit."""
        key = (type(self), layout_key(X), weighted, self._kernel_key())
        if key in WARMED:
            return
        if self.device == "cuda":
            rng = np.random.default_rng(0)
            Xt = rng.standard_normal((8, 3)).astype(X.dtype)
            yt = np.array([1.0, -1.0] * 4)
            tiny = clone(self).set_params(lmbd=WARM_UP_LMBD, callback=None, max_iter=2)
            tiny.classes_ = np.array([-1.0, 1.0])
            tiny._warn_unconverged = False
            weights = np.linspace(0.5, 1.5, 8) if weighted else None
            problem = Problem(Xt, yt, WARM_UP_LMBD, float(self.bias_multiplier), weights, 1.0, 2)
            tiny._fit_binary(problem)
        WARMED.add(key)
