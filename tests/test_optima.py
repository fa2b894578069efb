"""Certified optima records (experiments.optima): content, keys, and worker memory."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from sklearn.svm import LinearSVC

from sdca_pegasos import data
from sdca_pegasos.experiments import Config, Experiment, datasets, optima
from sdca_pegasos.solvers.core import objectives

from .conftest import gaussian_problem


def _tiny_dataset(n=80, d=6, seed=0) -> data.Dataset:
    X, y = gaussian_problem(n=n, d=d, seed=seed)
    Xt, yt = gaussian_problem(n=40, d=d, seed=seed + 1)
    return data.Dataset(X, y.astype(np.int64), Xt, yt.astype(np.int64), {"title": "tiny gaussian"})


@pytest.fixture
def tiny_dataset(monkeypatch, tmp_path):
    monkeypatch.setenv("SVM_REPORTS_DIR", str(tmp_path / "reports"))
    datasets.register("tiny_gaussian", _tiny_dataset)
    yield "tiny_gaussian"
    data.registry.DATASETS.pop("tiny_gaussian", None)
    datasets.load.cache_clear()


def test_record_is_certified_and_carries_the_optimum(tiny_dataset):
    rec = optima.certify(tiny_dataset, {}, 0.02)
    split = _tiny_dataset()
    assert rec["certified"] and rec["rel_gap"] <= 1e-10
    assert rec["dual"] <= rec["primal"] and rec["cpu_seconds"] >= 0.0
    assert rec["method"] == "primal-ipm+crossover"  # n > d, d + 1 <= 256: low-rank IPM
    # the stored P* is liblinear's optimum (tol=1e-10, where it converges) up to 1e-8
    svc = LinearSVC(loss="hinge", dual=True, fit_intercept=False, tol=1e-10, max_iter=10**6)
    svc.set_params(C=objectives.lmbd_to_C(0.02, 80)).fit(split.X_train, split.y_train)
    p_lib = objectives.primal(split.X_train, split.y_train, svc.coef_.ravel(), 0.02)
    assert rec["dual"] <= p_lib <= rec["primal"] * (1 + 1e-8)
    assert rec["n_alpha_zero"] + rec["n_alpha_free"] + rec["n_alpha_bound"] == rec["n_train"]
    assert 0.0 <= rec["test_error"] <= 1.0 and 0.0 <= rec["train_error"] <= 1.0


@pytest.mark.parametrize("bias", [0.0, 1.0])
def test_record_errors_are_the_estimators_own(tiny_dataset, bias):
    """The record's train and test errors are those of the certified estimator's predictions
    on the dataset's own labels (a record that flipped every label would report about
    1 - error: the mutation survivor optima.py:72)."""
    from sdca_pegasos.solvers import ExactSVMClassifier

    split = _tiny_dataset()
    rec = optima.certify(tiny_dataset, {}, 0.02, bias=bias)
    est = ExactSVMClassifier(0.02, tol=1e-10, bias_multiplier=bias).fit(
        split.X_train, split.y_train
    )
    train = np.mean(est.predict(split.X_train) != split.y_train)
    test = np.mean(est.predict(split.X_test) != split.y_test)
    assert 0.0 < train < 0.25  # a flipped record would say about 1 - train
    assert rec["train_error"] == pytest.approx(train, abs=1e-12)
    assert rec["test_error"] == pytest.approx(test, abs=1e-12)
    # and the samples it predicts +1, which compare reads to tell a one-class optimum
    positive = est.classes_[1]
    assert rec["train_predicted_positive"] == int(np.sum(est.predict(split.X_train) == positive))
    assert rec["test_predicted_positive"] == int(np.sum(est.predict(split.X_test) == positive))
    assert 0 < rec["test_predicted_positive"] < split.y_test.shape[0]


def test_worker_does_not_keep_the_dataset_it_certified(tiny_dataset):
    """Issue "No silent wrong results", point 6: a long-lived loky worker kept every dataset
    it had certified (287 MB of raw crops), grew past loky's 300 MB memory-leak guard and was
    retired mid-pool ("A worker stopped while some jobs were given to the executor")."""
    datasets.load(tiny_dataset, {})
    assert datasets._load_cached.cache_info().currsize == 1
    optima.certify(tiny_dataset, {}, 0.02)
    assert datasets._load_cached.cache_info().currsize == 0


def test_records_are_keyed_by_code_and_replace_older_versions(tiny_dataset, monkeypatch):
    exp = Experiment(
        name="t",
        study="test",
        dataset=tiny_dataset,
        lmbd=0.02,
        epochs=1,
        configs=(Config("SDCA", "sdca", {}),),
    )
    assert optima.ensure_all([exp]) == 1
    (path,) = (optima.reports.reports_dir() / "optima").glob("*.json")
    assert path.name.endswith(f"_{optima.code_digest()}.json")
    assert json.loads(path.read_text())["code"] == optima.code_digest()
    assert optima.ensure_all([exp]) == 0  # cached under the same key
    monkeypatch.setattr(optima, "code_digest", lambda: "0123456789ab")
    assert optima.ensure_all([exp]) == 1  # a code change recomputes it...
    (new,) = (optima.reports.reports_dir() / "optima").glob("*.json")
    assert new.name.endswith("_0123456789ab.json")  # ...and the stale record is gone


def test_certified_is_exactly_rel_gap_at_most_the_target(tiny_dataset):
    """A record's ``certified`` is ``rel_gap <= target_rel_gap``: with a target between a
    cut solve's gap and a full solve's, the cut record says false and the full one true; at
    the cut gap itself, true."""
    full = optima.certify(tiny_dataset, {}, 0.02)
    cut = optima.certify(tiny_dataset, {}, 0.02, budget_seconds=0.0)
    assert full["rel_gap"] <= 1e-10 < cut["rel_gap"]
    between = float(np.sqrt(max(full["rel_gap"], 1e-300) * cut["rel_gap"]))
    records = [
        optima.certify(tiny_dataset, {}, 0.02, budget_seconds=0.0, tol=between),
        optima.certify(tiny_dataset, {}, 0.02, tol=between),
        optima.certify(tiny_dataset, {}, 0.02, budget_seconds=0.0, tol=cut["rel_gap"]),
    ]
    assert [r["certified"] for r in records] == [False, True, True]
    for r in [full, cut, *records]:
        assert r["certified"] is (r["rel_gap"] <= r["target_rel_gap"])


def _two_bias_experiment(dataset: str) -> Experiment:
    """Two configurations at one λ: one without ``bias_multiplier`` (B = 0, the default)
    and one with B = 1, so two optima are needed."""
    return Experiment(
        name="t",
        study="test",
        dataset=dataset,
        lmbd=0.02,
        epochs=1,
        configs=(
            Config("SDCA", "sdca", {}),
            Config("SDCA biased", "sdca", {"bias_multiplier": 1.0}),
        ),
    )


def test_a_config_without_bias_multiplier_needs_the_unbiased_optimum(tiny_dataset):
    """A configuration that does not set ``bias_multiplier`` solves the B = 0 problem, so its
    optimum is the B = 0 one (the mutation survivor optima.py:119 mapped it to B = 1, and
    both configurations then shared the biased optimum)."""
    needed = optima.needed(_two_bias_experiment(tiny_dataset))
    assert needed == [(tiny_dataset, {}, 0.02, 0.0), (tiny_dataset, {}, 0.02, 1.0)]
    only_plain = dataclasses.replace(
        _two_bias_experiment(tiny_dataset), configs=(Config("SDCA", "sdca", {}),)
    )
    assert optima.needed(only_plain) == [(tiny_dataset, {}, 0.02, 0.0)]


def test_ensure_all_certifies_in_this_process_by_default(tiny_dataset, monkeypatch):
    """``ensure_all``'s default is one job: every optimum is certified here, in order of
    size, with no pool (the survivor optima.py:147 made the default ``n_jobs=0``, which joblib
    refuses as soon as two optima are missing)."""
    calls = []

    def fake_certify(dataset, options, lmbd, bias, budget_seconds, release=True):
        calls.append((dataset, lmbd, bias, budget_seconds))
        return {"dataset": dataset, "lmbd": lmbd, "bias": bias, "certified": True}

    monkeypatch.setattr(optima, "certify", fake_certify)
    exp = _two_bias_experiment(tiny_dataset)
    assert optima.ensure_all([exp]) == 2
    # in this process (a pool's workers would append to their own copies of the list)
    assert sorted(calls) == [
        (tiny_dataset, 0.02, 0.0, optima.BUDGET_SECONDS),
        (tiny_dataset, 0.02, 1.0, optima.BUDGET_SECONDS),
    ]
    records = [r["bias"] for r in optima.load_all()]
    assert sorted(records) == [0.0, 1.0]
    assert optima.ensure_all([exp]) == 0 and len(calls) == 2  # both stand now


def test_summary_has_one_exact_line_per_stored_optimum(tiny_dataset):
    """The summary's header, then per record (sorted by file name): dataset key, λ, relative
    gap, CPU seconds and method, with ``NOT CERTIFIED`` after an uncertified one."""
    directory = optima.reports.reports_dir() / "optima"
    directory.mkdir(parents=True)
    records = {
        "a.json": dict(dataset_key="tiny", lmbd=0.02, rel_gap=3.5e-12, cpu_seconds=1.234,
                       method="primal-ipm+crossover", certified=True),
        "b.json": dict(dataset_key="tiny_other", lmbd=1e-05, rel_gap=2.0e-4, cpu_seconds=60.0,
                       method="dual-cd", certified=False),
        "c.json": dict(dataset_key="old", lmbd=0.5, cpu_seconds=0.5),  # an older record
    }  # fmt: skip
    for name, record in records.items():
        (directory / name).write_text(json.dumps(record))
    assert optima.summary().splitlines() == [
        "dataset                               λ   rel. gap   CPU s  method",
        "tiny                               0.02    3.5e-12    1.23  primal-ipm+crossover",
        "tiny_other                        1e-05    2.0e-04   60.00  dual-cd  NOT CERTIFIED",
        "old                                 0.5        nan    0.50  ?  NOT CERTIFIED",
    ]
