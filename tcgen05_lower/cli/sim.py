"""tcgen05-sim: run a kernel in the functional simulator and compare it with NumPy.

    tcgen05-sim examples/gemm_bf16_128x256.mlir --check gemm
    tcgen05-sim kernel.mlir --check kernel_check.py --schedule eager --trace trace.txt
    tcgen05-sim examples/ws_gemm_bf16_auto.mlir --check examples/ws_gemm_bf16_auto.check.py \
        --schedule random --seeds 0-15
    tcgen05-sim kernel.ptx --manifest kernel.json --check kernel_check.py
    tcgen05-sim kernel.mlir --timing-only --set M=8192 --set N=8192 --set K=8192

A .mlir kernel is compiled with the default pipeline; a .ptx kernel needs its launch
manifest (tcgen05-lower --manifest). Inputs are random (--seed). ``--check gemm`` checks
C = A x B, with M, N, K and the element types read from the kernel's shared-memory fills
and stores; ``--check FILE.py`` takes a Python file defining ``BUFFERS`` ({name: (dtype,
shape)}, or a function of the scalars returning it), optionally ``SCALARS`` ({name:
int}, the integer arguments; ``--set NAME=VALUE`` overrides them, and a function
``derived(scalars)`` may return more of them, e.g. leading dimensions from sizes),
``TOLERANCE`` ((rtol, atol)) or ``bound(name, inputs) -> (array, text)`` (the largest
error allowed per element), ``INPUT_RANGES`` ({name: (low, high)}, the range of an integer
input's random values, default [-8, 8)), and ``reference(inputs) -> {output name:
expected array}`` (``inputs`` holds the scalars too). The grid is the manifest's, computed from the
scalars (``--grid X[,Y[,Z]]`` overrides it), and every CTA of it runs.

``--schedule random`` draws the warp order, the warps' priorities, a warp starved for a
stretch and when (and in which allowed order) commits and TMA loads complete from a seed
(tcgen05_lower/sim/schedule.py): ``--seed N`` (it seeds the inputs too), or ``--seeds
0-15`` / ``--runs 16`` for one run per seed on the same inputs, a report per seed and a
summary naming the first failing seed.

Every run is bounded (``--max-instructions``, ``--timeout``; a grid that cannot fit them
is refused before it runs) and so is the memory of its arrays (``--max-memory``).

``--timing`` adds the timing model's estimate (docs/timing.md; ``--timing-param
NAME=VALUE`` overrides a parameter); ``--timing-only`` estimates the whole grid from
cluster (0, 0, 0) and the first loads of its neighbours without simulating the rest and
without checking numerics. A bad ``--timing-param`` or a grid too large for
``--timing-only`` is a usage error (exit status 1).

Exit status: 0 when every output matches; 1 on a mismatch, a race, a problem at kernel
exit (TMEM still allocated ...), a simulator error, bad input (kernel, manifest, check
file, --set, --grid, --timing-param; an error in the check file is reported at its
file:line) or a limit reached; 2 on a malformed command line or an internal error of the
tool.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import runpy
import sys
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

import numpy as np

from tcgen05_lower.cli.common import add_version_option, guarded_main, print_diagnostics

_DTYPES = MappingProxyType({"bf16": "bfloat16", "f16": "float16", "f32": "float32",
                            "f8E4M3FN": "float8_e4m3fn", "f8E5M2": "float8_e5m2",
                            "f64": "float64", "i8": "int8", "i32": "int32",
                            "tf32": "float32"})


def numpy_dtype(name: str) -> np.dtype:
    """A NumPy dtype from a name ("bfloat16", "float32", "bf16" ...); UsageError for a
    name that is none."""
    name = _DTYPES.get(name, name) if isinstance(name, str) else name
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        import ml_dtypes
        return np.dtype(getattr(ml_dtypes, name))
    try:
        dtype = np.dtype(name)
    except (TypeError, ValueError, SyntaxError) as exc:
        raise UsageError(f"unknown element type {name!r} ({exc})") from None
    if dtype.kind not in "biuf" or dtype.itemsize == 0:
        raise UsageError(f"unknown element type {name!r} (not a number type)")
    return dtype


#: The default of --max-memory: the bytes the kernel's arrays may take (1 GiB; the
#: largest shipped example needs less than 1 MiB).
DEFAULT_MAX_MEMORY = 1 << 30


def parse_bytes(text: str) -> int:
    """``"1G"`` -> 2**30; ``"512M"``, ``"64K"``, ``"1000"`` (bytes)."""
    m = re.fullmatch(r"\s*(\d+)\s*([KMG]?)i?B?\s*", text, re.I)
    if not m:
        raise argparse.ArgumentTypeError(f"{text!r} is not a byte count (e.g. 2G, 512M)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def _seed(text: str) -> int:
    """An argparse type: NumPy's generators take non-negative seeds."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"{text} is negative")
    return value


