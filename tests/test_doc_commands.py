"""Every shell command the documentation shows runs (issue 33): the ``tcgen05-*`` and
``python benchmarks/...`` commands of README.md's and docs/*.md's code blocks and of the
examples' check-file docstrings, each in a scratch directory that sees the repository's
examples/, tests/ and benchmarks/. Each must exit 0 and write the files it names (``-o``,
``--manifest`` of tcgen05-lower, ``--trace``).

The tools run in-process (the ``tool`` fixture); the benchmark scripts in a subprocess. A
command whose run takes long is marked slow here (SLOW, with its time), one whose full size
takes far too long runs smaller (SMALLER, with the reason), and one that names a file an
earlier step makes gets that step first (PREPARE). The README's two set-up commands
(``<!-- ci:command -->``) are run by .ci/run, not here.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The documents whose commands are run.
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")),
             *sorted((ROOT / "examples").glob("*.check.py"))]

#: A command line of a code block: a tool of the project or a benchmark script, optionally
#: after a ``$ `` prompt (output lines such as ``tcgen05-sim: ...`` have no space there).
_COMMAND = re.compile(r"^(?:\$ )?((?:tcgen05-(?:lower|opt|sim|compare|run|sweep)|"
                      r"python3? benchmarks/\S+)(?:\s.*)?)$")
#: The fences whose lines may be commands (sh, or none); mlir, python, ... blocks are not.
_SHELL_FENCES = ("", "sh", "bash", "console")

#: Commands (by a substring) that take long, with their time on the reference machine:
#: run with -m slow only.
SLOW = {
    "tcgen05-compare examples/persistent_gemm_bf16.mlir": "29 s: six compiles and simulations",
    "tcgen05-sim examples/gemm_bf16_grid.mlir": "8.5 s: 4 CTAs simulated",
    "tcgen05-sim examples/ws_persistent_gemm_bf16.mlir": "6 to 7 s: 4 tiles in 3 roles",
    "tcgen05-sim examples/ws_gemm_bf16_grid_2cta.mlir": "16 s: 8 CTAs, 12 tiles of 256 x 256",
    "tcgen05-sweep examples/sweep_flagship.py": "about 10 s for its one point (SMALLER): a "
                                                "check and a timing-only estimate",
}
#: Commands (by a substring) run smaller: (replacements, why).
SMALLER = {
    # before "--count 500" below, which the second chunk of campaign 41 would match first
    "python benchmarks/generator/run.py --count 1000 --seed 41": (
        [("--count 1000", "--count 2"),
         ("--results benchmarks/generator/results_41.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_41.md", "-o REPORT.md")],
        "1,000 generated kernels take over 20 minutes; 2 run the same code, and the "
        "results and report go to the scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --count 500 --seed 41 --start 1000": (
        [("--count 500", "--count 2"), ("--start 1000", "--start 0"),
         ("--results benchmarks/generator/results_41.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_41.md", "-o REPORT.md")],
        "500 more kernels take over 10 minutes; 2 run the same code (from the first, "
        "so that no 1,000 specs are drawn first), and the results and report go to the "
        "scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --count 400 --seed 42": (
        [("--count 400", "--count 2"),
         ("--results benchmarks/generator/results_42.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_42.md", "-o REPORT.md")],
        "400 generated kernels take about eight minutes; 2 run the same code, and the "
        "results and report go to the scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --count 400 --seed 43": (
        [("--count 400", "--count 2"),
         ("--results benchmarks/generator/results_43.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_43.md", "-o REPORT.md")],
        "400 generated kernels take about nine minutes; 2 run the same code, and the "
        "results and report go to the scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --count 250 --seed 4301": (
        [("--count 250", "--count 2"),
         ("--results benchmarks/generator/results_43_chain.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_43_chain.md", "-o REPORT.md")],
        "250 chained GEMMs take several minutes; 2 run the same code (the same pins), "
        "and the results and report go to the scratch directory, not over the shipped ones"),
    "python benchmarks/fuzz/run.py --mutants 30000": (
        [("--mutants 30000", "--mutants 10"), ("--jobs 2", "--jobs 1"),
         ("--minimise 30", "--minimise 0"),
         # The report goes to the scratch directory, not over the shipped one.
         ("-o benchmarks/fuzz/REPORT.md", "-o REPORT.md")],
        "30,000 mutants take about an hour on two cores; 10 run the same code"),
    "python benchmarks/generator/run.py --count 500": (
        [("--count 500", "--count 2 --results results.jsonl -o REPORT.md")],
        "500 generated kernels take about ten minutes; 2 run the same code, and the "
        "results and report go to the scratch directory, not over the shipped ones"),
    "tcgen05-sweep examples/sweep_ws_gemm.py": (
        [("N=64,128,256", "N=256"), ("stages=2,3,4,6", "stages=2"), ("ctas=1,2", "ctas=1"),
         ("benchmarks/sweep/", "")],
        "24 points take about 3 minutes on two cores; 1 runs the same code, and the report, "
        "table and plot go to the scratch directory, not over the shipped ones"),
    "tcgen05-sweep examples/sweep_flagship.py": (
        [("N=64,128,256", "N=256"), ("stages=2,3,4", "stages=2"),
         ("cluster=1x1,2x1,1x2", "cluster=1x1"), ("cta_group=1,2", "cta_group=2"),
         ("benchmarks/sweep/", "")],
        "54 points take minutes on two cores; 1 runs the same code, and the report, table "
        "and plot go to the scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --count 400 --seed 39": (
        [("--count 400", "--count 2"),
         ("--results benchmarks/generator/results_39.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_39.md", "-o REPORT.md")],
        "400 generated kernels take about seven minutes; 2 run the same code, and the "
        "results and report go to the scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --count 150 --seed 40": (
        [("--count 150", "--count 2"),
         ("--results benchmarks/generator/results_40.jsonl", "--results results.jsonl"),
         ("-o benchmarks/generator/REPORT_40.md", "-o REPORT.md")],
        "150 generated kernels take over two minutes; 2 run the same code, and the "
        "results and report go to the scratch directory, not over the shipped ones"),
    "python benchmarks/generator/run.py --seed 33 --retry-known": (
        [("--retry-known", "--retry-known --results results.jsonl -o REPORT.md")],
        "reruns the kernels of a copy of the shipped results (COPY), so that the shipped "
        "results and report stay as they are, and of the rows of its first COPY_KERNELS "
        "kernels only: their latest rows are the shipped state of those kernels, and "
        "drawing all the thousands again for the report takes 16 s of CPU"),
}
#: Files copied into the scratch directory before a command (by a substring) runs:
#: command -> [(file of the repository, name in the scratch directory)].
COPY = {
    "python benchmarks/generator/run.py --seed 33 --retry-known": [
        ("benchmarks/generator/results.jsonl", "results.jsonl")],
}
#: The kernels (results rows with "i" below it) of a copied results file a COPY keeps.
COPY_KERNELS = 10
#: Files a command reads that an earlier step of the same page makes: name -> that step.
PREPARE = {
    "pair.ptx": ["tcgen05-lower", "examples/gemm_m64_pair.mlir", "-o", "pair.ptx",
                 "--manifest", "pair.json"],
}


@dataclass
class Command:
    """One command as the documents show it, and where (file:line, every place)."""

    text: str
    places: list[str] = field(default_factory=list)

    @property
    def argv(self) -> list[str]:
        return shlex.split(self.text, comments=True)

    def written_files(self) -> list[str]:
        """The files the command says it writes."""
        argv, out = self.argv, []
        for k, word in enumerate(argv[:-1]):
            if word in ("-o", "--output", "--trace", "--timing-trace") or \
                    (word == "--manifest" and argv[0] == "tcgen05-lower"):
                out.append(argv[k + 1])
        return out


def _shell_lines(path: Path):
    """(line number, line) of the lines that may hold commands: in shell code blocks of
    a Markdown page, in the docstring of a check file."""
    text = path.read_text()
    if path.suffix == ".py":
        docstring = text.split('"""')[1] if text.startswith('"""') else ""
        yield from enumerate(docstring.splitlines(), 1)
        return
    fence = None
    for number, line in enumerate(text.splitlines(), 1):
        opened = re.match(r"^\s*```(\w*)", line)
        if opened:
            fence = opened.group(1) if fence is None else None
            continue
        if fence is not None and fence in _SHELL_FENCES:
            yield number, line


def shown_commands(documents=DOCUMENTS) -> list[Command]:
    """Every command of `documents`, continuation lines (``\\``) joined, each text once."""
    found: dict[str, Command] = {}
    for path in documents:
        pending = None
        for number, line in _shell_lines(path):
            stripped = line.strip()
            if pending is not None:
                pending[1] += " " + stripped.rstrip("\\").strip()
                if stripped.endswith("\\"):
                    continue
                start, text = pending
                pending = None
            else:
                match = _COMMAND.match(stripped)
                if match is None:
                    continue
                start, text = number, match.group(1)
                if text.endswith("\\"):
                    pending = [start, text.rstrip("\\").strip()]
                    continue
            text = shlex.join(shlex.split(text, comments=True))
            place = f"{path.relative_to(ROOT).as_posix()}:{start}"
            found.setdefault(text, Command(text)).places.append(place)
    return list(found.values())


def _adjusted(command: Command) -> tuple[str, str | None]:
    """The text to run and why it differs from the documents' (None: it does not)."""
    for key, (replacements, why) in SMALLER.items():
        if key in command.text:
            text = command.text
            for old, new in replacements:
                assert old in text, (old, command.text)
                text = text.replace(old, new)
            return text, why
    return command.text, None


