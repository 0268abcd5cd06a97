"""tcgen05-verify-sync for warp roles whose loops have a run-time upper bound: the K-block
loop of a GEMM whose K is a kernel argument (examples/ws_gemm_mxf8_blockscaled.mlir), the
tile and K loops of a persistent CTA-pair GEMM (examples/ws_gemm_bf16_grid_2cta.mlir).

The roles' traces (sync_check/role_trace.py) need every loop's trip count, and the
roles sharing a ring must run the same count. A bound that does not evaluate is bound,
in every role, to one count per run, and the check runs once per count of
``trip_counts``: 1 up to the phase period of the kernel's mbarriers (twice the lcm of
its ring depths, the period after which every stage's parities repeat) plus two. So
every residue of the count modulo the period is run, including the counts below a
ring's depth (stages that get no use) and, for depths of 1 or 2, a count that wraps the
ring twice; a longer count repeats one of those runs phase for phase. A count of zero is
not run: a role whose only loop runs no iteration leaves the others' waits unmatched, and
the kernels say that K must be at least 1. The problems are the union of the runs'
(each reported once); the cost is the period's runs, each linear in the kernel.

The CTA pair model (pairs.py), whose runs cost twice as much, does not run the counts:
it admits a run-time bound only where ``shared_bound`` holds (a kernel argument or a
value defined before the partitions op that bounds loops in several roles, as the ring
protocol of synchronization/rings.py, ``Nest``, plans them from the same value in every
role) and runs such a loop UNKNOWN_TRIPS times (model.py) in each role, the same count
everywhere; a run-time bound one role alone has is refused there (its phases could not
be matched with another role's waits). The two are complementary, not duplicates: the
per-count runs need no sharing (each run binds every bound to its count), the pair
model's single run needs it.
"""

from __future__ import annotations

from math import lcm

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import AllocMbarrierOp
from tcgen05_lower.kernel_ir import defining_op, partition_roles


def trip_counts(kernel) -> list:
    """The run-time trip counts to check (module docstring)."""
    depths = [AllocMbarrierOp(op).stages or 1 for op in d.walk_ops(kernel)
              if AllocMbarrierOp.matches(op)]
    period = 2 * lcm(1, *depths)
    return list(range(1, period + 3))


def bind_runtime_bound(tracer, op, lb: int, step: int) -> bool:
    """Binds the run-time upper bound of the scf.for `op` to the tracer's current count
    (``tracer.runtime_trips``); False when no count is being checked."""
    trips = getattr(tracer, "runtime_trips", None)
    if trips is None:
        return False
    tracer.met_runtime = True
    tracer.eval.bound[op.operands[1]] = lb + trips * step
    return True


def check_each_count(run_once, kernel) -> tuple:
    """Runs `run_once(trips)` -> (tracer, problems, steps, checked) for the first count,
    and for the others when that run met a run-time bound; returns the union of the
    problems (first report of each op and message), the steps and pairs summed, and
    whether a run shortened a loop."""
    problems, steps, checked, truncated = {}, 0, 0, False
    for trips in trip_counts(kernel):
        tracer, found, run_steps, run_checked = run_once(trips)
        for op, message in found:
            problems.setdefault((op, message), (op, message))
        steps, checked = steps + run_steps, checked + run_checked
        truncated = truncated or tracer.truncated
        if not getattr(tracer, "met_runtime", False):
            break
    return list(problems.values()), steps, checked, truncated


def shared_bound(value, partitions) -> bool:
    """Whether the loop bound `value` is a kernel argument or defined in the kernel's
    body before the `partitions` op, and bounds loops in several roles (module
    docstring); False outside partitions."""
    if partitions is None:
        return False
    op = defining_op(value)
    if op is None:
        owner = value.owner.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        if owner is None or owner.name != "func.func":
            return False   # a block argument of a loop or region inside the kernel
    elif op.block != partitions.block:
        return False
    return sum(any(inner.name == "scf.for" and inner.operands[1] == value
                   for inner in d.walk_ops(role)) for role in partition_roles(partitions)) > 1
