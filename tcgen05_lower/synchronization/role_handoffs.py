"""tcgen05-insert-sync{strategy=handoffs}: the whole protocol of a kernel with warp
roles that writes none: its TMA loads' (pipelined_loads.py, as strategy=loads) and the
handoffs of TMEM buffers between the MMA role and the roles that load and store them
(examples/ws_attention_fwd_bf16.mlir: S_t, P_t and O_t between the MMA warp and softmax
warpgroup t).

role_turns.py finds the handoff pairs (the MMA role M and a role C sharing TMEM buffers)
and their turns, which alternate; per pair this module writes (PTX ISA 9.7.16.6.4
canonical patterns, 9.7.13.15 mbarriers):

=================================  ==========================================================
M's turn k -> C's turn (M first:   forward (count 1): tcgen05.commit after the last op of
k, C first: k + 1)                 M's turn on the pair's buffers (the commit tracks every
                                   prior MMA of the thread, 9.7.16.12.1: one commit hands
                                   over every buffer the turn wrote or read); C waits, then
                                   tcgen05.fence::after_thread_sync, before its turn's first
                                   access (9.7.16.6.4.4)
C's turn k -> M's turn (M first:   backward (count = C's threads): every thread of C runs
k + 1, C first: k)                 tcgen05.wait::ld (if the turn loads) and wait::st (if it
                                   stores), fence::before_thread_sync and arrives after its
                                   turn's last access (9.7.16.6.4.4: its loads and stores
                                   complete, ordered before the arrival); M waits, then
                                   fence::after_thread_sync, before its turn's first MMA on
                                   them
a role's turn k waits for          parity (k - s) & 1 of the mbarrier (s = 1 for the role
completion k - s                   that goes first, whose turn k follows the other's turn
                                   k - 1; 0 for the second): in the loop k = pro + j, after
                                   it k = pro + U (U the loop's bound); completion -1 (the
                                   first role's first turn, in its loop) is the phase before
                                   the first, which a fresh mbarrier reports complete
the second role's last turn ->     no signal: C waits for its loads and stores still in
the join                           flight and runs fence::before_thread_sync at the end of
                                   its body; fence::after_thread_sync follows the
                                   partitions op (the dealloc after the join, 9.7.16.6.4.4)
a thread's own ld / st of the      tcgen05.wait::ld / wait::st before the access
same cells                         (thread_order.py, 9.7.16.6.4.2)
=================================  ==========================================================

Two ops of the table are left out where they order nothing: the fence after a wait whose
turn touches no buffer that the other role's turn before it may have touched (the wait
stays: it keeps the phases in step; role_turns.previous_sites; kept before an MMA turn
on a buffer that a TMEM alias names, which may hold the MMA role's own order across
turns, mma_hazards.py), and a wait::ld / wait::st before an arrival when no load / store
of the thread can still be in flight there (thread_order.py drops it: a later wait in
the turn already covered them).

One forward and one backward mbarrier per pair, whatever the number of buffers: every
buffer's producer -> consumer handoff of a turn rides on the turn's one commit (or
arrival), and its consumer -> producer (WAR) handoff on the other role's. The cost of the
merge: a consumer access can start no earlier than the end of the other role's turn
(the attention kernel's MMA ends each turn with the scores S_t the softmax reads first).
Every phase is waited for by exactly one turn, and the alternation keeps each waiter
within one phase of its mbarrier (the sender's next turn waits for the receiver's
signal), so a parity names one phase. Ops each wait only before the first access of a
turn and signal after its last: linear in the kernel.
"""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower import tma
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import (CommitOp, FenceOp, MbarrierArriveOp,
                                       MbarrierWaitOp, WaitOp)
from tcgen05_lower.kernel_ir import PARTITIONS_OP, partition_roles, role_info
from tcgen05_lower.op_tables import OpDict
from tcgen05_lower.synchronization.common import WRITTEN_SYNC, SyncError
from tcgen05_lower.synchronization.emitter import Emitter
from tcgen05_lower.synchronization.phases import _const, _op
from tcgen05_lower.synchronization.pipelined_loads import _WHO as LOADS_WHO
from tcgen05_lower.synchronization.pipelined_loads import plan_pipelined_loads
from tcgen05_lower.synchronization.mma_hazards import plan_mma_hazards
from tcgen05_lower.synchronization.role_rings import split_rings, write_ring
from tcgen05_lower.synchronization.role_turns import (WHO, alias_roots, buffer_name,
                                                      handoff_pairs, previous_sites, turn_parity)
