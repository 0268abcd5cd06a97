"""The loops around a ring's uses, as the ring protocol counts them (rings.py): ``Nest``,
a block's scf.for nest with its trip counts and the linear iteration counter of its uses
(constant or run-time trip counts); ``Affine``, index values as affine forms of induction
variables; ``prove_stage``, the proof that a kernel's stage index is the use counter mod
the ring's stages; and the small block walks the planner shares.
"""

from __future__ import annotations

from tcgen05_lower.bindings import ir
from tcgen05_lower.kernel_ir import defining_op
from tcgen05_lower.synchronization.common import SyncError, constant_value
from tcgen05_lower.synchronization.phases import _op

#: Value ops the stage proof reads through (the index's own type changes).
CASTS = ("arith.index_cast", "arith.index_castui")


class Nest:
    """The scf.for loops around a block inside its role (outermost first);
    ``weights[l]`` is the product of the trip counts of the loops inside loop l, so that
    the block's linear iteration counter is ``sum weights[l] * i_l``. A loop's bounds
    are constants, or values defined outside the nest's loops (kernel arguments, values
    computed before the loops): then its trip count is known at run time only
    (``dynamic``; ``trips[l]``, ``weights`` and ``uses`` are None where they depend on
    it) and the counter is computed from the bound values."""

    def __init__(self, block, role_op, what: str):
        loops = []
        owner = block.owner
        owner = owner.operation if hasattr(owner, "operation") else owner
        while owner != role_op:
            if owner.name != "scf.for":
                raise SyncError(owner, f"tcgen05-insert-sync: this {owner.name} holds "
                                       f"{what} inside its role; the ring protocol follows "
                                       f"ops in scf.for loops only")
            loops.append(owner)
            owner = owner.block.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
        self.loops = loops[::-1]
        self.bounds = []
        self.values = []
        for loop in self.loops:
            bounds = tuple(constant_value(loop.operands[i]) for i in range(3))
            if bounds[2] is not None and bounds[2] <= 0:
                raise SyncError(loop, f"tcgen05-insert-sync: the loop around {what} has "
                                      f"the step {bounds[2]}; the ring protocol counts "
                                      f"the uses of a stage of loops of positive step")
            for i, bound in enumerate(bounds):
                if bound is None:
                    self.check_outside(loop, loop.operands[i], what)
            self.bounds.append(bounds)
            self.values.append(tuple(loop.operands[i] for i in range(3)))
        self.trips = [None if None in b else max(0, -(-(b[1] - b[0]) // b[2]))
                      for b in self.bounds]
        self.dynamic = None in self.trips
        self.weights = []
        for level in range(len(self.loops)):
            weight = 1
            for trips in self.trips[level + 1:]:
                weight = None if weight is None or trips is None else weight * trips
            self.weights.append(weight)
        self.uses = 1
        for trips in self.trips:
            self.uses = None if self.uses is None or trips is None else self.uses * trips

    @property
    def provable(self) -> bool:
        """Whether the kernel's stage indices can be proven (``prove_stage``) although a
        trip count is known at run time only: every weight is a constant (the run-time
        loop is the outermost one, or every loop inside it has a constant count) and
        every lower bound and step is a constant, so a use's counter is an affine form
        of the induction variables with constant coefficients."""
        return all(w is not None for w in self.weights) and \
            all(lb is not None and step is not None for lb, _, step in self.bounds)

    def check_outside(self, loop, value, what: str) -> None:
        """A run-time bound must be defined outside the nest's loops: the counter and
        the producer tail after the loops compute the trip counts from it."""
        inside = defining_op(value)
        block = inside.block if inside is not None else value.owner
        while block is not None:
            parent = block.owner
            parent = parent.operation if hasattr(parent, "operation") else parent
            if parent is None or parent.name == "func.func":
                return
            if any(parent == loop_op for loop_op in self.loops) or parent == loop:
                raise SyncError(loop, f"tcgen05-insert-sync: a bound of the loop around "
                                      f"{what} is computed inside the loops around it; "
                                      f"the ring protocol counts uses from bounds "
                                      f"defined before the loops (constants, kernel "
                                      f"arguments or values computed before them)")
            block = parent.block

    def describe(self) -> str:
        def show(b):
            return "?" if b is None else str(b)
        return "[" + ", ".join(f"{show(lb)} to {show(ub)} step {show(step)}"
                               for lb, ub, step in self.bounds) + "]" \
            if self.loops else "[no loop]"

    def same_structure(self, other: "Nest") -> bool:
        """The same trip counts: equal constants, or the same bound values."""
        if len(self.loops) != len(other.loops):
            return False
        for mine, theirs, my_values, their_values in zip(self.bounds, other.bounds,
                                                          self.values, other.values):
            for a, b, va, vb in zip(mine, theirs, my_values, their_values):
                if a is None or b is None:
                    if not (a is None and b is None and va == vb):
                        return False   # a run-time bound only matches itself
                elif a != b:
                    return False
        return True

    def trip_value(self, level: int, constant):
        """The trip count of loop `level` as an index value at the insertion point:
        ceil((max(ub, lb) - lb) / step)."""
        if self.trips[level] is not None:
            return constant(self.trips[level])
        index = ir.IndexType.get()
        lb, ub, step = self.values[level]
        top = _op("arith.maxsi", [ub, lb], index)
        span = _op("arith.subi", [top, lb], index)
        return _op("arith.ceildivsi", [span, step], index)

    def uses_value(self, constant):
        """The nest's number of uses (the product of its trip counts) as an index
        value at the insertion point."""
        index = ir.IndexType.get()
        total = None
        for level in range(len(self.loops)):
            trips = self.trip_value(level, constant)
            total = trips if total is None else _op("arith.muli", [total, trips], index)
        return total if total is not None else constant(1)

    def counter(self, constant):
        """The linear iteration counter (index) at the current insertion point;
        `constant(n)` gives an index constant."""
        if self.dynamic and not self.provable:
            return self.dynamic_counter(constant)
        index = ir.IndexType.get()
        total = None
        for loop, (lb, _, step), trips, weight in zip(self.loops, self.bounds, self.trips,
                                                      self.weights):
            if trips is not None and trips <= 1:
                continue   # (a run-time count, None, may be more than one)
            i = loop.regions[0].blocks[0].arguments[0]
            if lb:
                i = _op("arith.subi", [i, constant(lb)], index)
            if step != 1:
                i = _op("arith.divui", [i, constant(step)], index)
            if weight != 1:
                i = _op("arith.muli", [i, constant(weight)], index)
            total = i if total is None else _op("arith.addi", [total, i], index)
        return total if total is not None else constant(0)

    def dynamic_counter(self, constant):
        """``counter`` of a nest with run-time trip counts: the weights are products of
        trip counts computed from the bound values at the insertion point."""
        index = ir.IndexType.get()
        total = None
        for level, (loop, (lb, _, step), trips) in enumerate(zip(self.loops, self.bounds,
                                                                 self.trips)):
            if trips is not None and trips <= 1:
                continue
            lb_value, _, step_value = self.values[level]
            i = loop.regions[0].blocks[0].arguments[0]
            if lb != 0:
                i = _op("arith.subi", [i, constant(lb) if lb is not None else lb_value],
                        index)
            if step != 1:
                i = _op("arith.divui", [i, constant(step) if step is not None
                                        else step_value], index)
            weight = None
            for inner in range(level + 1, len(self.loops)):
                if self.trips[inner] == 1:
                    continue
                trips_value = self.trip_value(inner, constant)
                weight = trips_value if weight is None else \
                    _op("arith.muli", [weight, trips_value], index)
            if weight is not None:
                i = _op("arith.muli", [i, weight], index)
            total = i if total is None else _op("arith.addi", [total, i], index)
        return total if total is not None else constant(0)


class Affine:
    """Index values as affine forms of loop induction variables: ({iv: coefficient},
    constant), or None when a value is not one (memoized: one visit per value)."""

    def __init__(self):
        self.memo: dict = {}

    def form(self, value):
        if value in self.memo:
            return self.memo[value]
        self.memo[value] = None   # (no cycles in SSA; guards a malformed input)
        result = self._form(value)
        self.memo[value] = result
        return result

    def _form(self, value):
        op = defining_op(value)
        if op is None:
            block = value.owner
            parent = block.owner
            parent = parent.operation if hasattr(parent, "operation") else parent
            if parent is not None and parent.name == "scf.for" and value.arg_number == 0:
                return ({value: 1}, 0)
            return None
        constant = constant_value(value)
        if constant is not None:
            return ({}, constant)
        if op.name in CASTS:
            return self.form(op.operands[0])
        if op.name in ("arith.addi", "arith.subi"):
            left, right = self.form(op.operands[0]), self.form(op.operands[1])
            if left is None or right is None:
                return None
            sign = 1 if op.name == "arith.addi" else -1
            terms = dict(left[0])
            for iv, c in right[0].items():
                terms[iv] = terms.get(iv, 0) + sign * c
            return ({iv: c for iv, c in terms.items() if c}, left[1] + sign * right[1])
        if op.name == "arith.muli":
            left, right = self.form(op.operands[0]), self.form(op.operands[1])
            if left is None or right is None:
                return None
            if left[0] and right[0]:
                return None
            scale, other = (right[1], left) if not right[0] else (left[1], right)
            return ({iv: c * scale for iv, c in other[0].items() if c * scale},
                    other[1] * scale)
        return None


def prove_stage(affine: Affine, index_value, stages: int, nest: Nest, user_op,
                what: str) -> None:
    """Proves that `index_value` equals (the nest's counter) mod `stages` at every
    iteration of `nest` (module docstring), else raises SyncError at `user_op`.

    With ``it = sum a_l i_l`` and ``iv_l = lb_l + step_l i_l``: an index
    ``remui(X, S)``, X affine ``sum k_l iv_l + k_0 = sum c_l i_l + c`` with
    ``c_l = k_l step_l``, is it mod S at every iteration iff every loop of more than one
    trip has ``c_l - a_l = 0 (mod S)``, every other induction variable of more than one
    trip has a zero coefficient, ``c = 0 (mod S)``, and X >= 0 on the domain (remui's
    operand is unsigned). An affine index without the remainder must equal it mod S
    itself: where the loops whose weight is not a multiple of S span less than S uses,
    ``it mod S = sum over them of a_l i_l`` exactly."""
    loops = {loop.regions[0].blocks[0].arguments[0]: level
             for level, loop in enumerate(nest.loops)}

    defined = defining_op(index_value)
    where = f" (the value defined at {_where(defined)})" if defined is not None else ""

    def fail(detail: str):
        raise SyncError(user_op, f"tcgen05-insert-sync: cannot prove that the stage index "
                                 f"of {what}{where} is the ring's use counter mod {stages} in the "
                                 f"loops around it {nest.describe()}: {detail}; write it "
                                 f"as arith.remui(<the linear iteration counter of those "
                                 f"loops>, {stages})")

    if stages == 1:
        value = constant_value(index_value)
        if value != 0:
            fail(f"a single stage is stage 0, and the index is "
                 f"{'not a constant' if value is None else value}")
        return
    op = defining_op(index_value)
    modular = op is not None and op.name in ("arith.remui", "arith.remsi")
    if modular:
        divisor = constant_value(op.operands[1])
        if divisor != stages:
            fail(f"the remainder is taken by {divisor if divisor is not None else 'a value'}"
                 f", not by the ring's {stages} stages")
        form = affine.form(op.operands[0])
    else:
        form = affine.form(index_value)
    if form is None:
        fail("the index is not an affine function of the loops' induction variables "
             "(constants, addi, subi, muli by a constant)")
    terms, constant = form
    coefficient = [0] * len(nest.loops)
    for iv, c in terms.items():
        level = loops.get(iv)
        if level is None:
            owner = iv.owner.owner
            owner = owner.operation if hasattr(owner, "operation") else owner
            if constant_trip_count_of(owner) == 1:
                continue
            fail("it varies with the induction variable of a loop that does not count "
                 "the ring's uses")
        coefficient[level] = c * nest.bounds[level][2]
        constant += c * nest.bounds[level][0]
    # a run-time trip count (None, Nest.provable) may be more than one
    live = [level for level in range(len(nest.loops))
            if nest.trips[level] is None or nest.trips[level] > 1]
    if modular:
        for level in live:
            if (coefficient[level] - nest.weights[level]) % stages:
                fail(f"one iteration of the loop at depth {level} (a counter step of "
                     f"{nest.weights[level]}) moves the index by {coefficient[level]}, "
                     f"not the same mod {stages}")
        if constant % stages:
            fail(f"the first use has index {constant} mod {stages}, not 0")
        for level in live:
            if nest.trips[level] is None and coefficient[level] < 0:
                fail(f"the remainder's operand falls by {-coefficient[level]} per "
                     f"iteration of the loop at depth {level}, whose trip count is known "
                     f"at run time only")
        low = constant + sum(min(0, coefficient[level] * (nest.trips[level] - 1))
                             for level in live if nest.trips[level] is not None)
        if low < 0:
            fail(f"the remainder's operand reaches {low} < 0")
        return
    wrapping = [level for level in live if nest.weights[level] % stages]
    if any(nest.trips[level] is None for level in wrapping):
        fail("the uses it counts without a remainder include a loop whose trip count "
             "is known at run time only")
    span = sum(nest.weights[level] * (nest.trips[level] - 1) for level in wrapping)
    if span >= stages:
        fail(f"the uses it counts without a remainder span {span + 1} > {stages} stages")
    for level in live:
        want = nest.weights[level] if level in wrapping else 0
        if coefficient[level] != want:
            fail(f"one iteration of the loop at depth {level} moves the index by "
                 f"{coefficient[level]}, not {want}")
    if constant:
        fail(f"the first use has index {constant}, not 0")


def constant_trip_count_of(loop) -> int | None:
    if loop is None or loop.name != "scf.for":
        return None
    bounds = tuple(constant_value(loop.operands[i]) for i in range(3))
    if None in bounds or bounds[2] <= 0:
        return None
    return max(0, -(-(bounds[1] - bounds[0]) // bounds[2]))


def _top_in(op, block):
    """The ancestor of `op` (or `op`) whose block is `block`, else None."""
    while op is not None and op.block != block:
        parent = op.parent
        if parent is None or parent.name == "func.func":
            return None
        op = parent.operation if hasattr(parent, "operation") else parent
    return op


def _blocks_up(op, role_op) -> list:
    """The blocks around `op` up to its role's body, outermost first."""
    blocks = []
    current = op
    while True:
        block = current.block
        blocks.append(block)
        parent = block.owner
        parent = parent.operation if hasattr(parent, "operation") else parent
        if parent == role_op:
            return blocks[::-1]
        current = parent



def _where(op) -> str:
    from tcgen05_lower.bindings import file_location

    line = file_location(op.location)[1]
    return f"line {line}" if line is not None else "an unknown line"
