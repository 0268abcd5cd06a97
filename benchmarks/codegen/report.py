"""SASS of every example: instructions per MMA in the issuing loop, per TMA load in the load
loop, global stores by width, registers and spills (how they are counted: sass.py).

    python benchmarks/codegen/report.py                      # print the report
    python benchmarks/codegen/report.py -o benchmarks/codegen/REPORT.md
    python benchmarks/codegen/report.py examples/ws_persistent_gemm_bf16.mlir
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import sass  # noqa: E402  (this folder's module)
from tcgen05_lower import backend  # noqa: E402


def loop_cell(kernel, what: str) -> str:
    """"instructions / count = per-one" of the smallest loop holding `what`, or "-"."""
    loop = kernel.smallest_loop(what)
    if loop is None:
        return "-"
    count = getattr(loop, what)
    return f"{loop.instructions} / {count} = {loop.instructions / count:.1f}"


def stores_cell(kernel) -> str:
    """Global stores by width in bytes, e.g. "4B: 128, 16B: 32"."""
    if not kernel.stores:
        return "-"
    return ", ".join(f"{width}B: {count}" for width, count in sorted(kernel.stores.items()))


def rows(paths) -> list[str]:
    """One Markdown table row per kernel of the examples at `paths`."""
    out = []
    for path in paths:
        for name, kernel in sass.measure(path).items():
            out.append(f"| {path.name} | {name if name != path.stem else ''} | "
                       f"{kernel.instructions} | {loop_cell(kernel, 'mmas')} | "
                       f"{loop_cell(kernel, 'tma_loads')} | {stores_cell(kernel)} | "
                       f"{kernel.registers} | {kernel.spill_stores + kernel.spill_loads} |")
    return out


def report(paths, argv) -> str:
    """The Markdown report."""
    command = "python benchmarks/codegen/report.py " + " ".join(shlex.quote(a) for a in argv)
    head = [
        "# SASS of the examples",
        "",
        f"Regenerate: `{command.strip()}`. ptxas: {backend.ptxas_version() or 'unknown'}; "
        f"target {sass.ARCH}; SASS from `cuobjdump -sass`.",
        "",
        "Per kernel: its SASS instructions; in the smallest loop that issues MMAs, its "
        "instructions over its MMAs (the mbarrier wait, the commit and the loop control "
        "included; the wait's retry loop, which ptxas moves after the last EXIT, not); the "
        "same for the smallest loop that issues TMA loads; global stores (STG) by width in "
        "bytes; registers and spilled bytes (stores + loads) from `ptxas -v`. '-': no such "
        "loop (straight-line code) or no stores. Kernel column empty: the kernel is named "
        "after its file.",
        "",
        "| example | kernel | SASS | MMA loop: instr / MMAs | TMA loop: instr / loads | "
        "STG by width | registers | spill bytes |",
        "|---|---|---:|---|---|---|---:|---:|",
    ]
    return "\n".join(head + rows(paths)) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="*", type=Path,
                        help="examples to measure (default: every examples/*.mlir)")
    parser.add_argument("-o", type=Path, help="write the report here")
    args = parser.parse_args(argv)
    paths = args.examples or sorted((sass.ROOT / "examples").glob("*.mlir"))
    text = report(paths, [a for a in argv if a != "-o" and Path(a) != args.o])
    if args.o:
        args.o.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