from tcgen05_lower.synchronization.thread_order import LD, ST, ThreadOrder

#: The strategy name (tcgen05-insert-sync's option).
HANDOFFS = "handoffs"


def plan_role_handoffs(kernel) -> tuple[list, list]:
    """Inserts the protocol of the module docstring (and the TMA loads' when a load
    names no mbarrier); returns the added ops and the mbarriers as (count, purpose)."""
    partitions = next((op for op in d.walk_ops(kernel) if op.name == PARTITIONS_OP), None)
    if partitions is None:
        raise SyncError(kernel, f"{WHO} plans the handoffs between warp roles; this kernel "
                                f"has no tcgen05.partitions")
    partitions = partitions.operation
    roles = [role_info(op, i) for i, op in enumerate(partition_roles(partitions))]
    written = next((op for role in roles for op in d.walk_ops(role.op)
                    if d.op_name(op) in WRITTEN_SYNC), None)
    if written is not None:
        raise SyncError(written, f"{WHO} writes the roles' synchronization, and this kernel "
                                 f"writes some of its own (use strategy=loads or none)")
    aliased = alias_roots(kernel)
    rings, ringed = split_rings(roles, aliased)   # more than two roles (role_rings.py)
    pairs = handoff_pairs(roles, aliased, ringed)
    if not pairs and not rings:
        raise SyncError(partitions, f"{WHO}: no TMEM buffer is shared by two roles, so "
                                    f"there is no handoff to plan (use strategy=loads)")
    added, barriers = [], []
    if tma.barrierless_load(kernel) is not None:
        try:
            added, barriers = plan_pipelined_loads(kernel)
        except SyncError as error:   # the same rule, named under this strategy
            raise SyncError(error.op, error.message.replace(LOADS_WHO, WHO)) from None
    writer = _Writer(partitions, added, barriers, aliased)
    for pair in pairs:
        writer.pair(pair)
    for ring in rings:
        write_ring(writer, ring)
    plan_mma_hazards(pairs + rings, aliased, writer)
    writer.join(roles, pairs)
    return writer.added, writer.barriers


