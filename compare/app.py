"""The comparison, stage by stage: check everything, then optima, runs, figures, summary.

:func:`prepare` reads and checks the options and the file and builds the plan without
writing anything; :func:`execute` creates the output folder and does the rest, saying what
it does on the :class:`~compare.progress.Console`. The reports folder of the engine is the
output folder itself, passed down to :mod:`experiments.runner` and
:mod:`experiments.optima` as their ``root``.
"""

from __future__ import annotations

import hashlib
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from experiments import datasets, optima, reports, runner
from experiments.catalogue import MAIN_VARIANTS
from experiments.spec import Config, Experiment

from . import inputs, outputs
from . import problem as problems
from .inputs import BadInput
from .progress import Console

#: Name of the combined report (every λ) in the output folder.
REPORT = "compare.parquet"
SUMMARY = "SUMMARY.md"


@dataclass(frozen=True)
class Settings:
    """Every option of ``python -m compare`` (see ``--help``)."""

    file: Path
    out: Path
    lmbds: tuple[float, ...] | None = None  # None: 1/n_train
    seeds: int = 5
    epochs: int = 20
    solvers: tuple[str, ...] = tuple(MAIN_VARIANTS)
    test_size: float = 0.25
    label_col: str | None = None
    zero_based: str = "auto"
    intercept: bool = True
    scale: str = "auto"
    certify_budget: float = optima.BUDGET_SECONDS

    def command(self) -> str:
        """The command line that makes these settings: FILE, --out DIR and every option
        that differs from its default (SUMMARY.md quotes it: run again, it resumes or
        rebuilds the same folder)."""
        default = Settings(self.file, self.out)
        words = [
            "python -m compare",
            shlex.quote(str(self.file)),
            "--out",
            shlex.quote(str(self.out)),
        ]
        if self.lmbds is not None:
            words += ["--lmbd", *(f"{v:g}" for v in self.lmbds)]
        for flag, field_name in (
            ("--seeds", "seeds"),
            ("--max-epochs", "epochs"),
            ("--test-size", "test_size"),
            ("--label-col", "label_col"),
            ("--zero-based", "zero_based"),
            ("--scale", "scale"),
            ("--certify-budget", "certify_budget"),
        ):
            value = getattr(self, field_name)
            if value != getattr(default, field_name):
                words += [
                    flag,
                    shlex.quote(f"{value:g}" if isinstance(value, float) else str(value)),
                ]
        if self.solvers != default.solvers:
            words += ["--solvers", *self.solvers]
        if not self.intercept:
            words.append("--no-intercept")
        return " ".join(words)


@dataclass
class Plan:
    """What will run: the problem, one :class:`~experiments.spec.Experiment` per λ."""

    settings: Settings
    problem: problems.Problem
    dataset: str
    experiments: list[Experiment]
    notes: list[str] = field(default_factory=list)

    @property
    def root(self) -> Path:
        return self.settings.out

    def runs_done(self) -> tuple[int, int]:
        """(runs stored in the output folder, runs planned)."""
        done = total = 0
        for exp in self.experiments:
            tasks, missing = runner.plan(exp, self.root)
            done, total = done + len(tasks) - len(missing), total + len(tasks)
        return done, total


def check_out(out: Path) -> None:
    """``out`` must be a folder, or creatable, and writable (checked before anything is)."""
    if out.exists() and not out.is_dir():
        raise BadInput(f"--out {out}: exists and is not a folder; name a folder")
    existing = out
    while not existing.exists():
        existing = existing.parent
    if not existing.is_dir():
        raise BadInput(f"--out {out}: {existing} is a file, so the folder cannot be created")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise BadInput(f"--out {out}: cannot write in {existing} (permission denied)")


