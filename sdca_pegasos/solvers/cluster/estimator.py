r"""One linear SVM trained across a dask cluster: CoCoA+ with SDCA as the local solver,
stopped and certified on the duality gap summed over the blocks.

:class:`DaskSVMClassifier` minimises the objective of :mod:`sdca_pegasos.solvers.core.objectives`,
:math:`P(\tilde w) = \frac\lambda2\|\tilde w\|^2 + \frac1n\sum_i c_i\phi(y_i\tilde x_i^\top \tilde
w)`, over data given as dask arrays whose row chunks are the blocks (dense or scipy.sparse CSR
chunks; :func:`sdca_pegasos.solvers.cluster.shards.read_shards` reads a folder of files into such
arrays on the workers), dask DataFrames, or data in memory (NumPy, SciPy, pandas) that ``fit``
scatters to the workers in row chunks. Every chunk is checked on its worker before any round
(finite numbers in X, classes in y, finite weights >= 0), and a refused one is a :class:`BadInput`
(a ValueError) raised in the user's process, naming the chunk or the shard's file. Each round (Ma
et al., ICML 2015; Smith et al., JMLR 2018):

1. every block k runs ``local_epochs`` SDCA passes over its rows on its local subproblem
1. (``"auto"``: about as much local work as the round's fixed cost), which is SDCA with
1. :math:`\lambda n` replaced by :math:`\lambda n/\sigma'` started from :math:`v = \tilde w`
1. (:mod:`sdca_pegasos.solvers.cluster.blocks` derives it), and returns :math:`v_k`;
2. the driver adds: :math:`\tilde w \leftarrow \tilde w + \frac{1}{\sigma'}\sum_k (v_k -
   \tilde w)` (γ = 1, σ' = K, the safe value for adding: Ma et al.'s Lemma 4 with
   :math:`\sigma' = \gamma K` bounds the blocks' joint step by the sum of their local
   models for every data set); or, with ``aggregate="line_search"`` (Lee & Roth, ICML
   2015), each block solves its subproblem with σ' = 1 and the driver steps along the
   blocks' summed direction by the η that maximises the dual on that line, w and every
   block's α alike (:func:`sdca_pegasos.solvers.cluster.rounds.line_step`).

For a smooth loss, ``method="newton"`` replaces these rounds by truncated Newton steps on the
primal (:mod:`sdca_pegasos.solvers.cluster.newton`): every sum one task per worker over the
chunks it holds, added pairwise on the workers, so that the steps do not depend on the
blocks; a round is a step of :class:`sdca_pegasos.solvers.cluster.newton.NewtonClusterEngine`.

The blocks, their dual variables and their random streams stay on the workers that made
them: a block's state is a chain of dask futures, one per round, and only d-sized vectors
travel (w to each block, :math:`v_k` back: ``bytes_per_round_``). The driver holds
:math:`O(d)`, never an n-sized array.

The rounds are driven by the one fit loop of every estimator,
:func:`sdca_pegasos.solvers.driver.loop.run`, a round a step of the engine
:class:`sdca_pegasos.solvers.cluster.rounds.ClusterEngine`: the driver times the rounds, decides
when a round is checked (:class:`sdca_pegasos.solvers.driver.loop.CheckSchedule`: the first two
rounds, then where the log-gap of the last two checks, extrapolated, predicts the target, and
at least every ``check_every`` rounds), calls ``callback`` with its record
(:class:`sdca_pegasos.solvers.driver.problem.EpochInfo`), and warns when ``max_rounds`` end a
fit above ``tol``.

Certificate. At a check each block computes its compensated partial sums of
:math:`P(\tilde w)` and :math:`D(\alpha)`
(:func:`sdca_pegasos.solvers.core.objectives.certificate_sums`), which the driver adds without
rounding and bounds outward (:func:`sdca_pegasos.solvers.core.objectives.combine_certificate`): the
same certified bounds as :func:`sdca_pegasos.solvers.core.objectives.certificate` on the whole
data. The same pass returns :math:`\tilde w(\alpha)` summed over the blocks, which replaces the
driver's w (the rounding drift of the additions is gone). A fit stops when the relative gap is at
most ``tol``; it is declared ``certified_`` only after one more pass certifies the returned pair
itself, :math:`(\tilde w(\alpha), \alpha)`.

Faults. A block lost with its worker is recomputed by dask from its chain: from the last
checkpoint when ``checkpoint_dir`` is set (each block's α and stream are written there
every ``checkpoint_every`` rounds and its chain restarts from the file), else from the
fit's first round. Each round is a deterministic function of the block's state and of w,
so the replayed rounds give the same α bit for bit, the driver's w stays w(α), and the fit
ends where it would have without the fault. Ctrl-C on the driver leaves the checkpoint
(and says how to resume: ``warm_start=True`` with the same ``checkpoint_dir``).
"""

from __future__ import annotations

import os
from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.linear_model._base import LinearClassifierMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data

from sdca_pegasos.solvers.cluster import blocks as _cocoa
from sdca_pegasos.solvers.cluster import layout as _cocoa_layout
from sdca_pegasos.solvers.cluster import newton as _newton
from sdca_pegasos.solvers.cluster import rounds as _cocoa_rounds
from sdca_pegasos.solvers.cluster.blocks import BadInput
from sdca_pegasos.solvers.core import losses
from sdca_pegasos.solvers.driver.loop import GAP_CHECK_EVERY, Settings, run
from sdca_pegasos.solvers.driver.problem import BinaryFit, canonical
from sdca_pegasos.solvers.driver.scales import resolve_lmbd
from sdca_pegasos.solvers.driver.targets import (
    TargetsMixin,
    class_weight_map,
    refuse_weightless_sides,
)

