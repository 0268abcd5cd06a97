"""tcgen05-sim: run a kernel in the functional simulator and compare it with NumPy.

    tcgen05-sim examples/gemm_bf16_128x256.mlir --check gemm
    tcgen05-sim kernel.mlir --check kernel_check.py --schedule eager --trace trace.txt
    tcgen05-sim kernel.ptx --manifest kernel.json --check kernel_check.py

A .mlir kernel is compiled with the default pipeline; a .ptx kernel needs its launch
manifest (tcgen05-lower --manifest). Inputs are random (--seed). ``--check gemm`` checks
C = A x B, with M, N, K and the element types read from the kernel's shared-memory fills
and stores; ``--check FILE.py`` takes a Python file defining ``BUFFERS`` ({name: (dtype,
shape)}, or a function of the scalars returning it), optionally ``SCALARS`` ({name:
int}, the integer arguments; ``--set NAME=VALUE`` overrides them, and a function
``derived(scalars)`` may return more of them, e.g. leading dimensions from sizes),
``TOLERANCE`` ((rtol, atol)) or ``bound(name, inputs) -> (array, text)`` (the largest
error allowed per element), and ``reference(inputs) -> {output name: expected array}``
(``inputs`` holds the scalars too). The grid is the manifest's, computed from the
scalars (``--grid X[,Y[,Z]]`` overrides it), and every CTA of it runs. Exit status 1 on
a mismatch, a race, a problem at kernel exit (TMEM still allocated ...) or a simulator
error.
"""

from __future__ import annotations

import argparse
import json
import re
import runpy
import sys
import time
from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from tcgen05_lower.cli.common import add_version_option, guarded_main, print_diagnostics

_DTYPES = MappingProxyType({"bf16": "bfloat16", "f16": "float16", "f32": "float32",
                            "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
                            "f64": "float64", "i8": "int8", "i32": "int32",
                            "tf32": "float32"})


def numpy_dtype(name: str) -> np.dtype:
    """A NumPy dtype from a name ("bfloat16", "float32", "bf16" ...)."""
    name = _DTYPES.get(name, name)
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))
    return np.dtype(name)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tcgen05-sim", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("input", help="kernel: .mlir (compiled with the default pipeline) "
                                      "or .ptx (with --manifest)")
    parser.add_argument("--arch", default=None, help="target for a .mlir kernel")
    parser.add_argument("--pass-option", action="append", default=[], metavar="PASS{OPTIONS}",
                        help="compile a .mlir kernel with this pass of the default pipeline "
                             "replaced, options and all, as tcgen05-lower --pass-option "
                             "(repeatable)")
    parser.add_argument("--manifest", default=None, metavar="FILE",
                        help="launch manifest (JSON from tcgen05-lower --manifest)")
    parser.add_argument("--inputs", default="random", choices=["random"],
                        help="how inputs are filled (random: uniform in [-1, 1), rounded "
                             "to the element type)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check", default="gemm", metavar="gemm|FILE.py",
                        help="the reference: gemm (C = A x B) or a Python file")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="an integer kernel argument (overrides the check file's "
                             "SCALARS)")
    parser.add_argument("--grid", default=None, metavar="X[,Y[,Z]]",
                        help="the grid in CTAs (default: the manifest's)")
    parser.add_argument("--schedule", default="late", choices=["late", "eager"],
                        help="when asynchronous tcgen05 operations take effect")
    parser.add_argument("--trace", default=None, metavar="FILE",
                        help="write a per-warp instruction trace")
    parser.add_argument("--timing", action="store_true",
                        help="also estimate the run's cycles with the timing model "
                             "(tcgen05_lower/sim/timing.py; for comparing strategies, not "
                             "absolute cycles): cycles, utilisation, stalls per warp")
    parser.add_argument("--timing-trace", default=None, metavar="FILE.json",
                        help="with --timing: write a Chrome trace-event JSON (Perfetto), one "
                             "track per warp and per hardware unit")
    parser.add_argument("--backend", default="sim", choices=["sim", "cuda"],
                        help="where the kernel runs: the simulator, or a Blackwell GPU "
                             "through the CUDA driver API (the 'cuda' extra; never run here, "
                             "see tcgen05_lower/gpu.py)")
    return parser


@dataclass
class Problem:
    """What to feed the kernel and how to check it."""
    buffers: dict          # name -> (dtype, shape)
    scalars: dict          # name -> int
    reference: object      # inputs -> {name: expected}
    tolerance: object      # (name, got, expected, inputs) -> (ok, max_abs, max_rel, bound text)
    description: str


