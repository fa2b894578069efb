"""The studies' claims that can be checked on any data: the claims of ``python -m
sdca_pegasos.compare``.

Rows of the same :class:`~sdca_pegasos.figures.claims.Claim` table as the scorecard's, judged by
the same evaluator (:func:`sdca_pegasos.figures.claims.evaluate`) on the main variants' runs
(:data:`sdca_pegasos.experiments.catalogue.MAIN_VARIANTS`), each verdict against the spread over
seeds."""

from __future__ import annotations

from sdca_pegasos.experiments.catalogue import MAIN_VARIANTS

from . import common
from .claims import Claim
from .common import Query, Runs, within_spread

#: The main variants' labels (:data:`sdca_pegasos.experiments.catalogue.MAIN_VARIANTS`).
MAIN = {name: c.label for name, c in MAIN_VARIANTS.items()}
#: Relative suboptimality (P − P*)/P* that "converged" means in claim any.1.
ANY_TARGET = 1e-2


def epochs_to(q: Query, config: str, target: float = ANY_TARGET) -> dict:
    """Per run of ``config``: the first epoch whose relative suboptimality bound
    (P(w) − D)/D is ≤ ``target`` (a run that never gets there counts as last + 1, censored).

    :class:`NotTested` when the optimum's own relative gap exceeds target/10: a bound that
    loose cannot tell whether a run reached the target.
    """
    r = q.frame("suboptimality")
    rel_gap = float(r["p_star_rel_gap"].max())
    if rel_gap > target / 10 or not (r["p_star_dual"] > 0).all():
        state = "" if bool(r["p_star_certified"].all()) else "not certified, "
        raise common.NotTested(
            f"P* is known only to a relative gap of {rel_gap:.1g} ({state}the exact engine's "
            f"budget ran out): too loose to judge a relative suboptimality of {target:g}"
        )
    last = int(r["epoch"].max())
    rows = r[r["config"] == config]
    rel = (rows["suboptimality"] / rows["p_star_dual"]).le(target)
    first = rows["epoch"].where(rel).groupby(rows["seed_index"]).min().fillna(last + 1)
    return dict(runs=Runs(first), censored=int((first > last).sum()), last=last)


def _epochs_text(e: dict) -> str:
    text = f"{e['runs']:pm1}"
    if e["censored"]:
        n = e["runs"].runs.size
        text += f" ({e['censored']} of {n} run{'s' if n > 1 else ''} not within {e['last']}, "
        text += f"counted as {e['last'] + 1})"
    return text


def _any_converges(q: Query) -> dict:
    s, p = epochs_to(q, MAIN["sdca-perm"]), epochs_to(q, MAIN["pegasos"])
    if s["censored"] == s["runs"].runs.size and p["censored"] == p["runs"].runs.size:
        raise common.NotTested(
            f"neither SDCA-Perm nor Pegasos reached a relative suboptimality of {ANY_TARGET:g} "
            f"within {s['last']} epochs"
        )
    return dict(s=s["runs"], p=p["runs"], s_text=_epochs_text(s), p_text=_epochs_text(p))


def _any_best_error(q: Query) -> dict:
    r, sdca = q.frame(), MAIN["sdca-perm"]
    if r["test_error"].isna().all():
        raise common.NotTested("no test set (--test-size 0): nothing to measure a test error on")
    e = min(2, q.last())
    curve = q.curve(sdca, "test_error")
    best = int(curve[curve.index >= 1].idxmin())  # epoch 0 is w = 0: no step taken yet
    return dict(e=e, at=q.at(sdca, e, "test_error"), best=q.at(sdca, best, "test_error"),
                best_epoch=best)  # fmt: skip


def _any_sgd(q: Query) -> dict:
    sdca, sgd, last = MAIN["sdca-perm"], MAIN["sdca-sgd"], q.last()
    return dict(p1=q.at(sdca, 1, "primal"), p1s=q.at(sgd, 1, "primal"), last=last,
                pl=q.at(sdca, last, "primal"), pls=q.at(sgd, last, "primal"))  # fmt: skip


def _later_same(v) -> bool:
    return within_spread(v.pls, v.pl, 1e-3 * abs(float(v.pl)))


def _final_primals(q: Query, **configs: str) -> dict:
    """P at the last epoch of each config, P*'s lower bound D and its status."""
    out = {key: q.at(label, -1, "primal") for key, label in configs.items()}
    r = q.frame("suboptimality")
    return out | dict(last=q.last(), d=float(r["p_star_dual"].iloc[0]),
                      sure=bool(r["p_star_certified"].all()))  # fmt: skip


def _far(v, *keys: str) -> str:
    """A sentence when every value compared is still more than twice P*: early progress."""
    values = [float(getattr(v, k)) for k in keys]
    if v.d <= 0 or min(values) <= 2 * v.d:
        return ""
    star = "P*" if v.sure else "the lower bound D of P*"
    return (f"; all still {min(values) / v.d:.3g}× {star} or more: this compares progress "
            "so far, not where they converge")  # fmt: skip


def _sentence(clause: str) -> str:
    """``"; all still ..."`` -> ``"All still ..."``."""
    text = clause.removeprefix("; ")
    return text[:1].upper() + text[1:]


def _p_star(v) -> str:
    return f"P* = {v.d:.4g}" if v.sure else f"P* ≥ {v.d:.4g}, not certified"


def _level_or_not(v, a: str, b: str, what: str, other: str) -> str:
    """The reason of a *level* or *differs* comparing ``v.<a>`` and ``v.<b>``."""
    x, y = getattr(v, a), getattr(v, b)
    if within_spread(x, y):
        return (f"the difference of the means ({abs(x - y):.2g}) is within the spread over "
                f"seeds ({common.spread(x, y):.2g}){what}")  # fmt: skip
    return other


