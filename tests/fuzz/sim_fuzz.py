"""Fuzzing the simulator's inputs (issue 34): tcgen05-sim run on mutated check files,
manifests, ``--set`` and ``--grid`` values and compiled MLIR mutants of shipped examples.

A case starts from one of BASES (a shipped example, its check and the arguments that keep
it small), compiled once to PTX and manifest, and applies one or two mutation operators;
the tool then runs in a worker process (``sim_worker.py``, through run.py's Pool: a
worker that dies or takes past the time limit is recorded against its case and
replaced). Every case passes the tool explicit limits (RUN_LIMITS), so a run the tool
does not stop itself well within the fuzzer's time limit is a hang. Every outcome falls
into one class:

========== ================================================================ ======
class      meaning                                                          a bug?
========== ================================================================ ======
ok         ran to the end and reported: every output matched, or a
           mismatch, race or problem at exit
error      a located or clear error: one ``tcgen05-sim: ...`` line (a
           check file's at its file:line, a compile diagnostic, a
           LaunchError, a SimError naming its PTX line ...), exit status 1;
           or argparse's usage error, exit status 2
limit      stopped by a limit (--max-instructions, --timeout), with a
           message, exit status 1
internal   "internal error", a traceback, an exception escaping the tool's  yes
           body, or an exit status other than 0, 1 and argparse's 2
silent     exit status 1 with no message and no report                      yes
signal     the worker died (a signal, or an exit)                           yes
hang       no answer within the time limit                                  yes
========== ================================================================ ======

Not generated: a check file that loops for ever in its own Python code (the user's
program; the limits bound the simulated kernel).

``SimFuzzer(bases).case(seed, index)`` is deterministic (``random.Random(f"{seed}:{index}")``).
"""

from __future__ import annotations

import json
import random
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .corpus import ROOT, Seed, strip_comments
from .mutate import BOUNDARY_INTS, Mutator
from .run import Outcome, Pool, _fence
from .run import signature_of as _signature_of

SIM_WORKER = Path(__file__).resolve().parent / "sim_worker.py"

CLASSES = ("ok", "error", "limit", "internal", "silent", "signal", "hang")
BAD = frozenset(("internal", "silent", "signal", "hang"))
CLASS_TITLES = {
    "ok": "ran and reported (match, mismatch, race)",
    "error": "located or clear error",
    "limit": "stopped by a limit, with a message",
    "internal": "internal error",
    "silent": "exit 1 without a message",
    "signal": "worker died (signal or exit)",
    "hang": "hang (time limit)",
}

#: The limits every case passes to the tool: far above what the bases need (the largest,
#: gemm_bf16_tma, about 4,000 warp instructions and 1 s), far below the fuzzer's time limit.
RUN_LIMITS = ("--max-instructions", "3000000", "--timeout", "15", "--max-memory", "256M")
#: Seconds before a case is a hang: four times the tool's own --timeout.
SIM_TIMEOUT = 60.0


@dataclass(frozen=True)
class Base:
    """A shipped example to start from: its kernel, its check (a file, or "gemm") and
    the arguments that keep it small."""
    example: str
    check: str = "gemm"
    args: tuple = ()
    weight: int = 1


BASES = (
    Base("gemm_bf16_128x256", weight=3),
    Base("gemm_bf16_pair_m128", "gemm_bf16_pair_m128.check.py", weight=2),
    Base("gemm_bf16_pair_m256", weight=1),
    Base("gemm_m64_pair", "gemm_m64_pair.check.py", weight=2),
    Base("gemm_chain_p_tmem", "gemm_chain_p_tmem.check.py"),
    Base("attention_fwd_bf16_one_block", "attention_fwd_bf16_one_block.check.py"),
    Base("gemm_bf16_grid", "gemm_bf16_grid.check.py",
         ("--set", "M=128", "--set", "N=256", "--set", "K=64"), weight=3),
    Base("gemm_bf16_kloop_dynamic", "gemm_bf16_kloop_dynamic.check.py", ("--set", "K=64"),
         weight=2),
    Base("gemm_e4m3_out_scaled", "gemm_e4m3_out_scaled.check.py"),
    Base("gemm_bf16_out_bias_gelu", "gemm_bf16_out_bias_gelu.check.py"),
    Base("persistent_gemm_pingpong", "persistent_gemm_pingpong.check.py"),
    Base("gemm_bf16_tma", "gemm_bf16_tma.check.py"),
)