__all__ = ["BadInput", "DaskSVMClassifier", "expected_failed_checks"]


def _refuse_text_columns(X) -> None:
    """Refuse a pandas or dask DataFrame X with columns that do not hold numbers, naming
    them (NumPy's conversion error names a value, not its column). A pandas column of
    dtype object is refused only when its values are not numbers; a dask DataFrame's is
    left to the workers' check of its chunks (its values are there)."""
    import pandas as pd
    from pandas.api.types import is_bool_dtype, is_numeric_dtype, is_object_dtype

    in_memory = isinstance(X, pd.DataFrame)
    if not (in_memory or (_cocoa_layout.is_dask_frame(X) and X.ndim == 2)):
        return
    text = {}
    for name, dtype in X.dtypes.items():
        if is_numeric_dtype(dtype) or is_bool_dtype(dtype):
            continue
        if is_object_dtype(dtype):
            if not in_memory:
                continue
            try:
                np.asarray(X[name], dtype=np.float64)
                continue
            except (TypeError, ValueError):
                pass
        text[name] = str(dtype)
    if text:
        shown = ", ".join(f"{name!r} ({dtype})" for name, dtype in list(text.items())[:5])
        raise ValueError(
            f"X's column{'s' * (len(text) > 1)} {shown}{' …' * (len(text) > 5)} "
            f"hold{'' if len(text) > 1 else 's'} values that are not numbers: encode them as "
            "numbers (e.g. pandas.get_dummies or sklearn.preprocessing.OneHotEncoder) or "
            "drop them before fitting."
        )


def _names_proxy(X):
    """What scikit-learn reads X's feature names and count from: for a dask DataFrame, an
    empty pandas DataFrame of its columns (nothing computed); else X itself."""
    if _cocoa_layout.is_dask_frame(X) and X.ndim == 2:
        import pandas as pd

        return pd.DataFrame(columns=X.columns)
    return X


class _Setup(NamedTuple):
    """What every binary problem of one ``fit`` shares: the client, the blocks' data
    futures and layout (``groups`` of chunks, rows per chunk ``sizes``), d, the class
    weights, whether there are two classes, λ, the loss, the finish's row cap, and the
    blocks whose rows hold one class (block: that class)."""

    client: object
    data: list
    groups: list
    sizes: list
    d: int
    class_weights: dict | None
    two: bool
    lmbd: float
    loss: losses.Loss
    finish_rows: int
    one_class: dict