def _limit(kind):
    """An argparse type: a non-negative number, 0 meaning no limit (None)."""
    def convert(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
        if value < 0:
            raise argparse.ArgumentTypeError(f"{text} is negative (0: no limit)")
        return value or None
    return convert


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
    parser.add_argument("--seed", type=_seed, default=0,
                        help="the random inputs' seed (a non-negative integer)")
    parser.add_argument("--check", default=None, metavar="gemm|FILE.py",
                        help="the reference: gemm (C = A x B) or a Python file (default: "
                             "the kernel's KERNEL.check.py beside it if there is one, "
                             "else gemm)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="an integer kernel argument (overrides the check file's "
                             "SCALARS)")
    parser.add_argument("--grid", default=None, metavar="X[,Y[,Z]]",
                        help="the grid in CTAs (default: the manifest's)")
    parser.add_argument("--schedule", default="late", choices=["late", "eager", "random"],
                        help="when asynchronous tcgen05 operations take effect: late (the "
                             "latest moment, lowest PC first), eager (at issue), or random: "
                             "warp order, priorities, a starved warp and the completion of "
                             "commits and TMA loads drawn from --seed (which also seeds the "
                             "inputs), the same for the same seed")
    parser.add_argument("--fences", default="canonical", choices=["canonical", "acquire"],
                        help="what orders tcgen05 operations across threads: canonical (the "
                             "ISA's tcgen05.fence::before/after_thread_sync patterns around a "
                             "barrier or mbarrier, 9.7.16.6) or acquire (also a barrier or an "
                             "acquire mbarrier wait alone); docs/memory-model.md")
    parser.add_argument("--seeds", default=None, metavar="A-B[,C..]",
                        help="with --schedule random: one run per schedule seed (e.g. 0-15), "
                             "on the inputs of --seed; a report per seed, then a summary "
                             "(failed seeds, the first); exit status 1 if any failed")
    parser.add_argument("--runs", type=int, default=1, metavar="N",
                        help="with --schedule random: N runs, schedule seeds --seed to "
                             "--seed + N - 1")
    parser.add_argument("--trace", default=None, metavar="FILE",
                        help="write a per-warp instruction trace")
    parser.add_argument("--timing", action="store_true",
                        help="also estimate the run's cycles with the timing model "
                             "(tcgen05_lower/sim/timing.py; for comparing strategies, not "
                             "absolute cycles): cycles, utilisation, stalls per warp")
    parser.add_argument("--timing-trace", default=None, metavar="FILE.json",
                        help="with --timing: write a Chrome trace-event JSON (Perfetto), one "
                             "track per warp and per hardware unit")
    parser.add_argument("--timing-param", action="append", default=[], metavar="NAME=VALUE",
                        help="with --timing: a timing-model parameter (docs/timing.md), "
                             "repeatable")
    parser.add_argument("--timing-only", action="store_true",
                        help="estimate the whole grid's time without simulating every CTA: "
                             "cluster (0, 0, 0) runs, and the first instructions of its "
                             "neighbours (1, 0, 0) and (0, 1, 0) to see which tiles they "
                             "share; the rest is replayed from them in waves over the SMs "
                             "(docs/timing.md); numerics are not checked")
    from tcgen05_lower.sim.api import DEFAULT_MAX_INSTRUCTIONS, DEFAULT_TIMEOUT

    parser.add_argument("--max-instructions", type=_limit(int),
                        default=DEFAULT_MAX_INSTRUCTIONS, metavar="N",
                        help="stop after N warp instructions over the whole grid, and "
                             "refuse up front a grid that cannot fit them (default "
                             f"{DEFAULT_MAX_INSTRUCTIONS:,}; 0: no limit)")
    parser.add_argument("--timeout", type=_limit(float), default=DEFAULT_TIMEOUT,
                        metavar="SECONDS",
                        help=f"stop after this long (default {DEFAULT_TIMEOUT:g} s; 0: no "
                             "limit)")
    parser.add_argument("--max-memory", type=parse_bytes, default=DEFAULT_MAX_MEMORY,
                        metavar="BYTES",
                        help="refuse, before allocating them, arrays that take more than "
                             "this (default 1G; K, M, G suffixes)")
    parser.add_argument("--functional-only", action="store_true",
                        help="no race detection: the same run, outputs, errors, problems at "
                             "exit and timing, several times faster, for sweeps of a kernel "
                             "a full run has checked (docs/simulator.md)")
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
    check_file: object = None  # the CheckFile it comes from (errors at its lines), if any
    ranges: dict = field(default_factory=dict)  # name -> [low, high) of integer inputs


# -- the kernel ---------------------------------------------------------------------------------
def prepare(path: str, check: str = "gemm", seed: int = 0, arch: str | None = None,
            manifest_path: str | None = None, scalars: dict | None = None,
            pass_options: list | tuple = (), max_memory: int | None = DEFAULT_MAX_MEMORY,
            probe_outputs: bool = True):
    """(PTX, manifest, Problem, inputs) for a kernel file and a --check argument;
    `scalars` override the check file's, `pass_options` replace passes of the default
    pipeline (tcgen05-lower --pass-option). UsageError (a CheckFileError for the check
    file's own) or a LaunchError for bad input; `max_memory` bytes at most for the
    arrays, checked before any is allocated. `probe_outputs` False (a timing-only run,
    which checks no numbers) skips calling the reference to learn its outputs (at
    8192^3 a minute of NumPy): every buffer then gets random values."""
    from tcgen05_lower.sim.api import check_launch

    ptx, manifest, mlir_text = load_kernel(path, arch, manifest_path, pass_options)
    entry = check_launch(ptx, manifest)
    if check == "gemm" and scalars:
        raise UsageError(f"--set {', '.join(scalars)}: --check gemm reads the sizes from the "
                         f"kernel; --set gives the integer arguments of a --check FILE.py")
    problem = gemm_problem(mlir_text, manifest, entry) if check == "gemm" \
        else file_problem(check, manifest, scalars, entry)
    check_memory(problem, manifest, max_memory)
    outputs = output_names(problem, manifest, seed) if probe_outputs else set()
    return ptx, manifest, problem, make_inputs(problem, manifest, outputs, seed)


def _read_text(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: the {what} is not UTF-8 text ({exc.reason} at byte "
                         f"{exc.start})") from None


def load_kernel(path: str, arch: str | None = None, manifest_path: str | None = None,
                pass_options: list | tuple = ()) -> tuple[str, dict, str | None]:
    """(PTX text, manifest, MLIR text or None)."""
    text = _read_text(path, "kernel")
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
        # line_info: the PTX carries each op's .mlir line (.loc), where races and bad
        # accesses are reported (sim.source_lines); its instructions are those
        # of a compile without it
        result = compile_source(text, path, arch=arch, pipeline=pipeline, line_info=True)
    except CompileFailed as failure:
        print_diagnostics(failure.diagnostics)
        raise UsageError("the kernel does not compile") from None
    manifest = read_manifest(manifest_path) if manifest_path else result.manifest
    return result.ptx, manifest, text


def read_manifest(path: str) -> dict:
    """The launch manifest of one kernel from a JSON file (a file of several, {entry:
    manifest}, must hold one); UsageError naming the file, line and column of bad JSON
    or what is missing. Its agreement with the PTX is api.check_launch's."""
    text = _read_text(path, "manifest")
    try:
        manifest = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}:{exc.lineno}:{exc.colno}: not valid JSON: {exc.msg}") \
            from None
    if not isinstance(manifest, dict):
        raise UsageError(f"{path}: a manifest is a JSON object, not {type(manifest).__name__}")
    if "entry" not in manifest:  # several kernels: {entry: manifest}
        if len(manifest) != 1:
            raise UsageError(f"{path} describes several kernels; the simulator runs one")
        manifest = next(iter(manifest.values()))
        if not isinstance(manifest, dict):
            raise UsageError(f"{path}: a kernel's manifest is a JSON object, not "
                             f"{type(manifest).__name__}")
    missing = [key for key in ("entry", "params") if key not in manifest]
    if missing:
        raise UsageError(f"{path}: the manifest has no {' and no '.join(missing)} "
                         f"(tcgen05-lower --manifest writes them)")
    return manifest


class UsageError(Exception):
    pass


class CheckFileError(UsageError):
    """An error in the user's check file (--check FILE.py), at its file:line."""


class CheckFile:
    """A --check FILE.py: its definitions, and calls into them that report what goes
    wrong there (an exception, a value of the wrong kind) as the file's error at the line
    it happened (or at the definition that gave the value), not as the tool's."""

    def __init__(self, path: str):
        self.path = path
        self.source = _read_text(path, "check file")
        try:
            self.spec = runpy.run_path(path)
        except SyntaxError as exc:
            raise CheckFileError(f"{exc.filename or path}:{exc.lineno or 0}: "
                                 f"{type(exc).__name__}: {exc.msg}") from None
        except (Exception, SystemExit) as exc:
            raise self.failed(exc, "while it is loaded") from None

    def __contains__(self, name: str) -> bool:
        return name in self.spec

    def get(self, name: str, default=None):
        return self.spec.get(name, default)

    def call(self, name: str, *args):
        """The check file's function `name` called with `args`."""
        function = self.spec[name]
        if not callable(function):
            raise self.wrong(name, f"{name} is not a function")
        try:
            return function(*args)
        except (Exception, SystemExit) as exc:
            raise self.failed(exc, f"in {name}()") from None

    def failed(self, exc: BaseException, when: str) -> CheckFileError:
        """The error of an exception raised by the check file's code: at the innermost
        line of the file in its traceback."""
        mine = os.path.abspath(self.path)
        line = next((f.lineno for f in reversed(traceback.extract_tb(exc.__traceback__))
                     if os.path.abspath(f.filename) == mine), None)
        if line is None:
            line = self.definition_line(when.removeprefix("in ").removesuffix("()"))
        return CheckFileError(f"{self.path}:{line}: {when}: {type(exc).__name__}: {exc}")

    def wrong(self, name: str, message: str) -> CheckFileError:
        """The error of a value the check file's `name` gives, at its definition."""
        return CheckFileError(f"{self.path}:{self.definition_line(name)}: {message}")

    def definition_line(self, name: str) -> int:
        """The line that defines `name` (``def name`` or ``name =``), else 1."""
        return _definition_line(self.source, name)


def _definition_line(source: str, name: str) -> int:
    m = re.search(rf"^(?:def\s+{re.escape(name)}\b|{re.escape(name)}\s*[:=])", source,
                  re.M)
    return source.count("\n", 0, m.start()) + 1 if m else 1


# -- the gemm reference ------------------------------------------------------------------------
def gemm_problem(mlir_text: str | None, manifest: dict, entry=None) -> Problem:
    """C = A x B, all row-major: M and K from the shared-memory fill of A (an "mn_k" fill:
    the tile's rows are M, its source row stride src_ld is K), N from the fill of B (a
    "k_mn" fill, N = src_ld), element types from the tiles and the stored fragments. In a
    CTA pair each CTA fills its own rows of A (docs/cta-pairs.md): M is the tile's rows
    times the CTAs of the cluster."""
    if mlir_text is None:
        raise UsageError("--check gemm reads the shapes from the MLIR kernel; give the .mlir "
                         "or a --check FILE.py")
    fills, stores = kernel_memory_ops(mlir_text)
    a = [f for f in fills if f.param == "A" and f.layout == "mn_k"]
    b = [f for f in fills if f.param == "B" and f.layout == "k_mn"]
    c = [s for s in stores if s.param == "C"]
    if not (a and b and c):
        raise UsageError("--check gemm needs parameters A, B and C with an mn_k fill of A, "
                         "a k_mn fill of B and fragment stores to C (a kernel that loads "
                         "through TMA, or takes B transposed, has none); use --check FILE.py")
    if any(f.ld is None for f in a + b) or any(s.ld is None for s in c) or \
            any(f.bounded for f in a + b + c):
        raise UsageError("--check gemm reads M, N and K from constant leading dimensions; "
                         "this kernel takes them at run time: use --check FILE.py")
    ctas = _cluster_ctas(manifest, entry)
    m, k = a[0].rows * ctas, a[0].ld
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
    tf32 = "tf32" in (a[0].dtype, b[0].dtype)

    def reference(inputs):
        return {"C": inputs["A"].astype(np.float64) @ inputs["B"].astype(np.float64)}

    def tolerance(name, got, expected, inputs):
        scale = np.abs(inputs["A"].astype(np.float64)) @ np.abs(inputs["B"].astype(np.float64))
        if tf32:
            bound = (TF32_INPUT_ERROR_UNIT + k * F32_SUM_ERROR) * scale + 1e-30
            return compare(got, expected, bound, f"(2^-9+2^-20+K*2^-24*(1+2^-10)^2)*(|A||B|), tf32 "
                                    f"inputs, K = {k}")
        # The error bound of summing K products in f32 in any order (gamma_K = K * 2^-24
        # times the sum of |a_ik * b_kj|); bf16 x bf16 products are exact in f32.
        bound = k * 2.0 ** -24 * scale + 1e-30
        return compare(got, expected, bound, f"K*2^-24*(|A||B|), K = {k}")

    return Problem(buffers, scalars, reference, tolerance, f"gemm M={m} N={n} K={k}")


def _cluster_ctas(manifest: dict, entry=None) -> int:
    """The CTAs of the manifest's cluster (api.check_launch has checked its shape), else
    of the PTX entry's .reqnctapercluster."""
    cluster = manifest.get("cluster") or \
        list(entry.directives.get("reqnctapercluster", [1]) if entry is not None else [1])
    count = 1
    for d in (cluster if isinstance(cluster, list) else [cluster]):
        count *= int(d)
    return count


#: The bounds of a GEMM with tf32 inputs (.kind::tf32) against the exact product of its
#: f32 inputs, per unit of sum_k |a_ik b_kj|. An f32 input becomes tf32 (an 11-bit
#: significand, PTX ISA 5.2.5.1: 10 explicit mantissa bits) by dropping its low 13
#: mantissa bits, or by rounding them to nearest: a relative error |d| < 2^-10 either way
#: (one unit in the last place of an 11-bit significand is 2^-10 of its value, at most).
#: A product of two converted inputs is ab(1 + da)(1 + db), off by at most
#: (2 * 2^-10 + 2^-20)|ab| = (2^-9 + 2^-20)|ab|, and is itself exact in f32 (11 x 11 =
#: 22 significand bits <= 24). Summing K such products in f32 in any order adds at most
#: K * 2^-24 times the sum of their magnitudes, each <= (1 + 2^-10)^2 |ab|. So
#: |C - A@B| <= (2^-9 + 2^-20 + K * 2^-24 * (1 + 2^-10)^2) * (|A| @ |B|); the first term
#: is TF32_INPUT_ERROR_UNIT, the factor of K F32_SUM_ERROR. (Subnormal inputs, whose tf32 value
#: may lose more, do not occur: --check gemm draws them from [-1, 1) and rounds to f32.)
TF32_INPUT_ERROR_UNIT = 2.0 ** -9 + 2.0 ** -20
F32_SUM_ERROR = 2.0 ** -24 * (1 + 2.0 ** -10) ** 2


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
    from tcgen05_lower.parsing import parse_module
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
    from tcgen05_lower.kernel_ir import recorded_parameter_names, source_parameter_names

    return recorded_parameter_names(kernel) or source_parameter_names(kernel, text)


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


def file_problem(path: str, manifest: dict, overrides: dict | None = None,
                 entry=None) -> Problem:
    """The Problem of a --check FILE.py (see the module docstring); CheckFileError for
    what is wrong in the file, UsageError for a --set that names no integer argument,
    LaunchError for a scalar that does not fit its PTX parameter (with `entry`)."""
    from tcgen05_lower.sim.api import check_scalar, manifest_parameters

    spec = CheckFile(path)
    if "BUFFERS" not in spec or "reference" not in spec:
        raise CheckFileError(f"{path}:1: a check file must define BUFFERS and "
                             f"reference(inputs)")
    rtol, atol = _tolerance_of(spec)

    def tolerance(name, got, expected, inputs):
        if "bound" in spec:
            bound, text = _bound_of(spec, name, inputs, np.shape(expected))
            return compare(got, expected, bound, text)
        bound = atol + rtol * np.abs(np.asarray(expected, np.float64))
        return compare(got, expected, bound, f"atol {atol:g} + rtol {rtol:g} * |ref|")

    integer_params = scalar_parameter_names(manifest)
    scalars = spec.get("SCALARS", {})
    if not isinstance(scalars, dict) or not all(
            isinstance(k, str) and _is_int(v) for k, v in scalars.items()):
        raise spec.wrong("SCALARS", "SCALARS must be a dict of integer arguments "
                                    "({name: int})")
    scalars = dict(scalars)
    unknown = sorted(set(overrides or {}) - set(integer_params))
    if unknown:
        raise UsageError(f"--set {', '.join(unknown)}: not an integer argument of the kernel")
    scalars.update(overrides or {})
    if "derived" in spec:
        more = spec.call("derived", dict(scalars))
        if not isinstance(more, dict) or not all(
                isinstance(k, str) and _is_int(v) for k, v in more.items()):
            raise spec.wrong("derived", "derived(scalars) must return a dict of integer "
                                        "arguments ({name: int})")
        scalars.update({k: v for k, v in more.items() if k not in scalars})
    if entry is not None:
        for name, _, param in manifest_parameters(manifest, entry):
            if name in scalars and name in integer_params:
                check_scalar(name, scalars[name], param)
    shown = ", ".join(f"{k}={v}" for k, v in scalars.items())
    buffers = spec.call("BUFFERS", dict(scalars)) if callable(spec.get("BUFFERS")) \
        else spec.get("BUFFERS")
    buffers = _buffers_of(spec, buffers, shown)

    def reference(inputs):
        return spec.call("reference", inputs)

    return Problem(buffers, scalars, reference, tolerance,
                   path + (f" ({shown})" if shown else ""), spec, _ranges_of(spec, buffers))


def _ranges_of(spec: CheckFile, buffers: dict) -> dict:
    """INPUT_RANGES of the check file: {name: (low, high)}, the half-open range of an
    integer input's random values (default [-8, 8)), e.g. the codes of block-scale
    factors, whose bytes are exponents."""
    ranges = spec.get("INPUT_RANGES", {})
    ok = isinstance(ranges, dict) and all(
        name in buffers and isinstance(v, (tuple, list)) and len(v) == 2
        and all(_is_int(x) for x in v) and v[0] < v[1] for name, v in ranges.items())
    if not ok:
        raise spec.wrong("INPUT_RANGES", "INPUT_RANGES must be a dict {buffer name: (low, "
                                         "high)} of integer buffers, low < high")
    return {name: (int(v[0]), int(v[1])) for name, v in ranges.items()}


def _is_int(value) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, bool)


def _tolerance_of(spec: CheckFile) -> tuple[float, float]:
    value = spec.get("TOLERANCE", (1e-5, 1e-6))
    try:
        rtol, atol = (float(v) for v in value)
    except (TypeError, ValueError):
        raise spec.wrong("TOLERANCE", f"TOLERANCE must be (rtol, atol), two numbers, not "
                                      f"{value!r}") from None
    return rtol, atol


def _bound_of(spec: CheckFile, name: str, inputs: dict, shape: tuple):
    """bound(name, inputs) of the check file: (an array that broadcasts to the output's
    shape, its text)."""
    result = spec.call("bound", name, inputs)
    if not (isinstance(result, tuple) and len(result) == 2):
        raise spec.wrong("bound", f"bound({name!r}, inputs) must return (array, text), "
                                  f"not {type(result).__name__}")
    try:
        bound = np.asarray(result[0], np.float64)
        np.broadcast_shapes(bound.shape, shape)
    except (TypeError, ValueError) as exc:
        raise spec.wrong("bound", f"bound({name!r}, inputs) returns no bound for an output "
                                  f"of shape {shape}: {exc}") from None
    return bound, str(result[1])


def _buffers_of(spec: CheckFile, buffers, scalars_text: str) -> dict:
    """{name: (dtype name, dims)} from the check file's BUFFERS, every element type known
    and every dimension a non-negative integer."""
    given = f" (with {scalars_text})" if scalars_text else ""
    if not isinstance(buffers, dict):
        raise spec.wrong("BUFFERS", f"BUFFERS must be a dict {{name: (dtype, shape)}}, "
                                    f"not {type(buffers).__name__}{given}")
    out = {}
    for name, value in buffers.items():
        if not (isinstance(value, (tuple, list)) and len(value) == 2):
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}] is {value!r}, not "
                                        f"(dtype, shape)")
        dtype, dims = value
        try:
            numpy_dtype(dtype)
        except UsageError as exc:
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}]: {exc}") from None
        dims = (dims,) if _is_int(dims) else dims
        if not isinstance(dims, (tuple, list)) or not all(_is_int(d) for d in dims):
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}] has the dimensions {dims!r}, "
                                        f"not integers{given}")
        if any(d < 0 for d in dims):
            raise spec.wrong("BUFFERS", f"BUFFERS[{name!r}] has the dimensions "
                                        f"{tuple(int(d) for d in dims)}: one is negative"
                                        f"{given}")
        out[name] = (dtype, tuple(int(d) for d in dims))
    return out


