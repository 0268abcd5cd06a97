"""What the simulator tests share: compiling a kernel under select-layouts options,
running it on a check file's inputs, and checking the run against the reference."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

from tcgen05_lower.cli.sim_check_file import file_problem
from tcgen05_lower.cli.sim_problem import make_inputs, output_names
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.ordering import OrderingModel

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


# -- the text of the small hand-written kernels these tests compile -------------------------
def kernel_head(name: str, pointers, *constants: str) -> str:
    """The first lines of a one-CTA, 128-thread sm_100a kernel `name` taking the global
    pointers `pointers` (names): its signature and the constants %c0, %c32, %c64
    (index), `constants` (lines of its own), %false and %true."""
    args = ", ".join(f"%{p}: !llvm.ptr<1>" for p in pointers)
    return "\n".join([
        f"func.func @{name}({args})",
        '    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, '
        'cta_group = 1 : i64}} {',
        "  %c0 = arith.constant 0 : index", "  %c32 = arith.constant 32 : index",
        "  %c64 = arith.constant 64 : index", *constants,
        "  %false = arith.constant false", "  %true = arith.constant true"])


def smem_fill(pointer: str, buffer: str, buffer_type: str) -> str:
    """The line filling the shared-memory `buffer` from the row-major (K-major) global
    array `pointer` of 64-element rows."""
    return (f'  "tcgen05.smem_fill"(%{pointer}, %{buffer}, %c0) {{src_layout = "mn_k", '
            f'src_ld = 64 : i64}} : (!llvm.ptr<1>, {buffer_type}, index) -> ()')


def mma_chain(d, a, b, a_type, b_type, kind, k_step, d_type) -> str:
    """The MMAs of D = A B^T over K = 64 in steps of `k_step`, the first overwriting D."""
    lines = []
    for i, k in enumerate(range(0, 64, k_step)):
        acc = "%false" if i == 0 else "%true"
        lines.append(f'  "tcgen05.mma"({d}, {a}, {b}, {acc}) {{kind = "{kind}", '
                     f'k_offset = {k} : i64}} : ({d_type}, {a_type}, {b_type}, i1) -> ()')
    return "\n".join(lines)


#: (text, name, select) -> compile result, once per session: a kernel is often run under
#: the late and the eager schedule (two tests of one compile). Read it, do not change it.
_COMPILES: dict = {}


def compile_with(text: str, name: str, select: str):
    """`text` through the default pipeline, tcgen05-select-layouts given `select` (and
    the pass options the example `name` needs, conftest.EXAMPLE_PASS_OPTIONS); compiled
    once per session (a failure is not kept: it raises each time)."""
    from conftest import example_pipeline

    key = (text, name, select)
    if key not in _COMPILES:
        pipeline = example_pipeline(name, DEFAULT_PIPELINE.replace(
            "tcgen05-select-layouts", f"tcgen05-select-layouts{{{select}}}"))
        _COMPILES[key] = compile_source(text, f"{name}.mlir", pipeline=pipeline)
    return _COMPILES[key]


def run(text: str, name: str, check: Path, select: str, schedule: str = "late"):
    """(compile result, check problem, the inputs as given, simulation) of `text` on the
    inputs of `check` (seed 0)."""
    result = compile_with(text, name, select)
    problem = file_problem(str(check), result.manifest)
    inputs = make_inputs(problem, result.manifest, output_names(problem, result.manifest, 0), 0)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    sim = simulate(result.ptx, result.manifest, inputs, schedule=schedule)
    return result, problem, originals, sim


_EXAMPLE_RUNS: dict = {}


def run_example(name: str, select: str, schedule: str = "late"):
    """`run` of examples/NAME.mlir with examples/NAME.check.py, once per test session."""
    key = (name, select, schedule)
    if key not in _EXAMPLE_RUNS:
        _EXAMPLE_RUNS[key] = run((EXAMPLES / f"{name}.mlir").read_text(), name,
                                 EXAMPLES / f"{name}.check.py", select, schedule)
    return _EXAMPLE_RUNS[key]


def assert_matches(problem, inputs, sim) -> None:
    """The run `sim` is race-free, leaves nothing behind at exit, and every output is
    within the check file's tolerance of its NumPy reference."""
    assert not sim.races, sim.races
    assert not sim.problems, sim.problems  # TMEM leak, ops never waited for
    for output, want in problem.reference(inputs).items():
        ok, max_abs, max_rel, bound = problem.tolerance(output, sim.outputs[output], want,
                                                        inputs)
        assert ok, f"{output}: max abs error {max_abs}, max rel error {max_rel} ({bound})"


class FirstRaceOrdering(OrderingModel):
    """The simulator's ordering model, stopping the run at the first race it reports (the
    Race raised, a SimError): a deletion test's verdict needs one race, and the rest of
    the run could only add races or turn it into an error, a verdict all the same. Its
    races are the model's own; a run without one is the model's run to the end."""

    def _race(self, *args, **kwargs):
        before = len(self.races)
        super()._race(*args, **kwargs)
        if len(self.races) > before:
            raise self.races[-1]


def judge(result, check: Path, schedule: str = "late", ptx: str | None = None,
          seed: int | None = None, first_race: bool = False) -> str | None:
    """Why the simulator rejects the compiled `result` (its PTX, or `ptx` instead) on the
    inputs of `check` (seed 0) under `schedule` (with `seed` for "random"): an error
    (deadlock, over-arrival, ...), a race, a problem at exit or a wrong output; None when
    it runs clean and matches the check's NumPy reference within its tolerance.
    `first_race`: the run stops at its first race (FirstRaceOrdering; for a test that
    needs only whether a mutant is rejected: an error after a race is then the race)."""
    from tcgen05_lower.sim.ordering_records import Race
    from tcgen05_lower.sim.state import SimError

    problem = file_problem(str(check), result.manifest)
    inputs = make_inputs(problem, result.manifest,
                         output_names(problem, result.manifest, 0), 0)
    originals = {k: (v.copy() if isinstance(v, np.ndarray) else v) for k, v in inputs.items()}
    try:
        sim = simulate(ptx or result.ptx, result.manifest, inputs, schedule=schedule,
                       seed=seed, ordering_factory=FirstRaceOrdering if first_race else None)
    except SimError as error:
        if first_race and isinstance(error, Race):
            return f"race: {error}"
        return f"error: {error.message.splitlines()[0]}"
    if sim.races:
        return f"race: {sim.races[0]}"
    if sim.problems:
        return f"at exit: {sim.problems[0]}"
    for name, want in problem.reference(originals).items():
        ok, *_ = problem.tolerance(name, sim.outputs[name], want, originals)
        if not ok:
            return f"wrong {name}"
    return None


#: The synchronization ops a hand-synchronized kernel writes (one per line of its source).
SYNC_OP = re.compile(r'"tcgen05\.(mbarrier_wait|mbarrier_arrive|mbarrier_expect_tx|commit|fence|'
                     r'fence_proxy_async|wait|barrier)"')


def sync_lines(text: str) -> list[int]:
    """The (0-based) lines of `text` that hold a synchronization op."""
    return [i for i, line in enumerate(text.splitlines()) if SYNC_OP.search(line)]
