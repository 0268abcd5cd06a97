"""tcgen05-verify-sync for warp roles whose loops have a run-time upper bound: the K-block
loop of a GEMM whose K is a kernel argument (examples/ws_gemm_mxf8_blockscaled.mlir), the
tile and K loops of a persistent CTA-pair GEMM (examples/ws_gemm_bf16_grid_2cta.mlir), the
KV loops to n and n - 1 of the attention example.

The roles' traces (sync_check/role_trace.py) need every loop's trip count, and the
roles sharing a ring must run the counts the kernel's values give them. The check runs
once per count of ``trip_counts``: 1 up to the phase period of the kernel's mbarriers
(twice the lcm of its ring depths, the period after which every stage's parities repeat)
plus two. So every residue of the count modulo the period is run, including the counts
below a ring's depth (stages that get no use) and, for depths of 1 or 2, a count that
wraps the ring twice; a longer count repeats one of those runs phase for phase.

What a run binds is the run-time values a bound is computed from (``runtime_roots``: the
kernel arguments and other values defined once, outside every loop, that do not
evaluate), never the bound itself: the first loop met whose bound does not evaluate gets
the run's count, by the smallest values of its roots that give it that count
(``solve_roots``), and every other bound is evaluated from the same values, whichever
role or loop is traced first. A loop to n - 1 then runs one trip fewer than a loop to n
in every run (binding each bound to the count ran both the same count: a false deadlock
when the n - 1 loop came first, lit_tests/tcgen05-verify-sync/runtime-bounds.mlir). A
count that no values of the roots give (a bound min(n, 4) and a count of 5) is not a run
of the kernel and is skipped (``NoSuchCount``); a kernel none of whose counts is possible
is refused. A count of zero is not asked for: a role whose only loop runs no iteration
leaves the others' waits unmatched, and the kernels say that K must be at least 1 (a loop
to n - 1 runs none when its roots give the loop to n one trip, as the kernel does). A
bound computed from a value that changes from one iteration to the next (a loop's
iter_arg, a value defined in a loop) has no run-wide root: that bound alone is bound to
the count, as before. The problems are the union of the runs' (each reported once); the
cost is the period's runs, each linear in the kernel (a solve evaluates the bound's
expression some 64 times per root).

The CTA pair model (pairs.py), whose runs cost twice as much, does not run the counts:
it admits a run-time bound only where ``shared_bound`` holds (a kernel argument or a
value defined before the partitions op that bounds loops in several roles, as the ring
protocol of synchronization/rings.py, ``Nest``, plans them from the same value in every
role) and runs such a loop UNKNOWN_TRIPS times (model.py) in each role, through the same
roots (two shared bounds n and n - 1 run 3 and 2 trips); a run-time bound one role alone
has is refused there (its phases could not be matched with another role's waits). The
two are complementary, not duplicates: the per-count runs need no sharing, the pair
model's single run needs it.
"""

from __future__ import annotations

from math import lcm

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import AllocMbarrierOp
from tcgen05_lower.kernel_ir import defining_op, partition_roles
from tcgen05_lower.sync_check.model import UNKNOWN_TRIPS, Evaluator, Unsupported


def trip_counts(kernel) -> list:
    """The run-time trip counts to check (module docstring)."""
    depths = [AllocMbarrierOp(op).stages or 1 for op in d.walk_ops(kernel)
              if AllocMbarrierOp.matches(op)]
    period = 2 * lcm(1, *depths)
    return list(range(1, period + 3))


class NoSuchCount(Exception):
    """No values of a run-time bound's roots give its loop the run's count (the run is
    not one of the kernel's)."""

    def __init__(self, op):
        super().__init__()
        self.op = op


#: The ops the verifier's Evaluator (model.py) computes from their operands.
COMPUTED = frozenset(Evaluator.BINARY) | frozenset(Evaluator.UNARY) | \
    {"arith.cmpi", "arith.select"}

#: The ops whose body runs more than once: a value defined in one is not run-wide.
LOOPS = ("scf.for", "scf.while", "scf.parallel")

#: The largest value a root is given (a 32-bit kernel argument's largest).
LARGEST = 2 ** 31 - 1


def bind_runtime_bound(tracer, op) -> bool:
    """Binds the roots of the run-time upper bound of the scf.for `op` (module
    docstring) for the tracer's current count (``tracer.runtime_trips``) or, in the pair
    model, UNKNOWN_TRIPS for a ``shared_bound``; False when neither applies. Raises
    NoSuchCount when no roots give the count."""
    trips = getattr(tracer, "runtime_trips", None)
    if trips is None:
        if not shared_bound(op.operands[1], getattr(tracer, "partitions", None)):
            return False
        bind_roots(tracer.eval, op, UNKNOWN_TRIPS)   # else as cta_control_flow binds it
        return True
    tracer.met_runtime = True
    if bind_roots(tracer.eval, op, trips):
        return True
    roots = runtime_roots(op.operands[1], tracer.eval)
    if roots:   # run-wide values that cannot give this count
        raise NoSuchCount(op)
    # no run-wide roots: the bound alone (module docstring)
    lb, step = tracer.eval.value(op.operands[0]) or 0, tracer.eval.value(op.operands[2]) or 1
    tracer.eval.bound[op.operands[1]] = lb + trips * step
    return True