def file_digest(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()[:12]


def data_digest(ds) -> str:
    """Hash of the arrays the solvers will see (after reading, splitting and scaling): part
    of every run's key, so that a change in how a file is read or scaled never reuses runs
    of other data."""
    h = hashlib.sha256()
    for array in (ds.X_train, ds.y_train, ds.X_test, ds.y_test):
        if array is None:
            h.update(b"none")
        elif sp.issparse(array):
            for part in (array.data, array.indices, array.indptr, np.asarray(array.shape)):
                h.update(np.ascontiguousarray(part).tobytes())
        else:
            h.update(str(array.shape).encode())
            h.update(np.ascontiguousarray(array).tobytes())
    return h.hexdigest()[:12]


def prepare(settings: Settings, console: Console) -> Plan:
    """Check the options and the file and build the plan; writes nothing.

    Raises
    ------
    BadInput
        One line naming the problem and the fix.
    """
    s = settings
    unknown = [name for name in s.solvers if name not in MAIN_VARIANTS]
    if unknown:
        raise BadInput(f"--solvers {unknown[0]}: expected some of {', '.join(MAIN_VARIANTS)}")
    check_out(s.out)
    path = s.file
    with console.stage(f"reading {path}"):
        table = inputs.read(path, s.label_col, s.zero_based)
        X, y, classes = inputs.binary(path, table)
    meta = {"title": f"{path.name} (your data)", "file": str(path), "sparse": sp.issparse(X)}
    with console.stage("splitting and scaling"):
        problem = problems.make(path, X, y, s.test_size, s.scale, s.intercept, meta)
    ds = problem.dataset
    lmbds = list(s.lmbds) if s.lmbds else [1.0 / ds.n_train]
    problems.check_lmbds(path, problem, lmbds)
    configs = tuple(_with_bias(MAIN_VARIANTS[name], problem.bias) for name in s.solvers)
    name = f"file-{file_digest(path)}"
    datasets.register(name, lambda **_options: ds)  # this process only: nothing is written
    options = {"test_size": s.test_size, "scale": problem.scale, "data": data_digest(ds)}
    experiments = [
        Experiment(
            name=f"compare_lmbd{lmbd:.6g}",
            study="compare",
            dataset=name,
            dataset_options=options,
            lmbd=float(lmbd),
            epochs=s.epochs,
            configs=configs,
            seeds=s.seeds,
            description=f"{path.name}, lambda = {lmbd:g}",
        )
        for lmbd in dict.fromkeys(lmbds)
    ]
    notes = [*table.notes, classes[:1].upper() + classes[1:]]
    return Plan(s, problem, name, experiments, notes)


def _with_bias(config: Config, bias: float) -> Config:
    params = {**config.params, "bias_multiplier": bias} if bias else config.params
    return Config(config.label, config.solver, params, config.tags)


def execute(plan: Plan, console: Console) -> list[Path]:
    """Create the output folder, then the optima, the runs, the figures and the summary."""
    out = plan.root
    s = plan.settings
    for line in plan.notes:
        console.say(line)
    for line in plan.problem.warnings:
        console.warn(line)
    ds = plan.problem.dataset
    console.say(
        f"{ds.n_train} training samples x {ds.X_train.shape[1]} features, "
        + ("no test set" if ds.X_test is None else f"{ds.X_test.shape[0]} test samples")
        + f". {plan.problem.words}"
    )
    out.mkdir(parents=True, exist_ok=True)
    records = [certify(exp, out, s.certify_budget, console) for exp in plan.experiments]
    frames = []
    for exp in plan.experiments:
        frames.append(runner.run_experiment(exp, n_jobs=1, progress=not console.quiet, root=out))
    # the problem solved, in every row: the scaling, and the intercept's bias multiplier
    frame = pd.concat(frames, ignore_index=True).assign(
        scale=plan.problem.scale, bias_multiplier=plan.problem.bias
    )
    report = out / REPORT
    reports.atomic_write_parquet(frame, report)
    opt = pd.DataFrame.from_records(records)
    with console.stage("figures"):
        paths = outputs.figures(frame, opt, out, plan.problem.words)
    text = outputs.summary(frame, opt, plan, [p for p in paths if p.suffix == ".png"])
    reports.atomic_write_text(text, out / SUMMARY)
    return [report, *paths, out / SUMMARY]


def certify(exp: Experiment, out: Path, budget: float, console: Console) -> dict:
    """The optimum record of ``exp`` (computed once; stored under ``out/optima``)."""
    where = outputs.lmbd_words(exp.lmbd, datasets.load(exp.dataset, exp.dataset_options))
    start = time.process_time()

    def detail(_elapsed: float) -> str:
        return f"exact engine, {time.process_time() - start:.0f} s CPU of its {budget:g} s budget"

    with console.stage(f"P* at {where}", detail):
        (record,) = optima.ensure(exp, root=out, budget_seconds=budget)
    sentence = outputs.optimum_sentence(record)
    if record["certified"]:
        console.say(f"P* at {where}: {sentence}")
    else:
        console.warn(
            f"P* at {where}: {sentence}; the suboptimality curves are upper bounds "
            "(raise --certify-budget to try longer)"
        )
    return record


def compare(settings: Settings, console: Console | None = None) -> list[Path]:
    """:func:`prepare`, then :func:`execute`; returns the paths written."""
    console = console or Console(quiet=True)
    return execute(prepare(settings, console), console)