#: Element type names for a check file's BUFFERS: NumPy's, the tool's, and not-types.
DTYPES = ("bfloat16", "float32", "float16", "int8", "int32", "uint8", "float64", "bf16",
          "f8E4M3FN", "float8_e4m3fn", "tf32", "bool", "complex64", "object", "U8", "V4",
          "bfloat17", "int4", "", "float", "int", "datetime64", "f4", "i", "S", "float128")
SET_VALUES = tuple(str(v) for v in BOUNDARY_INTS) + (
    "-128", "64", "100", "72", "1000000", "abc", "0x40", "", "1e3", "-0", "+5", "1.5")
GRID_VALUES = ("1", "2", "3", "4", "0", "-1", "65535", "65536", "100000", "2147483647",
               "2147483648", "1,1", "1,2", "2,1,1", "1,1,1,1", "1,,2", "a", "", " 1 ",
               "100000,100000,100000", "1,65536", "3,1", "7,3,2")
THREADS = (0, 1, 32, 64, 96, 127, 128, 256, 1024, 2048, -1, "128", None, 1.5, [128])
CLUSTERS = ([1, 1, 1], [2, 1, 1], [4, 1, 1], [1, 2, 1], [0], [], "x", 2, 3, [1, 2],
            [-1, 1, 1], None)
GRIDS = (["1"], ["2"], ["100000"], ["2147483647", "65535"], ["100000", "100000", "100000"],
         ["ceildiv(M, 0)"], ["ceildiv(M, 128)"], ["ceildiv(N, 256)", "ceildiv(M, 128)"],
         ["M"], ["Q"], ["1", "2", "3", "4"], [], "x", [1.5], ["-1"], [None], ["0"],
         ["ceildiv(K, 64)", "2"], [1, 2], ["3"])
SMEM = (0, -1, 2**40, "x", 1.5, 232448, 1024, None, 49152, 100000)
PTX_TYPES = (".u64", ".u32", ".s32", ".b64", ".f32", ".pred", "", "u64")
#: Replacements of a reference's outputs (v: an output) and whole returns.
REFERENCE_OUTPUTS = ("v[:1]", "v.T", "'text'", "None", "np.zeros(0)", "[[1, 2], [3]]",
                     "v.astype(object)", "v * 2", "v + 1e-3", "np.full(np.shape(v), np.nan)",
                     "v.reshape(-1)", "v.astype(np.float16)", "np.inf")
REFERENCE_RETURNS = ("None", "[out]", "{**out, 'Z': 1}", "{('C',): 1}", "{}", "1")
TOLERANCES = ("'abc'", "(1,)", "None", "(1e-3, 1e-3, 1)", "(-1, 0)", "(float('nan'), 0)",
              "{}", "(0, 0)")
BOUNDS = ("(1.0,)", "(np.zeros(3), 'x')", "None", "(np.inf, 'inf')", "(-1.0, 'negative')",
          "('a', 'b')", "(np.zeros((7, 5)), 'shape')", "1 / 0", "(0.0, 'exact')")
SCALARS_VALUES = ("{'M': 'x'}", "[1]", "{'M': 2**40}", "{'Q': 1}", "{'M': -5}",
                  "{'K': 0}", "{'K': 16}", "{'N': 2**31}", "{1: 2}", "None")
BUFFERS_VALUES = ("None", "{'A': ('bfloat16',)}", "{'A': ('bfloat16', (-1, 2))}",
                  "{'A': ('bfloat16', 'x')}", "{}", "{'A': ('bfloat16', (2**40, 2**40))}",
                  "{'A': ('bfloat16', 7)}", "{'A': ('bfloat16', (1.5, 2))}", "[1, 2]",
                  "lambda s: None", "lambda s: 1 / 0")
DERIVED_VALUES = ("None", "1 / 0", "{'lda': 'x'}", "{'lda': -1}", "{'Q': 3}", "[1]",
                  "{'lda': 2**33}")


