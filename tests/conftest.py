"""Shared paths, a skip for tests that need ptxas when it is absent, and the command-line
tools run in-process."""

import importlib
import io
import os
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tcgen05_lower.backend import find_ptxas

# Every compile of the tests verifies the module after every pass (upstream's default, so
# that a pass leaving invalid IR is the one named); tests/test_verify_each.py covers the
# default of the tools, which verifies after the tcgen05 passes and the last pass only.
os.environ.setdefault("TCGEN05_VERIFY_EACH", "1")
# One BLAS thread per process (before NumPy is loaded here, and in the pytest-xdist workers
# and the tools' subprocesses, which inherit it): the simulator's products are small blocks,
# for which a second OpenBLAS thread adds CPU time and no speed (benchmarks/sim/SPEED.md,
# "Round 4: merged"), and the suite already runs one worker per core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


# -- the whole suite on every core -------------------------------------------------------------

#: pytest-xdist's distribution mode for the whole suite: each worker starts with a contiguous
#: half (a third, ...) of the tests in collection order, so that the tests of a file, and the
#: neighbouring files that share a compile or a simulation (tests/example_runs.py,
#: tests/sim_checks.py), mostly stay in one process; a worker that runs out takes half of
#: what another has left, so the run ends within about one test of the other workers.
WHOLE_SUITE_DIST = "worksteal"


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """A bare `pytest` (the whole suite: the README's command) runs on one pytest-xdist
    worker per core ("-n auto"). A run that names its tests (`pytest
    tests/test_cli.py`), gives `-n` itself (`-n 0`: one process), leaves pytest-xdist out
    (`-p no:xdist`, or not installed), only collects, or debugs (`--pdb`) is left as
    given. This runs before pytest-xdist's own pytest_cmdline_main (a conftest's hook is
    registered after the installed plugins, so pluggy calls it first), which turns "auto"
    into the core count (or $PYTEST_XDIST_AUTO_NUM_WORKERS)."""
    if not config.pluginmanager.hasplugin("xdist") or hasattr(config, "workerinput"):
        return  # no pytest-xdist, or this is already one of its workers
    if config.args_source is not pytest.Config.ArgsSource.TESTPATHS:
        return  # tests named on the command line: a developer's run, one process
    if config.option.numprocesses is not None or config.option.collectonly \
            or config.option.usepdb:
        return  # -n given; nothing to run; a debugger needs the one process
    config.option.numprocesses = "auto"
    if config.option.dist == "no":
        config.option.dist = WHOLE_SUITE_DIST


ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

requires_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")

#: Pass options of the default pipeline that an example needs (docs/warp-roles.md): a
#: kernel with warp roles writes its own synchronization, which tcgen05-insert-sync keeps (strategy=none) and tcgen05-verify-sync checks.
HAND_SYNCHRONIZED = ("tcgen05-insert-sync{strategy=none}",)
#: The same with the roles passed on unchecked (tcgen05-verify-sync{partitions=skip}):
#: for a pair kernel whose synchronization is not what a test is about (the differential
#: test's TMA fragment), and for showing that the simulator catches what the verifier does.
PAIR_HAND_SYNCHRONIZED = HAND_SYNCHRONIZED + ("tcgen05-verify-sync{partitions=skip}",)
EXAMPLE_PASS_OPTIONS = {"ws_gemm_bf16": HAND_SYNCHRONIZED,
                        "ws_persistent_gemm_bf16_hand": HAND_SYNCHRONIZED,
                        "ws_gemm_2cta_bf16_hand": HAND_SYNCHRONIZED,
                        # all its synchronization is insert-sync's (TMA loads, handoffs)
                        "ws_attention_fwd_bf16": ("tcgen05-insert-sync{strategy=handoffs}",),
                        # the generator's forms whose handoffs are written by hand
                        # (tests/test_ws_attention.py: one query tile)
                        "ws_attention_fwd_bf16_loads": ("tcgen05-insert-sync{strategy=loads}",)}


def example_pass_options(path) -> tuple:
    """The pass options the example at `path` (a path or a file name) needs."""
    return EXAMPLE_PASS_OPTIONS.get(Path(str(path)).stem, ())


def example_pipeline(path, pipeline: str | None = None) -> str:
    """`pipeline` (the default one if None) with the example's pass options."""
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options

    return override_options(pipeline or DEFAULT_PIPELINE, list(example_pass_options(path)))


def synchronized_by_the_compiler(paths) -> list:
    """The examples among `paths` whose synchronization tcgen05-insert-sync writes (the
    others write their own: tests of inserted sync ops do not apply to them)."""
    return [p for p in paths if not example_pass_options(p)]


# -- the command-line tools, run in-process --------------------------------------------------

#: Console-script name -> module whose ``run(argv)`` the script calls through guarded_main.
TOOLS = {"tcgen05-lower": "tcgen05_lower.cli.lower", "tcgen05-opt": "tcgen05_lower.cli.opt",
         "tcgen05-sim": "tcgen05_lower.cli.sim", "tcgen05-compare": "tcgen05_lower.cli.compare",
         "tcgen05-sweep": "tcgen05_lower.cli.sweep"}


@dataclass
class ToolRun:
    """What a tool run leaves behind, as subprocess.run's result would show it."""

    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def tool(capfd, monkeypatch):
    """``tool("tcgen05-opt", *argv, stdin=None) -> ToolRun``: the console script's body
    (``guarded_main(name, run)``, argparse's exits included) in this process. Output is
    captured at the file-descriptor level, so what MLIR's C++ side prints (IR dumps,
    pass-manager errors) is seen as a subprocess would see it. Exit codes of the real
    executables keep a few subprocess tests (test_cli.py)."""
    from tcgen05_lower.cli.common import guarded_main

    def run(name, *args, stdin=None):
        module = importlib.import_module(TOOLS[name])
        if stdin is not None:
            monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        capfd.readouterr()
        try:
            code = guarded_main(name, lambda: module.run([str(a) for a in args]))
        except SystemExit as exc:   # argparse: --help exits 0, a usage error 2
            code = exc.code if isinstance(exc.code, int) else 1
        sys.stdout.flush()
        sys.stderr.flush()
        out, err = capfd.readouterr()
        return ToolRun(code, out, err)

    return run
