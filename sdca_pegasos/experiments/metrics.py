"""Per-epoch metrics of one run, computed after each epoch's clock has stopped.

Every quantity is that of :class:`sdca_pegasos.solvers.core.monitoring.EpochMetrics` (the maths of
:mod:`sdca_pegasos.solvers.core.objectives`): the hinge and smoothed primal objectives, the
training error and, for solvers with a dual, w(α) recomputed from α (never taken from the solver)
and the dual; the test errors; and the primal and errors of the output iterate (running average)
when it differs from the current one.

In bulk (the default, :class:`Recorder`'s ``bulk=True``), a recorded epoch keeps only what its
metrics need: a copy of its w, of the output iterate when that differs, and of α. The stored epochs
are evaluated together (:class:`sdca_pegasos.experiments.bulk.BulkMetrics`: the margins of all of
them over a split in one matrix product) when the run ends, or sooner once they hold
:data:`CHUNK_BYTES`, so a long run on wide data never holds more. A run whose stop rule reads
the gap (:class:`sdca_pegasos.experiments.stopping.StopRule` with ``rel_gap`` > 0) still needs
that gap at the epoch: there the training split's numbers (primal, errors, dual, gap) are
computed per epoch, by :class:`EpochMetrics` as before, and only the test split and the output
iterate are deferred. The error counts and every per-epoch number are those of
:class:`EpochMetrics` bit for bit; a deferred primal, dual and gap are within the rounding bound
of :mod:`sdca_pegasos.experiments.bulk` (kept per row in :attr:`Recorder.bounds`)."""

from __future__ import annotations

import math

import numpy as np

from sdca_pegasos import data
from sdca_pegasos.solvers.core.losses import Loss
from sdca_pegasos.solvers.core.monitoring import EpochMetrics

from .bulk import BulkMetrics

#: Report columns written by :class:`Recorder`, in order.
METRIC_COLUMNS = (
    "epoch",
    "samples_seen",
    "n_active",
    "cpu_time",
    "wall_time",
    "cpu_time_cum",
    "wall_time_cum",
    "primal",
    "primal_smooth",
    "dual",
    "gap",
    "train_error",
    "test_error",
    "primal_output",
    "train_error_output",
    "test_error_output",
)


#: Bytes of stored iterates (w, output w, α) a bulk :class:`Recorder` holds before it evaluates
#: them.
CHUNK_BYTES = 64 << 20

#: The columns a row's training pass gives (per epoch in a live row), and the deferred ones.
_TRAIN = ("primal", "primal_smooth", "dual", "gap", "train_error")
_DEFERRED = ("test_error", "primal_output", "train_error_output", "test_error_output")


class _Stored:
    """A recorded epoch awaiting its metrics: its row, copies of w, of the output iterate
    (None: equal to w), of α (None: no dual, or a live row's, already used), and whether its
    training numbers are already in the row (``live``)."""

    __slots__ = ("alpha", "live", "position", "row", "w", "w_out")

    def __init__(self, position, row, w, w_out, alpha, live):
        self.position, self.row, self.w, self.w_out = position, row, w, w_out
        self.alpha, self.live = alpha, live

    @property
    def nbytes(self) -> int:
        return sum(0 if a is None else a.nbytes for a in (self.w, self.w_out, self.alpha))