def scalar_parameter_names(manifest: dict) -> list[str]:
    """The manifest's integer (by-value) parameters."""
    return [param_name(p) for p in manifest["params"] if not p["pointer"]]


def array_parameter_names(manifest: dict) -> list[str]:
    """The manifest's array parameters (pointers but tensor maps)."""
    return [param_name(p) for p in manifest["params"]
            if p["pointer"] and "tensor_map" not in p]


def param_name(param: dict) -> str:
    """A manifest parameter's name (tcgen05-lower --manifest's schema)."""
    return param["name"]


# -- inputs -----------------------------------------------------------------------------------
def check_memory(problem: Problem, manifest: dict, limit: int | None) -> None:
    """UsageError, before anything is allocated, when an array parameter has no shape or
    the arrays need more than `limit` bytes (--max-memory)."""
    total, sizes = 0, []
    for name in array_parameter_names(manifest):
        if name not in problem.buffers:
            raise UsageError(f"no shape for buffer parameter {name}")
        dtype_name, dims = problem.buffers[name]
        count = 1
        for d in dims:
            count *= int(d)
        nbytes = count * numpy_dtype(dtype_name).itemsize
        total += nbytes
        sizes.append(f"{name} {'x'.join(map(str, dims)) or 'scalar'} {dtype_name}: "
                     f"{nbytes:,} B")
    if limit is not None and total > limit:
        raise UsageError(f"the kernel's arrays need {total:,} bytes ({_human(total)}), more "
                         f"than the limit of {limit:,} ({_human(limit)}, --max-memory): "
                         + "; ".join(sizes))


