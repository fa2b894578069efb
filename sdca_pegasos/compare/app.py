"""The comparison, stage by stage: check everything, then optima, runs, figures, summary.

:func:`prepare` reads and checks the options, the file and the output folder (whose input it holds:
:mod:`sdca_pegasos.compare.folder`) and builds the plan without writing anything; :func:`execute`
creates the output folder and its manifest and does the rest, saying what it does on the
:class:`~sdca_pegasos.compare.progress.Console` and keeping :attr:`Plan.stage` up to date for
:func:`interrupted`. The reports folder of the engine is the output folder itself, passed down to
:mod:`sdca_pegasos.experiments.runner` and :mod:`sdca_pegasos.experiments.optima` as their
``root``."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd
import scipy.sparse as sp

from sdca_pegasos.experiments import datasets, optima, reports, runner
from sdca_pegasos.experiments.catalogue import MAIN_VARIANTS
from sdca_pegasos.experiments.spec import Config, Experiment

from . import folder, inputs, outputs
from . import problem as problems
from .inputs import BadInput
from .progress import Console

#: Settings added after the first manifests were written (:meth:`Settings.identity`).
LATER = ("sep", "decimal", "dropna")
#: ``--sep`` as the command line spells these separators (:meth:`Settings.command`).
SEP_NAMES = {"\t": "tab", " ": "space"}
#: Name of the combined report (every λ) in the output folder.
REPORT = "compare.parquet"
SUMMARY = "SUMMARY.md"


@dataclass(frozen=True)
class Settings:
    """Every option of ``python -m sdca_pegasos.compare`` (see ``--help``)."""

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
    classes: tuple[str, str] | None = None
    positive: str | None = None
    drop_cols: tuple[str, ...] = ()
    encode: tuple[str, ...] = ()
    encoding: str | None = None
    sep: str | None = None  # None: sniffed
    decimal: str | None = None  # None: guessed
    dropna: bool = False

    def command(self) -> str:
        """The command line that makes these settings: FILE, --out DIR and every option
        that differs from its default (SUMMARY.md quotes it: run again, it resumes or
        rebuilds the same folder; ``--overwrite`` and ``--quiet`` are not settings)."""
        default = Settings(self.file, self.out)
        words = [
            "python -m sdca_pegasos.compare",
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
            ("--positive", "positive"),
            ("--encoding", "encoding"),
            ("--sep", "sep"),
            ("--decimal", "decimal"),
        ):
            value = getattr(self, field_name)
            if value != getattr(default, field_name):
                if field_name == "sep":
                    value = SEP_NAMES.get(value, value)
                words += [
                    flag,
                    shlex.quote(f"{value:g}" if isinstance(value, float) else str(value)),
                ]
        if self.solvers != default.solvers:
            words += ["--solvers", *self.solvers]
        for flag, values in (
            ("--classes", self.classes),
            ("--drop-cols", self.drop_cols),
            ("--encode", self.encode),
        ):
            if values:
                words += [flag, *(shlex.quote(v) for v in values)]
        if self.dropna:
            words.append("--dropna")
        if not self.intercept:
            words.append("--no-intercept")
        return " ".join(words)

    def identity(self) -> dict:
        """Every setting that changes what DIR holds: all but FILE's path (its content is
        identified by its SHA-256), --out and --certify-budget (a larger budget re-solves P*
        in the same folder). A folder made with other values is refused
        (:func:`sdca_pegasos.compare.folder.check`). The settings of :data:`LATER` are left
        out at their defaults: a manifest written before they existed lacks them, and its
        folder, made with their defaults, still resumes."""
        default = Settings(self.file, self.out)
        return {
            f.name: getattr(self, f.name)
            for f in dataclasses.fields(self)
            if f.name not in ("file", "out", "certify_budget")
            and not (f.name in LATER and getattr(self, f.name) == getattr(default, f.name))
        }


@dataclass
class Plan:
    """What will run: the problem, one :class:`~sdca_pegasos.experiments.spec.Experiment` per λ."""

    settings: Settings
    problem: problems.Problem
    dataset: str
    experiments: list[Experiment]
    notes: list[str] = field(default_factory=list)
    #: What :data:`sdca_pegasos.compare.folder.MANIFEST` will record.
    manifest: dict = field(default_factory=dict)
    #: The manifest of the outputs ``--overwrite`` removes first (None: nothing to remove).
    previous: dict | None = None
    #: What :func:`execute` is doing, once it has created DIR (None before).
    stage: str | None = None

    @property
    def root(self) -> Path:
        return self.settings.out

    def optima_done(self) -> tuple[int, int]:
        """(optima stored in the output folder, optima needed)."""
        needed = [t for exp in self.experiments for t in optima.needed(exp)]
        done = sum(optima.optimum_path(*t, root=self.root).is_file() for t in needed)
        return done, len(needed)

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
    """The SHA-256 of the file, in hex."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


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


