"""What tcgen05-sim prints about a run: each output against the reference (``compare``,
a ``Verdict`` with the mask of wrong elements, ``mismatch_summary``), the races, the
problems at exit and the speed of the simulation (``report``).
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.cli.sim_problem import _cluster_ctas, expected_outputs


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