@dataclass
class Case:
    """One input of the campaign: files (name -> text, written to {dir}) and the tool's
    arguments."""
    index: int
    base: str
    files: dict
    argv: list
    mutations: list = field(default_factory=list)


def _load_bases(bases) -> dict:
    """example name -> (MLIR text, PTX, manifest, check text or None), compiled with the
    example's pass options (tests/conftest.py)."""
    from tcgen05_lower.driver import compile_source
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options

    try:
        from conftest import example_pass_options
    except ImportError:
        def example_pass_options(name):
            return ()
    out = {}
    for base in bases:
        path = ROOT / "examples" / f"{base.example}.mlir"
        text = path.read_text()
        pipeline = override_options(DEFAULT_PIPELINE, list(example_pass_options(path.name)))
        result = compile_source(text, str(path), pipeline=pipeline)
        check = (ROOT / "examples" / base.check).read_text() if base.check != "gemm" else None
        out[base.example] = (text, result.ptx, result.manifest, check)
    return out


class SimFuzzer:
    """Cases of a campaign over `bases` (compiled once)."""

    def __init__(self, bases=BASES):
        self.bases = list(bases)
        self.compiled = _load_bases(self.bases)
        self.gemm_checks = {b.example: _gemm_check(self.compiled[b.example][2],
                                                   self.compiled[b.example][0])
                            for b in self.bases if b.check == "gemm"}
        self.mutator = Mutator([Seed(b.example, strip_comments(self.compiled[b.example][0]))
                                for b in self.bases])
        self.operators = [
            (self.op_check_file, 10), (self.op_manifest, 8), (self.op_set, 5),
            (self.op_grid, 4), (self.op_mlir, 5), (self.op_options, 1),
        ]

    def case(self, seed: int, index: int) -> Case:
        rng = random.Random(f"{seed}:{index}")
        base = rng.choices(self.bases, [b.weight for b in self.bases])[0]
        mlir, ptx, manifest, check = self.compiled[base.example]
        state = {"mlir": None, "ptx": ptx, "manifest": json.dumps(manifest, indent=1),
                 "check": check if check is not None else None, "set": list(base.args), "extra": [], "done": []}
        count = rng.choices((1, 2), (70, 30))[0]
        ops = [o for o, _ in self.operators]
        weights = [w for _, w in self.operators]
        for _ in range(count):
            for _attempt in range(20):
                op = rng.choices(ops, weights)[0]
                described = op(state, rng, base)
                if described:
                    state["done"].append(described)
                    break
        return self._build(index, base, state)

    def _build(self, index: int, base: Base, state: dict) -> Case:
        files, argv = {}, []
        if state["mlir"] is not None:
            files["kernel.mlir"] = state["mlir"]
            argv.append("{dir}/kernel.mlir")
            argv += list(_pass_options(base))
        else:
            files["kernel.ptx"] = state["ptx"]
            files["kernel.json"] = state["manifest"]
            argv += ["{dir}/kernel.ptx", "--manifest", "{dir}/kernel.json"]
        if state["check"] is not None:
            files["check.py"] = state["check"]
            argv += ["--check", "{dir}/check.py"]
        elif state["mlir"] is not None:
            argv += ["--check", "gemm"]
        else:  # a .ptx has no MLIR to read gemm shapes from: the gemm check as a file
            files["check.py"] = self.gemm_checks[base.example]
            argv += ["--check", "{dir}/check.py"]
        argv += state["set"] + state["extra"] + list(RUN_LIMITS)
        return Case(index, base.example, files, argv, state["done"])

    # -- operators: each returns a description, or None when it does not apply -------------
    def op_check_file(self, state, rng, base):
        text = state["check"]
        if text is None:
            return None
        kind = rng.randrange(13)
        defs = [m for m in re.finditer(r"^def (\w+)\(.*\):\s*$", text, re.M)]
        if kind == 0 and defs:
            m = rng.choice(defs)
            state["check"] = text[:m.end()] + "\n    raise RuntimeError('fuzz')" + text[m.end():]
            return f"check: raise in {m.group(1)}()"
        if kind == 1:
            lines = text.split("\n")
            k = rng.randrange(len(lines))
            state["check"] = "\n".join(lines[:k] + lines[k + 1:])
            return f"check: deleted line {k + 1}"
        if kind == 2:
            strings = list(re.finditer(r'"(bfloat16|float32|float16|int8|int32|uint8|'
                                       r'float8_e4m3fn|float8_e5m2)"', text))
            if not strings:
                return None
            m = rng.choice(strings)
            new = rng.choice(DTYPES)
            state["check"] = text[:m.start()] + json.dumps(new) + text[m.end():]
            return f"check: dtype {m.group(1)} -> {new!r}"
        if kind == 3:
            ints = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", text))
            if not ints:
                return None
            m = rng.choice(ints)
            new = str(rng.choice(BOUNDARY_INTS + (-128, 0, 1)))
            state["check"] = text[:m.start()] + new + text[m.end():]
            return f"check: integer {m.group(0)} -> {new}"
        if kind == 4:
            state["check"] = "import numpy_that_is_not_installed\n" + text
            return "check: import of a missing module"
        if kind == 5:
            k = rng.randrange(len(text) + 1)
            action = rng.randrange(3)
            if action == 0 and k < len(text):
                state["check"] = text[:k] + text[k + 1:]
                return f"check: deleted character {k}"
            char = rng.choice("()[]{}:,='\"\n #x0")
            state["check"] = text[:k] + char + text[k:]
            return f"check: inserted {char!r} at {k}"
        if kind == 6:
            new = rng.choice(REFERENCE_OUTPUTS)
            state["check"] = text + ("\n_fuzz_reference = reference\n\n\ndef reference(inputs):"
                                     "\n    import numpy as np\n    out = _fuzz_reference(inputs)"
                                     f"\n    return {{k: {new} for k, v in out.items()}}\n")
            return f"check: reference outputs -> {new}"
        if kind == 7:
            new = rng.choice(REFERENCE_RETURNS)
            state["check"] = text + ("\n_fuzz_reference = reference\n\n\ndef reference(inputs):"
                                     "\n    out = _fuzz_reference(inputs)"
                                     f"\n    return {new}\n")
            return f"check: reference returns {new}"
        if kind == 8:
            new = rng.choice(TOLERANCES)
            state["check"] = re.sub(r"^def bound\(", "def _unused_bound(", text, flags=re.M) \
                + f"\nTOLERANCE = {new}\n"
            return f"check: TOLERANCE = {new}"
        if kind == 9:
            new = rng.choice(BOUNDS)
            state["check"] = text + ("\n\ndef bound(name, inputs):\n    import numpy as np\n"
                                     f"    return {new}\n")
            return f"check: bound returns {new}"
        if kind == 10:
            new = rng.choice(SCALARS_VALUES)
            state["check"] = text + f"\nSCALARS = {new}\n"
            return f"check: SCALARS = {new}"
        if kind == 11:
            new = rng.choice(BUFFERS_VALUES)
            state["check"] = text + f"\nBUFFERS = {new}\n"
            return f"check: BUFFERS = {new}"
        new = rng.choice(DERIVED_VALUES)
        state["check"] = text + f"\n\ndef derived(scalars):\n    return {new}\n"
        return f"check: derived returns {new}"

    def op_manifest(self, state, rng, base):
        if state["mlir"] is not None:
            return None
        text = state["manifest"]
        try:
            manifest = json.loads(text)
        except json.JSONDecodeError:
            return None
        kind = rng.randrange(10)
        params = manifest.get("params") if isinstance(manifest, dict) else None
        if kind == 0:
            key = rng.choice(sorted(manifest))
            del manifest[key]
            what = f"manifest: deleted {key}"
        elif kind == 1:
            manifest["threads"] = rng.choice(THREADS)
            what = f"manifest: threads = {manifest['threads']!r}"
        elif kind == 2:
            manifest["cluster"] = rng.choice(CLUSTERS)
            what = f"manifest: cluster = {manifest['cluster']!r}"
        elif kind == 3:
            manifest["grid"] = rng.choice(GRIDS)
            what = f"manifest: grid = {manifest['grid']!r}"
        elif kind == 4:
            manifest["dynamic_smem_bytes"] = rng.choice(SMEM)
            what = f"manifest: dynamic_smem_bytes = {manifest['dynamic_smem_bytes']!r}"
        elif kind == 5:
            manifest["entry"] = rng.choice(("nope", 5, None, "", manifest.get("entry", "")
                                            .upper()))
            what = f"manifest: entry = {manifest['entry']!r}"
        elif kind in (6, 7) and isinstance(params, list) and params:
            what = self._mutate_params(params, rng)
        elif kind == 8:
            cut = rng.randrange(len(text))
            state["manifest"] = text[:cut]
            return f"manifest: cut at character {cut}"
        else:
            k = rng.randrange(len(text))
            state["manifest"] = text[:k] + rng.choice('{}[],:"0x ') + text[k + 1:]
            return f"manifest: replaced character {k}"
        state["manifest"] = json.dumps(manifest, indent=1)
        return what

    @staticmethod
    def _mutate_params(params: list, rng) -> str:
        k = rng.randrange(len(params))
        kind = rng.randrange(8)
        if kind == 0:
            del params[k]
            return f"manifest: deleted parameter {k}"
        if kind == 1:
            params.insert(k, dict(params[k]))
            return f"manifest: duplicated parameter {k}"
        if kind == 2 and len(params) > 1:
            j = (k + 1) % len(params)
            params[k], params[j] = params[j], params[k]
            return f"manifest: swapped parameters {k} and {j}"
        if kind == 3:
            params[k]["pointer"] = rng.choice((not params[k].get("pointer"), "yes", None, 1))
            return f"manifest: parameter {k} pointer = {params[k]['pointer']!r}"
        if kind == 4:
            params[k]["name"] = rng.choice(("Z", "", "A", "M", 5, None, "tmA"))
            return f"manifest: parameter {k} name = {params[k]['name']!r}"
        if kind == 5:
            params[k]["ptx_type"] = rng.choice(PTX_TYPES)
            return f"manifest: parameter {k} ptx_type = {params[k]['ptx_type']!r}"
        if kind == 6:
            params[k]["tensor_map"] = rng.choice((
                {"tensor": "A", "box": [64, 128], "swizzle": "128B"}, {"tensor": 5},
                {"tensor": "Q", "box": [64], "swizzle": "128B"}, None, "x",
                {"tensor": "A", "box": [0, -1], "swizzle": "64B"},
                {"tensor": "A", "box": [64, 128], "swizzle": "zig"}))
            return f"manifest: parameter {k} tensor_map = {params[k]['tensor_map']!r}"
        params[k] = rng.choice(({}, [], "A", None))
        return f"manifest: parameter {k} = {params[k]!r}"

    def op_set(self, state, rng, base):
        names = [p["name"] for p in self.compiled[base.example][2]["params"]]
        name = rng.choice(names + ["M", "N", "K", "Q", ""])
        value = rng.choice(SET_VALUES)
        state["set"] += ["--set", f"{name}={value}"]
        return f"--set {name}={value}"

    def op_grid(self, state, rng, base):
        if any(a == "--grid" for a in state["extra"]):
            return None
        value = rng.choice(GRID_VALUES)
        state["extra"] += ["--grid", value]
        return f"--grid {value!r}"

    def op_mlir(self, state, rng, base):
        if state["mlir"] is not None or state["done"]:
            return None
        text, done = self.mutator.mutate(strip_comments(self.compiled[base.example][0]),
                                         rng, 1)
        if not done:
            return None
        state["mlir"] = text
        return "mlir: " + "; ".join(done)

    def op_options(self, state, rng, base):
        option = rng.choice((["--schedule", "eager"], ["--seed", str(rng.randrange(1000))],
                             ["--seed", "-1"]))
        state["extra"] += option
        return " ".join(option)