class _Writer(Emitter):
    """Builds the ops of the module docstring and records them."""

    def __init__(self, partitions, added: list, barriers: list, aliased=None):
        self.partitions = partitions
        self.aliased = aliased     # TMEM aliases -> their parents (role_turns.alias_roots)
        self.added, self.barriers = added, barriers
        self.constants: dict = {}
        self.names = OpDict()
        self.optional = OpDict()   # waits the walk of thread_order.py may drop

    def pair(self, pair) -> None:
        for root in pair.buffers:
            self.names[root] = buffer_name(root)
        names = ", ".join(buffer_name(r) for r in pair.buffers)
        m, c = pair.mma.role, pair.other.role
        forward = self.alloc(1, f"{m.name} -> {c.name} ({names}): tcgen05.commit after each "
                                f"turn of '{m.name}' on them; '{c.name}' waits before its "
                                f"turn")
        backward = self.alloc(c.threads, f"{c.name} -> {m.name} ({names}): the {c.threads} "
                                         f"threads of '{c.name}' arrive after each turn; "
                                         f"'{m.name}' waits before its turn")
        for turns, out, into in ((pair.mma, forward, backward), (pair.other, backward,
                                                                  forward)):
            first, issuer = turns is pair.first, turns is pair.mma
            sender = pair.other if issuer else pair.mma
            for site in turns.sites:
                fence = site.shares(previous_sites(turns, site, sender, first)) or \
                    (issuer and self.aliased_cells(site))
                other = "the loads and stores" if issuer else "the MMAs"
                self.receive(turns, site, into, first, names, fence,
                             f"{other} of the other role's previous turn on them")
                if first or site is not turns.sites[-1]:
                    self.send(turns, site, out, names, issuer, "the other role's next turn",
                              "the MMA role's next turn may overwrite and read them")

    # -- one site -------------------------------------------------------------------------
    def receive(self, turns, site, barrier, first: bool, names: str, fence: bool,
                waits_for: str) -> None:
        """The wait before the site's first access for the previous turn (`waits_for`
        says whose), and the fence after it when that turn may have touched a buffer this
        one does (the wait alone keeps the phases in step: each turn waits for one). The
        first turn of all (`first`, in the prologue) waits for nothing. The pair and the
        ring planners (role_rings.py) both write through it."""
        if site.where == "prologue" and first:
            return   # the first turn of all: the buffers hold nothing of another role
        op = site.first
        with ir.InsertionPoint(op), op.location:
            parity, when = turn_parity(self, turns, site, 1 if first else 0)
            self.emit(MbarrierWaitOp, barrier=barrier, phase=parity,
                      reason=f"{turns.role.name!r} accesses {names} after {waits_for} "
                             f"({when})")
            if fence:
                self.emit(FenceOp, kind="after_thread_sync",
                          reason=f"{turns.role.name!r}'s tcgen05 ops on {names} ordered "
                                 f"after the mbarrier wait (9.7.16.6.4.4)")

    def send(self, turns, site, barrier, names: str, issuer: bool, next_turn: str,
             then: str) -> None:
        """The signal after the site's last access: a commit (`issuer`, the MMA role), or
        waits, fence, arrive; `next_turn` names the turn the signal lets go, `then` what
        it may do."""
        op = site.last
        with ir.InsertionPoint.after(op), op.location:
            if issuer:
                self.emit(CommitOp, barrier=barrier,
                          reason=f"the MMAs of {turns.role.name!r}'s turn on {names} "
                                 f"complete before {next_turn} (the commit tracks every "
                                 f"prior MMA of the thread, 9.7.16.12.1)")
                return
            for kind, present in ((LD, site.loads), (ST, site.stores)):
                if present:
                    # Dropped by the walk of thread_order.py when nothing of its kind can
                    # still be in flight there.
                    self.optional[self.emit(
                        WaitOp, kind=kind,
                        reason=f"the tcgen05.{kind} of {turns.role.name!r}'s turn on "
                               f"{names} complete before its arrival (9.7.16.6.4.4)"
                    ).operation] = True
            self.emit(FenceOp, kind="before_thread_sync",
                      reason=f"{turns.role.name!r}'s tcgen05 ops on {names} ordered before "
                             f"its arrival (9.7.16.6.4.4)")
            self.emit(MbarrierArriveOp, barrier=barrier,
                      reason=f"{turns.role.name!r}'s turn on {names} is over: {then}")

    # -- the join -------------------------------------------------------------------------
    def join(self, roles, pairs) -> None:
        """The same-thread waits in every role that loads or stores, what its end waits
        for, and the fence after the partitions op."""
        order = ThreadOrder(self.emit, self.names, self.optional, self.aliased)
        for role in roles:
            pending = order.role(role)
            if not pending:
                continue
            body = role.op.regions[0].blocks[0]
            end = body.operations[len(body.operations) - 1]
            with ir.InsertionPoint(end), end.location:
                for kind in (LD, ST):
                    if kind in pending:
                        self.emit(WaitOp, kind=kind,
                                  reason=f"the tcgen05.{kind} of {role.name!r} complete "
                                         f"before the join of the roles and the dealloc "
                                         f"after it (9.7.16.6.4.4)")
                self.emit(FenceOp, kind="before_thread_sync",
                          reason=f"{role.name!r}'s tcgen05 ops ordered before the join "
                                 f"(9.7.16.6.4.4)")
        with ir.InsertionPoint.after(self.partitions), self.partitions.location:
            self.emit(FenceOp, kind="after_thread_sync",
                      reason="the dealloc after the roles' join ordered after their TMEM "
                             "accesses (9.7.16.6.4.4)")
        dropped = OpDict((op, True) for op in order.dropped)
        self.added[:] = [op for op in self.added if op.operation not in dropped]
        for op in order.dropped:
            op.erase()

    # -- helpers --------------------------------------------------------------------------
    def aliased_cells(self, site) -> bool:
        """Whether the MMA site touches a buffer an alias names: an MMA of it may write
        cells an MMA of the role's previous turn, with another accumulator, read, which
        only this fence orders after that turn's commit (mma_hazards.py), so it stays
        even where the other role's turn touched none of the site's buffers."""
        if self.aliased is None:
            return False
        parents = self.aliased.values()
        return any(root in parents for root in site.roots)

    def parity(self, base, plus: int):
        """(base + plus) & 1 as i32 at the insertion point (plus & 1 if base is None)."""
        i32 = ir.IntegerType.get_signless(32)
        if base is None:
            return _const(plus & 1, i32)
        index = ir.IndexType.get()
        if plus & 1:
            base = _op("arith.addi", [base, self.index(1)], index)
        return _op("arith.index_cast", [_op("arith.andi", [base, self.index(1)], index)],
                   i32)
