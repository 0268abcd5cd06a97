"""The order of one thread's own tcgen05.ld and tcgen05.st (PTX ISA 9.7.16.6.4.2):
the waits that tcgen05-insert-sync{strategy=handoffs} writes inside a role.

A tcgen05.ld and a later tcgen05.st of the same cells by the same thread form no
pipeline (9.7.16.6.2): the store waits for the load with tcgen05.wait::ld (a register
dependence, the stored values computed from the loaded ones, orders no memory access,
9.7.16.6.4.5); a load or a store after a store of the same cells waits with
tcgen05.wait::st. The walk keeps the loads and stores not yet waited for, as (kind,
root buffer, columns), and writes the wait right before the access that needs it:

- columns are a constant range, or ``iv + c`` of an enclosing scf.for's counter (then
  the same iteration's accesses compare by offset, and one of an earlier iteration by
  the loop's constant step: ``ld O[col]; st O[col]`` for col = 0, 32 needs one wait per
  iteration and none between them), or unknown (any cell of the buffer); an access
  through a view of another buffer (an alias) has unknown columns of its root;
- tcgen05.wait::ld / ::st (written or inserted) clear the loads / stores;
- a branch's paths join by union; an scf.while counts every access inside it as pending
  at any of its buffer's cells from its start; an scf.for's body is summarized once with
  nothing pending at its entry (what may still be pending at the end of an iteration),
  and walked once with what is pending before it plus that summary, carried to "an
  earlier iteration": each loop body is walked twice in all, linear in the kernel.

What is still pending at the end of a role is returned: the role's end waits for it
before the join (role_handoffs.py); a wait the caller marks optional (before an arrival)
is dropped when nothing of its kind can be in flight where it stands, unless it directly
follows a branch holding a wait of its kind (verify-sync wants it there).
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import LdOp, StOp, TmemBufferOp, WaitOp
from tcgen05_lower.kernel_ir import defining_op, root_buffers
from tcgen05_lower.op_tables import OpDict
from tcgen05_lower.synchronization.alias_cells import alias_columns
from tcgen05_lower.synchronization.common import constant_trip_count, constant_value

#: The kinds of tcgen05.wait, named after the ops they wait for (9.7.16.6.2.1.2).
LD, ST = LdOp.NAME, StOp.NAME
#: Entries of one kind and buffer kept apart before they merge into one for any cell.
MAX_SAME = 8


class ThreadOrder:
    """The walk of one role (module docstring); `emit(cls, **fields)` builds an op at the
    insertion point and records it."""

    def __init__(self, emit, names, optional=None, aliased=None):
        self.emit = emit
        self.aliased = aliased      # alias buffer op -> its parent (role_turns.alias_roots)
        self.names = names          # root op -> buffer name
        self.summaries = OpDict()   # scf.for -> what may be pending after an iteration
        self.optional = optional if optional is not None else OpDict()
        self.dropped: list = []     # optional waits with nothing of their kind pending

    def role(self, role) -> set:
        """Writes the waits of `role`; the kinds still pending at its end."""
        pending = self.block(role.op.regions[0].blocks[0], [], dry=False)
        return {kind for kind, _, _ in pending}

    # -- the walk -------------------------------------------------------------------------
    def block(self, block, pending: list, dry: bool) -> list:
        previous = None
        for op in list(block.operations):
            op = op.operation
            name = d.op_name(op)
            if name == WaitOp.NAME:
                kind = str(WaitOp(op).kind)
                if not dry and op in self.optional and \
                        not any(p[0] == kind for p in pending) and \
                        not _branch_waits(previous, kind):
                    self.dropped.append(op)
                pending = [p for p in pending if p[0] != kind]
            elif name in (LdOp.NAME, StOp.NAME):
                pending = self.access(op, name, pending, dry)
            elif op.name == "scf.for":
                pending = self.loop(op, pending, dry)
            elif op.name == "scf.while":
                # Its iterations are not counted: each access inside it may still be in
                # flight from an earlier one, at any of its buffer's cells.
                entry = _union(pending, _anywhere(op, self.aliased))
                ends = [self.block(region.blocks[0], list(entry), dry)
                        for region in op.regions if len(region.blocks)]
                pending = _union(entry, *ends)
            elif len(op.regions):
                ends = [self.block(region.blocks[0], list(pending), dry)
                        for region in op.regions if len(region.blocks)]
                pending = _union(pending, *ends)
            previous = op
        return pending

    def access(self, op, name: str, pending: list, dry: bool) -> list:
        buffer = LdOp(op).source if name == LdOp.NAME else StOp(op).dest
        root, columns = _footprint(op, buffer, self.aliased)
        mine = (LD if name == LdOp.NAME else ST, root, columns)
        # A load waits for earlier stores; a store for earlier loads and stores.
        for kind in (ST,) if name == LdOp.NAME else (LD, ST):
            if any(p[0] == kind and _overlap(p, mine) for p in pending):
                if not dry:
                    self.wait(op, kind, name, root, buffer)
                pending = [p for p in pending if p[0] != kind]
        pending = pending + [mine]
        same = [p for p in pending if p[0] == mine[0] and p[1] == root]
        if len(same) > MAX_SAME:
            # Many accesses of one buffer in flight: keep one entry for any of its cells
            # (more waits, never fewer), so the walk stays linear.
            pending = [p for p in pending if not (p[0] == mine[0] and p[1] == root)] + \
                [(mine[0], root, None)]
        return pending

    def loop(self, loop, pending: list, dry: bool) -> list:
        summary = self.summaries.get(loop)
        if summary is None:
            summary = self.summaries[loop] = self.block(loop.regions[0].blocks[0], [],
                                                        dry=True)
        # A loop that may run no iteration leaves `pending` as it was.
        before = pending if (constant_trip_count(loop) or 0) < 1 else []
        if dry:
            return _union(pending, [_leaving(p, loop) for p in summary])
        carried = [_earlier(p, loop) for p in summary]
        end = self.block(loop.regions[0].blocks[0], _union(pending, carried), dry=False)
        return _union(before, [_leaving(p, loop) for p in end])

    def wait(self, op, kind: str, name: str, root, buffer=None) -> None:
        what = self.names.get(root, "a TMEM buffer") if root is not None else \
            "a TMEM buffer"
        own = root_buffers(buffer) if buffer is not None and self.aliased is not None \
            else None
        if own and len(own) == 1 and own[0] in self.aliased:
            what = f"{TmemBufferOp(own[0]).name or 'an alias'} (on {what}'s cells)"
        earlier = "tcgen05.ld" if kind == LD else "tcgen05.st"
        with ir.InsertionPoint(op), op.location:
            self.emit(WaitOp, kind=kind,
                      reason=f"tcgen05.{name} of {what} after this thread's {earlier} of "
                             f"cells it may share (9.7.16.6.4.2; a register dependence "
                             f"orders no memory access, 9.7.16.6.4.5)")


def _branch_waits(op, kind: str) -> bool:
    """Whether `op` is a branch holding a tcgen05.wait of `kind`: tcgen05-verify-sync
    traces a branch it cannot evaluate as taken only when each wait in it is repeated
    directly after it (sync_check/branches.py), so the wait after it stays."""
    if op is None or op.name != "scf.if":
        return False
    return any(d.op_name(inner) == WaitOp.NAME and str(WaitOp(inner).kind) == kind
               for inner in d.walk_ops(op))


def _anywhere(op, aliased) -> list:
    """Every ld / st nested in `op`, pending at any cell of its buffer."""
    found = []
    for inner in d.walk_ops(op):
        name = d.op_name(inner)
        if name in (LdOp.NAME, StOp.NAME):
            inner = inner.operation
            found.append((LD if name == LdOp.NAME else ST,
                          _footprint(inner, inner.operands[0], aliased)[0], None))
    return found


def _footprint(op, buffer, aliased=None) -> tuple:
    """(root buffer op or None, columns) of an ld / st (module docstring)."""
    roots = root_buffers(buffer)
    root = roots[0] if roots and len(roots) == 1 else None
    if root is not None and aliased is not None and root in aliased:
        # The parent's columns the alias's access touches, once placed (alias_cells.py).
        span = alias_columns(op, root, aliased[root])
        return aliased[root], (("c", None) + span if span is not None else None)
    direct = defining_op(buffer)
    if root is None or direct is None or not TmemBufferOp.matches(direct):
        return root, None   # through a view: columns of another buffer's type
    if TmemBufferOp(direct).half_lanes:
        # a buffer on half lanes (Layout F, M = 64): tcgen05-verify-sync takes each of its
        # accesses as one of all its cells (sync_check.cta_footprints.buffer_cells), so
        # its columns are unknown here too (a wait::st between chunk stores it wants)
        return root, None
    fragment = op.results[0] if LdOp.matches(op) else StOp(op).fragment
    width = d.type_info(fragment.type).shape[1]
    column = LdOp(op).column if LdOp.matches(op) else StOp(op).column
    start = constant_value(column)
    if start is not None:
        return root, ("c", None, start, width)
    offset, base = 0, column
    owner = defining_op(column)
    if owner is not None and owner.name == "arith.addi":
        for a, b in ((0, 1), (1, 0)):
            c = constant_value(owner.operands[b])
            if c is not None:
                offset, base = c, owner.operands[a]
                break
    loop = _loop_of(base)
    return root, (("iv", loop, offset, width) if loop is not None else None)


def _loop_of(value):
    """The scf.for whose counter `value` is, else None."""
    if not isinstance(value, ir.BlockArgument) or value.arg_number != 0:
        return None
    owner = value.owner.owner
    owner = owner.operation if hasattr(owner, "operation") else owner
    return owner if owner is not None and owner.name == "scf.for" else None


def _overlap(p: tuple, q: tuple) -> bool:
    """Whether two pending entries may touch a common cell."""
    if p[1] is None or q[1] is None:
        return True
    if p[1] != q[1]:
        return False
    x, y = p[2], q[2]
    if x is None or y is None:
        return True
    if x[0] == y[0] == "c":
        return x[2] < y[2] + y[3] and y[2] < x[2] + x[3]
    if x[1] is None or y[1] is None or x[1] != y[1] or (x[0], y[0]) == ("prev", "prev"):
        return True
    if x[0] == y[0] == "iv":
        return x[2] < y[2] + y[3] and y[2] < x[2] + x[3]
    earlier, now = (x, y) if x[0] == "prev" else (y, x)
    return _across_iterations(earlier, now)


def _across_iterations(earlier: tuple, now: tuple) -> bool:
    """Whether columns iv' + a (width w1) of an earlier iteration iv' = iv - m step,
    m >= 1, meet iv + b (width w2): m step in (a - b - w2, a - b + w1)."""
    step = constant_value(earlier[1].operands[2])
    if step is None or step <= 0:
        return True
    a, w1, b, w2 = earlier[2], earlier[3], now[2], now[3]
    low, high = a - b - w2, a - b + w1
    m = max(1, low // step + 1)
    return m * step < high


def _earlier(p: tuple, loop) -> tuple:
    """`p` of this iteration, seen from a later one of `loop`."""
    cols = p[2]
    if cols is not None and cols[0] == "iv" and cols[1] == loop:
        return (p[0], p[1], ("prev",) + cols[1:])
    return p


def _leaving(p: tuple, loop) -> tuple:
    """`p` after `loop`: columns that named its counter are unknown."""
    cols = p[2]
    if cols is not None and cols[1] is not None and cols[1] == loop:
        return (p[0], p[1], None)
    return p


def _union(first: list, *others) -> list:
    found = list(first)
    for entries in others:
        for entry in entries:
            if not any(_same(entry, e) for e in found):
                found.append(entry)
    return found


def _same(p: tuple, q: tuple) -> bool:
    return p[0] == q[0] and p[1] == q[1] and p[2] == q[2]
