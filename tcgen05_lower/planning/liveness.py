"""When each TMEM buffer must keep its cells: liveness over a :class:`Program`.

This is the definition the planner uses (the test suite's checker implements the same
definition independently and checks the planner against it).

Occupancy
---------
A root buffer X *occupies* its cells at op n when

(a) n defines X (its ``tcgen05.tmem_buffer``) or accesses X; or
(b) just before or just after n, X is defined and may still be accessed: some path from
    the kernel entry to that point passes X's definition, and some path from that point
    accesses X before passing its definition again (a buffer defined in a loop body is a
    new buffer in every iteration); or
(c) just before or just after n, an asynchronous op that accesses X may still be in
    flight: it was issued on some path to that point and is not known complete there.

So a buffer lives from its definition, like an allocation: where the ``tcgen05.tmem_buffer``
op stands is how a kernel says when a buffer starts.

Completion of asynchronous ops
------------------------------
``tcgen05-plan-tmem`` runs before ``tcgen05-insert-sync``, so there are no waits yet to
look at. Instead, an asynchronous op R counts as complete at an op B only where *any*
correct synchronization must already have completed it, whatever it chooses:

1. B is ``tcgen05.dealloc`` or ``func.return`` (all TMEM accesses are ordered before the
   memory is freed, 9.7.16.7.1), or B is a ``tcgen05.wait::ld`` (completes every load
   issued before it) or ``::st`` (every store) (9.7.16.8.5).
2. B *certainly conflicts* with R: both certainly access the same root buffer (see
   ``program``), one of them writes it, and R -> B is not one of the pipelined pairs of
   9.7.16.6.2 (mma -> mma on the same accumulator, cp -> mma, shift -> mma,
   mma -> shift, shift -> cp.4x256b). B must wait for R.
3. B uses the registers R loaded (R a ``ld`` / ``ld_red``): the register dependency rule
   needs wait::ld before B (9.7.16.6.4.5).
4. R' completes at B by 2 or 3, R is of the same completion class (commit/mbarrier for
   mma, cp, shift; wait::ld; wait::st), and on every path on which R is in flight here,
   R was issued before the latest issue of R'. The wait that completes R' is after R',
   and commit (9.7.16.12.1) and wait::ld / wait::st (9.7.16.8.5) cover every op of their
   class issued earlier by the same thread. Single-thread ops (mma, cp, shift) are all
   issued by the one elected thread (Table 46), loads and stores by every warp of the
   warpgroup.

A user-written ``tcgen05.mbarrier_wait`` is not taken as a completion (which phase it
waits for is not known here). Rules 2-4 may end a buffer's live range *earlier* than the
wait that insert-sync will place, never later than the op that needs the result, so the
planner never asks the sync pass for a wait it would not insert anyway.

Partitions
----------
The roles of a ``tcgen05.partitions`` run concurrently (docs/partitions.md): nothing
orders an op of one role before an op of another except the synchronization the kernel
writes, which this analysis does not read. So a root that occupies its cells at any op
inside a partitions op occupies them at every op inside it: it is live across the whole
op, and two buffers used by different roles never share cells.

Live range
----------
The live range of X is [first, last]: the first and last op indices at which X occupies
its cells (the convex hull in program order, so loops and branches are covered whole where
needed). A buffer that is never accessed occupies only its defining op.

The analysis is three dataflow problems on the flat graph (may-be-defined forward,
may-be-accessed backward, in-flight forward); each op is revisited only when its input
changes, so structured loops converge in a few sweeps. The in-flight state holds one
record per distinct access signature (ops that touch the same buffers the same way
behave the same), so its size is bounded by the number of distinct asynchronous accesses,
not by the kernel's length.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass

from tcgen05_lower.dialect import walk_ops
from tcgen05_lower.dialect.ops import LdOp, LdRedOp
from tcgen05_lower.kernel_ir import PARTITIONS_OP
from tcgen05_lower.planning.program import ASYNC_CLASS, Node, Program


@dataclass(frozen=True)
class Record:
    """A set of asynchronous ops with one access signature."""

    klass: str
    kind: str
    cp_shape: str | None
    may_roots: int
    certain: tuple[tuple[int, bool], ...]  # (root, writes) of its certain accesses
    accumulator: int  # certain root of an mma's D, else -1


@dataclass
class Liveness:
    """The result of :func:`analyze`."""

    #: Per root: (first, last) program-order indices, inclusive.
    intervals: list[tuple[int, int]]
    #: Per op: bit mask of the roots occupying their cells there.
    occupancy: list[int]
    #: Per tcgen05.partitions: (its index, the index of its last nested op, the roots
    #: live across it because some role touches them), see "Partitions" above.
    concurrent: list[tuple[int, int, int]] = None


def _certain_map(node: Node) -> dict[int, bool]:
    out: dict[int, bool] = {}
    for a in node.accesses:
        if a.certain >= 0:
            out[a.certain] = out.get(a.certain, False) or a.writes
    return out


def _accumulator(node: Node) -> int:
    for a in node.accesses:
        if a.role == "d":
            return a.certain
    return -1


def _pipelined(earlier: Record, later_kind: str | None, later_acc: int,
               later_shape: str | None) -> bool:
    """9.7.16.6.2: the pairs that execute in issue order without a wait."""
    pair = (earlier.kind, later_kind)
    if pair == ("mma", "mma"):
        return earlier.accumulator >= 0 and earlier.accumulator == later_acc
    if pair in (("cp", "mma"), ("shift", "mma"), ("mma", "shift")):
        return True
    if pair == ("shift", "cp"):
        return later_shape == "4x256b"
    return False


class _Busy:
    """The in-flight dataflow problem."""

    def __init__(self, program: Program):
        self.nodes = program.nodes
        self.records: list[Record] = []
        self.record_of: list[int] = [-1] * len(program.nodes)
        signatures: dict = {}
        for node in program.nodes:
            if node.async_kind is None or not node.accesses:
                continue
            klass = ASYNC_CLASS[node.async_kind]
            certain = tuple(sorted(_certain_map(node).items()))
            may = 0
            for a in node.accesses:
                may |= a.roots
            if klass == "L":
                key = ("L", node.index)  # rule 3 names the load itself
            else:
                key = (klass, node.async_kind, node.cp_shape,
                       tuple(sorted((a.roots, a.certain, a.reads, a.writes, a.role)
                                    for a in node.accesses)))
            if key not in signatures:
                signatures[key] = len(self.records)
                self.records.append(Record(klass, node.async_kind, node.cp_shape, may,
                                           certain, _accumulator(node)))
            self.record_of[node.index] = signatures[key]
        self.certain = [_certain_map(n) for n in program.nodes]
        self.accumulators = [_accumulator(n) for n in program.nodes]
        self.load_records = {i: self.record_of[i] for i, n in enumerate(program.nodes)
                             if n.async_kind in (LdOp.NAME, LdRedOp.NAME)}

    def completed_here(self, node: Node, inflight: frozenset) -> set:
        """Records completed at `node` by rules 1-3."""
        done = set()
        certain = self.certain[node.index]
        sources = {self.load_records.get(s, -1) for s in node.fragment_sources}
        for r in inflight:
            record = self.records[r]
            if record.klass in node.completes or r in sources:
                done.add(r)
                continue
            if not certain:
                continue
            for root, writes in record.certain:
                if root in certain and (writes or certain[root]) and not _pipelined(
                        record, node.async_kind, self.accumulators[node.index],
                        node.cp_shape):
                    done.add(r)
                    break
        return done

    def transfer(self, node: Node, state):
        """The in-flight state after `node`: completions (rules 1-4), then its issue."""
        inflight, covered = state
        done = self.completed_here(node, inflight)
        if done:
            # Rule 4: everything issued before a completed record, on every path.
            grew = True
            while grew:
                grew = False
                for a, b in covered:
                    if b in done and a not in done:
                        done.add(a)
                        grew = True
            inflight = inflight - done
            covered = frozenset((a, b) for a, b in covered if a not in done and b not in done)
        issued = self.record_of[node.index]
        if issued >= 0:
            klass = self.records[issued].klass
            # The new instance is younger than everything in flight.
            covered = {(a, b) for a, b in covered if a != issued}
            for a in inflight:
                if a != issued and self.records[a].klass == klass:
                    covered.add((a, issued))
            covered = frozenset(covered)
            inflight = inflight | {issued}
        return inflight, covered


def _join(s1, s2):
    """Least upper bound: in flight on some path; covered where it holds on every path on
    which its first record is in flight."""
    if s1 is None:
        return s2
    if s2 is None:
        return s1
    in1, cov1 = s1
    in2, cov2 = s2
    pairs = set()
    for a, b in cov1 | cov2:
        if (a not in in1 or (a, b) in cov1) and (a not in in2 or (a, b) in cov2):
            pairs.add((a, b))
    return in1 | in2, frozenset(pairs)


def _predecessors(nodes: list[Node]) -> list[list[int]]:
    preds: list[list[int]] = [[] for _ in nodes]
    for node in nodes:
        for s in node.succ:
            preds[s].append(node.index)
    return preds


def _forward(nodes, preds, transfer, join, bottom, entry_state):
    """Worklist solution of a forward problem; returns (in, out) per node."""
    n = len(nodes)
    state_in = [bottom] * n
    state_out = [bottom] * n
    if not n:
        return state_in, state_out
    state_in[0] = entry_state
    heap = [0]
    queued = {0}
    while heap:
        i = heapq.heappop(heap)
        queued.discard(i)
        new_out = transfer(nodes[i], state_in[i])
        if new_out == state_out[i] and state_out[i] is not bottom:
            continue
        state_out[i] = new_out
        for s in nodes[i].succ:
            joined = join(state_in[s], new_out)
            if joined != state_in[s] or state_in[s] is bottom:
                state_in[s] = joined
                if s not in queued:
                    queued.add(s)
                    heapq.heappush(heap, s)
    return state_in, state_out


def analyze(program: Program) -> Liveness:
    """Live ranges of every root of `program` (see the module docstring)."""
    nodes = program.nodes
    n = len(nodes)
    preds = _predecessors(nodes)
    touches = [0] * n
    defines = [node.defines for node in nodes]
    for node in nodes:
        for a in node.accesses:
            touches[node.index] |= a.roots

    # (b) may-be-defined, forward.
    defined_in, defined_out = _forward(
        nodes, preds, lambda node, s: (s or 0) | defines[node.index],
        lambda a, b: (a or 0) | (b or 0), None, 0)
    defined_in = [x or 0 for x in defined_in]
    defined_out = [x or 0 for x in defined_out]

    # (b) may-be-accessed, backward (a definition starts a new buffer).
    used_in = [0] * n
    used_out = [0] * n
    heap = [-i for i in range(n)]
    heapq.heapify(heap)
    queued = set(range(n))
    while heap:
        i = -heapq.heappop(heap)
        queued.discard(i)
        out = 0
        for s in nodes[i].succ:
            out |= used_in[s]
        used_out[i] = out
        new_in = (out & ~defines[i]) | touches[i]
        if new_in != used_in[i]:
            used_in[i] = new_in
            for p in preds[i]:
                if p not in queued:
                    queued.add(p)
                    heapq.heappush(heap, -p)

    # (c) in flight, forward.
    busy = _Busy(program)
    empty = (frozenset(), frozenset())
    busy_in, busy_out = _forward(nodes, preds, busy.transfer, _join, None, empty)
    roots_of: dict = {}

    def busy_roots(state) -> int:
        if state is None:
            return 0
        inflight = state[0]
        if inflight not in roots_of:
            mask = 0
            for r in inflight:
                mask |= busy.records[r].may_roots
            roots_of[inflight] = mask
        return roots_of[inflight]

    occupancy = []
    for i in range(n):
        occ = touches[i] | defines[i] | (defined_in[i] & used_in[i]) \
            | (defined_out[i] & used_out[i])
        occ |= busy_roots(busy_in[i]) | busy_roots(busy_out[i])
        occupancy.append(occ)

    concurrent = _concurrent_roles(program, occupancy)

    first = [-1] * len(program.roots)
    last = [-1] * len(program.roots)
    for i, occ in enumerate(occupancy):
        while occ:
            low = occ & -occ
            r = low.bit_length() - 1
            if first[r] < 0:
                first[r] = i
            last[r] = i
            occ ^= low
    intervals = []
    for root in program.roots:
        if first[root.index] < 0:
            intervals.append((root.definition, root.definition))
        else:
            intervals.append((first[root.index], last[root.index]))
    return Liveness(intervals, occupancy, concurrent)


def _concurrent_roles(program: Program, occupancy: list[int]) -> list:
    """Partitions (see the module docstring): the roles of a ``tcgen05.partitions`` run
    at the same time, so a root that occupies its cells anywhere inside one occupies them
    at every op of it. The flat graph runs the roles one after another; widening the
    occupancy over the op's whole span makes the intervals cover every role. Each op is
    visited once (partitions do not nest)."""
    found = []
    ops = program.ops
    i = 1
    while i < len(ops):
        if ops[i].name != PARTITIONS_OP:
            i += 1
            continue
        last = i + sum(1 for _ in walk_ops(ops[i]))
        mask = 0
        for j in range(i, last + 1):
            mask |= occupancy[j]
        for j in range(i, last + 1):
            occupancy[j] |= mask
        found.append((i, last, mask))
        i = last + 1
    return found
