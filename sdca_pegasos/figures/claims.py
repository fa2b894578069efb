"""A claim as data, and the one evaluator that judges every claim on reports.

A :class:`Claim` row names the outputs that show a claim, the reports it is read from, the claim,
the study's value and the criterion, then ``read`` (a :class:`~sdca_pegasos.figures.common.Query`
of those reports -> our named values), ``holds`` (the criterion on them) and the texts.
:func:`evaluate` turns a row into our value, a verdict and its reason. The rows are the studies'
claims (:data:`sdca_pegasos.figures.scorecard.CLAIMS`, REPRODUCTION.md) and those checkable on any
data (:data:`sdca_pegasos.figures.any_data.ANY_DATA`, ``python -m sdca_pegasos.compare``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace

from . import common
from .common import Query


@dataclass(frozen=True)
class Claim:
    """One claim: where it is shown and read from, what they found, how we judge and say it."""

    id: str  # "000.1": study and row
    figures: tuple[str, ...]  # the outputs that show it (figures.OUTPUTS)
    reports: tuple[str, ...]  # read from (the first is the Query's default)
    claim: str
    theirs: str  # the study's value
    criterion: str
    read: Callable[[Query], dict]  # our values
    holds: Callable[[SimpleNamespace], bool]  # the criterion on them
    ours: Callable[[SimpleNamespace], str]
    why: Callable[[SimpleNamespace], str] = lambda v: ""  # the reason of a differs (or level)
    note: Callable[[SimpleNamespace], str] = lambda v: ""  # said when it holds
    # the difference the claim is about is within the spread over seeds: "level", checked first
    level: Callable[[SimpleNamespace], bool] = lambda v: False
    configs: tuple[str, ...] = ()  # the configurations it reads (``compare``: runs or not)
    # measured against P* (suboptimality): "not tested" unless the optimum is certified
    needs_p_star: bool = False
    # reads test or training errors: "not tested" where the caller says errors cannot judge it
    # (``compare``: an optimum that classifies like one class for every sample)
    reads_errors: bool = False


def evaluate(q: Query, claim: Claim, errors_moot: str = "") -> SimpleNamespace:
    """Our value, the verdict and its reason for one claim.

    Verdicts: *level* when the difference the claim is about is within the spread over seeds
    (``claim.level``, checked first), else *holds* or *differs* by ``claim.holds``; *not run* when
    an input is missing, *not tested* when the reports cannot decide (the reason says why:
    :class:`sdca_pegasos.figures.common.NotTested`), as is a claim that ``needs_p_star`` on reports
    whose optimum is not certified, and a claim that ``reads_errors`` when ``errors_moot`` gives
    the reason errors cannot judge it (our values are still given)."""
    try:
        q = q.on(claim.reports[0])
        if claim.needs_p_star and not q.certified():
            raise common.NotTested(
                "P* not certified (the exact engine's CPU budget ran out first), and this "
                "claim is measured against P*"
            )
        v = SimpleNamespace(**claim.read(q))
        if claim.reads_errors and errors_moot:
            return SimpleNamespace(ours=claim.ours(v), verdict="not tested", reason=errors_moot)
        verdict = "level" if claim.level(v) else "holds" if claim.holds(v) else "differs"
        reason = claim.note(v) if verdict == "holds" else claim.why(v)
        return SimpleNamespace(ours=claim.ours(v), verdict=verdict, reason=reason)
    except common.MissingInputError as exc:
        return SimpleNamespace(ours="—", verdict="not run", reason=str(exc))
    except common.NotTested as exc:
        return SimpleNamespace(ours="—", verdict="not tested", reason=str(exc))