class DaskSVMClassifier(TargetsMixin, LinearClassifierMixin, BaseEstimator):
    r"""Linear SVM by CoCoA+ over a dask cluster, certified by the duality gap.

    Parameters
    ----------
    lmbd : float or "auto", default="auto"
        :math:`\lambda > 0`; ``"auto"``: :math:`1/n`, n the total number of rows.
    loss : {"hinge", "smooth_hinge", "squared_hinge"}, default="hinge"
    gamma : float, default=1.0
        Smoothing of ``smooth_hinge``.
    n_blocks : "auto", int or None, default="auto"
        K, the blocks of CoCoA+ (σ' = K). ``"auto"``: one block per worker thread of the
        client's cluster (at most one per row chunk). When all the rows take at most a
        third of the workers' total ``memory_limit``, X's rows are dealt to the blocks in
        turn, row g to block g mod K, and each block's rows merged into one array
        on its worker (its rows permuted together, one task a round): every
        block then holds a sample of the whole file, whatever its order (rows sorted by
        label or by source otherwise leave the blocks' subproblems apart and CoCoA+
        stalled, docs/distributed.md), for one move of the rows between workers. Else the
        row chunks are grouped in order into K consecutive blocks, each visiting its
        chunks one at a time as with an int. CoCoA+ needs more rounds the more blocks
        it adds, and blocks on one worker thread run one after the other anyway
        (docs/distributed.md measures a chunk per block against one block per worker).
        The same seed gives the same bits on clusters of as many threads. None: every row
        chunk of X is a block. An int: the row chunks, in order, are grouped into K
        consecutive blocks of as equal a number of chunks as can be, each block's chunks
        placed on one worker when there are enough; a block's local pass visits its chunks
        one at a time (their order drawn from the block's stream each pass, each chunk's
        rows in a permutation of its own stream), so a block needs only one chunk in memory
        at a time and the rest may be spilled to disk: data larger than the workers'
        memory, with few blocks.
    local_epochs : int or "auto", default="auto"
        SDCA passes of each block over its rows per round. ``"auto"``: as many as make the
        largest block's passes visit about 2**23 stored entries (and rows), between 1 and
        64 (``local_epochs_``; it depends on the data's sizes only, so the same
        seed still gives the same bits). A round has fixed
        costs — the tasks' latency, the certificate, w's trip — of tens of milliseconds
        even on one machine, which one pass over a small block does not outweigh; "auto"
        spends about as much on local passes (docs/distributed.md measures both). Blocks
        of several chunks (``n_blocks``) make one pass per round under ``"auto"``: each of
        their passes is already a chain of tasks, one per chunk, whose latency more passes
        would multiply, not amortise.
    shrinking : bool, default=True
        Each local pass an epoch of SDCA with shrinking (as ``SDCAClassifier(shrinking=
        True)`` makes it: passes over the rows not held at a bound, at most the chunk's
        rows' worth of steps), the active set carried from round to round on the worker
        (every row active again after a finish; the other blocks' updates move v, and a
        row shrunk out wrongly is back at the next full pass). The certificate is over
        every row whatever was shrunk. False: each pass a plain permutation of the
        rows. docs/distributed.md measures both.
    finish : bool, default=True
        When CoCoA+ stalls (a checked gap above half the one two checks before), the next round is
        a finish instead: the rows nearest the margin at w, at most about
        :data:`sdca_pegasos.solvers.cluster.rounds.FINISH_ROWS` of them in proportion to each
        chunk's rows, are gathered on the driver and solved together by epochs of SDCA with
        shrinking on the whole problem's dual, the other α fixed (σ' = 1: the dual cannot
        decrease), and their new α go back to their blocks; a finish that cut the gap by more than
        CoCoA+ did per check when the finishes began is followed by another, and after one that did
        not, CoCoA+ makes 4 checked rounds before the next can be due, then 8, …
        (:class:`sdca_pegasos.solvers.cluster.rounds.FinishSchedule`). CoCoA+ adds K blocks' steps
        with σ' = K, and on the hinge with an intercept it can crawl for hundreds of rounds a
        factor or two above 1e-6 (docs/distributed.md). The driver then holds those rows.
        ``n_finishes_`` counts the finish rounds.
    aggregate : {"add", "line_search"}, default="add"
        How a round combines the blocks' steps. ``"add"``: CoCoA+'s adding with σ' = K
        (each block's step damped by K: safe for every data set, and the rounds grow with
        K). ``"line_search"``: each block solves its local subproblem with σ' = 1
        (:data:`sdca_pegasos.solvers.cluster.rounds.LINE_SEARCH_SIGMA`), as if the other
        blocks stood still, and returns with :math:`v_k` three scalars of its direction
        :math:`\Delta\alpha_{[k]}` (:func:`sdca_pegasos.solvers.cluster.blocks.line_sums`:
        no more passes over the rows); the driver sums the directions, Δα and Δw, and takes
        the step η ∈ [0, η_max] that maximises :math:`D(\alpha + \eta\Delta\alpha)`, a concave
        quadratic in η for every loss here (the conjugate's :math:`\kappa a^2/(2c)` terms
        included), η_max the largest step that keeps every :math:`a_i` in its box (at least
        1); w ← w + ηΔw and every block's α ← α + ηΔα_[k] (a task on its worker, before
        the round's check). ``step_sizes_`` records each round's η. With one block a round
        is the same as adding (SDCA's epochs). docs/distributed.md ("Aggregation by line
        search") measures both: on skin, fewer rounds and passes at every K > 1; on the
        tests' small problems, where the finish solves every row at once, more rounds at
        the defaults (line search's steadier progress postpones the stall that calls the
        finish), hence the default ``"add"``.
    method : {"cocoa", "newton"}, default="cocoa"
        ``"cocoa"``: CoCoA+'s rounds above. ``"newton"`` (a smooth loss only:
        ``loss="smooth_hinge"`` or ``"squared_hinge"``; the hinge has no Hessian): each round
        is a truncated Newton step on the primal, its gradient, Hessian-vector products and
        line search summed over every row chunk on the workers
        (:mod:`sdca_pegasos.solvers.cluster.newton`), so that its rounds and passes do not
        depend on the blocks, which then only say where the certificate's sums merge;
        ``local_epochs``, ``shrinking``, ``finish`` and ``aggregate`` are not read,
        ``checkpoint_dir`` is refused, a warm start starts from w(α) of the last fit's
        ``dual_coef_`` (which is α̃(w), the dual point the returned w implies).
        ``n_rounds_`` counts Newton steps, ``data_passes_`` their passes over the rows
        (gradient, conjugate-gradient products, margins along the step:
        ``cg_iterations_`` per step), ``step_sizes_`` their line search's t, and
        ``certificate_passes_`` the compensated certificates' passes: a check first reads
        P(w) and D(α̃(w)) from the gradient's pass, in plain floating point, and while that
        estimate's relative gap is above twice ``tol`` it is the check's reading (the
        callback's ``gap``, ``primal`` and ``dual``; ``estimated_checks_`` counts them);
        below, and for the pair returned, the certificate is the full one.
        ``round_trips_`` counts the sums the driver waited on (a pass's reduction, a line
        search's evaluation, a certificate): each costs the cluster's task latency.
    max_rounds : int, default=200
    tol : float, default=1e-6
        Stop once the certified relative gap :math:`(P - D)/|P|` is at most ``tol``.
    check_every : int or "auto", default="auto"
        A certificate at least every this many rounds (each costs one pass over the data;
        for a smooth loss three, four with an intercept: ``certificate_passes_``). The
        rounds checked are the one fit loop's
        (:class:`sdca_pegasos.solvers.driver.loop.CheckSchedule`): the first two, then the
        round where the log-gap of the last two checks, extrapolated, is half way to 2·tol
        (relative) and every round from there, and at least every ``check_every`` rounds;
        1 checks every round. A finish is decided at a check, and the round after a finish
        is always checked (:class:`sdca_pegasos.solvers.cluster.rounds.FinishSchedule`).
        ``"auto"``: for CoCoA+ :data:`sdca_pegasos.solvers.driver.loop.GAP_CHECK_EVERY`, the
        single-process estimators' (a CoCoA+ check is a full compensated pass, often more
        than the round's own work, docs/distributed.md); for ``method="newton"`` 1 (its check
        reads an estimate free with the gradient's pass first). ``check_every_`` is the
        value used.
    bias_multiplier : float, default=1.0
    random_state : int, numpy Generator or None, default=None
        ``numpy.random.default_rng(random_state).spawn(K)``: block k's stream.
    class_weight : dict, "balanced" or None, default=None
        As :class:`sdca_pegasos.solvers.SDCAClassifier`'s, computed by the same functions
        (:mod:`sdca_pegasos.solvers.driver.targets`) from the classes' counts (their total
        ``sample_weight``), which the workers count.
    warm_start : bool, default=False
        Start from the last fit's α (``dual_coef_``, same rows, features and classes, as
        :class:`sdca_pegasos.solvers.SDCAClassifier` checks them: a refused start leaves the
        fit as it was), or, with ``checkpoint_dir`` holding a checkpoint of the same data,
        from that checkpoint.
    checkpoint_dir : str or None, default=None
        A folder every worker can write and read (shared storage): each block's α and
        random stream are saved there every ``checkpoint_every`` rounds.
    checkpoint_every : int, default=5
    callback : callable or None, default=None
        ``callback(info)`` after every round with its
        :class:`sdca_pegasos.solvers.driver.problem.EpochInfo`, every estimator's record:
        ``epoch`` the round, ``w`` the driver's weight vector (full, last entry the bias
        weight; ``dual_coef`` None: α is on the workers), ``cpu_time`` the CPU seconds of
        the blocks' local passes summed over the blocks, ``wall_time`` the round's wall
        seconds (local passes, transfers, checkpoint; not its check), ``gap``, ``primal``
        and ``dual`` the round's certificate (None when it made no check; the relative gap
        is ``gap / abs(primal)``; ``info.bounds()`` certifies the round's w on demand, and
        ``info.output_w()`` certifies what the fit would return, one or two passes over the
        rows each, changing nothing), ``n_samples_seen`` the local passes' coordinate steps
        so far, and the round's own fields ``data_passes`` (those steps over n), ``finish``,
        ``block_cpu`` (each block's CPU seconds, a finish's the driver's solve) and
        ``check_wall`` (the check's wall seconds, 0.0 when none). ``True`` (or a NumPy
        bool) stops; None or False goes on; anything else is a TypeError.

    Attributes
    ----------
    coef_, intercept_, classes_, lmbd_ :
        As :class:`sdca_pegasos.solvers.SDCAClassifier`.
    dual_coef_ : dask array of shape (n_samples,) or (n_classes, n_samples)
        The signed α, kept on the workers, the rows in X's order and chunked as X's rows
        (with blocks of dealt rows: interleaved back from them). Pickling computes it
        into a NumPy array, which an unpickled fit holds (:meth:`__getstate__`).
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        The column names of a pandas or dask DataFrame X (absent otherwise), which
        ``predict`` and ``decision_function`` check, as scikit-learn's estimators do.
    certified_ : bool or ndarray of bool
        Whether the returned pair's certified relative gap is at most ``tol``.
    rel_gap_, primal_, dual_ : float or ndarray
        The certificate of the returned coefficients (bounds of P* with rounding
        included): ``primal_`` their P; ``dual_`` the larger of D(α) and, for a smooth
        loss, D(α̃(w')) (:func:`sdca_pegasos.solvers.cluster.rounds.certify`). The coefficients are
        w(α) or, for a smooth loss, w(α) with its bias weight moved by one Newton step
        where that lowers P.
    n_rounds_ : int or ndarray
    n_finishes_ : int or ndarray
        Rounds that were a finish (``finish``), among ``n_rounds_``.
    data_passes_ : float or ndarray
        The local solvers' coordinate steps over the rows, divided by n: passes' worth of
        steps (``n_rounds_ * local_epochs_`` without shrinking, at most that with it).
    local_epochs_ : int
        The local passes per round this fit made (``local_epochs`` resolved).
    check_every_ : int
        The most rounds between two checks of this fit (``check_every`` resolved).
    certificate_passes_ : int or ndarray
        Passes over the data by the certificates, as
        :func:`sdca_pegasos.solvers.cluster.rounds.certify` counts them: one per check (P(w),
        D(α)); for a smooth loss three, or four with an intercept (the bias weight's Newton step to
        w', the margins and P(w'), D(α̃(w')) of the dual point w' implies).
    round_times_, round_cpu_times_ : ndarray or list of them
        Wall seconds of each round (local passes, transfers, checkpoint; its check is
        ``EpochInfo.check_wall``), and CPU seconds of its local passes (all blocks).
    n_blocks_ : int
        K.
    step_sizes_ : ndarray or list of them
        Each round's step η along the blocks' summed direction: the line search's
        (``aggregate="line_search"``), 1.0 when adding (or with one block), NaN for a
        finish.
    bytes_per_round_ : int
        Bytes of the vectors a round moves between the driver and the blocks, at most:
        w to each block, v from each chunk to the next of its block and v_k back,
        (n_chunks + K)·(d + 1)·8 (2·K·(d + 1)·8 when every chunk is a block).
    """

    _parameter_constraints: dict = {
        "lmbd": [Interval(Real, 0, None, closed="neither"), StrOptions({"auto"})],
        "loss": [StrOptions({"hinge", "smooth_hinge", "squared_hinge"})],
        "gamma": [Interval(Real, 0, None, closed="left")],
        "n_blocks": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"}), None],
        "local_epochs": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "shrinking": ["boolean"],
        "finish": ["boolean"],
        "aggregate": [StrOptions({"add", "line_search"})],
        "method": [StrOptions({"cocoa", "newton"})],
        "max_rounds": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "check_every": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "bias_multiplier": [Interval(Real, 0, None, closed="left")],
        "random_state": [Interval(Integral, 0, None, closed="left"), np.random.Generator, None],
        "class_weight": [dict, StrOptions({"balanced"}), None],
        "warm_start": ["boolean"],
        "checkpoint_dir": [str, os.PathLike, None],
        "checkpoint_every": [Interval(Integral, 1, None, closed="left")],
        "callback": [callable, None],
    }

    #: For a smooth loss, certify with D(α̃(w)) too, the dual point that w implies
    # (:func:`sdca_pegasos.solvers.core.objectives.implied_dual`): one more pass over the rows at
    # each check.
    #: False (tests, benchmarks) certifies with D(α) alone.
    _IMPLIED_DUAL = True
    #: With it and an intercept, the candidate w' takes one Newton step on its bias weight.
    _BIAS_STEP = True

    def __init__(
        self,
        lmbd="auto",
        *,
        loss="hinge",
        gamma=1.0,
        n_blocks="auto",
        local_epochs="auto",
        shrinking=True,
        finish=True,
        aggregate="add",
        method="cocoa",
        max_rounds=200,
        tol=1e-6,
        check_every="auto",
        bias_multiplier=1.0,
        random_state=None,
        class_weight=None,
        warm_start=False,
        checkpoint_dir=None,
        checkpoint_every=5,
        callback=None,
    ):
        self.lmbd = lmbd
        self.loss = loss
        self.gamma = gamma
        self.n_blocks = n_blocks
        self.local_epochs = local_epochs
        self.shrinking = shrinking
        self.finish = finish
        self.aggregate = aggregate
        self.method = method
        self.max_rounds = max_rounds
        self.tol = tol
        self.check_every = check_every
        self.bias_multiplier = bias_multiplier
        self.random_state = random_state
        self.class_weight = class_weight
        self.warm_start = warm_start
        self.checkpoint_dir = checkpoint_dir
        self.checkpoint_every = checkpoint_every
        self.callback = callback

    @property
    def loss_function(self) -> losses.Loss:
        return losses.make_loss(self.loss, self.gamma)

    # ---------------------------------------------------------------- fit
    def fit(self, X, y, sample_weight=None):
        """Fit on the rows of X, as blocks on the cluster of the current dask client.

        Every row chunk is checked on its worker as it is built, before any round: finite
        numbers in X, classes in y (no NaN or infinity, no continuous target: floats that
        are not whole numbers), finite weights >= 0. A refused chunk is a ValueError
        (:class:`BadInput`) raised here, naming the chunk and its rows (row chunk k, rows
        a to b) and the first bad value's row and column; the workers log nothing.

        Parameters
        ----------
        X : dask array or DataFrame, NumPy array, scipy.sparse matrix or pandas DataFrame
            of shape (n_samples, n_features)
            A dask array's row chunks are the rows' chunks on the workers (dense or
            scipy.sparse CSR chunks, one chunk across the features or rechunked to one); a
            dask DataFrame's partitions likewise (their lengths computed first:
            ``to_dask_array(lengths=True)``). Data in memory (NumPy, SciPy, pandas) are
            checked on the driver as scikit-learn's estimators check them, cut into one
            row chunk per worker thread of the cluster (``n_blocks`` chunks when it is a
            larger int) and scattered to the workers. A DataFrame's column names are
            ``feature_names_in_``.
        y : array-like of shape (n_samples,)
            Classes (two or more, of any type), a dask array or Series chunked like X's
            rows (rechunked to them otherwise) or in memory.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights >= 0, as y.

        Returns
        -------
        self
        """
        self._validate_params()
        if self.method == "newton":
            if not self.loss_function.smooth:
                raise ValueError(
                    "method='newton' needs a smooth loss (it takes the loss's second "
                    f"derivative; {self.loss!r} has none): use loss='smooth_hinge' or "
                    "loss='squared_hinge', or method='cocoa' for the hinge"
                )
            if self.checkpoint_dir is not None:
                raise ValueError(
                    "method='newton' writes no checkpoints (its state is w, a few steps "
                    "from the start): use checkpoint_dir=None, or method='cocoa'"
                )
        client = _cocoa_layout.client()
        X, y, sample_weight = self._rows(client, X, y, sample_weight)
        sizes = [int(c) for c in X.chunks[0]]
        n, d = int(X.shape[0]), int(X.shape[1])
        groups = _cocoa_layout.chunk_groups(client, len(sizes), self.n_blocks)
        data = _cocoa_layout.persist_blocks(client, X, y, sample_weight, groups)
        layout = _cocoa_layout.RowLayout(sizes)
        if self.n_blocks == "auto":
            data, sizes, groups, layout = _cocoa_layout.deal(client, data, sizes, groups)
        self.n_features_in_ = d
        previous = getattr(self, "classes_", None)
        weighted = sample_weight is not None
        classes, counts, chunk_classes = _cocoa_layout.class_counts(client, data, weighted)
        works = client.gather([client.submit(_cocoa.block_work, b) for b in data])
        self.local_epochs_ = _cocoa_layout.resolve_local_epochs(self.local_epochs, works, groups)
        self.check_every_ = self._check_every()
        finish_rows = _cocoa_layout.max_finish_rows(works, n)
        two = classes.shape[0] == 2
        self.classes_ = classes
        positives = self._positive_classes()
        inits = self._warm_inits(client, X, previous, sizes, layout, d, len(positives))
        # the weights' maths of every estimator (driver.targets), on the workers' counts
        class_weights = class_weight_map(self.class_weight, classes, counts)
        self._class_weight_map = class_weights
        for positive in positives:
            refuse_weightless_sides(classes, counts, class_weights, positive)
        lmbd = resolve_lmbd(self.lmbd, n)
        loss = self.loss_function
        one_class = {  # block: its one class, for the blocks whose rows hold one class
            k: labels[0].item() if hasattr(labels[0], "item") else labels[0]
            for k, group in enumerate(groups)
            if (labels := np.unique(np.concatenate([chunk_classes[c] for c in group]))).size == 1
        }
        setup = _Setup(
            client, data, groups, sizes, d, class_weights, two, lmbd, loss, finish_rows, one_class
        )
        fits = [
            self._fit_problem(setup, j, positive, None if inits is None else inits[j])
            for j, positive in enumerate(positives)
        ]
        self._store(client, fits, sizes, layout)
        self.lmbd_ = lmbd
        self.n_blocks_ = len(groups)
        self.bytes_per_round_ = (len(sizes) + len(groups)) * (d + 1) * 8
        return self

    def _rows(self, client, X, y, sample_weight) -> tuple:
        """``(X, y, sample_weight)`` as dask arrays of the same row chunks, the features'
        count and names recorded (``n_features_in_``, ``feature_names_in_``)."""
        if _cocoa_layout.is_dask(X):
            _refuse_text_columns(X)
            names = _names_proxy(X)  # before X becomes an array
            rows = _cocoa_layout.as_rows(client, X, y, sample_weight)
            validate_data(self, names, skip_check_array=True)
            return rows
        _refuse_text_columns(X)
        if _cocoa_layout.is_dask(y):
            y = y.compute()
        if _cocoa_layout.is_dask(sample_weight):
            sample_weight = sample_weight.compute()
        X, y = validate_data(
            self,
            X,
            y,
            dtype=[np.float64, np.float32],
            order="C",
            ensure_min_samples=2,
            accept_sparse="csr",
        )
        check_classification_targets(y)
        if sample_weight is not None:
            sample_weight = _check_sample_weight(
                sample_weight, X, dtype=np.float64, ensure_non_negative=True
            )
        X = canonical(X)
        sizes = _cocoa_layout.in_memory_chunks(client, X.shape[0], self.n_blocks)
        groups = _cocoa_layout.chunk_groups(client, len(sizes), self.n_blocks)
        return _cocoa_layout.scatter_rows(client, X, y, sample_weight, sizes, groups)

    def _warm_inits(self, client, X, previous, sizes, layout, d, n_problems) -> list | None:
        """Per problem, per block, the α to start from (futures or arrays, or a checkpoint's
        files), or None. A fit's start is checked as every estimator checks it
        (:meth:`sdca_pegasos.solvers.driver.targets.TargetsMixin._fitted_inits`: the same
        classes, features and rows; a refused one leaves ``classes_`` as it was)."""
        if not self.warm_start:
            return None
        from_checkpoint = _cocoa_rounds.checkpoint_inits(self.checkpoint_dir, sizes, d, n_problems)
        if from_checkpoint is not None:
            return from_checkpoint
        inits = self._warm_start_inits(X, previous)
        if inits is None:
            return None
        duals = [init.dual_coef for init in inits]
        if isinstance(duals[0], np.ndarray):  # an unpickled fit's: scattered
            return [client.scatter(layout.from_rows(dual)) for dual in duals]
        return [client.compute(layout.from_rows(dual)) for dual in duals]

    # ---------------------------------------------------------------- one binary problem
    def _fit_problem(self, setup: _Setup, j: int, positive, init) -> BinaryFit:
        """CoCoA+ rounds on binary problem ``j`` (``positive`` against the rest) until
        certified or ``max_rounds``, from α = ``init`` (or 0): a
        :class:`sdca_pegasos.solvers.cluster.rounds.ClusterEngine` driven by the one fit loop
        (:func:`sdca_pegasos.solvers.driver.loop.run`)."""
        client, data, groups, sizes, d, class_weights, two, lmbd, loss, _, _ = setup
        n = sum(sizes)
        problem = _cocoa_rounds.ClusterProblem(
            n, d, lmbd, float(self.bias_multiplier), positive, class_weights, two
        )
        if self.method == "newton":
            engine = _newton.NewtonClusterEngine(
                client, data, groups, problem, loss=loss, tol=self.tol, init=init,
                workers=sorted(_cocoa_layout.workers(client)),
            )  # fmt: skip
        else:
            engine = self._cocoa_engine(setup, j, problem, init)
        settings = Settings(
            steps=self.max_rounds,
            tol=self.tol,
            relative=True,  # tol bounds (P - D)/|P|
            callback=self.callback,
            name=type(self).__name__,
            detail="" if setup.two else f", class {positive}",
            advice=self._unconverged_advice(setup),
            steps_name="max_rounds",
            check_every=self.check_every_,
        )
        try:
            return run(engine, settings)
        except KeyboardInterrupt as err:
            where = "no checkpoint (checkpoint_dir=None)"
            if engine.folder is not None and engine.last_checkpoint is not None:
                where = (
                    f"the checkpoint in {engine.folder} (round {engine.last_checkpoint}); "
                    f"resume with DaskSVMClassifier(..., checkpoint_dir={engine.folder!r}, "
                    "warm_start=True).fit(X, y) on the same data and chunks"
                )
            err.add_note(f"DaskSVMClassifier.fit interrupted at round {engine.round}: {where}.")
            raise

    def _check_every(self) -> int:
        """``check_every`` resolved: ``"auto"`` is 1 for Newton's rounds, whose check first
        reads a free estimate, and the single-process estimators' spacing for CoCoA+'s,
        whose every check is a compensated pass."""
        if self.check_every != "auto":
            return int(self.check_every)
        return 1 if self.method == "newton" else GAP_CHECK_EVERY

    def _cocoa_engine(self, setup: _Setup, j: int, problem, init):
        """CoCoA+'s engine of binary problem ``j`` (``method="cocoa"``)."""
        client, data, groups, sizes, _, _, two, _, loss, finish_rows, _ = setup
        return _cocoa_rounds.ClusterEngine(
            client,
            data,
            groups,
            sizes,
            problem,
            loss=loss,
            local_epochs=self.local_epochs_,
            shrinking=self.shrinking,
            finish=self.finish,
            finish_rows=finish_rows,
            tol=self.tol,
            implied=self._IMPLIED_DUAL,
            bias_step=self._BIAS_STEP,
            folder=None if self.checkpoint_dir is None else os.fspath(self.checkpoint_dir),
            checkpoint_every=self.checkpoint_every,
            max_rounds=self.max_rounds,
            index=j,
            n_problems=1 if two else len(self.classes_),
            rng=np.random.default_rng(self.random_state),
            init=init,
            aggregate=self.aggregate,
        )

    def _unconverged_advice(self, setup: _Setup) -> str:
        """What the ConvergenceWarning of an uncertified fit says before its generic advice
        (``Settings.advice``): why CoCoA+ may be slow here (an intercept over several blocks or
        chunks, blocks whose rows hold one class)."""
        advice = []
        if self.bias_multiplier > 0 and (len(setup.groups) > 1 or len(setup.sizes) > 1):
            advice.append(
                "With an intercept (bias_multiplier > 0), CoCoA+ over several blocks and "
                "passes chunk by chunk can converge far more slowly than SDCA (measured "
                "in docs/distributed.md); there, one block of one chunk, or "
                "bias_multiplier=0, certified sooner."
            )
        if setup.one_class:
            shown = ", ".join(f"{k} ({c!r})" for k, c in list(setup.one_class.items())[:5])
            many = len(setup.one_class) > 1
            advice.append(
                f"Block{'s' * many} {shown} hold{'' if many else 's'} one class"
                f"{' each' * many}: CoCoA+ over blocks that each see "
                "one class can stall far from the optimum; shuffle the rows before "
                "cutting them into chunks or shards (is the file sorted by label?)."
            )
        return " ".join(advice)

    def _store(self, client, fits: list[BinaryFit], sizes, layout) -> None:
        import dask.array as da

        one = len(fits) == 1
        bias = float(self.bias_multiplier)
        self.coef_ = np.stack([f.w[:-1] for f in fits])
        self.intercept_ = np.array([bias * f.w[-1] for f in fits])

        def per_class(values, dtype=None):
            return values[0] if one else np.array(values, dtype=dtype)

        duals = []
        for f in fits:
            parts = [client.submit(_cocoa.block_alpha, s) for s in f.attributes["states"]]
            duals.append(layout.to_rows(client, parts, sizes))
        self.dual_coef_ = duals[0] if one else da.stack(duals)
        attributes = [f.attributes for f in fits]
        bounds = [a["bounds"] for a in attributes]
        self.certified_ = per_class([a["certified"] for a in attributes], dtype=bool)
        self.rel_gap_ = per_class([b["rel_gap"] for b in bounds], dtype=float)
        self.primal_ = per_class([b["primal"] for b in bounds], dtype=float)
        self.dual_ = per_class([b["dual"] for b in bounds], dtype=float)
        self.n_rounds_ = per_class([f.n_epochs for f in fits], dtype=int)
        self.n_finishes_ = per_class([a["finishes"] for a in attributes], dtype=int)
        self.n_iter_ = max(f.n_epochs for f in fits)
        self.data_passes_ = per_class([a["data_passes"] for a in attributes], dtype=float)
        self.certificate_passes_ = per_class(
            [a["certificate_passes"] for a in attributes], dtype=int
        )
        self.round_times_ = fits[0].epoch_wall_times if one else [f.epoch_wall_times for f in fits]
        self.round_cpu_times_ = fits[0].epoch_times if one else [f.epoch_times for f in fits]
        steps = [a["step_sizes"] for a in attributes]
        self.step_sizes_ = steps[0] if one else steps
        if self.method == "newton":
            for name in ("cg_iterations", "line_search_evals", "estimated_checks", "round_trips"):
                values = [a[name] for a in attributes]
                setattr(self, name + "_", values[0] if one else values)
        else:  # a refit by CoCoA+ makes no Newton steps
            for name in (
                "cg_iterations_", "line_search_evals_", "estimated_checks_", "round_trips_"
            ):  # fmt: skip
                if hasattr(self, name):
                    delattr(self, name)

    # ---------------------------------------------------------------- predict
    def _dask_rows(self, X):
        """A dask X for predicting, as a dask array (a DataFrame's partitions, lengths
        unknown), checked against the fit's features (count and names); None for X in
        memory."""
        import dask.array as da

        if not _cocoa_layout.is_dask(X):
            return None
        check_is_fitted(self)
        names = _names_proxy(X)
        if _cocoa_layout.is_dask_frame(X):
            X = X.to_dask_array()  # partitions of unknown lengths: map_blocks needs none
        elif not isinstance(X, da.Array):
            _cocoa_layout.as_dask(X, "X")  # the TypeError that names what is taken
        if X.ndim != 2:
            raise ValueError(f"X must be 2-d, got {X.ndim}-d (shape {X.shape})")
        validate_data(self, names, reset=False, skip_check_array=True)
        if len(X.chunks[1]) != 1:
            X = X.rechunk({1: -1})
        return X

    def decision_function(self, X):
        """Scores; a dask array for dask input (computed block by block on the workers)."""
        rows = self._dask_rows(X)
        if rows is None:
            return super().decision_function(X)
        coef, intercept = self.coef_, self.intercept_
        scores = rows.map_blocks(
            lambda b: np.asarray(b @ coef.T) + intercept,
            chunks=(rows.chunks[0], (coef.shape[0],)),
            dtype=np.float64,
        )
        return scores[:, 0] if coef.shape[0] == 1 else scores

    def predict(self, X):
        """Classes; a dask array for dask input (computed block by block on the workers)."""
        if not _cocoa_layout.is_dask(X):
            return super().predict(X)
        scores = self.decision_function(X)
        classes = self.classes_
        if scores.ndim == 1:
            return scores.map_blocks(lambda s: classes[(s > 0).astype(int)], dtype=classes.dtype)
        return scores.map_blocks(
            lambda s: classes[s.argmax(axis=1)], drop_axis=1, dtype=classes.dtype
        )

    # ---------------------------------------------------------------- pickling
    def __getstate__(self):
        """The estimator's state for pickling, ``dual_coef_`` computed into a NumPy array:
        a dask array of it points at futures of the fit's cluster, which an unpickled copy
        (another process, or the cluster gone) cannot reach. O(n_samples) floats travel
        from the workers to the process that pickles (n_classes times that in
        one-vs-rest), so pickle a fit while its client is still open; an unpickled fit's
        ``dual_coef_`` is that array (``warm_start`` scatters it to the blocks again)."""
        state = dict(super().__getstate__())  # a copy: object's is the live __dict__
        dual = state.get("dual_coef_")
        if dual is not None and _cocoa_layout.is_dask(dual):
            try:
                state["dual_coef_"] = np.asarray(dual.compute())
            except Exception as err:  # e.g. dask's "Missing dependency": the cluster is gone
                raise RuntimeError(
                    "pickling a DaskSVMClassifier computes its dual_coef_, which lives on the "
                    f"workers of the cluster it was fitted on, and that failed ({err}): pickle "
                    "a fit while that cluster's client is open."
                ) from err
        return state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = True
        tags.input_tags.sparse = True
        return tags