def _human(n: int) -> str:
    for unit, shift in (("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):.1f} {unit}"
    return f"{n} B"


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
        dtype_name, dims = problem.buffers[name]
        dtype = numpy_dtype(dtype_name)
        if name in reference_names:
            fill = np.nan if dtype.kind == "f" or dtype_name == "bfloat16" else -1
            args[name] = np.full(dims, fill, dtype=np.float64).astype(dtype)
        elif dtype.kind in "iu":
            low, high = problem.ranges.get(name, (-8, 8))
            args[name] = rng.integers(low, high, size=dims).astype(dtype)
        else:
            args[name] = rng.uniform(-1, 1, size=dims).astype(dtype)
    return args


# -- the run ------------------------------------------------------------------------------------
def run(argv=None) -> int:
    args = build_parser().parse_args(argv)
    from tcgen05_lower.sim.state import SimError

    try:
        return _run(args)
    except (UsageError, OSError) as exc:
        print(f"tcgen05-sim: error: {exc}", file=sys.stderr)
        return 1
    except SimError as err:
        print(f"tcgen05-sim: {type(err).__name__}: {err}", file=sys.stderr)
        return 1


def default_check(kernel: str) -> str:
    """The reference of a run without --check: the kernel's sidecar KERNEL.check.py (as
    the examples ship theirs), else gemm."""
    sidecar = Path(kernel).with_suffix(".check.py") if kernel.endswith(".mlir") else None
    return str(sidecar) if sidecar is not None and sidecar.exists() else "gemm"


def _run(args) -> int:
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.timing import parse_timing_params

    scalars = parse_settings(args.set)
    grid = parse_grid(args.grid)
    try:
        timing_params = parse_timing_params(args.timing_param)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.check is None:
        args.check = default_check(args.input)
    ptx, manifest, problem, inputs = prepare(args.input, args.check, args.seed, args.arch,
                                             args.manifest, scalars, args.pass_option,
                                             args.max_memory,
                                             probe_outputs=not args.timing_only)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    seeds = _schedule_seeds(args)
    if seeds and args.backend == "sim":
        from tcgen05_lower.cli.sim_seeds import run_seeds
        return run_seeds(args, ptx, manifest, problem, inputs, originals, grid, seeds, report)
    if args.backend == "cuda":
        return run_on_gpu(ptx, manifest, problem, inputs, originals)
    timing = (timing_params or True) if (args.timing or args.timing_trace or
                                         args.timing_only) else None
    if args.timing_only:
        return run_timing_only(args, ptx, manifest, inputs, grid, timing)
    trace = open(args.trace, "w") if args.trace else None
    start = time.perf_counter()
    try:
        result = simulate(ptx, manifest, inputs, schedule=args.schedule, trace=trace,
                          progress_stream=sys.stderr, grid=grid, timing=timing,
                          fences=args.fences,
                          max_instructions=args.max_instructions, timeout=args.timeout,
                          functional_only=args.functional_only)
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


def _schedule_seeds(args) -> list:
    """The schedule seeds of --schedule random (cli/sim_seeds.py), [] for the other
    schedules; UsageError for --seeds / --runs that do not fit."""
    from tcgen05_lower.cli.sim_seeds import schedule_seeds

    try:
        seeds = schedule_seeds(args)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if seeds and (args.timing or args.timing_only or args.timing_trace or args.trace):
        raise UsageError("--schedule random runs without --timing, --timing-only, "
                         "--timing-trace and --trace")
    return seeds


def run_timing_only(args, ptx, manifest, inputs, grid, timing) -> int:
    """--timing-only: the grid's estimate from cluster (0, 0, 0) and its neighbours along
    x and y (timing.Recording); a grid too large to estimate is refused before anything
    runs."""
    from tcgen05_lower.sim import ptx as P
    from tcgen05_lower.sim.api import grid_of, launch_of, simulate
    from tcgen05_lower.sim.state import SimError
    from tcgen05_lower.sim.timing import TIMING_ONLY_MAX_CLUSTERS
    from tcgen05_lower.sim.timing.wave import timing_only_clusters

    try:
        launch = launch_of(manifest, P.parse(ptx).entry(manifest.get("entry")))
        dims = grid_of(manifest, inputs, launch.cluster_dims, grid)
    except SimError as err:
        print(f"tcgen05-sim: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    gx, gy, gz = (n // c for n, c in zip(dims, launch.cluster_dims))
    total = gx * gy * gz
    if total > TIMING_ONLY_MAX_CLUSTERS:
        print(f"tcgen05-sim: error: --timing-only: the grid {dims} has {total:,} clusters, "
              f"more than the {TIMING_ONLY_MAX_CLUSTERS:,} a timing-only estimate walks",
              file=sys.stderr)
        return 1
    clusters, budget = timing_only_clusters((gx, gy, gz), launch.cluster, timing)
    start = time.perf_counter()
    try:
        result = simulate(ptx, manifest, inputs, schedule=args.schedule,
                          progress_stream=sys.stderr, grid=grid, timing=timing,
                          clusters=clusters, fences=args.fences,
                          budgets={c: budget for c in clusters[1:]},
                          max_instructions=args.max_instructions, timeout=args.timeout,
                          functional_only=args.functional_only)
    except SimError as err:
        print(f"tcgen05-sim: {type(err).__name__}: {err}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - start
    cluster = launch.cluster
    print(f"tcgen05-sim: {manifest['entry']} ({manifest.get('target', '?')}, "
          f"{manifest['threads']} threads x {total * cluster} CTAs, grid {dims}), timing "
          f"only: {len(clusters)} cluster(s) simulated in {elapsed:.2f} s, numerics not "
          f"checked")
    for race in result.races:
        print(f"  race: {race}")
    for problem_text in result.problems:
        print(f"  at exit: {problem_text}")
    print(result.timing.summary())
    gpu = sum(c.tensor_busy for c in result.timing.clusters) / \
        max(result.timing.cycles * result.timing.sms, 1.0)
    print(f"  the whole GPU's tensor pipes ({result.timing.sms} SMs for the launch's "
          f"{result.timing.cycles:,.0f} cycles): {gpu:.1%} busy")
    if args.timing_trace:
        result.timing.write_chrome_trace(args.timing_trace)
        print(f"  timing trace: {args.timing_trace} (chrome://tracing or "
              "https://ui.perfetto.dev)")
    return 1 if result.races or result.problems else 0


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
    """The buffers the reference produces (it is called once on throw-away inputs):
    array parameters of the kernel, each given an array of its buffer's shape
    (CheckFileError otherwise, before the kernel runs)."""
    probe = make_inputs(problem, manifest, set(), seed)
    return set(expected_outputs(problem, manifest, probe))


def expected_outputs(problem: Problem, manifest: dict, inputs: dict) -> dict:
    """The reference's {output: expected array}, checked: a dict naming array parameters
    of the kernel, with arrays of numbers of the buffers' shapes."""
    expected = problem.reference(inputs)
    wrong = UsageError if problem.check_file is None \
        else (lambda message: problem.check_file.wrong("reference", message))
    if not isinstance(expected, dict):
        raise wrong(f"reference(inputs) must return a dict {{output: array}}, not "
                    f"{type(expected).__name__}")
    arrays = array_parameter_names(manifest)
    for name, want in expected.items():
        if name not in arrays:
            raise wrong(f"reference(inputs) returns {name!r}, which is not an array "
                        f"parameter of the kernel ({', '.join(arrays) or 'none'})")
        try:
            dims = np.asarray(want, np.float64).shape
        except (TypeError, ValueError) as exc:
            raise wrong(f"reference(inputs)[{name!r}] is not an array of numbers: "
                        f"{exc}") from None
        if dims != tuple(problem.buffers[name][1]):
            raise wrong(f"reference(inputs)[{name!r}] has the shape {dims}, its buffer "
                        f"{tuple(problem.buffers[name][1])}")
    return expected


def report(problem, manifest, inputs, result, schedule, elapsed) -> int:
    cluster = result.cluster or _cluster_ctas(manifest)
    threads = result.threads or manifest.get("threads", "?")
    where = "on the GPU" if schedule == "cuda" else f"schedule {schedule}"
    ctas = getattr(result, "ctas", cluster)
    shape = f"{cluster} CTA" if ctas == cluster else f"{ctas} CTAs"
    print(f"tcgen05-sim: {manifest.get('entry', '?')} ({manifest.get('target', '?')}, "
          f"{threads} threads x {shape}, "
          f"{manifest.get('dynamic_smem_bytes', 0)} B dynamic shared memory), "
          f"{problem.description}, {where}")
    expected = expected_outputs(problem, manifest, inputs)
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
    if schedule != "cuda" and not getattr(result, "races_checked", True):
        print("  races: not looked for (--functional-only)")
    elif schedule != "cuda" and not result.races:
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