# -- the kernel ---------------------------------------------------------------------------------
def prepare(path: str, check: str = "gemm", seed: int = 0, arch: str | None = None,
            manifest_path: str | None = None, scalars: dict | None = None,
            pass_options: list | tuple = ()):
    """(PTX, manifest, Problem, inputs) for a kernel file and a --check argument;
    `scalars` override the check file's, `pass_options` replace passes of the default
    pipeline (tcgen05-lower --pass-option)."""
    ptx, manifest, mlir_text = load_kernel(path, arch, manifest_path, pass_options)
    problem = gemm_problem(mlir_text, manifest) if check == "gemm" \
        else file_problem(check, manifest, scalars)
    outputs = output_names(problem, manifest, seed)
    return ptx, manifest, problem, make_inputs(problem, manifest, outputs, seed)


def load_kernel(path: str, arch: str | None = None, manifest_path: str | None = None,
                pass_options: list | tuple = ()) -> tuple[str, dict, str | None]:
    """(PTX text, manifest, MLIR text or None)."""
    text = open(path).read()
    if path.endswith(".ptx"):
        if not manifest_path:
            raise UsageError("a .ptx kernel needs --manifest FILE (tcgen05-lower --manifest)")
        return text, read_manifest(manifest_path), None
    from tcgen05_lower.driver import CompileFailed, compile_source

    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, PipelineError, override_options

    try:
        pipeline = override_options(DEFAULT_PIPELINE, list(pass_options))
    except PipelineError as exc:
        raise UsageError(str(exc)) from None
    try:
        result = compile_source(text, path, arch=arch, pipeline=pipeline)
    except CompileFailed as failure:
        print_diagnostics(failure.diagnostics)
        raise UsageError("the kernel does not compile") from None
    manifest = read_manifest(manifest_path) if manifest_path else result.manifest
    return result.ptx, manifest, text


def read_manifest(path: str) -> dict:
    with open(path) as f:
        manifest = json.load(f)
    if "entry" not in manifest:  # several kernels: {entry: manifest}
        if len(manifest) != 1:
            raise UsageError(f"{path} describes several kernels; the simulator runs one")
        manifest = next(iter(manifest.values()))
    return manifest


class UsageError(Exception):
    pass


# -- the gemm reference ------------------------------------------------------------------------
def gemm_problem(mlir_text: str | None, manifest: dict) -> Problem:
    """C = A x B, all row-major: M and K from the shared-memory fill of A (an "mn_k" fill:
    the tile's rows are M, its source row stride src_ld is K), N from the fill of B (a
    "k_mn" fill, N = src_ld), element types from the tiles and the stored fragments."""
    if mlir_text is None:
        raise UsageError("--check gemm reads the shapes from the MLIR kernel; give the .mlir "
                         "or a --check FILE.py")
    fills, stores = kernel_memory_ops(mlir_text)
    a = [f for f in fills if f.param == "A" and f.layout == "mn_k"]
    b = [f for f in fills if f.param == "B" and f.layout == "k_mn"]
    c = [s for s in stores if s.param == "C"]
    if not (a and b and c):
        raise UsageError("--check gemm needs parameters A, B and C with an mn_k fill of A, "
                         "a k_mn fill of B and fragment stores to C; use --check FILE.py")
    if any(f.ld is None for f in a + b) or any(s.ld is None for s in c) or \
            any(f.bounded for f in a + b + c):
        raise UsageError("--check gemm reads M, N and K from constant leading dimensions; "
                         "this kernel takes them at run time: use --check FILE.py")
    m, k = a[0].rows, a[0].ld
    n = b[0].ld
    if any(s.ld != n for s in c):
        raise UsageError(f"the stores to C use a row stride other than N = {n}")
    scalars = {p["name"]: {"M": m, "N": n, "K": k}[p["name"]]
               for p in manifest["params"] if not p["pointer"] and p["name"] in "MNK"}
    unknown = [p["name"] for p in manifest["params"]
               if not p["pointer"] and p["name"] not in scalars]
    if unknown:
        raise UsageError(f"no value for scalar parameter(s) {', '.join(unknown)}")
    buffers = {"A": (a[0].dtype, (m, k)), "B": (b[0].dtype, (k, n)),
               "C": (c[0].dtype, (m, n))}

    def reference(inputs):
        return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}

    def tolerance(name, got, expected, inputs):
        # The error bound of summing K products in f32 in any order (gamma_K = K * 2^-24
        # times the sum of |a_ik * b_kj|); bf16 x bf16 products are exact in f32.
        scale = np.abs(inputs["A"].astype(np.float64)) @ np.abs(inputs["B"].astype(np.float64))
        bound = k * 2.0 ** -24 * scale + 1e-30
        return compare(got, expected, bound, f"K*2^-24*(|A||B|), K = {k}")

    return Problem(buffers, scalars, reference, tolerance, f"gemm M={m} N={n} K={k}")


