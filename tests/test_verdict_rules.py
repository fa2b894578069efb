"""One-sided tests of every verdict rule, enumerated from the claim registries (issue 24,
point 2).

Each claim of :data:`sdca_pegasos.figures.scorecard.CLAIMS` (the studies' scorecard) and of
:data:`sdca_pegasos.figures.any_data.ANY_DATA` (``python -m sdca_pegasos.compare``) is judged by
the one evaluator, :func:`sdca_pegasos.figures.claims.evaluate`, on values placed just inside its
criterion ("holds") and the same values moved just across each of its thresholds ("differs"),
independent of any golden text and of how the values are read from reports (``read`` is replaced by
the values). A claim added to either registry without its cases here fails
``test_every_claim_has_its_cases``. tests/test_compare_verdicts.py judges the ANY_DATA rules on
written reports, and the compare summary's table is checked here to carry the evaluator's verdict.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest

from sdca_pegasos.compare import outputs
from sdca_pegasos.figures import any_data, claims, scorecard
from sdca_pegasos.figures.common import Runs
from sdca_pegasos.figures.scorecard import FOUR, GEN, SAMPLINGS, SIM, SKIN

from .test_compare_verdicts import NAME, reaching, write


class NoReports:
    """The Query ``evaluate`` hands to ``read``; the replaced ``read`` never uses it. Its
    optimum is certified (a claim that needs P* is judged)."""

    def on(self, name: str) -> NoReports:
        return self

    def certified(self) -> bool:
        return True


def judge(claim, values: dict) -> str:
    """The verdict of ``claim`` on ``values`` (its ``read`` replaced by them)."""
    fixed = dataclasses.replace(claim, read=lambda q: dict(values), reports=(NAME,))
    return claims.evaluate(NoReports(), fixed).verdict


def one(x: float) -> Runs:
    """A value of one run (no spread over seeds)."""
    return Runs([x])


def ranked(*configs: str) -> list:
    """A ranking (best first) with increasing suboptimalities."""
    return [(c, 10.0 ** (i - 6)) for i, c in enumerate(configs)]


def _ranks(ranks: dict) -> dict:
    return dict(ranks=ranks, text="ranks", notes=[] if GEN in ranks else "notes",
                slowest={n: r[-1][0] for n, r in ranks.items()})  # fmt: skip


S_RANDOM, S_PERM, S_CYCLIC = SAMPLINGS
SIM_OK = ranked(FOUR[SIM][0], FOUR[SIM][2], FOUR[SIM][3], FOUR[SIM][1])
SKIN_OK = ranked(FOUR[SKIN][2], FOUR[SKIN][0], FOUR[SKIN][3], FOUR[SKIN][1])
GEN_OK = ranked(FOUR[GEN][3], FOUR[GEN][0], FOUR[GEN][2], FOUR[GEN][1])
RANKS_OK = {SIM: SIM_OK, GEN: GEN_OK, SKIN: SKIN_OK}
END = (scorecard.SDCA, scorecard.SGD, scorecard.PEG)

#: claim id -> (values that meet the criterion, [the same values moved just across one
#: threshold, ...]): every threshold of the criterion is crossed by one case.
CASES: dict[str, tuple[dict, list[dict]]] = {
    # |e2 - 0.26| <= 0.03 and e2 - best <= 0.01
    "000.1": (dict(e2=one(0.289), best=one(0.2795)),
              [dict(e2=one(0.291), best=one(0.2815)),  # 0.031 from 0.26
               dict(e2=one(0.231), best=one(0.2205)),  # 0.029 from 0.26, 0.0105 above best
               dict(e2=one(0.229), best=one(0.229))]),  # 0.031 below 0.26
    # 2 <= p / s <= 4
    "000.2": (dict(s=1.0, p=3.99, se=one(1.0), pe=one(1.0)),
              [dict(s=1.0, p=4.01, se=one(1.0), pe=one(1.0)),
               dict(s=1.0, p=1.99, se=one(1.0), pe=one(1.0))]),
    # 3 <= first <= 5
    "000.3": (dict(end=0.2, first=5), [dict(end=0.2, first=6), dict(end=0.2, first=2)]),
    # p1s < p1 and diff <= 0.005
    "000.4": (dict(p1=one(1.0), p1s=one(0.999), diff=0.0049),
              [dict(p1=one(1.0), p1s=one(1.001), diff=0.0049),
               dict(p1=one(1.0), p1s=one(0.999), diff=0.0051)]),
    # |l3 - 0.63| <= 0.05 and |pe1 - 1.75| <= 0.25
    "000.5": (dict(l3=one(0.679), pe1=one(1.99), p_star=0.6, sure=True),
              [dict(l3=one(0.681), pe1=one(1.99), p_star=0.6, sure=True),
               dict(l3=one(0.579), pe1=one(1.99), p_star=0.6, sure=False),
               dict(l3=one(0.679), pe1=one(2.01), p_star=0.6, sure=True),
               dict(l3=one(0.679), pe1=one(1.49), p_star=0.6, sure=True)]),
    # the three final means within 0.5 pp of each other and their mean within 0.03 of 0.206
    "000.7": (dict(end=dict(zip(END, map(one, (0.2330, 0.2350, 0.2374)), strict=True)),
                   e1=[0.2, 0.2, 0.2]),
              [dict(end=dict(zip(END, map(one, (0.2300, 0.2320, 0.2356)), strict=True)),
                    e1=[0.2, 0.2, 0.2]),  # spread 0.56 pp
               dict(end=dict(zip(END, map(one, (0.2350, 0.2370, 0.2390)), strict=True)),
                    e1=[0.2, 0.2, 0.2])]),  # mean 0.237: 0.031 from 0.206
    # every method within 0.02 of 0.895 after epoch 1
    "000.8": (dict(l1=dict(zip(END, map(one, (0.876, 0.895, 0.914)), strict=True)),
                   p_star=0.8, sure=True),
              [dict(l1=dict(zip(END, map(one, (0.874, 0.895, 0.914)), strict=True)),
                    p_star=0.8, sure=True),
               dict(l1=dict(zip(END, map(one, (0.876, 0.895, 0.916)), strict=True)),
                    p_star=0.8, sure=False)]),
    # s / p > 1.5
    "000.9": (dict(s=one(151.0), p=one(100.0), n=1000),
              [dict(s=one(150.0), p=one(100.0), n=1000)]),
    # no notebook accuracy outside our central 95 %, and the same true β
    "001.1": (dict(outside=[], same_beta=True, rows=["r"], beta=0.8788, runs=100),
              [dict(outside=["SDCA 0.85"], same_beta=True, rows=["r"], beta=0.8788, runs=100),
               dict(outside=[], same_beta=False, rows=["r"], beta=0.87, runs=100)]),
    # |averaged - plain| <= 0.01 for every variant
    "001.2": (dict(worst=0.0099, mean=0.001, by_family="f"),
              [dict(worst=0.0101, mean=0.001, by_family="f")]),
    # mean cosines within 0.01
    "001.3": (dict(avg=one(0.9), plain=one(0.8901)), [dict(avg=one(0.9), plain=one(0.8899))]),
    # plain Pegasos last on all three
    "001.4": (_ranks(RANKS_OK),
              [_ranks({**RANKS_OK, GEN: ranked(*GEN_OK[0][:1], FOUR[GEN][0], FOUR[GEN][1],
                                                FOUR[GEN][2])})]),
    # mini-batch Pegasos first on genomic
    "001.5": (_ranks({GEN: GEN_OK}),
              [_ranks({GEN: ranked(FOUR[GEN][0], FOUR[GEN][3], FOUR[GEN][2], FOUR[GEN][1])})]),
    # SDCA and ASDCA the two first on simulated and skin
    "001.6": (_ranks({SIM: SIM_OK, SKIN: SKIN_OK}),
              [_ranks({SIM: SIM_OK, SKIN: ranked(FOUR[SKIN][2], FOUR[SKIN][3],
                                                 FOUR[SKIN][0], FOUR[SKIN][1])}),
               _ranks({SIM: ranked(FOUR[SIM][1], FOUR[SIM][0], FOUR[SIM][2], FOUR[SIM][3]),
                       SKIN: SKIN_OK})]),
    # cyclic strictly the largest
    "001.7": (dict(s={S_RANDOM: 1.00e-3, S_PERM: 0.9e-3, S_CYCLIC: 1.01e-3}),
              [dict(s={S_RANDOM: 1.00e-3, S_PERM: 0.9e-3, S_CYCLIC: 1.00e-3}),
               dict(s={S_RANDOM: 0.90e-3, S_PERM: 1.0e-3, S_CYCLIC: 0.99e-3})]),
    # permutation the slowest
    "001.8": (dict(s={S_RANDOM: 1e-3, S_PERM: 1.01e-3, S_CYCLIC: 1e-4}, slowest=S_PERM, n=100),
              [dict(s={S_RANDOM: 1.01e-3, S_PERM: 1e-3, S_CYCLIC: 1e-4}, slowest=S_RANDOM,
                    n=100)]),
    # final objectives within 1 % and a smaller total variation
    "001.9": (dict(p=one(1.0), q=one(1.0099), rel=pd.Series([1e-3]), tv=2.0, tv_p=1.99),
              [dict(p=one(1.0), q=one(1.0101), rel=pd.Series([1e-3]), tv=2.0, tv_p=1.99),
               dict(p=one(1.0), q=one(0.9899), rel=pd.Series([1e-3]), tv=2.0, tv_p=1.99),
               dict(p=one(1.0), q=one(1.0099), rel=pd.Series([1e-3]), tv=2.0, tv_p=2.0)]),
    # no algorithm failing the λ ordering
    "001.10": (dict(lines=["SDCA: ..."], failing=[]),
               [dict(lines=["SDCA: ..."], failing=["SDCA: at λ = 1e-4 ..."])]),
    # --------------------------------------------------- ANY_DATA (compare); one run each:
    # no spread over seeds, so "level" only for equal means (or within a floor)
    "any.1": (dict(s=one(2.99), p=one(3.0), s_text="", p_text=""),
              [dict(s=one(3.0), p=one(2.99), s_text="", p_text="")]),
    "any.2": (dict(e=2, at=one(0.2099), best=one(0.2), best_epoch=4),
              [dict(e=2, at=one(0.2101), best=one(0.2), best_epoch=4)]),
    "any.3": (dict(p1=one(1.0), p1s=one(0.999), pl=one(1.0), pls=one(1.00099), last=4),
              [dict(p1=one(1.0), p1s=one(1.001), pl=one(1.0), pls=one(1.00099), last=4),
               dict(p1=one(1.0), p1s=one(0.999), pl=one(1.0), pls=one(1.00101), last=4)]),
    "any.4": (dict(k1=one(1.0), k8=one(1.001), last=4, d=0.9, sure=True),
              [dict(k1=one(1.001), k8=one(1.0), last=4, d=0.9, sure=False)]),
    "any.5": (dict(a=one(1.001), s=one(1.0), last=4, d=0.1, sure=True),
              [dict(a=one(0.999), s=one(1.0), last=4, d=0.1, sure=True)]),
}  # fmt: skip

#: Claims that never hold by construction (absolute CPU times across machines), and the
#: values they are judged on.
NEVER_HOLDS = {
    cid: [dict(s=one(x), p=one(y), fs=1.0, fp=1.0) for x, y in ((1.0, 3.0), (3.0, 1.0))]
    for cid in ("000.6", "000.10")
}
REGISTRY = {c.id: c for c in [*scorecard.CLAIMS, *any_data.ANY_DATA]}


def test_every_claim_has_its_cases():
    """A claim added to either registry must come with its one-sided cases."""
    assert len(REGISTRY) == len(scorecard.CLAIMS) + len(any_data.ANY_DATA)
    assert set(CASES) | set(NEVER_HOLDS) == set(REGISTRY)
    assert not set(CASES) & set(NEVER_HOLDS)


@pytest.mark.parametrize("claim_id", list(CASES))
def test_holds_inside_the_criterion_and_differs_just_across(claim_id):
    """Kills an inverted claim (a comparison turned round, a negated criterion) and an
    inverted evaluator."""
    claim = REGISTRY[claim_id]
    meets, crossed = CASES[claim_id]
    assert judge(claim, meets) == "holds"
    for i, values in enumerate(crossed):
        assert judge(claim, values) == "differs", f"{claim_id}: crossing {i}"


@pytest.mark.parametrize("claim_id", list(NEVER_HOLDS))
def test_machine_bound_claims_never_hold(claim_id):
    """Absolute CPU times of another machine and implementation: never "holds", whichever
    solver is faster here; the reason says why."""
    claim = REGISTRY[claim_id]
    for values in NEVER_HOLDS[claim_id]:
        res = claims.evaluate(NoReports(), dataclasses.replace(claim, read=lambda q, v=values: v))
        assert res.verdict == "differs" and "machine" in res.reason


def test_level_comes_first_when_the_seeds_do_not_separate():
    """ANY_DATA claims with a level rule: the same mean difference is "level" when the
    spread over seeds covers it, and the one-sided verdict when it does not."""
    for cid, a, b in (("any.1", "s", "p"), ("any.3", "p1s", "p1"), ("any.4", "k1", "k8"),
                      ("any.5", "s", "a")):  # fmt: skip
        meets = dict(CASES[cid][0])
        x, y = float(meets[a]), float(meets[b])
        h = 1.01 * abs(x - y) / np.sqrt(2)  # the sd of (x - h, x + h) is h·√2
        meets[a] = Runs([x - h, x + h])
        assert judge(REGISTRY[cid], meets) == "level", cid


# ---------------------------------------------------------------------------- compare's table
def _table_verdict(root, claim) -> str:
    lines = outputs.claims_section(root, NAME, set(claim.configs))
    (row,) = [line for line in lines if line.startswith(f"| {claim.claim} |")]
    return row.split(" | ")[3].split("<br>")[0]


def test_compare_table_says_the_evaluators_verdict(tmp_path):
    """The summary's claims table carries the verdict of the data on both sides of any.1's
    criterion (reports written as compare writes them). Kills a verdict inverted where
    compare renders it."""
    claim = REGISTRY["any.1"]
    write(tmp_path, {"sdca-perm": {"primal": reaching([2, 2])},
                     "pegasos": {"primal": reaching([3, 3])}}, 8)  # fmt: skip
    assert _table_verdict(tmp_path, claim) == "holds"
    write(tmp_path, {"sdca-perm": {"primal": reaching([3, 3])},
                     "pegasos": {"primal": reaching([2, 2])}}, 8)  # fmt: skip
    assert _table_verdict(tmp_path, claim) == "differs"


def test_compare_table_holds_and_differs_for_every_claim(tmp_path):
    """Every ANY_DATA claim through compare's table, on the values of ``CASES`` (its read
    replaced): the table says what the evaluator says, on both sides (a report with a
    certified optimum is there, for the claims that need P*)."""
    write(tmp_path, {"sdca-perm": {"primal": reaching([2, 2])}}, 8)
    for claim in any_data.ANY_DATA:
        meets, crossed = CASES[claim.id]
        for values, expected in ((meets, "holds"), (crossed[0], "differs")):
            fixed = dataclasses.replace(claim, read=lambda q, v=values: dict(v))
            swapped = [fixed if c.id == claim.id else c for c in any_data.ANY_DATA]
            with pytest.MonkeyPatch.context() as mp:
                mp.setattr(any_data, "ANY_DATA", swapped)
                assert _table_verdict(tmp_path, fixed) == expected, claim.id


@pytest.mark.parametrize("claim", any_data.ANY_DATA, ids=lambda c: c.id)
def test_a_claim_is_judged_when_exactly_its_solvers_ran(claim):
    """``compare`` keeps a claim whose solvers all ran, the case of exactly its own solvers
    included (``<=``, not ``<``: the mutation survivor sdca_pegasos/compare/outputs.py:166), and
    leaves it out when one of them is missing."""
    kept, left_out = outputs.claims_of(set(claim.configs))
    assert claim in kept and claim not in left_out
    for missing in claim.configs:
        kept, left_out = outputs.claims_of(set(claim.configs) - {missing})
        assert claim in left_out and claim not in kept


def explain(claim_id: str, values: dict):
    """What ``evaluate`` says of claim ``claim_id`` on ``values`` (verdict, ours, reason)."""
    fixed = dataclasses.replace(REGISTRY[claim_id], read=lambda q: dict(values), reports=(NAME,))
    return claims.evaluate(NoReports(), fixed)


def test_the_numbers_a_verdict_quotes_are_its_values():
    """The figures in a claim's own text and reason are the values judged, in their units:
    a difference of 0.0123 is 1.23 pp, 300 µs against 40 µs a ratio of 7.50, ASDCA last of
    four is "4 of 4" (the mutation survivors scorecard.py:235, :275 and :342, which changed
    a number in the text but not the verdict)."""
    res = explain("000.4", dict(p1=one(1.0), p1s=one(0.999), diff=0.0123))
    assert res.verdict == "differs"
    assert (
        res.ours
        == "epoch-1 loss 0.9990 (SGD init) vs 1.0000; test errors within 1.23 pp from epoch 2"
    )
    assert res.reason == (
        "epoch-1 loss with SGD init 0.9990 vs 1.0000 without; largest test-error difference "
        "from epoch 2 on: 1.23 pp"
    )
    res = explain("000.9", dict(s=one(300.0), p=one(40.0), n=1000))
    assert res.ours == "CPU per epoch: SDCA 300 µs, Pegasos 40 µs (SDCA/Pegasos = 7.50)"
    last = ranked(FOUR[SIM][1], FOUR[SIM][0], FOUR[SIM][3], FOUR[SIM][2])
    res = explain("001.6", _ranks({SIM: last, SKIN: SKIN_OK}))
    assert res.verdict == "differs"
    assert res.reason == (
        f"simulated: first {FOUR[SIM][1]}, ASDCA ranked 4 of 4; "
        f"skin: first {FOUR[SKIN][2]}, ASDCA ranked 1 of 4. notes"
    )


class _Reports:
    """A stand-in Query: records the report it is put on and reads ``x`` from it."""

    def __init__(self, values):
        self.values, self.read_from = values, []

    def on(self, name):
        self.read_from.append(name)
        return self

    def certified(self):
        return True


def _claim(**overrides) -> claims.Claim:
    rule = {
        "id": "t.1",
        "figures": (),
        "reports": ("first", "second"),
        "claim": "x is positive",
        "theirs": "x > 0",
        "criterion": "x > 0",
        "read": lambda q: {"x": q.values[q.read_from[-1]]},
        "holds": lambda v: v.x > 0,
        "ours": lambda v: f"x = {v.x}",
        "why": lambda v: "WHY",
        "note": lambda v: "NOTE",
    }
    return claims.Claim(**{**rule, **overrides})


def test_the_evaluator_reads_a_claims_first_report_and_gives_each_verdict_its_text():
    """evaluate puts the Query on the claim's first report (its default); a claim that holds
    says its note, one that differs or is level says why (the mutation survivors
    claims.py:53, [-1] for [0], and :61, > or >= for ==: 'level' > 'holds')."""
    values = {"first": 2.0, "second": -1.0}
    q = _Reports(values)
    got = claims.evaluate(q, _claim())
    assert q.read_from == ["first"] and got.ours == "x = 2.0"
    assert (got.verdict, got.reason) == ("holds", "NOTE")
    values["first"] = -3.0
    got = claims.evaluate(_Reports(values), _claim())
    assert (got.verdict, got.reason) == ("differs", "WHY")
    got = claims.evaluate(_Reports(values), _claim(level=lambda v: True))
    assert (got.verdict, got.reason) == ("level", "WHY")


def test_a_claim_is_frozen():
    """A claim is a definition: it cannot be changed in place after it is declared."""
    claim = _claim()
    with pytest.raises(dataclasses.FrozenInstanceError):
        claim.holds = lambda v: True


def test_any_data_texts_say_censored_runs_early_progress_and_a_sentence():
    """The helpers behind the any-data claims' texts (the mutation survivors any_data.py:46,
    :81, :95 ×2, :105): censored runs are said only when there are some, a later primal is
    'the same' within 1e-3 relative (or the seeds' spread), the early-progress clause only
    when every value is still more than twice a positive P*, and a clause becomes a
    sentence."""
    from types import SimpleNamespace as NS

    from sdca_pegasos.figures.common import Runs

    runs = Runs([3.0, 5.0, 7.0])
    plain = any_data._epochs_text(dict(runs=runs, censored=0, last=7))
    assert plain == f"{runs:pm1}"
    cut = any_data._epochs_text(dict(runs=Runs([3.0, 8.0, 8.0]), censored=2, last=7))
    assert cut.endswith(" (2 of 3 runs not within 7, counted as 8)"), cut

    one = Runs([100.0])
    assert any_data._later_same(NS(pl=one, pls=Runs([100.05])))
    assert not any_data._later_same(NS(pl=one, pls=Runs([100.5])))

    far = NS(a=Runs([3.0]), b=Runs([4.0]), d=1.0, sure=True)
    assert any_data._far(far, "a", "b").startswith("; all still 3× P* or more")
    assert "the lower bound D of P*" in any_data._far(NS(**{**vars(far), "sure": False}), "a")
    assert any_data._far(NS(**{**vars(far), "a": Runs([1.5])}), "a", "b") == ""
    assert any_data._far(NS(**{**vars(far), "d": 0.0}), "a", "b") == ""
    assert any_data._far(NS(**{**vars(far), "d": -1.0}), "a", "b") == ""

    assert any_data._sentence("; all still 3× P*") == "All still 3× P*"
