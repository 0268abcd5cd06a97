"""When the suite runs on pytest-xdist workers (tests/conftest.py's pytest_cmdline_main): a
bare `pytest`, the README's command, runs the whole suite on one worker per core; any run
that says otherwise, or names its tests, is left as given. The expected options are the
hook's contract as its docstring and README state it, checked on stand-in configurations."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

import conftest

WHOLE_SUITE = pytest.Config.ArgsSource.TESTPATHS


def config(args_source=WHOLE_SUITE, plugins=("xdist",), worker=False, **options):
    """A stand-in for the pytest configuration the hook reads and sets."""
    option = SimpleNamespace(numprocesses=None, dist="no", collectonly=False, usepdb=False)
    for name, value in options.items():
        setattr(option, name, value)
    made = SimpleNamespace(args_source=args_source, option=option,
                           pluginmanager=SimpleNamespace(hasplugin=lambda p: p in plugins))
    if worker:
        made.workerinput = {"workerid": "gw0"}
    return made


def workers_and_mode(made) -> tuple:
    conftest.pytest_cmdline_main(made)
    return made.option.numprocesses, made.option.dist


def test_a_bare_pytest_runs_one_worker_per_core_stealing_work():
    assert workers_and_mode(config()) == ("auto", "worksteal")


def test_a_distribution_mode_given_without_n_is_kept():
    assert workers_and_mode(config(dist="loadgroup")) == ("auto", "loadgroup")


@pytest.mark.parametrize("made", [
    config(args_source=pytest.Config.ArgsSource.ARGS),   # pytest tests/test_cli.py
    config(numprocesses=0),                              # -n 0
    config(numprocesses=3),                              # -n 3 (kept as given)
    config(plugins=()),                                  # -p no:xdist, or not installed
    config(collectonly=True),                            # --collect-only
    config(usepdb=True),                                 # --pdb
    config(worker=True),                                 # a worker's own configuration
], ids=["named-tests", "n0", "n3", "no-xdist", "collect-only", "pdb", "worker"])
def test_every_other_run_is_left_as_given(made):
    before = (made.option.numprocesses, made.option.dist)
    assert workers_and_mode(made) == before