@dataclass(frozen=True)
class MemoryOp:
    """A kernel's smem_fill (`layout` and `rows` set) or store_fragment: the parameter it
    reads or writes (through llvm.getelementptr), its row stride and element type."""

    param: str | None
    ld: int | None          # None: an operand (known at run time)
    dtype: str
    layout: str | None = None
    rows: int | None = None
    bounded: bool = False   # the op names operands in dims (offsets, extents)


def kernel_memory_ops(mlir_text: str) -> tuple[list[MemoryOp], list[MemoryOp]]:
    """The kernel's smem_fill and store_fragment ops: which parameter (through
    llvm.getelementptr), layout, tile rows, row stride and element type."""
    from tcgen05_lower import dialect as d
    from tcgen05_lower.bindings import parse_module
    from tcgen05_lower.dialect.ops import SmemFillOp, StoreFragmentOp

    with d.make_context():
        module = parse_module(mlir_text, "<kernel>")
        kernel = d.kernels(module)[0]
        names = _source_names(mlir_text, kernel)
        fills, stores = [], []
        for op in d.walk_ops(kernel):
            if SmemFillOp.matches(op):
                fill = SmemFillOp(op)
                m = re.search(r"\[(\d+), (\d+)\], (\w+)", str(fill.tile.type))
                fills.append(MemoryOp(param=_param_of(fill.source, kernel, names),
                                      layout=fill.src_layout, ld=fill.src_ld,
                                      rows=int(m.group(1)), dtype=m.group(3),
                                      bounded=bool(fill.dims)))
            elif StoreFragmentOp.matches(op):
                store = StoreFragmentOp(op)
                m = re.search(r"\[(\d+), (\d+)\], (\w+)", str(store.fragment.type))
                stores.append(MemoryOp(param=_param_of(store.dest, kernel, names),
                                       ld=store.ld, dtype=m.group(3),
                                       bounded=bool(store.dims)))
    return fills, stores


def _source_names(text: str, kernel) -> list[str]:
    from tcgen05_lower import dialect as d
    from tcgen05_lower.kernel_ir import source_parameter_names

    count = len(kernel.regions[0].blocks[0].arguments)
    return source_parameter_names(text, d.kernel_info(kernel).name, count)


def _param_of(value, kernel, names) -> str | None:
    """The kernel parameter a pointer value derives from (through getelementptr)."""
    from tcgen05_lower.bindings import ir

    for _ in range(16):
        if isinstance(value.owner, ir.Block):
            return names[ir.BlockArgument(value).arg_number] \
                if value.owner == kernel.regions[0].blocks[0] else None
        op = value.owner
        if op.name != "llvm.getelementptr":
            return None
        value = op.operands[0]
    return None


class Verdict(tuple):
    """(ok, max_abs, max_rel, bound text), and ``wrong``: the mask of elements outside
    the bound (None when the tolerance function did not say)."""

    wrong = None


def compare(got, expected, bound, bound_text):
    got = np.asarray(got, np.float64)
    expected = np.asarray(expected, np.float64)
    err = np.abs(got - expected)
    err = np.where(np.isnan(got), np.inf, err)
    max_abs = float(err.max()) if err.size else 0.0
    peak = float(np.abs(expected).max()) if expected.size else 0.0
    max_rel = max_abs / peak if peak else max_abs
    wrong = ~(err <= bound)
    verdict = Verdict((not bool(wrong.any()), max_abs, max_rel, bound_text))
    verdict.wrong = wrong
    return verdict


def mismatch_summary(got, expected, wrong) -> str:
    """How many elements are wrong, the first wrong one's index (row, column for a
    matrix) with its value and the reference's, and how many still hold the marker
    make_inputs filled the output with (NaN, or -1 for integers): never written."""
    got, expected = np.asarray(got), np.asarray(expected, np.float64)
    wrong = np.broadcast_to(wrong, got.shape)
    count = int(wrong.sum())
    if not count:
        return ""
    first = tuple(int(i) for i in np.argwhere(wrong)[0])
    where = f"(row {first[0]}, column {first[1]})" if len(first) == 2 else f"{list(first)}"
    values = np.asarray(got, np.float64)
    unwritten = np.isnan(values) if got.dtype.kind not in "iu" else values == -1
    never = int((unwritten & ~(np.isnan(expected) if got.dtype.kind not in "iu"
                               else expected == -1)).sum())
    return (f"{count} of {got.size} elements wrong, the first at {where}: "
            f"{values[first]:.6g} (expected {expected[first]:.6g}); {never} never written")