def _pass_options(base: Base) -> tuple:
    try:
        from conftest import example_pass_options
    except ImportError:
        return ()
    out = []
    for option in example_pass_options(f"{base.example}.mlir"):
        out += ["--pass-option", option]
    return tuple(out)


def _gemm_check(manifest: dict, mlir_text: str) -> str:
    """A check file equivalent to --check gemm for a kernel given as PTX (shapes read
    from its MLIR, cli/sim_gemm.py's gemm_problem)."""
    from tcgen05_lower.cli.sim_gemm import gemm_problem

    problem = gemm_problem(mlir_text, manifest)
    buffers = {k: (v[0] if v[0] != "tf32" else "float32", list(v[1]))
               for k, v in problem.buffers.items()}
    return ("import numpy as np\n"
            f"BUFFERS = {buffers!r}\n"
            f"SCALARS = {problem.scalars!r}\n"
            "TOLERANCE = (1e-2, 1e-3)\n\n\n"
            "def reference(inputs):\n"
            "    return {'C': inputs['A'].astype(np.float64) @ "
            "inputs['B'].astype(np.float64)}\n")


# -- outcomes ------------------------------------------------------------------------------
def signature_of(cls: str, answer: dict) -> str | None:
    """The failure signature of an outcome (the compiler fuzzer's, run.signature_of,
    over this fuzzer's bad classes); None for the good classes."""
    return _signature_of(cls, answer, BAD)


