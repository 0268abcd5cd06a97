"""SASS of every example: instructions per MMA in the issuing loop, per TMA load in the load
loop, global stores by width, registers and spills (how they are counted: sass.py).

    python benchmarks/codegen/report.py                      # print the report
    python benchmarks/codegen/report.py -o benchmarks/codegen/REPORT.md
    python benchmarks/codegen/report.py examples/ws_persistent_gemm_bf16.mlir
    python benchmarks/codegen/report.py --epilogue-timing -o benchmarks/codegen/REPORT.md

--epilogue-timing appends the timing model's estimate (tcgen05-sim --timing) of the
examples that store fragments, with tcgen05-lower-to-llvm{epilogue-stores=vector} and
{epilogue-stores=scalar}.
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


#: The examples whose epilogue the timing table compares: C f32 (16-byte stores of loaded
#: fragments), bf16 and fp8 (of computed ones), and bf16 with run-time extents.
EPILOGUE_EXAMPLES = ("ws_persistent_gemm_bf16.mlir", "gemm_bf16_out_bias_gelu.mlir",
                     "gemm_e4m3_out_scaled.mlir", "gemm_bf16_grid_bias.mlir")
STORE_CHOICES = ("vector", "scalar")


def epilogue_cycles(path: Path, choice: str) -> tuple[float, int]:
    """(the timing model's cycles, global stores executed) of the example at `path`,
    compiled with epilogue-stores=`choice` and run on its check file's inputs."""
    from tcgen05_lower.cli.sim import prepare
    from tcgen05_lower.sim.api import simulate

    check = path.with_suffix(".check.py")
    options = sass.example_pass_options(path) + (
        f"tcgen05-lower-to-llvm{{epilogue-stores={choice}}}",)
    ptx, manifest, problem, inputs = prepare(str(path), str(check) if check.exists()
                                             else "gemm", 0, pass_options=options)
    result = simulate(ptx, manifest, inputs, "late", timing=True)
    stores = sum(count for opcode, count in result.counts.items()
                 if opcode.startswith("st.global"))
    return result.timing.cycles, stores


def epilogue_table(root: Path) -> list[str]:
    """The Markdown section comparing the two epilogue-stores choices."""
    out = ["", "## Epilogue stores in the timing model", "",
           "tcgen05-lower-to-llvm{epilogue-stores=vector} (16-byte `st.global.v4.b32` "
           "where each thread holds consecutive columns of a row and the rows are 16-byte "
           "aligned) against {epilogue-stores=scalar} (one store per element), run on the "
           "check file's inputs (schedule late). The model moves a warp's global store "
           "through the SM's L2 port in 32-byte sectors: a warp's 4-byte stores to 32 "
           "rows move 32 sectors for 128 bytes, its 16-byte stores 32 for 512.", "",
           "| example | C | vector: cycles | scalar: cycles | vector: st.global (warp) | "
           "scalar: st.global (warp) |", "|---|---|---:|---:|---:|---:|"]
    types = {"ws_persistent_gemm_bf16.mlir": "f32", "gemm_bf16_out_bias_gelu.mlir": "bf16",
             "gemm_e4m3_out_scaled.mlir": "e4m3", "gemm_bf16_grid_bias.mlir": "bf16, extents"}
    for name in EPILOGUE_EXAMPLES:
        measured = {choice: epilogue_cycles(root / "examples" / name, choice)
                    for choice in STORE_CHOICES}
        (vc, vs), (sc, ss) = measured["vector"], measured["scalar"]
        out.append(f"| {name} | {types[name]} | {vc:,.0f} | {sc:,.0f} | {vs:,} | {ss:,} |")
    return out


def report(paths, argv, epilogue_timing: bool = False) -> str:
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
    tail = epilogue_table(sass.ROOT) if epilogue_timing else []
    return "\n".join(head + rows(paths) + tail) + "\n"


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("examples", nargs="*", type=Path,
                        help="examples to measure (default: every examples/*.mlir)")
    parser.add_argument("-o", type=Path, help="write the report here")
    parser.add_argument("--epilogue-timing", action="store_true",
                        help="append the timing model's estimate of the epilogue-stores "
                             "choices (simulates four examples twice)")
    args = parser.parse_args(argv)
    paths = args.examples or sorted((sass.ROOT / "examples").glob("*.mlir"))
    text = report(paths, [a for a in argv if a != "-o" and Path(a) != args.o],
                  epilogue_timing=args.epilogue_timing)
    if args.o:
        args.o.write_text(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