def file_problem(path: str, manifest: dict, overrides: dict | None = None) -> Problem:
    spec = runpy.run_path(path)
    if "BUFFERS" not in spec or "reference" not in spec:
        raise UsageError(f"{path} must define BUFFERS and reference(inputs)")
    rtol, atol = spec.get("TOLERANCE", (1e-5, 1e-6))
    custom_bound = spec.get("bound")

    def tolerance(name, got, expected, inputs):
        if custom_bound is not None:
            bound, text = custom_bound(name, inputs)
            return compare(got, expected, bound, text)
        bound = atol + rtol * np.abs(np.asarray(expected, np.float64))
        return compare(got, expected, bound, f"atol {atol:g} + rtol {rtol:g} * |ref|")

    scalars = dict(spec.get("SCALARS", {}))
    unknown = sorted(set(overrides or {}) - {p["name"] for p in manifest["params"]
                                             if not p["pointer"]})
    if unknown:
        raise UsageError(f"--set {', '.join(unknown)}: not an integer argument of the kernel")
    scalars.update(overrides or {})
    if "derived" in spec:
        scalars.update({k: v for k, v in spec["derived"](dict(scalars)).items()
                        if k not in scalars})
    buffers = spec["BUFFERS"](dict(scalars)) if callable(spec["BUFFERS"]) else spec["BUFFERS"]
    buffers = {k: (v[0], tuple(v[1])) for k, v in buffers.items()}
    shown = ", ".join(f"{k}={v}" for k, v in scalars.items())
    return Problem(buffers, scalars, spec["reference"], tolerance,
                   path + (f" ({shown})" if shown else ""))


# -- inputs -----------------------------------------------------------------------------------
def make_inputs(problem: Problem, manifest: dict, reference_names, seed: int) -> dict:
    """Random inputs (uniform in [-1, 1), rounded to the element type; integers in
    [-8, 8)); outputs, the buffers the reference names, filled with NaN (or a marker) so an
    element the kernel never writes shows up as a mismatch."""
    rng = np.random.default_rng(seed)
    args = {}
    for param in manifest["params"]:
        name = param["name"]
        if "tensor_map" in param:
            continue  # bound by the simulator to the array it names (sim/tma.py)
        if not param["pointer"]:
            if name not in problem.scalars:
                raise UsageError(f"no value for scalar parameter {name}")
            args[name] = int(problem.scalars[name])
            continue
        if name not in problem.buffers:
            raise UsageError(f"no shape for buffer parameter {name}")
        dtype_name, shape = problem.buffers[name]
        dtype = numpy_dtype(dtype_name)
        if name in reference_names:
            fill = np.nan if dtype.kind == "f" or dtype_name == "bfloat16" else -1
            args[name] = np.full(shape, fill, dtype=np.float64).astype(dtype)
        elif dtype.kind in "iu":
            args[name] = rng.integers(-8, 8, size=shape).astype(dtype)
        else:
            args[name] = rng.uniform(-1, 1, size=shape).astype(dtype)
    return args