class Recorder:
    """Callback that turns each :class:`sdca_pegasos.solvers.EpochInfo` into one report row.

    Called, it records every epoch. A run to convergence records fewer
    (:class:`sdca_pegasos.experiments.stopping.StopRule`): :meth:`tally` counts every epoch's time
    into the cumulative columns, :meth:`record` writes the row of an epoch it keeps.

    Parameters
    ----------
    dataset : data.Dataset
        Its labels are converted to float64 once, here: the objectives take float64 labels
        and would otherwise convert the int64 ones at every epoch.
    lmbd : float
    loss : solvers.losses.Loss
        The loss the solver optimises (``est.loss_function``). ``primal_smooth`` (its
        objective, NaN for the hinge), ``dual`` and ``gap`` refer to that problem;
        ``primal`` is always the hinge objective.
    bias : float
        Bias multiplier of the solver.
    has_dual : bool
    bulk : bool, default=True
        Evaluate the recorded epochs together (module docstring); False: each one as it is
        recorded, by :class:`EpochMetrics` (the reference the bulk rows are tested against).
    chunk_bytes : int
        Stored iterates held before they are evaluated (bulk only).

    Attributes
    ----------
    rows : list of dict
        The rows recorded so far, complete (reading it evaluates the stored epochs).
    bounds : list of dict
        Per row, the rounding bound of each metric column whose bulk value may differ from
        the per-epoch one (0.0 where it is the same arithmetic; empty per-epoch).
    """

    def __init__(
        self,
        dataset: data.Dataset,
        lmbd: float,
        loss: Loss,
        bias: float,
        has_dual: bool,
        *,
        bulk: bool = True,
        chunk_bytes: int = CHUNK_BYTES,
    ):
        y_train = dataset.y_train.astype(np.float64)
        y_test = None if dataset.y_test is None else dataset.y_test.astype(np.float64)
        self.bulk = bulk
        self.chunk_bytes = int(chunk_bytes)
        self.has_dual = has_dual
        self._rows: list[dict] = []
        self.bounds: list[dict] = []
        self._stored: list[_Stored] = []
        self._stored_bytes = 0
        self._cpu = 0.0
        self._wall = 0.0
        self.n_test = None if dataset.X_test is None else dataset.X_test.shape[0]
        if bulk:  # the live rows' training numbers: EpochMetrics without the test split
            self.metrics = EpochMetrics(dataset.X_train, y_train, lmbd, loss, bias)
            self.bulk_metrics = BulkMetrics(
                dataset.X_train, y_train, lmbd, loss, bias, dataset.X_test, y_test
            )
        else:
            self.metrics = EpochMetrics(
                dataset.X_train, y_train, lmbd, loss, bias, X_test=dataset.X_test, y_test=y_test
            )

    # --------------------------------------------------------------------------- helpers
    def _timing(self, epoch, samples, n_active, cpu, wall) -> dict:
        """The row of an epoch whose times are already counted (:meth:`tally`), its metrics NaN."""
        row = dict.fromkeys(METRIC_COLUMNS, math.nan)
        row.update(
            epoch=epoch,
            samples_seen=samples,
            n_active=math.nan if n_active is None else float(n_active),
            cpu_time=cpu,
            wall_time=wall,
            cpu_time_cum=self._cpu,
            wall_time_cum=self._wall,
        )
        return row

    def _row(self, epoch, samples, n_active, cpu, wall, w, dual_coef, w_out, live=False) -> dict:
        """The row of an epoch (:meth:`tally` counted its times): its metrics now (per epoch),
        or its training numbers now if ``live`` and the rest when the stored epochs are
        evaluated (bulk)."""
        row = self._timing(epoch, samples, n_active, cpu, wall)
        dual_coef = dual_coef if self.has_dual else None
        if not self.bulk:
            m = self.metrics(w, dual_coef, w_out)
            row.update(_values(m, m))
            self._rows.append(row)
            return row
        w = np.array(w, dtype=np.float64)  # copies: the solver's arrays are live views
        w_out = None if w_out is None or np.array_equal(w_out, w) else np.array(w_out, np.float64)
        alpha = None
        if live:
            m = self.metrics(w, dual_coef)
            row.update((k, v) for k, v in _values(m, m).items() if k in _TRAIN)
        elif dual_coef is not None:
            alpha = np.array(dual_coef, dtype=np.float64)
        stored = _Stored(len(self._rows), row, w, w_out, alpha, live)
        self._rows.append(row)
        self.bounds.append({})
        self._stored.append(stored)
        self._stored_bytes += stored.nbytes
        if self._stored_bytes >= self.chunk_bytes:
            self.evaluate()
        return row

    # --------------------------------------------------------------------------- API
    @property
    def rows(self) -> list[dict]:
        """Every row recorded so far, its metrics evaluated (:meth:`evaluate`)."""
        self.evaluate()
        return self._rows

    @property
    def cpu_time_cum(self) -> float:
        """Timed CPU seconds of every epoch counted so far, setup included."""
        return self._cpu

    def initial(self, n_features: int) -> None:
        """Epoch 0: the initial state w = 0, α = 0 of every solver here."""
        w = np.zeros(n_features + 1)
        alpha = np.zeros(self.metrics.n_samples)
        self._row(0, 0, None, 0.0, 0.0, w, alpha, w)

    def tally(self, info) -> tuple[float, float]:
        """Count the epoch's timed CPU and wall seconds into the cumulative ones (every
        epoch, recorded or not: ``cpu_time_cum`` sums all of them) and return them; the
        per-fit precomputation counts once, in epoch 1."""
        if info.epoch == 1:
            cpu, wall = info.cpu_time + info.setup_time, info.wall_time + info.setup_wall_time
        else:
            cpu, wall = info.cpu_time, info.wall_time
        self._cpu += cpu
        self._wall += wall
        return cpu, wall

    def record(self, info, cpu: float, wall: float, live: bool = False) -> dict:
        """Append (and return) the row of the epoch ``info``, counted by :meth:`tally`,
        whose own times were ``cpu`` and ``wall``. Per epoch its metrics are there; in bulk
        they are NaN until the stored epochs are evaluated, but for the training split's
        (``primal``, ``primal_smooth``, ``dual``, ``gap``, ``train_error``) when ``live``
        (a stop rule reads them now)."""
        return self._row(
            info.epoch,
            info.n_samples_seen,
            info.n_active,
            cpu,
            wall,
            info.w,
            info.dual_coef,
            info.output_w(),
            live,
        )

    def __call__(self, info) -> None:
        """Every epoch's row (the fixed-epoch configurations' callback)."""
        self.record(info, *self.tally(info))

    def evaluate(self) -> None:
        """Fill in the metrics of the stored epochs (:class:`BulkMetrics`: each split read
        once for all of them) and forget their iterates."""
        stored, self._stored, self._stored_bytes = self._stored, [], 0
        if not stored:
            return
        bulk = self.bulk_metrics
        outs = [s for s in stored if s.w_out is not None]
        train = [s for s in stored if not s.live]
        duals = [s for s in stored if s.alpha is not None]
        W = np.array([s.w for s in train] + [s.w_out for s in outs]).reshape(
            -1, bulk.n_features + 1
        )
        t = bulk.train(W, np.array([s.alpha for s in duals]) if duals else None)
        at = {id(s): i for i, s in enumerate(train)}
        at_out = {id(s): len(train) + i for i, s in enumerate(outs)}
        at_dual = {id(s): i for i, s in enumerate(duals)}
        wrong = None
        if self.n_test:
            wrong = bulk.test_errors(np.array([s.w for s in stored] + [s.w_out for s in outs]))
        n = bulk.n_samples
        for j, s in enumerate(stored):
            row, bound = s.row, dict.fromkeys(_TRAIN + _DEFERRED, 0.0)
            if not s.live:
                i = at[id(s)]
                row["primal"] = float(t["primal"][i])
                row["primal_smooth"] = float(t["primal_smooth"][i])
                row["train_error"] = int(t["errors"][i]) / n
                bound["primal"] = float(t["primal_bound"][i])
                bound["primal_smooth"] = float(t["primal_smooth_bound"][i])
                if id(s) in at_dual:
                    k = at_dual[id(s)]
                    row["dual"] = float(t["dual"][k])
                    own = bulk.own
                    primal = row["primal_smooth"] if own else row["primal"]
                    row["gap"] = primal - row["dual"]
                    bound["dual"] = float(t["dual_bound"][k])
                    p_bound = bound["primal_smooth"] if own else bound["primal"]
                    bound["gap"] = (
                        p_bound + bound["dual"] + 2.0 * 2.0**-53 * (abs(primal) + abs(row["dual"]))
                    )
            test_error = _rate(wrong, j, self.n_test)
            row["test_error"] = test_error
            if s.w_out is None:
                row["primal_output"] = row["primal"]
                row["train_error_output"] = row["train_error"]
                row["test_error_output"] = test_error
                bound["primal_output"] = bound["primal"]
            else:
                i = at_out[id(s)]
                row["primal_output"] = float(t["primal"][i])
                row["train_error_output"] = int(t["errors"][i]) / n
                row["test_error_output"] = _rate(wrong, len(stored) + i - len(train), self.n_test)
                bound["primal_output"] = float(t["primal_bound"][i])
            self.bounds[s.position] = bound


def _rate(wrong, j, n_test) -> float:
    """``wrong[j] / n_test`` as :class:`EpochMetrics` divides it, NaN without test rows."""
    if not n_test:
        return math.nan
    return float(int(wrong[j]) / n_test)


def _values(m: dict, out: dict) -> dict:
    """The metric columns of an :class:`EpochMetrics` result."""
    return {
        "primal": m["primal"],
        "primal_smooth": m["primal_smooth"],
        "dual": m["dual"],
        "gap": m["gap"],
        "train_error": m["error"],
        "test_error": out["test_error"],
        "primal_output": out["primal_output"],
        "train_error_output": out["error_output"],
        "test_error_output": out["test_error_output"],
    }