def prepare(settings: Settings, console: Console, overwrite: bool = False) -> Plan:
    """Check the options, the file and the output folder, and build the plan; writes
    nothing. ``overwrite``: a folder of compare's outputs of another input will be cleared
    of them (:func:`sdca_pegasos.compare.folder.check`).

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
        named = s.classes is not None or s.positive is not None
        table = inputs.read(
            path, s.label_col, s.zero_based, s.drop_cols, s.encode, s.encoding, s.sep,
            s.decimal, s.dropna, labels_named=named,
        )  # fmt: skip
        X, y, classes = inputs.binary(path, table, s.classes, s.positive)
    meta = {"title": f"{path.name} (your data)", "file": str(path), "sparse": sp.issparse(X)}
    batches = {name: int(c.params.get("batch_size", 1)) for name, c in MAIN_VARIANTS.items()}
    with console.stage("splitting and scaling"):
        problem = problems.make(
            path, X, y, s.test_size, s.scale, s.intercept, meta, batches, s.solvers
        )
    ds = problem.dataset
    lmbds = list(s.lmbds) if s.lmbds else [1.0 / ds.n_train]
    problems.check_lmbds(path, problem, lmbds)
    problems.check_batches(path, problem, batches, s.solvers, s.test_size)
    sha256 = file_digest(path)
    manifest = folder.manifest_of(path, sha256, s.identity(), s.command())
    previous = folder.check(s.out, manifest, overwrite)
    configs = tuple(_with_bias(MAIN_VARIANTS[name], problem.bias) for name in s.solvers)
    name = f"file-{sha256[:12]}"
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
    return Plan(s, problem, name, experiments, notes, manifest, previous)


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
    if plan.previous is not None:
        plan.stage = "removing the previous outputs (--overwrite)"
        removed = folder.remove_own(out)
        console.warn(
            f"--overwrite: removed compare's {removed} file{'s' if removed != 1 else ''} from "
            f"{out} (made by `{plan.previous['command']}`)"
        )
    folder.write_manifest(out, plan.manifest)
    records = []
    for exp in plan.experiments:
        plan.stage = f"computing P* at {_where(exp)}"
        records.append(certify(exp, out, s.certify_budget, console))
    plan.stage = "running the solvers"
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
    plan.stage = "drawing the figures"
    with console.stage("figures"):
        paths = outputs.figures(frame, opt, out, plan.problem.words)
    plan.stage = f"writing {SUMMARY}"
    text = outputs.summary(frame, opt, plan, [p for p in paths if p.suffix == ".png"])
    reports.atomic_write_text(text, out / SUMMARY)
    return [report, *paths, out / SUMMARY]


def interrupted(plan: Plan | None) -> str:
    """What Ctrl-C leaves behind, in one line: nothing, or a folder that the same command
    resumes (every stored optimum and run is reused)."""
    if plan is None or plan.stage is None:
        return "interrupted before anything was written"
    p_done, p_total = plan.optima_done()
    r_done, r_total = plan.runs_done()
    return (
        f"interrupted while {plan.stage}: {plan.root} holds P* at {p_done} of {p_total} λ "
        f"and {r_done} of {r_total} runs; run the same command again to resume"
    )


def _where(exp: Experiment) -> str:
    return outputs.lmbd_words(exp.lmbd, datasets.load(exp.dataset, exp.dataset_options))


def certify(exp: Experiment, out: Path, budget: float, console: Console) -> dict:
    """The optimum record of ``exp`` (computed once; stored under ``out/optima``)."""
    where = _where(exp)
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
    one, _ = outputs.one_class(record, datasets.load(exp.dataset, exp.dataset_options))
    if one:
        console.warn(f"at {where}: {one[:1].lower()}{one[1:]}")
    return record


def compare(
    settings: Settings, console: Console | None = None, overwrite: bool = False
) -> list[Path]:
    """:func:`prepare`, then :func:`execute`; returns the paths written."""
    console = console or Console(quiet=True)
    return execute(prepare(settings, console, overwrite), console)