# -- the run ------------------------------------------------------------------------------------
def run(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.state import SimError

    try:
        scalars = parse_settings(args.set)
        grid = parse_grid(args.grid)
        ptx, manifest, problem, inputs = prepare(args.input, args.check, args.seed,
                                                 args.arch, args.manifest, scalars,
                                                 args.pass_option)
    except (UsageError, OSError) as exc:
        print(f"tcgen05-sim: error: {exc}", file=sys.stderr)
        return 1
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    if args.backend == "cuda":
        return run_on_gpu(ptx, manifest, problem, inputs, originals)
    trace = open(args.trace, "w") if args.trace else None
    start = time.perf_counter()
    try:
        result = simulate(ptx, manifest, inputs, schedule=args.schedule, trace=trace,
                          progress_stream=sys.stderr, grid=grid,
                          timing=bool(args.timing or args.timing_trace))
    except SimError as err:
        print(f"tcgen05-sim: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    finally:
        if trace:
            trace.close()
    elapsed = time.perf_counter() - start
    status = report(problem, manifest, originals, result, args.schedule, elapsed)
    if result.timing is not None:
        print(result.timing.summary())
        if args.timing_trace:
            result.timing.write_chrome_trace(args.timing_trace)
            print(f"  timing trace: {args.timing_trace} (chrome://tracing or "
                  "https://ui.perfetto.dev)")
    return status


def parse_settings(items) -> dict:
    """``["M=256", "K=64"]`` -> {"M": 256, "K": 64}."""
    settings = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            settings[name.strip()] = int(value, 0)
        except ValueError:
            raise UsageError(f"--set {item}: expected NAME=INTEGER") from None
    return settings


def parse_grid(text: str | None):
    """``"2,3"`` -> ["2", "3"]; None stays None (the manifest's grid)."""
    if text is None:
        return None
    parts = [p.strip() for p in text.split(",")]
    if not 1 <= len(parts) <= 3 or not all(p.isdigit() and int(p) > 0 for p in parts):
        raise UsageError(f"--grid {text}: expected X[,Y[,Z]], positive integers")
    return parts


def run_on_gpu(ptx, manifest, problem, inputs, originals) -> int:
    """The same inputs and check on a GPU (tcgen05_lower.gpu)."""
    from tcgen05_lower import gpu
    from tcgen05_lower.sim.api import SimResult

    try:
        ran = gpu.launch(ptx, manifest, inputs)
    except gpu.GpuUnavailable as exc:
        print(f"tcgen05-sim: error: {exc}", file=sys.stderr)
        return 1
    result = SimResult(outputs=ran["outputs"], seconds=ran["seconds"])
    return report(problem, manifest, originals, result, "cuda", ran["seconds"])


def output_names(problem: Problem, manifest: dict, seed: int) -> set[str]:
    """The buffers the reference produces (it is called once on throw-away inputs)."""
    probe = make_inputs(problem, manifest, set(), seed)
    return set(problem.reference(probe))


def report(problem, manifest, inputs, result, schedule, elapsed) -> int:
    cluster = int(np.prod(manifest.get("cluster", [1])))
    where = "on the GPU" if schedule == "cuda" else f"schedule {schedule}"
    ctas = getattr(result, "ctas", cluster)
    shape = f"{cluster} CTA" if ctas == cluster else f"{ctas} CTAs"
    print(f"tcgen05-sim: {manifest['entry']} ({manifest.get('target', '?')}, "
          f"{manifest['threads']} threads x {shape}, "
          f"{manifest.get('dynamic_smem_bytes', 0)} B dynamic shared memory), "
          f"{problem.description}, {where}")
    expected = problem.reference(inputs)
    failed = False
    for name, want in expected.items():
        got = result.outputs[name]
        verdict = problem.tolerance(name, got, want, inputs)
        ok, max_abs, max_rel, bound = verdict
        failed |= not ok
        shape = "x".join(str(s) for s in np.shape(got))
        print(f"  {name} ({shape} {np.asarray(got).dtype}): max abs error {max_abs:.3g}, "
              f"max rel error {max_rel:.3g} (bound {bound}): {'OK' if ok else 'MISMATCH'}")
        wrong = getattr(verdict, "wrong", None)
        if not ok and wrong is not None:
            print(f"    {mismatch_summary(got, want, wrong)}")
    for race in result.races:
        print(f"  race: {race}")
    for problem_text in result.problems:
        print(f"  at exit: {problem_text}")
    if schedule != "cuda" and not result.races:
        print("  races: none")
    if schedule != "cuda" and not result.problems:
        print("  at exit: no TMEM left allocated, nothing left in flight")
    if schedule == "cuda":
        print(f"  ran on the GPU in {elapsed * 1e3:.3f} ms (launch to synchronize)")
    else:
        rate = result.warp_instructions / result.seconds if result.seconds else 0.0
        print(f"  executed {result.warp_instructions} warp instructions in {elapsed:.2f} s "
              f"({rate:,.0f} warp instructions/s simulated)")
    return 1 if failed or result.races or result.problems else 0


def main() -> None:
    """The console-script entry point."""
    sys.exit(guarded_main("tcgen05-sim", run))


def main_run() -> None:
    """``tcgen05-run``: the same tool, on the GPU by default (``--backend sim`` for the
    simulator)."""
    argv = sys.argv[1:]
    if not any(a == "--backend" or a.startswith("--backend=") for a in argv):
        argv = [*argv, "--backend", "cuda"]
    sys.exit(guarded_main("tcgen05-run", lambda: run(argv)))


if __name__ == "__main__":
    main()
