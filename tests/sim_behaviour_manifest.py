"""The simulator's side of tests/behaviour_manifest.py: what tcgen05-sim prints for every
kernel the repository ships, one hash per command, to show that a refactoring of the
simulator changed no behaviour.

    python tests/sim_behaviour_manifest.py write before.json     # at the old commit
    python tests/sim_behaviour_manifest.py write after.json      # at the new one
    python tests/sim_behaviour_manifest.py compare before.json after.json

As there, the code that runs is whatever ``tcgen05_lower`` imports (PYTHONPATH) and the
inputs are this checkout's ``examples/`` and ``tests/kernels/``. Every kernel runs with
its check file (or the gemm check) and the pass options it needs (tests/conftest.py)
under the late schedule with an instruction trace, the eager schedule, two random
schedules, the timing model with its Chrome trace, --functional-only and --timing-only;
and the PTX of a few kernels runs with one synchronization instruction deleted at a time
(mutants), where the simulator reports races, deadlocks and wrong numbers. A record is
the exit status, stdout, stderr and the files written; wall-clock times and rates in the
output and the progress lines of long runs (the only parts that are not a function of
the code) are masked.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import re
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import behaviour_manifest  # noqa: E402
from behaviour_manifest import compare, fresh_scratch, record  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
#: Where the scratch directories go: $SIM_MANIFEST_TMP, else /tmp (two checkouts writing
#: records at once each give their own, since every command empties its scratch). Paths
#: under it appear in some commands: compare records written with the same one.
_TMP = Path(os.environ.get("SIM_MANIFEST_TMP", "/tmp"))
#: A scratch directory of its own (the compiler's manifest may be written meanwhile).
SCRATCH = behaviour_manifest.SCRATCH = _TMP / "tcgen05-sim-behaviour-manifest"
#: The mutated PTX (outside SCRATCH, which every command starts afresh).
MUTANTS = _TMP / "tcgen05-sim-behaviour-mutants"
#: Wall-clock seconds and rates, masked before hashing.
_CLOCK = re.compile(r"\d[\d,]*\.?\d* (s\b|ms\b|warp instructions/s)|\d+ s left")
#: The progress lines of a long run (executor.Machine.run), printed every 2 s of wall
#: clock: how many there are and where they fall is the machine's load, not the code's.
_PROGRESS = re.compile(r"^tcgen05-sim: \d+ warp instructions, <clock>.*\n", re.M)


def kernels() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.mlir")) + sorted(
        (ROOT / "tests" / "kernels").glob("*.mlir"))


def commands() -> list[tuple[str, list[str]]]:
    """(key, argv of tcgen05-sim) for every kernel and mode."""
    from conftest import example_pass_options

    found = []
    for path in kernels():
        key = str(path.relative_to(ROOT))
        sidecar = path.with_suffix(".check.py")
        base = [str(path), "--check", str(sidecar) if sidecar.exists() else "gemm"]
        for option in example_pass_options(path):
            base += ["--pass-option", option]
        trace = str(SCRATCH / "trace.txt")
        found += [(key + ":late", base + ["--trace", trace]),
                  (key + ":eager", base + ["--schedule", "eager"]),
                  (key + ":random", base + ["--schedule", "random", "--seeds", "0-1"]),
                  (key + ":timing", base + ["--timing", "--timing-trace",
                                            str(SCRATCH / "timing.json")]),
                  (key + ":functional", base + ["--functional-only"]),
                  (key + ":timing-only", base + ["--timing-only"])]
    return found


#: Kernels whose PTX is mutated, and the lines a mutant deletes (one each): the
#: synchronization whose absence the ordering model reports as a race, a deadlock, a
#: problem at exit or a wrong number.
MUTATED = ("examples/gemm_bf16_tma.mlir", "examples/ws_gemm_bf16_auto.mlir",
           "examples/gemm_bf16_pair_m128.mlir", "examples/ws_gemm_2cta_bf16.mlir")
_SYNC_LINE = re.compile(r"^\s*(@%p\d+\s+)?(bar\.|barrier\.|fence\.|mbarrier\.(arrive|try_wait)|"
                        r"tcgen05\.(fence|wait|commit))")
MUTANTS_PER_KERNEL = 10


def mutant_commands() -> list[tuple[str, list[str]]]:
    """(key, argv) of tcgen05-sim on PTX mutants: the kernel compiled once, then one
    synchronization line deleted per mutant (MUTANTS_PER_KERNEL of them, spread over
    the kernel)."""
    from behaviour_manifest import run_tool
    from conftest import example_pass_options

    MUTANTS.mkdir(parents=True, exist_ok=True)
    found = []
    for name in MUTATED:
        path = ROOT / name
        stem = MUTANTS / path.stem
        argv = [str(path), "--manifest", f"{stem}.json", "-o", f"{stem}.ptx"]
        for option in example_pass_options(path):
            argv += ["--pass-option", option]
        status, _, err = run_tool("tcgen05-lower", argv, "")
        assert status == 0, err
        lines = Path(f"{stem}.ptx").read_text().splitlines(keepends=True)
        sites = [i for i, line in enumerate(lines) if _SYNC_LINE.match(line)]
        sidecar = path.with_suffix(".check.py")
        check = str(sidecar) if sidecar.exists() else "gemm"
        for i in sites[::max(1, len(sites) // MUTANTS_PER_KERNEL)][:MUTANTS_PER_KERNEL]:
            mutant = MUTANTS / f"{path.stem}.{i}.ptx"
            mutant.write_text("".join(lines[:i] + lines[i + 1:]))
            found.append((f"{name}:without-line-{i + 1}:{lines[i].strip()}",
                          [str(mutant), "--manifest", f"{stem}.json", "--check", check,
                           "--max-instructions", "2000000"]))
    return found


def run_sim(argv: list[str]) -> tuple[int, str, str]:
    from tcgen05_lower.cli import sim
    from tcgen05_lower.cli.common import guarded_main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = guarded_main("tcgen05-sim", lambda: sim.run(argv))
        except SystemExit as exit_:
            status = exit_.code if isinstance(exit_.code, int) else 1
    return (status, _CLOCK.sub("<clock>", out.getvalue()),
            _PROGRESS.sub("", _CLOCK.sub("<clock>", err.getvalue())))


def write(target: Path, only: str | None = None) -> None:
    manifest = {}
    for key, argv in commands() + mutant_commands():
        if only and only not in key:
            continue
        fresh_scratch()
        manifest[key] = {"command": " ".join(["tcgen05-sim"] + argv), **record(*run_sim(argv))}
        print(f"{manifest[key]['status']} {key}", file=sys.__stderr__, flush=True)
    shutil.rmtree(SCRATCH, ignore_errors=True)
    shutil.rmtree(MUTANTS, ignore_errors=True)
    target.write_text(json.dumps(manifest, indent=1, sort_keys=True))
    print(f"{len(manifest)} commands -> {target}", file=sys.__stderr__)


def main(argv: list[str]) -> int:
    if len(argv) in (2, 3) and argv[0] == "write":
        write(Path(argv[1]), argv[2] if len(argv) == 3 else None)
        return 0
    if len(argv) == 3 and argv[0] == "compare":
        return compare(Path(argv[1]), Path(argv[2]))
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
