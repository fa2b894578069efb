"""Packaging metadata: a fresh install prints no setuptools deprecation warning (issue 12).

setuptools >= 77 deprecates the ``project.license`` table (``{ text = "MIT" }``) in favour of
a PEP 639 SPDX string, which older setuptools reject: the string and the lower bound go
together. (Checked by hand: ``pip wheel --no-deps .`` in a clean copy printed the
deprecation notice twice before, nothing after.)
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from packaging.requirements import Requirement

PYPROJECT = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())


def test_license_is_an_spdx_string_without_license_classifiers():
    project = PYPROJECT["project"]
    assert project["license"] == "MIT"
    assert not [c for c in project.get("classifiers", []) if c.startswith("License ::")]


def test_build_requires_a_setuptools_that_reads_spdx_licenses():
    (setuptools,) = [
        Requirement(r)
        for r in PYPROJECT["build-system"]["requires"]
        if Requirement(r).name == "setuptools"
    ]
    assert not setuptools.specifier.contains("76.1.0"), "76 and older reject license = 'MIT'"
    assert setuptools.specifier.contains("77.0.0") and setuptools.specifier.contains("80.9.0")


def test_a_hung_test_fails_by_name_well_inside_cis_limit(pytestconfig):
    """CI stops the whole run at 90 minutes and keeps only the output's tail: a test that
    hangs must fail by itself, named in the summary, long before that (pytest-timeout in the
    test extra, its limit on, in the signal mode that fails the test and goes on)."""
    ini = PYPROJECT["tool"]["pytest"]["ini_options"]
    extras = PYPROJECT["project"]["optional-dependencies"]
    test_extra = [Requirement(r).name for r in extras["test"]]
    assert "pytest-timeout" in test_extra
    assert pytestconfig.pluginmanager.hasplugin("timeout"), "pytest-timeout is not installed"
    assert 0 < float(ini["timeout"]) <= 900 and ini["timeout_method"] == "signal"
    assert float(pytestconfig.getini("timeout")) == float(ini["timeout"])  # pyproject is read
