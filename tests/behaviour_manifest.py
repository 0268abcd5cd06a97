"""A manifest of what the compiler prints for every input the repository ships, to show that
a refactoring changed no behaviour: the PTX, planned MLIR, reports and diagnostics of every
example and every lit test input, one hash per command.

    python tests/behaviour_manifest.py write before.json        # at the old commit
    python tests/behaviour_manifest.py write after.json         # at the new one
    python tests/behaviour_manifest.py compare before.json after.json

Which code runs is whatever ``tcgen05_lower`` imports (set PYTHONPATH to the checkout under
test); the inputs are always this checkout's ``lit_tests/``, ``examples/`` and
``tests/kernels/``, so both manifests read the same files and a difference is the code's.

The commands are those of the lit RUN lines (the first tcgen05-opt or tcgen05-lower of
each pipeline, run in this process) with ``--verify-diagnostics`` dropped, so that the
diagnostics themselves are printed and hashed rather than only their agreement with the
expectations; every example is lowered to PTX with ``--report`` and ``--manifest``, and
its planned MLIR is printed; the Python examples that compile a kernel (gemm_*.py) run
and their output is recorded. A command's record is its exit status, stdout, stderr and
every file it wrote.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import os
import re
import runpy
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SCRATCH = Path("/tmp/tcgen05-behaviour-manifest")
TOOLS = ("tcgen05-opt", "tcgen05-lower")


def run_lines(path: Path) -> list[tuple[int, str]]:
    """(line number, command) of every ``// RUN:`` line, continuations joined."""
    commands, pending, start = [], "", 0
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        match = re.match(r"\s*//\s*RUN:\s?(.*)$", line)
        if not match:
            continue
        text = match.group(1).rstrip()
        if not pending:
            start = number
        if text.endswith("\\"):
            pending += text[:-1] + " "
            continue
        commands.append((start, pending + text))
        pending = ""
    return commands


def substitute(command: str, source: Path) -> str:
    """lit's substitutions, with %t in a scratch directory that is the same on every run."""
    return (command.replace("%examples", str(ROOT / "examples"))
            .replace("%S", str(source.parent)).replace("%s", str(source))
            .replace("%t", str(SCRATCH / "t")))


def tool_arguments(segment: str) -> tuple[str, list[str]] | None:
    """(tool, argv) of a pipeline segment that calls one of our tools, else None; drops
    ``not``, shell redirections and --verify-diagnostics (the diagnostics are recorded)."""
    words = shlex.split(segment)
    while words and words[0] == "not":
        words = words[1:]
    if not words or words[0] not in TOOLS:
        return None
    argv, skip = [], False
    for word in words[1:]:
        if skip or word == "--verify-diagnostics":
            skip = False
            continue
        if re.fullmatch(r"\d?>|<", word):    # the file follows as its own word
            skip = True
            continue
        if not re.match(r"^(\d?>|<)", word):
            argv.append(word)
    return words[0], argv


def run_tool(tool: str, argv: list[str], stdin: str) -> tuple[int, str, str]:
    """Runs a tool's ``run`` (or, for "python", a script) in this process: (status,
    stdout, stderr)."""
    from tcgen05_lower.cli import lower, opt
    from tcgen05_lower.cli.common import guarded_main
    module = opt if tool == "tcgen05-opt" else lower
    out, err = io.StringIO(), io.StringIO()
    old_stdin = sys.stdin
    sys.stdin = io.StringIO(stdin)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                if tool == "python":
                    runpy.run_path(argv[0], run_name="__main__")
                    status = 0
                else:
                    status = guarded_main(tool, lambda: module.run(argv))
            except SystemExit as exit_:
                status = exit_.code if isinstance(exit_.code, int) else 1
    finally:
        sys.stdin = old_stdin
    return status, out.getvalue(), err.getvalue()


def record(status: int, out: str, err: str) -> dict:
    """The record of one command: its outputs and the files it left in the scratch dir."""
    files = {}
    for path in sorted(SCRATCH.rglob("*")):
        if path.is_file():
            files[str(path.relative_to(SCRATCH))] = path.read_bytes()
    digest = hashlib.sha256()
    digest.update(f"{status}\0{out}\0{err}\0".encode())
    for name, data in files.items():
        digest.update(name.encode() + b"\0" + data + b"\0")
    return {"status": status, "sha256": digest.hexdigest(), "stdout": out, "stderr": err,
            "files": {name: hashlib.sha256(data).hexdigest() for name, data in files.items()}}


def fresh_scratch() -> None:
    shutil.rmtree(SCRATCH, ignore_errors=True)
    SCRATCH.mkdir(parents=True)


PREPARATIONS = ("split-file", "sed", "mkdir")


