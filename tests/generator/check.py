"""Runs a generated kernel through every check (issue 33): it must compile with the default
pipeline (tcgen05_lower.driver.compile_source), pass ptxas for its target, simulate with
no race, no problem at exit and no simulator error under both completion policies of
tcgen05_lower/sim (``late`` and ``eager``), and match the NumPy reference of
``kernelgen.reference`` in every element. A failure is shrunk (``shrink``) to the
smallest spec that still fails the same way.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from . import kernelgen as kg

#: Failures a known open bug explains: (stage, text in the message, spec predicate,
#: the bug). A failure listed here is reported as known (xfail), any other is a finding.
#: An entry masks every failure it matches: remove it once its fix is in (then
#: ``run.py --retry-known``). (Issue 33 item 1, a frag_map result stored with run-time
#: dims, the campaign's first entry, is fixed; so is campaign 39's wait::st after an
#: edge-tile fill, tests/generator/findings/.)
KNOWN: list = []


@dataclass
class Outcome:
    """What happened to one spec: stage is "ok", or where it failed ("compile",
    "ptxas", "sim-late", "sim-eager", "race-late", ..., "wrong-late", ...)."""
    spec: kg.Spec
    stage: str
    message: str = ""
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return self.stage == "ok"

    @property
    def signature(self) -> str:
        """The stage without the schedule, and the message without numbers."""
        import re
        head = self.stage.split("-")[0]
        return head + ": " + re.sub(r"\d+", "N", self.message.splitlines()[0] if self.message
                                    else "")[:160]

    def known(self) -> str | None:
        """The known bug that explains this failure, if one does."""
        for stage, text, predicate, bug in KNOWN:
            if self.stage.startswith(stage) and text in self.message and predicate(self.spec):
                return bug
        return None


def pipeline(spec: kg.Spec) -> str:
    """The default pipeline, with tcgen05-insert-sync{strategy=handoffs} for a spec whose
    sync is "handoffs"."""
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options
    if spec.sync != "handoffs":
        return DEFAULT_PIPELINE
    return override_options(DEFAULT_PIPELINE, ["tcgen05-insert-sync{strategy=handoffs}"])


def run_spec(spec: kg.Spec, *, ptxas: bool = True, schedules=("late", "eager")) -> Outcome:
    """Compiles, assembles and simulates `spec`; the first check that fails is the
    outcome."""
    from tcgen05_lower.driver import CompileFailed, compile_source
    from tcgen05_lower.sim.api import simulate
    from tcgen05_lower.sim.state import SimError

    start = time.perf_counter()

    def done(stage, message=""):
        return Outcome(spec, stage, message, time.perf_counter() - start)

    problems = kg.problems(spec)
    if problems:
        return done("invalid", "; ".join(problems))
    text = kg.render(spec)
    try:
        result = compile_source(text, "gen_kernel.mlir", pipeline=pipeline(spec))
    except CompileFailed as error:
        return done("compile", str(error))
    except Exception as error:  # noqa: BLE001 - any escape is a compiler bug to report
        return done("compile", f"exception {type(error).__name__}: {error}")
    if ptxas:
        from tcgen05_lower.backend import run_ptxas
        assembled = run_ptxas(result.ptx, arch=result.target or "sm_100a")
        if not assembled.ok:
            return done("ptxas", assembled.stderr.strip()[:2000])
    args = kg.make_inputs(spec)
    for schedule in schedules:
        run_args = {k: (v.copy() if isinstance(v, np.ndarray) else v)
                    for k, v in kg.kernel_args(args).items()}
        try:
            sim = simulate(result.ptx, result.manifest, run_args, schedule=schedule)
        except SimError as error:
            return done(f"sim-{schedule}", error.message)
        except Exception as error:  # noqa: BLE001
            return done(f"sim-{schedule}", f"exception {type(error).__name__}: {error}")
        if sim.races:
            return done(f"race-{schedule}", str(sim.races[0]))
        if sim.problems:
            return done(f"exit-{schedule}", sim.problems[0])
        wrong = kg.compare(spec, args, sim.outputs["C"])
        if wrong:
            return done(f"wrong-{schedule}", wrong)
    return done("ok")


def shrink(outcome: Outcome, *, budget: int = 40, **run) -> Outcome:
    """The smallest spec found that fails at the same stage (schedule aside), by moving
    one feature at a time to its base value or halving a size while it still fails;
    at most `budget` runs."""
    best, runs = outcome, 0
    head = outcome.stage.split("-")[0]
    improved = True
    while improved and runs < budget:
        improved = False
        for cand in kg.shrink_candidates(best.spec):
            runs += 1
            trial = run_spec(cand, **run)
            if trial.stage.split("-")[0] == head:
                best, improved = trial, True
                break
            if runs >= budget:
                break
    return best