#: The largest ``tol`` at which scikit-learn's sample-weight checks were seen to pass
#: (tests/test_distributed_inputs.py::test_sample_weights_equal_repetition_at_a_certified_optimum).
SAMPLE_WEIGHT_CHECK_TOL = 1e-12

_SAMPLE_WEIGHT_REASON = (
    "weights equal repetition at the optimum (lmbd='auto': C = 1 whatever n), but a fit "
    "stops near it, at a certified relative gap of tol (or after max_rounds when tol=0), and "
    "the check compares the two fits' decision functions to 1e-7 relative; with "
    f"0 < tol <= {SAMPLE_WEIGHT_CHECK_TOL:g} it passes"
)


def expected_failed_checks(estimator=None) -> dict[str, str]:
    """scikit-learn's estimator checks a :class:`DaskSVMClassifier` is expected to fail,
    each with its reason, ``{check name: reason}``, as ``check_estimator`` and
    ``parametrize_with_checks`` take them; the checks fit on the current dask client's
    cluster::

        from distributed import Client
        from sklearn.utils.estimator_checks import check_estimator

        with Client(processes=False):
            clf = DaskSVMClassifier(tol=0, max_rounds=3, random_state=0)
            check_estimator(clf, expected_failed_checks=expected_failed_checks(clf))

    Only the sample-weight checks (``check_sample_weight_equivalence_on_dense_data`` and
    ``_on_sparse_data``), unless ``0 < tol <= SAMPLE_WEIGHT_CHECK_TOL``: they compare a fit
    with integer weights to one with the rows repeated to 1e-7, which holds at the optimum
    but not at a certified relative gap of 1e-6 (the default ``tol``) or after a fixed
    number of rounds (``tol=0``). Every other check passes (tests/test_distributed_inputs.py
    runs them on a LocalCluster). With the default ``max_rounds`` and ``tol``, a few of the
    checks' problems (features around 100, labels at random) end uncertified with a
    ConvergenceWarning, which scikit-learn lets pass.

    Parameters
    ----------
    estimator : DaskSVMClassifier, optional
        The estimator checked; None: as with the default parameters.

    Returns
    -------
    dict
        A new dict on each call.
    """
    tol = 1e-6 if estimator is None else estimator.tol
    if 0.0 < tol <= SAMPLE_WEIGHT_CHECK_TOL:
        return {}
    return {
        "check_sample_weight_equivalence_on_dense_data": _SAMPLE_WEIGHT_REASON,
        "check_sample_weight_equivalence_on_sparse_data": _SAMPLE_WEIGHT_REASON,
    }
