"""mbarrier phases: the parity every wait waits for, from the commits before it
(`Phases`)."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.synchronization.common import (SyncError, constant_trip_count,
                                                  constant_value, enclosing_op)
from tcgen05_lower.synchronization.planner import Action


class Phases:
    """Builds the parity operand of an mbarrier wait: (commits to its mbarrier executed
    before the wait - 1) mod 2, from the induction variables of the loops around the wait
    and the trip counts of the loops around the commit."""

    def __init__(self, kernel, actions: list):
        self.kernel = kernel
        self.seq = {id(a): i for i, a in enumerate(actions)}

    def parity(self, wait: Action, site: Action):
        """Emits, at the insertion point, the i32 parity for `wait` and returns it; None
        when the count of commits is not a function of the loops' induction variables
        (the wait then tracks the phase at run time, see tcgen05.mbarrier_wait)."""
        chain_w = _chain(wait.anchor)
        chain_s = _chain(site.anchor)
        if not self.static(chain_s, chain_w, wait):
            return None
        loops_w = [op for op in reversed(chain_w[1:]) if op.name == "scf.for"]
        loops_s = [op for op in reversed(chain_s[1:]) if op.name == "scf.for"]
        common = []
        for a, b in zip(loops_w, loops_s):
            if a != b:
                break
            common.append(a)
        deeper = loops_s[len(common):]
        before = self.site_before_wait(site, wait, chain_s, chain_w)
        # count = linear * per + (per if the commit precedes the wait in this iteration)
        # where linear counts the completed iterations of the common loops (outer first).
        index = ir.IndexType.get()
        terms: list[list] = []  # products of factors (ints or values), summed
        per = [("trips", loop) for loop in deeper]
        for j, loop in enumerate(common):
            terms.append([("iter", loop)] + [("trips", l) for l in common[j + 1:]] + per)
        if before:
            terms.append(list(per))
        terms.append([1])  # parity = (count - 1) mod 2 = (count + 1) mod 2
        constant = 0
        values = []
        for term in terms:
            # Only the parity of each product matters: a constant even factor drops the
            # term, constant odd factors drop out, and nothing is emitted for either.
            known = [self.constant_factor(f) for f in term]
            if any(k is not None and k % 2 == 0 for k in known):
                continue
            symbolic = [f for f, k in zip(term, known) if k is None]
            if not symbolic:
                constant += 1
                continue
            product = None
            for factor in symbolic:
                value = self.factor(factor, wait.anchor, wait.side)
                product = value if product is None else \
                    _op("arith.muli", [product, value], index)
            values.append(product)
        i32 = ir.IntegerType.get_signless(32)
        if not values:
            return _const(constant % 2, i32)
        total = values[0]
        for v in values[1:]:
            total = _op("arith.addi", [total, v], index)
        if constant % 2:
            total = _op("arith.addi", [total, _const(1, index)], index)
        bit = _op("arith.andi", [total, _const(1, index)], index)
        return _op("arith.index_cast", [bit], i32)

    def static(self, chain_s, chain_w, wait: Action) -> bool:
        """Whether the commits executed before the wait can be counted from the loops:
        the commit (one op per mbarrier) is in no scf.while, and in no branch that may
        be skipped between two of the waits (a conditional not around the wait, or one
        inside a loop); and every trip count the count needs is known at the wait."""
        for depth, op in enumerate(chain_s[1:], start=1):
            if op.name == "scf.while":
                return False
            if op.name in ("scf.if", "scf.index_switch"):
                outer = chain_s[depth + 1:]
                if op not in chain_w or any(o.name in ("scf.for", "scf.while")
                                            for o in outer):
                    return False
        loops_w = {op for op in chain_w[1:] if op.name == "scf.for"}
        for loop in chain_s[1:]:
            if loop.name != "scf.for" or constant_trip_count(loop) is not None:
                continue
            # A loop around the commit but not the wait counts with its trip count.
            if loop not in loops_w and not all(constant_value(v) is not None or
                                  _dominates(v, wait.anchor, wait.side)
                                  for v in list(loop.operands)[:3]):
                return False
        return True

    def site_before_wait(self, site: Action, wait: Action, chain_s, chain_w) -> bool:
        """Whether the commit runs before the wait within one iteration of the innermost
        block that holds both."""
        blocks_w = {op.block: op for op in chain_w}
        for proj_s in chain_s:
            proj_w = blocks_w.get(proj_s.block)
            if proj_w is None:
                continue
            if proj_s != proj_w:
                return proj_s.is_before_in_block(proj_w)
            # The same op of that block: the commit is after it or inside it.
            if wait.anchor == proj_w and wait.side == "before":
                return False
            if wait.anchor == proj_w and site.anchor == proj_s:
                return self.seq[id(site)] < self.seq[id(wait)]
            return wait.anchor == proj_w  # the wait is after the op holding the commit
        raise SyncError(wait.anchor, "internal: commit and wait share no block")

    def constant_factor(self, factor) -> int | None:
        """A factor's value when it is a constant (an int, or a constant trip count)."""
        if isinstance(factor, int):
            return factor
        what, loop = factor
        return constant_trip_count(loop) if what == "trips" else None

    def factor(self, factor, anchor, side):
        """An iteration index or trip count, as an int when constant, else a value."""
        what, loop = factor
        index = ir.IndexType.get()
        lb, ub, step = (loop.operands[i] for i in range(3))
        if what == "iter":
            iv = loop.regions[0].blocks[0].arguments[0]
            offset = _op("arith.subi", [iv, lb], index)
            return _op("arith.divui", [offset, step], index)
        trips = constant_trip_count(loop)
        if trips is not None:
            return trips
        # (Phases.static has made sure the bounds are available at the wait.)
        lbv, ubv, stepv = (_const(constant_value(v), index) if constant_value(v) is not None else v
                           for v in (lb, ub, step))
        span = _op("arith.subi", [ubv, lbv], index)
        rounded = _op("arith.addi", [span, _op("arith.subi", [stepv, _const(1, index)],
                                                 index)], index)
        count = _op("arith.divsi", [rounded, stepv], index)
        return _op("arith.maxsi", [count, _const(0, index)], index)


def _chain(op) -> list:
    """`op` and the ops around it, innermost first, up to the kernel (excluded)."""
    chain = [op]
    parent = enclosing_op(op)
    while parent is not None and not d.is_kernel(parent):
        chain.append(parent)
        parent = enclosing_op(parent)
    return chain


def _dominates(value, anchor, side) -> bool:
    """Whether `value` is available at (anchor, side): defined before it in a block
    around it, or an argument of such a block."""
    owner = value.owner
    if isinstance(owner, ir.Block):
        return any(op.block == owner for op in _chain(anchor))
    definer = owner.operation if hasattr(owner, "operation") else owner
    for op in _chain(anchor):
        if op.block == definer.block:
            return definer.is_before_in_block(op) or (definer == op and side == "after")
    return False


def _const(value: int, type_):
    return ir.Operation.create("arith.constant", results=[type_],
                               attributes={"value": ir.IntegerAttr.get(type_, value)}
                               ).results[0]


def _op(name: str, operands, result_type):
    return ir.Operation.create(name, results=[result_type], operands=list(operands)).results[0]