def outcome_of(answer: dict) -> Outcome:
    cls = answer["cls"]
    return Outcome(cls, answer.get("message", ""), signature_of(cls, answer),
                   float(answer.get("seconds", 0.0)), answer)


# -- campaigns -----------------------------------------------------------------------------
@dataclass
class Finding:
    signature: str
    cls: str
    count: int
    case: Case
    message: str
    detail: dict = field(default_factory=dict)


@dataclass
class SimCampaign:
    seed: int
    cases: int
    jobs: int
    timeout: float
    bases: list
    counts: Counter = field(default_factory=Counter)
    by_operator: dict = field(default_factory=dict)
    by_base: dict = field(default_factory=dict)
    findings: dict = field(default_factory=dict)
    seconds: float = 0.0
    slowest: list = field(default_factory=list)
    restarts: int = 0

    def record(self, case: Case, outcome: Outcome) -> None:
        self.counts[outcome.cls] += 1
        for mutation in case.mutations or ["(none)"]:
            self.by_operator.setdefault(operator_of(mutation), Counter())[outcome.cls] += 1
        self.by_base.setdefault(case.base, Counter())[outcome.cls] += 1
        self.slowest.append((outcome.seconds, case.index, case.base, outcome.cls))
        self.slowest = sorted(self.slowest, reverse=True)[:5]
        if outcome.signature is None:
            return
        found = self.findings.get(outcome.signature)
        detail = {k: outcome.answer[k] for k in ("frames", "stderr", "stderr_text",
                                                  "stdout_text") if outcome.answer.get(k)}
        if found is None:
            self.findings[outcome.signature] = Finding(outcome.signature, outcome.cls, 1,
                                                       case, outcome.message, detail)
            return
        found.count += 1
        if _size(case) < _size(found.case):
            found.case, found.message, found.detail = case, outcome.message, detail


