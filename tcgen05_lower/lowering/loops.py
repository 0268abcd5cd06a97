"""32-bit counters and index arithmetic where the values are small: ``scf.for`` loops
over ``index`` whose bounds are small constants, and the index arithmetic computed from
their counters.

``index`` lowers to i64, so every loop of a kernel counts in 64 bits: ptxas then spends
two instructions on the increment (add with carry), two on the exit test and two on every
comparison of the counter (benchmarks/codegen: the persistent example's MMA K-block
loop). A loop whose constant bounds keep every value of its counter, and the value one
step past the last, below 2^31 counts the same iterations in i32: the rewrite gives it an
i32 counter and casts it back to ``index`` (``arith.index_castui``, a zero extension: the
counter is never negative) for the body.

The body's index arithmetic on such counters (the ring's use count ``base + kb``, its stage
``% stages``, its round ``/ stages``, the first-iteration test ``kb != 0``) would still be
64-bit, and LLVM then widens the counter back to i64 to feed it. ``narrow_index_arith``
computes every ``arith`` op on ``index`` whose operands are narrowed counters, constants or
results so computed, and whose value range (interval arithmetic) stays in [0, 2^31), in
i32 instead; comparisons of such values compare their i32 forms (both orders agree on
[0, 2^31)), index_casts of them to i32 take the i32 form, every other use gets it cast
back to index.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir, scf
from tcgen05_lower.emit import constant, i32
from tcgen05_lower.kernel_ir import constant_int, defining_op, index_range, known_residue

#: Every value an i32 counter of scf.for takes, the one past the last included, is below
#: this (scf.for compares signed).
I32_LIMIT = 1 << 31


#: Index values below this never wrap in the folds of ``fold_ring_arithmetic`` (i64).
NO_WRAP = 1 << 62


def fold_ring_arithmetic(kernel) -> int:
    """Folds ``(x + y) % c`` to ``y`` and ``(x + y) / c`` to ``x / c`` (``t`` when x is
    ``t * c``) for a constant c > 0, where x is a multiple of c (kernel_ir.known_residue)
    and y lies in [0, c) (kernel_ir.index_range), both non-negative and far from
    wrapping: exact identities of integer division. A ring of c stages that a loop of c
    (or a multiple of c) K blocks per tile walks from use ``base + kb``, ``base`` a
    multiple of c, then has its stage ``kb`` and its round the tile's, a loop-invariant:
    the K-block loop computes neither (benchmarks/codegen: the persistent example).
    Returns how many ops it folded; each looks at a bounded expression (linear)."""
    folded = 0
    for op in list(d.walk_ops(kernel)):
        if op.name not in ("arith.remui", "arith.divui") or \
                not isinstance(op.results[0].type, ir.IndexType):
            continue
        divisor = constant_int(op.operands[1])
        if divisor is None or divisor <= 0:
            continue
        parts = _multiple_plus_small(op.operands[0], divisor)
        if parts is None:
            continue
        multiple, small = parts
        if op.name == "arith.remui":
            replacement = small
        else:
            with ir.InsertionPoint(op), op.location:
                replacement = _quotient(multiple, divisor)
        op.results[0].replace_all_uses_with(replacement)
        op.erase()
        folded += 1
    return folded


def _multiple_plus_small(value, divisor: int):
    """(x, y) with `value` = x + y, x a non-negative multiple of `divisor` (None for 0)
    and y in [0, divisor); None when the expression does not show it."""
    whole = index_range(value)
    if whole is not None and 0 <= whole[0] and whole[1] < divisor:
        return None, value
    op = defining_op(value)
    if op is None or op.name != "arith.addi":
        return None
    for x, y in (tuple(op.operands), tuple(op.operands)[::-1]):
        x_range, y_range = index_range(x), index_range(y)
        if x_range is None or y_range is None or x_range[0] < 0 or \
                x_range[1] >= NO_WRAP or y_range[0] < 0 or y_range[1] >= divisor:
            continue
        if known_residue(x, divisor) == 0:
            return x, y
    return None


def _quotient(multiple, divisor: int):
    """``multiple / divisor`` of a multiple of `divisor` (None: 0): ``t`` itself when it
    is ``t * divisor``, else an arith.divui."""
    if multiple is None:
        return constant(0, ir.IndexType.get())
    op = defining_op(multiple)
    if op is not None and op.name == "arith.muli":
        for t, c in (tuple(op.operands), tuple(op.operands)[::-1]):
            if constant_int(c) == divisor:
                return t
    return ir.Operation.create("arith.divui", results=[multiple.type],
                               operands=[multiple, constant(divisor, multiple.type)]
                               ).results[0]


#: The tcgen05 ops whose loops get 32-bit counters (``issuing_loops``).
ISSUING_OPS = frozenset({"mma", "tma_load"})


def issuing_loops(ops) -> set:
    """The ``scf.for`` ops around a tcgen05.mma or a TMA load among `ops` (pre-order, as
    ``dialect.walk_ops`` gives them; looked at before the lowering erases them): the
    loops whose every iteration issues the instructions benchmarks/codegen counts per MMA
    and per TMA load. Other loops keep their index counters: with a 32-bit counter ptxas
    13.0 stopped unrolling examples/ws_gemm_bf16.mlir's epilogue column loop, and its MMA
    loop went from 40 to 108 SASS instructions for 8 MMAs (the first MMA's
    enable-input-d, k != 0, in a vector register, every MMA through ELECT and a vote)."""
    found = set()
    for op in ops:
        if d.op_name(op) not in ISSUING_OPS:
            continue
        parent = op.parent
        while parent is not None:
            parent = parent.operation
            if parent.name in ("func.func", "llvm.func") or parent in found:
                break
            if parent.name == "scf.for":
                found.add(parent)
            parent = parent.parent
    return found


def narrow_index_loops(kernel, issuing: set) -> int:
    """Rewrites every narrowable ``scf.for`` of `kernel` (``narrow_bounds``) among
    `issuing` (``issuing_loops``) to an i32 counter, then the index arithmetic on those
    counters (``narrow_index_arith``); returns how many loops.
    Linear: each op moves once, into the loop that replaces the loop directly around it,
    and each op is looked at once by the arithmetic rewrite."""
    fold_ring_arithmetic(kernel)
    loops = [op for op in d.walk_ops(kernel) if op.name == "scf.for"]
    narrowed = {}
    for loop in loops:
        bounds = narrow_bounds(loop) if loop in issuing else None
        if bounds is not None:
            counter, i32_counter = narrow_loop(loop, bounds)
            lower, upper, step = bounds
            narrowed[counter] = (i32_counter, (lower, lower + (upper - 1 - lower) // step * step))
    count = len(narrowed)
    if narrowed:
        narrow_index_arith(kernel, narrowed)
    return count


#: arith ops on index the rewrite computes in i32, with their interval arithmetic on
#: non-negative operand ranges (None: not when the divisor's range holds 0).
def _interval(name, a, b):
    if name == "arith.addi":
        return a[0] + b[0], a[1] + b[1]
    if name == "arith.muli":
        return a[0] * b[0], a[1] * b[1]
    if name == "arith.remui":
        return None if b[0] == 0 else (0, min(a[1], b[1] - 1))
    if name == "arith.divui":
        return None if b[0] == 0 else (a[0] // b[1], a[1] // b[0])
    if name == "arith.andi":
        return 0, min(a[1], b[1])
    if name == "arith.shrui":
        return None if b[1] > 31 else (a[0] >> b[1], a[1] >> b[0])
    return None


INTERVAL_OPS = frozenset({"arith.addi", "arith.muli", "arith.remui", "arith.divui",
                          "arith.andi", "arith.shrui"})


def narrow_index_arith(kernel, narrowed: dict) -> None:
    """See the module docstring. `narrowed`: index value -> (its i32 form, (least,
    greatest)), the narrowed counters to start from; grows with every narrowed result."""
    def known(value):
        found = narrowed.get(value)
        if found is not None:
            return found
        constant_value = constant_int(value) if isinstance(value.type, ir.IndexType) else None
        if constant_value is None or not 0 <= constant_value < I32_LIMIT:
            return None
        defining = value.owner   # an arith.constant: its twin goes where it is
        defining = defining.operation if hasattr(defining, "operation") else defining
        with ir.InsertionPoint(defining), defining.location:
            found = narrowed[value] = (constant(constant_value, i32()),
                                       (constant_value, constant_value))
        return found

    dead = []
    for op in list(d.walk_ops(kernel)):
        if op.name in INTERVAL_OPS and isinstance(op.results[0].type, ir.IndexType):
            operands = [known(x) for x in op.operands]
            if None in operands:
                continue
            interval = _interval(op.name, operands[0][1], operands[1][1])
            if interval is None or not 0 <= interval[0] <= interval[1] < I32_LIMIT:
                continue
            with ir.InsertionPoint(op), op.location:
                narrow = ir.Operation.create(op.name, results=[i32()],
                                             operands=[x[0] for x in operands]).results[0]
                wide = ir.Operation.create("arith.index_castui", results=[ir.IndexType.get()],
                                           operands=[narrow]).results[0]
            op.results[0].replace_all_uses_with(wide)
            narrowed[wide] = (narrow, interval)
            dead.append(op)
        elif op.name == "arith.cmpi" and isinstance(op.operands[0].type, ir.IndexType):
            operands = [known(x) for x in op.operands]
            if None in operands:
                continue
            with ir.InsertionPoint(op), op.location:
                narrow = ir.Operation.create(
                    "arith.cmpi", results=[op.results[0].type],
                    operands=[x[0] for x in operands],
                    attributes={"predicate": op.attributes["predicate"]}).results[0]
            op.results[0].replace_all_uses_with(narrow)
            dead.append(op)
        elif op.name in ("arith.index_cast", "arith.index_castui") and \
                op.results[0].type == i32():
            found = narrowed.get(op.operands[0])
            if found is not None:
                op.results[0].replace_all_uses_with(found[0])
                dead.append(op)
    for op in dead:
        op.erase()


def narrow_bounds(loop) -> tuple[int, int, int] | None:
    """(lower, upper, step) of an ``scf.for`` over ``index`` whose bounds are constants
    with 0 <= lower < upper and upper + step < 2^31 and a positive step; None for any
    other loop (run-time bounds, a negative start, a counter that would pass 2^31, no trip)."""
    induction = loop.regions[0].blocks[0].arguments[0]
    if not isinstance(induction.type, ir.IndexType):
        return None     # already an integer counter
    bounds = [constant_int(loop.operands[i]) for i in range(3)]
    if any(b is None for b in bounds):
        return None     # run-time bounds: their range is unknown here
    lower, upper, step = bounds
    if lower < 0 or step <= 0 or upper + step >= I32_LIMIT:
        return None
    if lower >= upper:
        return None     # no trip (its start may not fit 32 bits): nothing to gain
    return lower, upper, step


def narrow_loop(loop, bounds: tuple[int, int, int]):
    """Replaces `loop` by the same loop over an i32 counter (``narrow_index_loops``);
    returns (the counter as index, as i32) in the new loop."""
    old_body = loop.regions[0].blocks[0]
    carried = list(loop.operands[3:])
    with ir.InsertionPoint(loop), loop.location:
        lower, upper, step = (constant(b, i32()) for b in bounds)
        new = scf.ForOp(lower, upper, step, carried)
    body = new.regions[0].blocks[0]
    with ir.InsertionPoint(body), loop.location:
        counter = ir.Operation.create("arith.index_castui", results=[ir.IndexType.get()],
                                      operands=[body.arguments[0]]).results[0]
    old_body.arguments[0].replace_all_uses_with(counter)
    for old, fresh in zip(list(old_body.arguments)[1:], list(body.arguments)[1:]):
        old.replace_all_uses_with(fresh)
    last = counter.owner
    last = last.operation if hasattr(last, "operation") else last
    for op in list(old_body.operations):    # the yield included
        op = op.operation
        op.move_after(last)
        last = op
    for old, fresh in zip(loop.results, new.results):
        old.replace_all_uses_with(fresh)
    loop.erase()
    return counter, body.arguments[0]
