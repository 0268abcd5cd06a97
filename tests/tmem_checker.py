"""An independent checker of TMEM plans: reads the IR that tcgen05-plan-tmem printed (and,
optionally, its JSON report) and says what is wrong with it.

It shares no code with the planner (nothing from ``tcgen05_lower.planning`` or the pass
module): it re-derives, from the planned IR alone,

- which op numbers the JSON's live ranges refer to (pre-order, the ``func.func`` is 0,
  the ops the planner adds -- its alloc, relinquish and deallocs -- are not numbered);
- where every buffer's cells are (``lane_offset``, ``column_offset``, ``columns``,
  ``half_lanes``, and for multi-buffered buffers ``stage_layout`` / ``stage_stride``);
- when every buffer occupies its cells, by the rules documented in
  ``tcgen05_lower/planning/liveness.py``, implemented differently: explicit sets of
  buffer names instead of bit masks, and for asynchronous ops the exact ordered list of
  ops in flight on each path (a set of such lists per program point) instead of the
  planner's summary relation.

Checks (each failure is one string in the returned list):

1. No two buffers whose cells overlap occupy them at the same op.
2. Every buffer lies inside the allocation; the allocation is a power of two in
   [32, 512] made at kernel entry (followed by relinquish_alloc_permit unless the kernel
   allocates more itself), the planner's cta_group is the kernel's, and column counts
   never increase between allocations along any path.
3. Lane alignment: 16 only for half-lane D/A/metadata of Layouts F and C; A in TMEM, D
   and metadata of one F/C MMA share a lane offset; metadata starts at an even column;
   lane-paired stages are never tied to an A or metadata operand.
4. Every path from the entry to a ``func.return`` frees the allocation exactly once, after
   it is made, and no TMEM buffer is touched after it is freed.
5. With the JSON report: each buffer's cells and live range match the IR, every op
   where the checker finds a buffer occupied lies inside the reported live range, the
   peak and allocation follow from the cells, and the lower bound is the maximum
   lane-aware footprint of the reported live ranges.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.parsing import parse_module

ASYNC = {"tcgen05.mma": "M", "tcgen05.cp": "M", "tcgen05.shift": "M",
         "tcgen05.ld": "L", "tcgen05.ld_red": "L", "tcgen05.st": "S"}
PASS_THROUGH = {"arith.select", "scf.yield", "scf.condition", "scf.for", "scf.while",
                "scf.if", "cf.br", "cf.cond_br", "cf.switch", "tcgen05.tmem_stage"}
STATE_LIMIT = 20000


class CheckerLimit(Exception):
    """The exact path analysis grew too large (not a verdict on the plan)."""


def _owner(value):
    owner = value.owner
    if isinstance(owner, ir.Block):
        return None
    return owner.operation if hasattr(owner, "operation") else owner


def _tmem(value) -> bool:
    return isinstance(d.type_info(value.type), d.TmemType)


def _int_attr(op, name, default=None):
    if name not in op.attributes:
        return default
    attr = op.attributes[name]
    if isinstance(attr, ir.BoolAttr):
        return int(attr.value)
    return ir.IntegerAttr(attr).value


def _str_attr(op, name, default=None):
    if name not in op.attributes:
        return default
    return ir.StringAttr(op.attributes[name]).value


def _const(value):
    op = _owner(value)
    if op is None or op.name != "arith.constant":
        return None
    attr = op.attributes["value"]
    if isinstance(attr, ir.BoolAttr):
        return int(attr.value)
    try:
        return ir.IntegerAttr(attr).value
    except ValueError:
        return None


@dataclass
class Buf:
    name: str
    op: object
    layout: str
    role: str
    columns: int
    half: bool
    lane_offset: int
    column_offset: int
    stages: int
    stage_layout: str | None
    stride: int
    #: (lane half, first column, end column) rectangles; half 0/1, or 2 for both.
    cells: list = field(default_factory=list)

    def compute_cells(self) -> None:
        for s in range(self.stages):
            if self.stages == 1 and self.stage_layout is None:
                lane, col = self.lane_offset, self.column_offset
            elif self.stage_layout == "lane_pairs":
                lane, col = 16 * (s % 2), self.column_offset + (s // 2) * self.stride
            else:
                lane, col = self.lane_offset, self.column_offset + s * self.stride
            halves = {0: 1, 16: 2}[lane] if self.half else 3
            self.cells.append((halves, col, col + self.columns, lane))

    def overlaps(self, other: "Buf") -> bool:
        for h1, a0, a1, _ in self.cells:
            for h2, b0, b1, _ in other.cells:
                if h1 & h2 and a0 < b1 and b0 < a1:
                    return True
        return False

    @property
    def end_column(self) -> int:
        return max(c[2] for c in self.cells)


class KernelCheck:
    """Checks one planned kernel."""

    def __init__(self, kernel):
        self.kernel = kernel
        self.info = d.kernel_info(kernel)
        self.problems: list[str] = []

    def problem(self, text: str) -> None:
        self.problems.append(f"@{self.info.name}: {text}")

    # ------------------------------------------------------------------ structure

    def find_allocation(self) -> bool:
        buffers = [op for op in d.walk_ops(self.kernel) if op.name == "tcgen05.tmem_buffer"]
        self.buffer_ops = buffers
        if not buffers:
            self.alloc = None
            return False
        bases = {b.operands[0] for b in buffers if len(b.operands)}
        if any(not len(b.operands) for b in buffers):
            self.problem("a tcgen05.tmem_buffer has no base address (not planned)")
            return False
        if len(bases) != 1:
            self.problem("buffers use several base addresses")
            return False
        self.alloc = _owner(next(iter(bases)))
        if self.alloc is None or self.alloc.name != "tcgen05.alloc":
            self.problem("the buffers' base is not a tcgen05.alloc result")
            return False
        return True

    def planner_ops(self) -> set:
        """The ops the planner adds: not numbered."""
        added = {self.alloc}
        entry = self.kernel.regions[0].blocks[0]
        ops = [o.operation for o in entry.operations]
        position = ops.index(self.alloc)
        if position + 1 < len(ops) and ops[position + 1].name == \
                "tcgen05.relinquish_alloc_permit":
            added.add(ops[position + 1])
        result = self.alloc.results[0]
        for use in result.uses:
            user = use.owner.operation if hasattr(use.owner, "operation") else use.owner
            if user.name == "tcgen05.dealloc":
                added.add(user)
        return added

    def number(self, skip: set) -> None:
        """ops[i] is op number i (the kernel is 0)."""
        self.ops = [self.kernel]
        self.number_of = {}
        self.following = {}

        def visit_block(block):
            numbered = []
            for inner in block.operations:
                op = inner.operation
                if op in skip:
                    continue
                self.number_of[op] = len(self.ops)
                self.ops.append(op)
                numbered.append(op)
                for region in op.regions:
                    for inner_block in region.blocks:
                        visit_block(inner_block)
            for a, b in zip(numbered, numbered[1:]):
                self.following[a] = self.number_of[b]

        for block in self.kernel.regions[0].blocks:
            visit_block(block)

    def first_numbered(self, block):
        for inner in block.operations:
            if inner.operation in self.number_of:
                return self.number_of[inner.operation]
        return None

    def graph(self) -> None:
        """succ[i]: numbered ops control can reach right after op i."""
        n = len(self.ops)
        self.succ = [set() for _ in range(n)]

        following = self.following

        def after(op):
            # The next numbered op of the same block (planner ops are skipped).
            return following.get(op)

        def returning_terminators(region):
            for block in region.blocks:
                ops = [o.operation for o in block.operations]
                last = ops[-1]
                if not len(last.successors) and last in self.number_of:
                    yield self.number_of[last]

        self.succ[0].add(self.first_numbered(self.kernel.regions[0].blocks[0]))
        for i, op in enumerate(self.ops):
            if i == 0:
                continue
            nxt = after(op)
            if op.name == "func.return":
                continue
            if len(op.successors):
                for block in op.successors:
                    self.succ[i].add(self.first_numbered(block))
                continue
            regions = [r for r in op.regions if len(r.blocks)]
            if not regions:
                if nxt is not None:
                    self.succ[i].add(nxt)
                continue
            heads = [self.first_numbered(r.blocks[0]) for r in regions]
            if op.name == "scf.for":
                lb, ub, st = (_const(op.operands[k]) for k in range(3))
                once = None not in (lb, ub, st) and st > 0 and lb < ub
                self.succ[i].add(heads[0])
                if not once:
                    self.succ[i].add(nxt)
                for t in returning_terminators(op.regions[0]):
                    self.succ[t].update({heads[0], nxt})
            elif op.name == "scf.if":
                self.succ[i].add(heads[0])
                if len(op.regions) > 1 and len(op.regions[1].blocks):
                    self.succ[i].add(self.first_numbered(op.regions[1].blocks[0]))
                else:
                    self.succ[i].add(nxt)
                for region in regions:
                    for t in returning_terminators(region):
                        self.succ[t].add(nxt)
            elif op.name == "scf.while":
                self.succ[i].add(heads[0])
                for t in returning_terminators(op.regions[0]):
                    self.succ[t].update({heads[1], nxt})
                for t in returning_terminators(op.regions[1]):
                    self.succ[t].add(heads[0])
            else:
                self.succ[i].update(heads + [nxt])
                for region in regions:
                    for t in returning_terminators(region):
                        self.succ[t].update(heads + [nxt])
        self.succ = [sorted(s - {None}) for s in self.succ]
        self.pred = [[] for _ in range(n)]
        for i, ss in enumerate(self.succ):
            for s in ss:
                self.pred[s].append(i)

    # ------------------------------------------------------------------ buffers

    def read_buffers(self) -> None:
        self.bufs: dict = {}
        for k, op in enumerate(self.buffer_ops):
            t = d.type_info(op.results[0].type)
            name = _str_attr(op, "name") or f"#{k}"
            stages = t.shape[0] if len(t.shape) == 3 else 1
            buf = Buf(name, op, _str_attr(op, "layout"), _str_attr(op, "role", "d"),
                      _int_attr(op, "columns"), bool(_int_attr(op, "half_lanes", 0)),
                      _int_attr(op, "lane_offset"), _int_attr(op, "column_offset"), stages,
                      _str_attr(op, "stage_layout"), _int_attr(op, "stage_stride", 0))
            if len(t.shape) == 3 and buf.stage_layout not in ("lane_pairs", "column_blocks"):
                self.problem(f"buffer {name} has {stages} stages but no stage_layout")
                buf.stage_layout = "column_blocks"
                buf.stride = buf.columns
            buf.compute_cells()
            self.bufs[op] = buf

    def points_to(self) -> None:
        """value -> (set of buffer ops, through a view)."""
        everything = set(self.bufs)
        pts: dict = {}
        view: dict = {}
        edges = []

        def add(dst, src):
            if _tmem(dst):
                edges.append((dst, src))

        for op in self.ops[1:]:
            if op.name == "tcgen05.tmem_buffer":
                pts[op.results[0]] = {op}
                view[op.results[0]] = False
            elif op.name == "tcgen05.tmem_stage":
                view[op.results[0]] = True
                add(op.results[0], op.operands[0])
            elif op.name == "arith.select":
                add(op.results[0], op.operands[1])
                add(op.results[0], op.operands[2])
            elif op.name == "scf.for":
                body = op.regions[0].blocks[0]
                ops = [o.operation for o in body.operations]
                yielded = ops[-1].operands
                for j in range(len(op.operands) - 3):
                    for dst in (body.arguments[j + 1], op.results[j]):
                        add(dst, op.operands[3 + j])
                        add(dst, yielded[j])
            elif op.name == "scf.if":
                for region in op.regions:
                    if len(region.blocks):
                        ops = [o.operation for o in region.blocks[0].operations]
                        for j, res in enumerate(op.results):
                            add(res, ops[-1].operands[j])
            elif op.name == "scf.while":
                before, after_ = op.regions[0].blocks[0], op.regions[1].blocks[0]
                cond = [o.operation for o in before.operations][-1]
                yld = [o.operation for o in after_.operations][-1]
                for j in range(len(op.operands)):
                    add(before.arguments[j], op.operands[j])
                    add(before.arguments[j], yld.operands[j])
                for j in range(len(after_.arguments)):
                    add(after_.arguments[j], cond.operands[j + 1])
                    add(op.results[j], cond.operands[j + 1])
            elif len(op.successors):
                succs = list(op.successors)
                operands = list(op.operands)
                if op.name == "cf.br":
                    for j, a in enumerate(succs[0].arguments):
                        add(a, operands[j])
                elif op.name == "cf.cond_br":
                    nt = len(succs[0].arguments)
                    for j, a in enumerate(succs[0].arguments):
                        add(a, operands[1 + j])
                    for j, a in enumerate(succs[1].arguments):
                        add(a, operands[1 + nt + j])
                else:
                    for blk in succs:
                        for a in blk.arguments:
                            for v in operands:
                                if _tmem(v):
                                    add(a, v)
            else:
                for res in op.results:
                    if _tmem(res):
                        pts[res] = set(everything)
                        view[res] = True
        for a in self.kernel.regions[0].blocks[0].arguments:
            if _tmem(a):
                pts[a] = set(everything)
                view[a] = True
        changed = True
        while changed:
            changed = False
            for dst, src in edges:
                s = pts.get(src, set())
                if not s <= pts.get(dst, set()):
                    pts[dst] = pts.get(dst, set()) | s
                    changed = True
                if view.get(src) and not view.get(dst):
                    view[dst] = True
                    changed = True
        self.pts = pts
        self.view = view

    def accesses(self, op) -> list[tuple[set, object, bool, str]]:
        """(may buffers, certain buffer or None, writes, role) of each TMEM access."""
        out = []

        def acc(value, writes, role):
            bufs = self.pts.get(value, set())
            if not bufs:
                return
            certain = next(iter(bufs)) if len(bufs) == 1 and not self.view.get(value) \
                else None
            out.append((bufs, certain, writes, role))

        name = op.name
        if name == "tcgen05.mma":
            operands = list(op.operands)
            acc(operands[0], True, "d")
            if _tmem(operands[1]):
                acc(operands[1], False, "a")
            aux = operands[4:]
            roles = []
            if "scale_vec" in op.attributes:
                roles += ["scale_a", "scale_b"]
            if _int_attr(op, "sparse", 0):
                roles += ["metadata"]
            for role, value in zip(roles, aux):
                acc(value, False, role)
        elif name in ("tcgen05.cp", "tcgen05.st"):
            acc(op.operands[0], True, "dest")
        elif name == "tcgen05.shift":
            acc(op.operands[0], True, "buffer")
        elif name in ("tcgen05.ld", "tcgen05.ld_red"):
            acc(op.operands[0], False, "source")
        elif name not in PASS_THROUGH and name not in ("tcgen05.tmem_buffer",
                                                       "tcgen05.alloc"):
            for v in op.operands:
                if _tmem(v):
                    acc(v, True, "other")
        return out

    # ------------------------------------------------------------------ liveness

    def liveness(self) -> None:
        n = len(self.ops)
        acc = [self.accesses(op) if i else [] for i, op in enumerate(self.ops)]
        self.acc = acc
        touch = [set().union(*[a[0] for a in accs]) if accs else set() for accs in acc]
        define = [{op} if op.name == "tcgen05.tmem_buffer" else set() for op in self.ops]
        # Defined: forward union.
        din = [set() for _ in range(n)]
        dout = [set() for _ in range(n)]
        reach = [False] * n
        reach[0] = True
        work = [0]
        while work:
            i = work.pop()
            new = din[i] | define[i]
            if new != dout[i] or not reach[i]:
                dout[i] = new
            for s in self.succ[i]:
                if not reach[s] or not dout[i] <= din[s]:
                    reach[s] = True
                    din[s] |= dout[i]
                    work.append(s)
        # Used later: backward union, a definition stops it.
        uin = [set() for _ in range(n)]
        uout = [set() for _ in range(n)]
        changed = True
        while changed:
            changed = False
            for i in reversed(range(n)):
                out = set()
                for s in self.succ[i]:
                    out |= uin[s]
                new = (out - define[i]) | touch[i]
                if out != uout[i] or new != uin[i]:
                    uout[i], uin[i] = out, new
                    changed = True
        busy_in, busy_out = self.in_flight(acc)
        self.occupied = []
        for i in range(n):
            occ = set(touch[i]) | define[i] | (din[i] & uin[i]) | (dout[i] & uout[i])
            for states in (busy_in[i], busy_out[i]):
                for state in states:
                    for op_number in state:
                        for a in acc[op_number]:
                            occ |= a[0]
            self.occupied.append(occ)

    def in_flight(self, acc):
        """Exact per-path lists of ops in flight (youngest instance of each op, in issue
        order). Returns (states before, states after) per op: sets of tuples."""
        n = len(self.ops)
        kind = {}
        for i, op in enumerate(self.ops):
            if i and op.name in ASYNC and acc[i]:
                kind[i] = ASYNC[op.name]
        load_of = {}
        for i in kind:
            if kind[i] == "L":
                for res in self.ops[i].results:
                    load_of[res] = i
        uses_loads = [set() for _ in range(n)]
        for i, op in enumerate(self.ops):
            if i and op.name not in PASS_THROUGH:
                for v in op.operands:
                    if v in load_of:
                        uses_loads[i].add(load_of[v])

        def certain_set(i):
            out = {}
            for bufs, certain, writes, role in acc[i]:
                if certain is not None:
                    out[certain] = out.get(certain, False) or writes
            return out

        certain = [certain_set(i) if i else {} for i in range(n)]

        def d_buffer(i):
            for bufs, c, writes, role in acc[i]:
                if role == "d":
                    return c
            return None

        def pipelined(r, b):
            rk, bk = self.ops[r].name[8:], self.ops[b].name[8:]
            if (rk, bk) == ("mma", "mma"):
                return d_buffer(r) is not None and d_buffer(r) == d_buffer(b)
            if (rk, bk) in (("cp", "mma"), ("shift", "mma"), ("mma", "shift")):
                return True
            if (rk, bk) == ("shift", "cp"):
                return _str_attr(self.ops[b], "shape") == "4x256b"
            return False

        def whole_classes(i):
            op = self.ops[i]
            if op.name in ("func.return", "tcgen05.dealloc"):
                return {"M", "L", "S"}
            if op.name == "tcgen05.wait":
                return {{"ld": "L", "st": "S"}.get(_str_attr(op, "kind"), "")}
            return set()

        def step(i, state):
            direct = set()
            whole = whole_classes(i)
            for r in state:
                if kind[r] in whole or r in uses_loads[i]:
                    direct.add(r)
                    continue
                for buf, w in certain[r].items():
                    if buf in certain[i] and (w or certain[i][buf]) and not pipelined(r, i):
                        direct.add(r)
                        break
            newest = {}
            for pos, r in enumerate(state):
                if r in direct:
                    newest[kind[r]] = pos
            kept = tuple(r for pos, r in enumerate(state)
                         if not (kind[r] in newest and pos <= newest[kind[r]]))
            if i in kind:
                kept = tuple(r for r in kept if r != i) + (i,)
            return kept

        sin = [set() for _ in range(n)]
        sout = [set() for _ in range(n)]
        sin[0] = {()}
        work = [0]
        seen = [False] * n
        while work:
            i = work.pop()
            new = {step(i, s) for s in sin[i]}
            if new <= sout[i] and seen[i]:
                continue
            seen[i] = True
            sout[i] |= new
            if len(sout[i]) > STATE_LIMIT:
                raise CheckerLimit(f"more than {STATE_LIMIT} in-flight states")
            for s in self.succ[i]:
                if not sout[i] <= sin[s] or not seen[s]:
                    sin[s] |= sout[i]
                    work.append(s)
        return sin, sout

    # ------------------------------------------------------------------ checks

    def check_overlaps(self) -> None:
        reported = set()
        for i, occ in enumerate(self.occupied):
            live = sorted(occ, key=lambda op: self.number_of[op])
            for x in range(len(live)):
                for y in range(x + 1, len(live)):
                    a, b = self.bufs[live[x]], self.bufs[live[y]]
                    if a.overlaps(b) and (a.name, b.name) not in reported:
                        reported.add((a.name, b.name))
                        self.problem(f"{a.name} and {b.name} share cells and both occupy them "
                                     f"at op {i} ({self.ops[i].name})")

    def check_allocation(self) -> None:
        columns = _int_attr(self.alloc, "columns")
        if columns not in (32, 64, 128, 256, 512):
            self.problem(f"allocation of {columns} columns is not a power of two in [32, 512]")
        if _int_attr(self.alloc, "cta_group") != self.info.cta_group:
            self.problem("the allocation's cta_group differs from the kernel's")
        entry = [o.operation for o in self.kernel.regions[0].blocks[0].operations]
        if self.alloc not in entry:
            self.problem("the allocation is not in the entry block")
            return
        position = entry.index(self.alloc)
        before = [op for op in entry[:position] if op.name.startswith("tcgen05.")
                  and op.name not in ("tcgen05.alloc_mbarrier",)]
        if before:
            self.problem(f"tcgen05 ops before the allocation: {before[0].name}")
        others = [op for op in d.walk_ops(self.kernel)
                  if op.name == "tcgen05.alloc" and op != self.alloc]
        nxt = entry[position + 1] if position + 1 < len(entry) else None
        relinquished = nxt is not None and nxt.name == "tcgen05.relinquish_alloc_permit"
        if not others and not relinquished:
            self.problem("the allocation is not followed by relinquish_alloc_permit")
        if relinquished and others:
            self.problem("the permit is relinquished but the kernel allocates again")
        for op in d.walk_ops(self.kernel):
            if op.name.startswith("tcgen05.") and "cta_group" in op.attributes \
                    and _int_attr(op, "cta_group") != self.info.cta_group:
                self.problem(f"{op.name} with cta_group {_int_attr(op, 'cta_group')}")
        for op in others:
            # The planner's allocation comes first; later ones may not be larger.
            if _int_attr(op, "columns") > columns:
                self.problem(f"a later tcgen05.alloc of {_int_attr(op, 'columns')} columns "
                             f"follows the allocation of {columns}")
        for buf in self.bufs.values():
            if buf.end_column > columns:
                self.problem(f"{buf.name} ends at column {buf.end_column}, past the "
                             f"allocation of {columns}")
            if buf.column_offset < 0:
                self.problem(f"{buf.name} starts at a negative column")

    def check_alignment(self) -> None:
        for buf in self.bufs.values():
            may16 = (buf.half and buf.layout in ("F", "C")
                     and buf.role in ("d", "a", "metadata"))
            for _, _, _, lane in buf.cells:
                if lane not in ((0, 16) if may16 else (0,)):
                    self.problem(f"{buf.name}: lane offset {lane} not allowed for a "
                                 f"{'half' if buf.half else 'full'}-lane {buf.role} of "
                                 f"Layout {buf.layout}")
            if buf.role == "metadata" and any(c[1] % 2 for c in buf.cells):
                self.problem(f"{buf.name}: metadata at an odd column")
        for op in self.ops[1:]:
            if op.name != "tcgen05.mma" or _str_attr(op, "layout") not in ("F", "C"):
                continue
            lanes = set()
            tied = []
            for bufs, certain, writes, role in self.accesses(op):
                if role in ("d", "a", "metadata"):
                    for b in bufs:
                        tied.append(self.bufs[b])
            for buf in tied:
                if buf.stage_layout == "lane_pairs" and len(tied) > 1:
                    self.problem(f"{buf.name}: lane-paired stages tied to A/metadata")
                lanes.update(c[3] for c in buf.cells)
            # The rule ties A, D and metadata of one MMA to each other; a lone buffer
            # (e.g. a D whose stages sit in both lane halves) cannot disagree with itself.
            if len(tied) > 1 and len(lanes) > 1:
                self.problem(f"MMA at op {self.number_of[op]}: A/D/metadata lane offsets "
                             f"differ: {sorted(lanes)}")

    def check_exits(self) -> None:
        """Every path frees the allocation once, after making it; nothing touches TMEM
        after the free. Walks all ops (planner ones included)."""
        all_ops = []
        index = {}

        def visit(op):
            index[op] = len(all_ops)
            all_ops.append(op)
            for region in op.regions:
                for block in region.blocks:
                    for inner in block.operations:
                        visit(inner.operation)

        for block in self.kernel.regions[0].blocks:
            for inner in block.operations:
                visit(inner.operation)
        if not all_ops:
            return
        # Successors over all ops, conservatively: loops and branches in both ways.
        succ = [set() for _ in all_ops]

        def first(block):
            return index[block.operations[0].operation]

        def nxt(op):
            seq = [o.operation for o in op.block.operations]
            k = seq.index(op)
            return index[seq[k + 1]] if k + 1 < len(seq) else None

        def terminators(region):
            for block in region.blocks:
                last = [o.operation for o in block.operations][-1]
                if not len(last.successors):
                    yield index[last]

        for op in all_ops:
            i = index[op]
            if op.name == "func.return":
                continue
            if len(op.successors):
                succ[i].update(first(b) for b in op.successors)
                continue
            regions = [r for r in op.regions if len(r.blocks)]
            after = nxt(op)
            if not regions:
                if after is not None:
                    succ[i].add(after)
                continue
            heads = [first(r.blocks[0]) for r in regions]
            succ[i].update(heads)
            if after is not None:
                succ[i].add(after)
            for region in regions:
                for t in terminators(region):
                    succ[t].update(heads)
                    if after is not None:
                        succ[t].add(after)
        base = self.alloc.results[0]
        states = [set() for _ in all_ops]
        states[0] = {"before"}
        work = [0]
        while work:
            i = work.pop()
            op = all_ops[i]
            out = set()
            for s in states[i]:
                if op == self.alloc:
                    if s != "before":
                        self.problem("the allocation may run twice")
                    out.add("allocated")
                elif op.name == "tcgen05.dealloc" and len(op.operands) and \
                        op.operands[0] == base:
                    if s != "allocated":
                        self.problem(f"dealloc at op {i} when the memory is {s}")
                    out.add("freed")
                else:
                    if s != "allocated" and any(_tmem(v) for v in op.operands) and \
                            op.name.startswith("tcgen05.") and \
                            op.name != "tcgen05.tmem_stage":
                        self.problem(f"{op.name} touches tensor memory when it is {s}")
                    out.add(s)
            if op.name == "func.return":
                if out != {"freed"}:
                    self.problem(f"a path reaches func.return with the memory {sorted(out)}")
                continue
            for s in succ[i]:
                if not out <= states[s]:
                    states[s] |= out
                    work.append(s)

    def check_json(self, entry: dict) -> None:
        by_name = {}
        for b in entry["buffers"]:
            by_name[b["name"]] = b
        columns = _int_attr(self.alloc, "columns")
        if entry["allocation_columns"] != columns:
            self.problem(f"JSON allocation {entry['allocation_columns']} != IR {columns}")
        ends = []
        lanes_of = {0: [[32 * q, 32 * q + 16] for q in range(4)],
                    16: [[32 * q + 16, 32 * q + 32] for q in range(4)]}
        events = []
        for op, buf in self.bufs.items():
            label = "%" + buf.name if not buf.name.startswith("#") else None
            names = [label] if buf.stages == 1 and buf.stage_layout is None else \
                [f"{label}[{s}]" for s in range(buf.stages)]
            for cell, name in zip(buf.cells, names):
                halves, c0, c1, lane = cell
                rec = by_name.get(name) if name else None
                if rec is None:
                    # Unnamed buffers: find by location and columns.
                    loc = op.location
                    cands = [b for b in entry["buffers"] if b["columns"] == [c0, c1]
                             and b["lane_offset"] == lane
                             and b["loc"].endswith(f":{loc.start_line}:{loc.start_col}")]
                    rec = cands[0] if cands else None
                if rec is None:
                    self.problem(f"JSON has no entry for {name or buf.name}")
                    continue
                if rec["columns"] != [c0, c1] or rec["lane_offset"] != lane:
                    self.problem(f"JSON cells of {rec['name']} differ from the IR")
                expected_lanes = [[0, 128]] if halves == 3 else lanes_of[lane]
                if rec["lanes"] != expected_lanes:
                    self.problem(f"JSON lanes of {rec['name']} are {rec['lanes']}")
                first, last = rec["live"]
                for i, occ in enumerate(self.occupied):
                    if op in occ and not first <= i <= last:
                        self.problem(f"{rec['name']} occupies its cells at op {i} "
                                     f"({self.ops[i].name}), outside its reported live "
                                     f"range [{first}, {last}]")
                        break
                ends.append(c1)
                area = (c1 - c0) * (2 if halves == 3 else 1)
                events.append((first, 1, area))
                events.append((last + 1, 0, -area))
        peak = max(ends, default=0)
        if entry["peak_columns"] != peak:
            self.problem(f"JSON peak {entry['peak_columns']} != highest column {peak}")
        smallest = 32
        while smallest < peak:
            smallest *= 2
        if columns != smallest:
            self.problem(f"allocation {columns} is not the smallest legal one for peak {peak}")
        events.sort()
        area = best = 0
        for _, _, delta in events:
            area += delta
            best = max(best, -(-area // 2))
        if entry["lower_bound_columns"] != best:
            self.problem(f"JSON lower bound {entry['lower_bound_columns']} != {best}, the "
                         f"largest lane-aware footprint of the reported live ranges")

    def run(self, json_entry: dict | None = None) -> list[str]:
        if not self.find_allocation():
            return self.problems
        self.number(self.planner_ops())
        self.graph()
        self.read_buffers()
        self.points_to()
        self.liveness()
        self.check_overlaps()
        self.check_allocation()
        self.check_alignment()
        self.check_exits()
        if json_entry is not None:
            self.check_json(json_entry)
        return self.problems


def check_module(module_op, report: dict | None = None) -> list[str]:
    """Problems of every planned kernel of a module (empty: the plans are sound)."""
    problems = []
    entries = {k["name"]: k for k in report["kernels"]} if report else {}
    for kernel in d.kernels(module_op):
        name = d.kernel_info(kernel).name
        if report is not None and name not in entries and any(
                op.name == "tcgen05.tmem_buffer" for op in d.walk_ops(kernel)):
            problems.append(f"@{name}: no JSON entry")
        problems += KernelCheck(kernel).run(entries.get(name))
    return problems


def check_text(text: str, report: dict | None = None) -> list[str]:
    """Parses planned IR text (in a fresh context) and checks it."""
    context = d.make_context()
    with context:
        module = parse_module(text, "<planned>")
        return check_module(module, report)