def _final_objectives(
    cid: str,
    claim: str,
    theirs: str,
    criterion: str,
    first: tuple[str, str, str],
    second: tuple[str, str, str],
    first_lower: bool,
    same: str,
    differs: str,
) -> Claim:
    """A claim on P after the last epoch of two main variants: ``first``'s lower
    (``first_lower``; else higher) than ``second``'s by more than the spread over seeds
    (level: within it).

    Each variant is ``(its key in the values read, its MAIN_VARIANTS name, its name in the
    text)``; ``same`` ends the reason of a level, ``differs`` is the reason of the other
    order (both followed by :func:`_far`'s clause).
    """
    (a, config_a, name_a), (b, config_b, name_b) = first, second
    configs = (MAIN[config_a], MAIN[config_b])

    def values(v) -> tuple:
        return getattr(v, a), getattr(v, b)

    def holds(v) -> bool:
        x, y = values(v)
        return x < y if first_lower else x > y

    def ours(v) -> str:
        x, y = values(v)
        return f"P after {v.last} epochs: {name_a} {x:.4g}, {name_b} {y:.4g} ({_p_star(v)})"

    return Claim(
        cid, (), (), claim, theirs, criterion,
        read=lambda q: _final_primals(q, **{a: configs[0], b: configs[1]}),
        level=lambda v: within_spread(*values(v)), holds=holds, ours=ours,
        why=lambda v: _level_or_not(v, a, b, same, differs) + _far(v, a, b),
        note=lambda v: _sentence(_far(v, a, b)),
        configs=configs,
    )  # fmt: skip


# fmt: off
ANY_DATA: list[Claim] = [
    Claim("any.1", (), (), "SDCA converges faster than Pegasos",
          "≈ 3× less CPU time to converge on raw crops (study 000)",
          f"per run, epochs to a relative suboptimality of {ANY_TARGET:g}: fewer for SDCA-Perm "
          "than for Pegasos (level: the means differ by no more than the spread over seeds); "
          "not judged without a certificate for P*",
          read=_any_converges, needs_p_star=True, level=lambda v: within_spread(v.s, v.p),
          holds=lambda v: v.s < v.p,
          ours=lambda v: f"epochs to {ANY_TARGET:g}: SDCA-Perm {v.s_text}, Pegasos {v.p_text}",
          why=lambda v: _level_or_not(v, "s", "p", "", "Pegasos gets there first"),
          configs=(MAIN["sdca-perm"], MAIN["pegasos"])),
    Claim("any.2", (), (), "SDCA reaches its best test error within 2 epochs",
          "2 epochs (study 000)",
          "mean test error after 2 epochs within 1 pp (or the spread over seeds, if larger) of "
          "the best epoch's, from epoch 1 on (epoch 0 is w = 0, which puts every sample in one "
          "class); not judged where the optimum's test error is that of one class for every "
          "sample",
          read=_any_best_error, reads_errors=True,
          holds=lambda v: within_spread(v.at, v.best, 0.01),
          ours=lambda v: f"SDCA-Perm: {100 * v.at:.1f} % after {v.e} epochs, best "
          f"{100 * v.best:.1f} % (epoch {v.best_epoch})",
          why=lambda v: f"its test error after {v.e} epochs is {100 * (v.at - v.best):.1f} pp "
          f"above its best (spread over seeds {100 * common.spread(v.at, v.best):.1f} pp)",
          configs=(MAIN["sdca-perm"],)),
    Claim("any.3", (), (), "The SGD first epoch lowers the first-epoch loss only",
          "lower loss after epoch 1, same later (study 000)",
          "P after epoch 1: SDCA-Perm + SGD init lower than SDCA-Perm by more than the spread "
          "over seeds (level: within it); after the last epoch within the spread or 0.1 %",
          read=_any_sgd, level=lambda v: within_spread(v.p1s, v.p1),
          holds=lambda v: v.p1s < v.p1 and _later_same(v),
          ours=lambda v: f"P after epoch 1: SGD init {v.p1s:.4g} vs {v.p1:.4g}; after epoch "
          f"{v.last}: {v.pls:.4g} vs {v.pl:.4g}",
          why=lambda v: _level_or_not(
              v, "p1s", "p1", ": the SGD first epoch does not change the first-epoch loss",
              "the SGD first epoch raises the first-epoch loss" if v.p1s > v.p1 else
              f"the two still differ after epoch {v.last}"),
          configs=(MAIN["sdca-perm"], MAIN["sdca-sgd"])),
    _final_objectives(
        "any.4", "Per sample processed, mini-batches do not speed Pegasos up",
        "no gain (study 001)",
        "P after the last epoch: Pegasos (k = 1) lower than mini-batch Pegasos (k = 8) by more "
        "than the spread over seeds (level: within it)",
        ("k1", "pegasos", "k = 1"), ("k8", "pegasos-batch", "k = 8"), first_lower=True,
        same=": mini-batches neither help nor hurt",
        differs="mini-batches end lower per sample processed"),
    _final_objectives(
        "any.5", "ASDCA ends above SDCA in the hinge objective",
        "ASDCA farthest from P* (study 001)",
        "P (hinge) after the last epoch: ASDCA higher than SDCA-Perm by more than the spread "
        "over seeds (level: within it); ASDCA solves the smoothed hinge (γ = 1)",
        ("a", "asdca", "ASDCA"), ("s", "sdca-perm", "SDCA-Perm"), first_lower=False,
        same="", differs="ASDCA ends below SDCA"),
]
# fmt: on