def _size(case: Case) -> int:
    return sum(len(t) for t in case.files.values())


def operator_of(mutation: str) -> str:
    """The operator a mutation description came from."""
    if mutation.startswith("check: "):
        words = mutation[len("check: "):].split()
        return "check file: " + (" ".join(words[:2]) if words[0] in ("reference", "raise")
                                 else words[0])
    if mutation.startswith("manifest: "):
        words = mutation[len("manifest: "):].split()
        key = words[0] if words[0] not in ("parameter", "deleted", "cut", "replaced",
                                           "duplicated", "swapped") else " ".join(words[:1])
        return f"manifest: {key}"
    if mutation.startswith("mlir: "):
        return "compiled MLIR mutant"
    return mutation.split()[0]


def run_sim_campaign(cases: int, seed: int, *, jobs: int = 1, timeout: float = SIM_TIMEOUT,
                     fuzzer: SimFuzzer | None = None,
                     progress: Callable[[int, SimCampaign], None] | None = None
                     ) -> SimCampaign:
    """Cases 0 .. cases-1 of campaign `seed`, run and classified."""
    fuzzer = fuzzer or SimFuzzer()
    campaign = SimCampaign(seed, cases, jobs, timeout, [b.example for b in fuzzer.bases])
    start = time.monotonic()
    made: dict[int, Case] = {}

    def items():
        for index in range(cases):
            case = fuzzer.case(seed, index)
            made[index] = case
            yield index, {"files": case.files, "argv": case.argv}

    with Pool(jobs, timeout, ptxas=False, worker=SIM_WORKER, classify=outcome_of) as pool:
        for n, (index, outcome) in enumerate(pool.run(items()), 1):
            campaign.record(made.pop(index), outcome)
            if progress is not None:
                progress(n, campaign)
        campaign.restarts = pool.restarts
    campaign.seconds = time.monotonic() - start
    return campaign