def bind_roots(evaluator, op, trips: int) -> bool:
    """Binds the run-wide roots of `op`'s upper bound to the smallest values that give
    the loop `trips` trips; False (nothing bound) when it has none or none do."""
    roots = runtime_roots(op.operands[1], evaluator)
    values = solve_roots(evaluator, op, roots, trips) if roots else None
    if values is None:
        return False
    evaluator.bound.update(values)
    return True


def runtime_roots(value, evaluator) -> list | None:
    """The values `value` is computed from (through the ops the Evaluator computes) that
    are neither constants nor bound now, in the order of their first use; None when one
    of them is not run-wide (``run_wide``). Linear in the expression."""
    roots, seen, stack = [], set(), [value]
    while stack:
        v = stack.pop()
        if v in seen or v in evaluator.bound:
            continue
        seen.add(v)
        op = defining_op(v)
        if op is not None and op.name == "arith.constant":
            continue
        if op is not None and op.name in COMPUTED:
            stack.extend(reversed(list(op.operands)))
            continue
        if not run_wide(v, op):
            return None
        roots.append(v)
    return roots


def run_wide(value, op) -> bool:
    """Whether `value` has one value in a run of the kernel: an argument of the kernel,
    or a result of an op without regions outside every loop."""
    if op is None:
        owner = value.owner.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        return owner is not None and owner.name == "func.func"
    if len(op.regions):
        return False   # an scf.if's or a loop's result: what the way that ran yields
    parent = op.parent
    while parent is not None and parent.name != "func.func":
        if parent.name in LOOPS:
            return False
        parent = parent.parent
    return True


def solve_roots(evaluator, op, roots: list, trips: int) -> dict | None:
    """Values of `roots` that give the loop `op` exactly `trips` trips: one root free,
    the smallest value that does (``smallest_value``), the others at 0, else at 1; the
    first root free first. None when none do."""
    for free in roots:
        for fixed in (0, 1):
            values = {root: fixed for root in roots}

            def count(v, values=values, free=free):
                values[free] = v
                return loop_trips(evaluator, op, values)

            found = smallest_value(count, trips)
            if found is not None:
                values[free] = found
                return values
    return None


def loop_trips(evaluator, op, values: dict):
    """The trip count of the scf.for `op` with `values` bound; None when its bounds do
    not evaluate then (a division by zero, a negative step)."""
    evaluator.bound.update(values)
    try:
        lb, ub, step = (evaluator.value(op.operands[i]) for i in range(3))
    finally:
        for root in values:
            evaluator.bound.pop(root, None)
    if lb is None or ub is None or step is None or step <= 0:
        return None
    return max(0, -(-(ub - lb) // step))


def smallest_value(count, trips: int):
    """The smallest v in 0 .. LARGEST with count(v) == trips, for a count that does not
    decrease as v grows (bounds such as n, n - 1, ceildiv(n, 64), min(n, 4)): doubling
    until it reaches `trips`, then halving the interval; None when no v gives exactly
    `trips` (the count jumps over it or never reaches it)."""
    def reaches(v):
        got = count(v)
        return got is not None and got >= trips

    low, high = -1, 0   # count(low) < trips (low = -1: none tried), high the probe
    while not reaches(high):
        if high >= LARGEST:
            return None
        low, high = high, min(LARGEST, 2 * high + 1)
    while high - low > 1:
        middle = (low + high) // 2
        if reaches(middle):
            high = middle
        else:
            low = middle
    return high if count(high) == trips else None


def check_each_count(run_once, kernel) -> tuple:
    """Runs `run_once(trips)` -> (tracer, problems, steps, checked) for the first count,
    and for the others when that run met a run-time bound; returns the union of the
    problems (first report of each op and message), the steps and pairs summed, and
    whether a run shortened a loop. A count no values give is skipped (NoSuchCount);
    Unsupported when no count is possible."""
    problems, steps, checked, truncated, impossible, ran = {}, 0, 0, False, None, False
    for trips in trip_counts(kernel):
        try:
            tracer, found, run_steps, run_checked = run_once(trips)
        except NoSuchCount as no_count:
            impossible = impossible or no_count.op
            continue
        ran = True
        for op, message in found:
            problems.setdefault((op, message), (op, message))
        steps, checked = steps + run_steps, checked + run_checked
        truncated = truncated or tracer.truncated
        if not getattr(tracer, "met_runtime", False):
            break
    if not ran:
        raise Unsupported(impossible, "tcgen05-verify-sync found no values of the run-time "
                                      "values this loop's upper bound is computed from that "
                                      f"give it a trip count from 1 to "
                                      f"{trip_counts(kernel)[-1]}")
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
