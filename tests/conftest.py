"""Shared paths, a skip for tests that need ptxas when it is absent, and the command-line
tools run in-process."""

import importlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tcgen05_lower.backend import find_ptxas

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"

requires_ptxas = pytest.mark.skipif(find_ptxas() is None, reason="ptxas not found")


# -- the command-line tools, run in-process --------------------------------------------------

#: Console-script name -> module whose ``run(argv)`` the script calls through guarded_main.
TOOLS = {"tcgen05-lower": "tcgen05_lower.cli.lower", "tcgen05-opt": "tcgen05_lower.cli.opt",
         "tcgen05-sim": "tcgen05_lower.cli.sim", "tcgen05-compare": "tcgen05_lower.cli.compare"}


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