# -- the report ----------------------------------------------------------------------------
def report_markdown(campaign: SimCampaign, command: str = "", commit: str = "") -> str:
    total = sum(campaign.counts.values()) or 1
    rate = total / campaign.seconds if campaign.seconds else 0.0
    out = ["# Simulator fuzzing report", ""]
    if command:
        out += [f"`{command}`", ""]
    out += [f"{total:,} inputs of tcgen05-sim (mutated check files, manifests, `--set`, "
            f"`--grid` and compiled MLIR mutants of {len(campaign.bases)} shipped examples), "
            f"campaign seed {campaign.seed}, {campaign.jobs} worker(s), time limit "
            f"{campaign.timeout:g} s per input" + (f", simulator at `{commit}`" if commit
                                                    else "") + ".",
            f"Every input passes the tool `{' '.join(RUN_LIMITS)}`: a run the tool does not "
            f"stop itself within the time limit is a hang.",
            f"{campaign.seconds:,.0f} s, {rate:.1f} inputs/s; workers restarted "
            f"{campaign.restarts} times (after a crash, a hang or every 2,000 inputs).", "",
            "## Outcomes", "", "| class | meaning | inputs | share |",
            "| --- | --- | ---: | ---: |"]
    for cls in CLASSES:
        n = campaign.counts.get(cls, 0)
        out.append(f"| {cls} | {CLASS_TITLES[cls]} | {n:,} | {100 * n / total:.1f}% |")
    out += ["", f"Distinct failure signatures: {len(campaign.findings)}.", ""]
    for title, table in (("Mutations", campaign.by_operator), ("Bases", campaign.by_base)):
        out += [f"## {title}", "", ("Outcomes of the inputs each operator took part in (an "
                                    "input has 1 or 2 mutations)." if title == "Mutations"
                                    else "Outcomes per example the inputs start from."), "",
                "| " + ("operator" if title == "Mutations" else "example") + " | "
                + " | ".join(CLASSES) + " |", "| --- |" + " ---: |" * len(CLASSES)]
        for key in sorted(table):
            row = table[key]
            out.append(f"| {key} | " + " | ".join(f"{row.get(c, 0):,}" for c in CLASSES)
                       + " |")
        out.append("")
    out += ["Slowest inputs: " + "; ".join(
        f"#{i} ({name}, {cls}) {s:.2f} s" for s, i, name, cls in campaign.slowest) + ".", ""]
    out += ["## Failure signatures", ""]
    if not campaign.findings:
        out += ["None.", ""]
    order = sorted(campaign.findings.values(),
                   key=lambda f: (CLASSES.index(f.cls), -f.count, f.signature))
    for k, f in enumerate(order, 1):
        out += [f"### {k}. {f.cls}: {f.count:,} input(s)", "", f"Signature: `{f.signature}`",
                "", f"Reproducer: input #{f.case.index} of `{f.case.base}` ("
                + "; ".join(f"`{m}`" for m in f.case.mutations) + "), `tcgen05-sim "
                + " ".join(f.case.argv) + "`", ""]
        for name, text in f.case.files.items():
            if name != "kernel.ptx":
                out += [f"`{name}`:", "", _fence(text[-3000:]), ""]
        out += ["Message:", "", _fence(f.message), ""]
        if f.detail.get("frames"):
            out += ["Traceback, innermost first: " + " <- ".join(
                f"`{Path(path).name}:{func}`" for path, func in reversed(f.detail["frames"])),
                ""]
        if f.detail.get("stderr_text"):
            out += ["stderr (tail):", "", _fence(f.detail["stderr_text"][-1500:]), ""]
    return "\n".join(out).rstrip() + "\n"