def _param(command: Command):
    slow = next((why for key, why in SLOW.items() if key in command.text), None)
    marks = [pytest.mark.slow] if slow else []
    return pytest.param(command, id=command.places[0], marks=marks)


COMMANDS = shown_commands()


def _scratch(tmp_path: Path, monkeypatch) -> Path:
    """A working directory that sees the repository's inputs (not its outputs: a
    command writes into the scratch directory itself)."""
    for name in ("examples", "tests", "benchmarks", "docs"):
        (tmp_path / name).symlink_to(ROOT / name, target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(argv: list[str], tool, cwd: Path):
    if argv[0].startswith("tcgen05-"):
        return tool(argv[0], *argv[1:])
    assert argv[0] in ("python", "python3"), argv
    done = subprocess.run([sys.executable, *argv[1:]], cwd=cwd, capture_output=True,
                          text=True, timeout=600)
    return done


@pytest.mark.parametrize("command", [_param(c) for c in COMMANDS])
def test_documented_command_runs(command, tool, tmp_path, monkeypatch):
    cwd = _scratch(tmp_path, monkeypatch)
    text, _why = _adjusted(command)
    argv = shlex.split(text, comments=True)
    for key, copies in COPY.items():
        if key in command.text:
            for source, name in copies:
                lines = (ROOT / source).read_text().splitlines(keepends=True)
                (cwd / name).write_text("".join(
                    line for line in lines if json.loads(line)["i"] < COPY_KERNELS))
    for name, step in PREPARE.items():
        if name in argv:
            prepared = _run(step, tool, cwd)
            assert prepared.returncode == 0, prepared.stderr[-2000:]
    ran = _run(argv, tool, cwd)
    assert ran.returncode == 0, (f"{text} (shown at {', '.join(command.places)}) exited "
                                 f"{ran.returncode}:\n{ran.stderr[-3000:]}")
    for name in Command(text).written_files():
        written = (cwd / name).resolve()
        assert written.is_file(), f"{text}: {name} was not written"
        assert cwd.resolve() in written.parents, f"{text}: {name} is outside the scratch dir"


def test_the_documents_show_the_commands_they_are_known_to_show():
    """The extraction finds what a reader sees (counted by hand in the documents): the
    check files' docstring commands, the README's simulator and compare commands, the
    benchmark commands, continuation lines joined, comments dropped."""
    by_place = {place: c for c in COMMANDS for place in c.places}
    files = {place.rsplit(":", 1)[0] for place in by_place}
    for check in ("gemm_bf16_grid", "gemm_bf16_kloop_dynamic", "gemm_bf16_tma",
                  "ws_gemm_2cta_bf16", "ws_persistent_gemm_bf16"):
        assert f"examples/{check}.check.py" in files, check
    texts = [c.text for c in COMMANDS]
    assert ("tcgen05-sim examples/gemm_bf16_grid.mlir --check "
            "examples/gemm_bf16_grid.check.py --set M=200 --set N=300 --set K=72") in texts
    assert "tcgen05-sim examples/gemm_bf16_128x256.mlir --check gemm" in texts
    assert any(t.startswith("tcgen05-compare ") and t.count("--grid") == 3 for t in texts)
    assert sum(t.startswith("python benchmarks/") for t in texts) >= 2
    assert not any(t.startswith("tcgen05-sim:") for t in texts)  # output, not commands


def test_every_adjustment_names_a_shown_command():
    """SLOW, SMALLER and PREPARE name commands the documents show (none goes stale)."""
    texts = [c.text for c in COMMANDS]
    for key in [*SLOW, *SMALLER, *COPY]:
        assert any(key in t for t in texts), key
    for name, step in PREPARE.items():
        assert any(name in Command(t).argv for t in texts), name
        assert shlex.join(step) in texts, step  # the step is itself a shown command