def lit_commands() -> list[tuple[str, str, list[str], str]]:
    """(key, tool, argv, stdin prefix) for every lit RUN line that calls one of our tools,
    file by file in order; a line that prepares inputs (split-file, sed into %t) comes as
    (key, "sh", [command], "") and runs in the shell."""
    commands = []
    for path in sorted((ROOT / "lit_tests").rglob("*.mlir")):
        if "Inputs" in path.parts or "Output" in path.parts:
            continue
        commands.append((str(path.relative_to(ROOT)), "start", [], ""))
        for number, line in run_lines(path):
            key = f"{path.relative_to(ROOT)}:{number}"
            line = substitute(line, path)
            if line.split()[0] in PREPARATIONS and " | " not in line:
                commands.append((key, "sh", [line], ""))
                continue
            segments = [s.strip() for s in line.split(" | ")]
            for index, segment in enumerate(segments):
                parsed = tool_arguments(segment)
                if parsed is None:
                    continue
                prefix = " | ".join(segments[:index]) if index and "-" in parsed[1] else ""
                commands.append((key, parsed[0], parsed[1], prefix))
                break
    return commands


def example_commands() -> list[tuple[str, str, list[str], str]]:
    """Every example and test kernel: PTX with reports and manifest, and planned MLIR."""
    commands = []
    inputs = sorted((ROOT / "examples").glob("*.mlir")) + sorted(
        (ROOT / "tests" / "kernels").glob("*.mlir"))
    for path in inputs:
        key = str(path.relative_to(ROOT))
        out = str(SCRATCH / "out")
        commands.append((key + ":ptx", "tcgen05-lower",
                         [str(path), "--report", "--manifest", out + ".json", "-o", out + ".ptx"],
                         ""))
        commands.append((key + ":mlir", "tcgen05-lower", [str(path), "--emit=mlir"], ""))
        # Kernels with their own synchronization compile with the sync pass turned off.
        commands.append((key + ":ptx-sync-none", "tcgen05-lower",
                         [str(path), "--pass-option", "tcgen05-insert-sync{strategy=none}",
                          "-o", out + ".ptx"], ""))
    # The examples written in Python that compile a kernel and print what they planned.
    for path in sorted((ROOT / "examples").glob("gemm_*.py")):
        if path.name.endswith(".check.py"):
            continue   # the simulator's checks of an example, not a program
        commands.append((str(path.relative_to(ROOT)) + ":run", "python", [str(path)], ""))
    return commands


def write(target: Path) -> None:
    manifest = {}
    environment = dict(os.environ)
    llvm = importlib.util.find_spec("llvm")
    if llvm is not None and llvm.submodule_search_locations:   # split-file
        environment["PATH"] = (str(Path(list(llvm.submodule_search_locations)[0]) / "bin")
                               + os.pathsep + environment["PATH"])
    fresh_scratch()
    for key, tool, argv, prefix in lit_commands() + example_commands():
        if tool == "start" or key.endswith(":ptx"):      # a new lit file or example
            fresh_scratch()
            if tool == "start":
                continue
        if tool == "sh":
            subprocess.run(argv[0], shell=True, capture_output=True, cwd=ROOT,
                           env=environment)
            continue
        stdin = ""
        if prefix:
            stdin = subprocess.run(prefix, shell=True, capture_output=True, text=True,
                                   cwd=ROOT, env=environment).stdout
        manifest[key] = {"command": shlex.join([tool] + argv), **record(*run_tool(tool, argv,
                                                                                 stdin))}
        print(f"{manifest[key]['status']} {key}", file=sys.__stderr__, flush=True)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    target.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    print(f"{len(manifest)} commands -> {target}", file=sys.__stderr__)


def compare(before: Path, after: Path) -> int:
    """Prints every command whose record differs; 0 if none does (and both ran the same)."""
    old, new = json.loads(before.read_text()), json.loads(after.read_text())
    status = 0
    for key in sorted(set(old) | set(new)):
        if key not in old or key not in new:
            print(f"only in {'after' if key in new else 'before'}: {key}")
            status = 1
            continue
        if old[key]["sha256"] != new[key]["sha256"]:
            status = 1
            print(f"DIFFERS: {key}: {new[key]['command']}")
            for field in ("status", "stdout", "stderr", "files"):
                if old[key][field] != new[key][field]:
                    print(f"  {field}: before {str(old[key][field])[:400]!r}\n"
                          f"  {' ' * len(field)}  after  {str(new[key][field])[:400]!r}")
    same = sum(1 for k in old if k in new and old[k]["sha256"] == new[k]["sha256"])
    print(f"{same} of {len(set(old) | set(new))} commands identical")
    return status


def main(argv: list[str]) -> int:
    if len(argv) == 2 and argv[0] == "write":
        write(Path(argv[1]))
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
