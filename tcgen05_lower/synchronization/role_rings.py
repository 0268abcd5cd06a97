"""tcgen05-insert-sync{strategy=handoffs}: handoffs among more than two roles, a *ring*:
the MMA role and two or more roles that load and store the same TMEM cells, each taking
its turn on them in a fixed order, round after round (FlashAttention-4's correction
warpgroup, tests/kernels/ws_attention_gen.py option `correction`: per query tile t, the
MMA writes S_t, softmax t loads it and stores P_t and alpha over it (aliases of S_t),
the correction warpgroup loads alpha and rescales O_t, then the MMA runs P_t V into
O_t and writes the next S_t).

What makes a ring (``split_rings``): a TMEM buffer (its cells: an alias counts as its
parent, role_turns.alias_roots) accessed by three or more roles. Its buffers are every
buffer an MMA reads or writes together with it (P_t V reads P_t, on S_t's cells, and
writes O_t: S_t and O_t hand over together), shared by two or more roles; its roles,
every role accessing one of them. Each role's turns on the ring's buffers are its sites
as role_turns.py defines them (prologue, loop iteration, epilogue).

The order of the turns (``_order``): the role whose first turn reads none of the
buffers before writing it goes first (it must be the MMA role); then, repeatedly, the
one role left whose first turn reads nothing that a role left writes in its first turn
(softmax t reads S_t, which the MMA writes; the correction reads alpha, which softmax t
writes). Round k is every role's turn k in that order; the roles take as many turns
each (their loop bounds differ by constants, as for a pair).

Per ring of roles R_0 (the MMA role) .. R_(m-1), one mbarrier per role, b_i from R_i
to R_(i+1 mod m) (PTX ISA 9.7.16.6.4 canonical patterns, 9.7.13.15 mbarriers):

================================  ==========================================================
R_i's turn k is over              R_0: tcgen05.commit to b_0 after its last MMA on the
                                  ring's buffers (count 1; the commit tracks every prior
                                  MMA of the thread, 9.7.16.12.1). Another role: every
                                  thread runs tcgen05.wait::ld / wait::st (what its turn
                                  loads / stores), fence::before_thread_sync and arrives on
                                  b_i (count = its threads; 9.7.16.6.4.4)
R_i's turn k begins               it waits on b_(i-1) for the phase of R_(i-1)'s turn k
                                  (R_0: of R_(m-1)'s turn k - 1, the phase before the first
                                  for k = 0), then tcgen05.fence::after_thread_sync,
                                  before its first access (9.7.16.6.4.4); R_0's prologue
                                  (the first turn of all) waits for nothing
parity                            turn k = pro + j in the loop (j the counter, pro = 1 with
                                  a prologue), pro + U after it (U the loop's bound):
                                  parity (k - s) & 1, s = 1 for R_0, 0 for the others
the last turn of all              R_(m-1)'s: no signal (nobody waits); it must not be the
                                  MMA role's (nothing would read what it wrote) nor an
                                  iteration of a loop (its signal would have no receiver
                                  in the last one)
================================  ==========================================================

Every access of round k is ordered after every access of round k - 1 of every role, and
within a round after the earlier roles' turns: each signal follows its role's wait, so
the order is transitive along the ring (9.7.16.6.3), which is what lets the correction
load O_t in block j after P_t V_(j-1) with no mbarrier of its own: the MMA's commit of
S_t of block j (after P_t V_(j-1)), softmax t's wait and arrival, the correction's wait.
The MMA role's own order of S_t after P_t V (two MMAs of different accumulators) is
mma_hazards.py's, as for a pair; the same-thread waits and the join's, thread_order.py's
and role_handoffs.py's. Each phase is waited for by one turn, and a role's next turn
waits for the previous role's (ultimately its own previous signal's receiver), so each
waiter is within one phase of its mbarrier. Linear in the kernel: one walk of the roles,
one wait and one signal per site.

Refused with a located diagnostic (lit_tests/tcgen05-insert-sync/handoffs-diagnostics.mlir):
a ring whose buffers no role or two roles issue MMAs on, an MMA role that also loads or
stores them, roles with and without a loop, loop bounds that do not differ by a
constant, turn counts that differ, no role or two roles whose first turn writes first,
an order of the others that their first turns do not determine, and a last turn of all
that is the MMA role's or a loop iteration.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower.op_tables import OpDict
from tcgen05_lower.synchronization.alias_cells import cells_meet, op_cells
from tcgen05_lower.synchronization.common import SyncError
from tcgen05_lower.synchronization.role_turns import (WHO, Turns, _anchor, _epi, bound_offset,
                                                      buffer_name, buffer_users, role_turns)


@dataclass
class Ring:
    """The roles' turns on a ring's buffers, in the order of a round (the MMA role's
    first), and the buffers (root tmem_buffer ops, first met first)."""

    turns: list
    buffers: list
    cells: dict = field(default_factory=dict)   # id(site) -> alias_cells.op_cells entries

    @property
    def mma(self) -> Turns:
        """The MMA role's turns (what mma_hazards.py reads, as of a pair)."""
        return self.turns[0]


def split_rings(roles, aliased) -> tuple[list, OpDict]:
    """The kernel's rings (module docstring) and their buffers (root op -> True), which
    the pairs of role_turns.handoff_pairs leave out; ([], empty) when no buffer is
    accessed by more than two roles."""
    touches, users, order = buffer_users(roles, aliased)
    if not any(len(users[root]) > 2 for root in order):
        return [], OpDict()
    group = _mma_groups(order, touches)
    members = OpDict()   # group -> its shared buffers, first met first
    for root in order:
        if len(users[root]) > 1:
            members.setdefault(group.find(root), []).append(root)
    grouped = OpDict()   # group -> {role index: its touches of the group's shared buffers}
    for role in roles:
        for touch in touches[role.index]:
            if len(users[touch.root]) > 1:
                mine = grouped.setdefault(group.find(touch.root), {})
                mine.setdefault(role.index, []).append(touch)
    rings, ringed = [], OpDict()
    by_index = {role.index: role for role in roles}
    positions: dict = {}   # role index -> its body's op positions, built once
    for root in order:
        if len(users[root]) < 3 or root in ringed:
            continue
        key = group.find(root)
        for r in members[key]:
            ringed[r] = True
        rings.append(_ring(members[key], grouped[key], by_index, aliased, positions))
    return rings, ringed


def _positions(positions: dict, role) -> OpDict:
    """The positions of the ops of `role`'s body (built once per role)."""
    found = positions.get(role.index)
    if found is None:
        body = role.op.regions[0].blocks[0]
        found = positions[role.index] = OpDict((op.operation, i)
                                               for i, op in enumerate(body.operations))
    return found


class _Union:
    """Union-find over root buffer ops."""

    def __init__(self):
        self.parent = OpDict()

    def find(self, root):
        top = root
        while self.parent.get(top, top) != top:
            top = self.parent[top]
        while root != top:   # path compression: each later find is short
            self.parent[root], root = top, self.parent.get(root, root)
        return top

    def join(self, a, b) -> None:
        a, b = self.find(a), self.find(b)
        if a != b:
            self.parent[a] = b


def _mma_groups(order, touches) -> _Union:
    """The buffers one MMA reads or writes, joined (module docstring)."""
    group = _Union()
    for root in order:
        group.find(root)
    for found in touches.values():
        by_op = OpDict()
        for touch in found:
            if touch.issuer:
                first = by_op.get(touch.op)
                if first is None:
                    by_op[touch.op] = touch.root
                else:
                    group.join(first, touch.root)
    return group


def _ring(roots: list, mine: dict, by_index, aliased, positions: dict) -> Ring:
    """The ring of the buffers `roots`, from each role's touches of them (`mine`)."""
    names = ", ".join(buffer_name(r) for r in roots)
    indices = sorted(mine)
    issuing = [i for i in indices if any(t.issuer for t in mine[i])]
    if len(issuing) != 1:
        raise SyncError(mine[indices[0]][0].op,
                        f"{WHO}: the TMEM buffers {names} are accessed by {len(indices)} "
                        f"roles, {'none' if not issuing else len(issuing)} of them issuing "
                        f"MMAs on them; a ring of handoffs has one MMA role")
    mma = issuing[0]
    own = next((t for t in mine[mma] if not t.issuer), None)
    if own is not None:
        raise SyncError(own.op, f"{WHO}: role '{by_index[mma].name}' issues MMAs on {names} "
                                f"and loads or stores them; the other roles of a ring only "
                                f"load and store")
    turns = {i: role_turns(by_index[i], mine[i]) for i in indices}
    firsts = {i: _first_touches(by_index[i], turns[i], mine[i],
                                _positions(positions, by_index[i])) for i in indices}
    ordered = _order(mma, indices, turns, firsts, names)
    ring = Ring([turns[i] for i in ordered], roots)
    _align(ring, names)
    for i in indices:
        _site_cells(ring, by_index[i], turns[i], mine[i], aliased,
                    _positions(positions, by_index[i]))
    return ring


def _site_cells(ring: Ring, role, turns: Turns, touches: list, aliased, position) -> None:
    """The cells each site of `role` touches (alias_cells.op_cells), into ring.cells."""
    at = position[turns.loop] if turns.loop is not None else None
    for site in turns.sites:
        ring.cells[id(site)] = []
    for touch in touches:
        k = position[_anchor(touch.op, role.op)]
        where = "prologue" if at is None or k < at else "loop" if k == at else "epilogue"
        site = next(s for s in turns.sites if s.where == where)
        ring.cells[id(site)] += op_cells(touch.op, aliased)


def _first_touches(role, turns: Turns, touches: list, position) -> list:
    """The accesses of the role's first turn (its first site's), in program order."""
    if turns.loop is None:
        return touches
    at = position[turns.loop]
    limit = (lambda k: k == at) if turns.sites[0].where == "loop" else (lambda k: k < at)
    return [t for t in touches if limit(position[_anchor(t.op, role.op)])]


def _order(mma, indices, turns, firsts, names) -> list:
    """The roles in the order of a round (module docstring)."""
    starters = [i for i in indices if not turns[i].first_reads]
    if starters != [mma]:
        who = ", ".join(f"'{turns[i].role.name}'" for i in starters) or "none"
        raise SyncError(turns[mma].sites[0].first,
                        f"{WHO}: in the ring of handoffs on {names} the MMA role's first "
                        f"turn must be the one that writes before it reads (roles whose "
                        f"first turn does: {who})")
    written = {i: OpDict((t.root, True) for t in firsts[i] if t.writes) for i in indices}
    ordered, left = [mma], [i for i in indices if i != mma]
    while left:
        ready = [i for i in left if not any(
            _feeds(written[k], firsts[i]) for k in left if k != i)]
        if len(ready) != 1:
            raise SyncError(turns[left[0]].sites[0].first,
                            f"{WHO}: the order of the turns of roles "
                            f"{', '.join(repr(turns[i].role.name) for i in left)} on "
                            f"{names} is not determined by what their first turns read "
                            f"and write")
        ordered.append(ready[0])
        left.remove(ready[0])
    return ordered


def _feeds(written, reader: list) -> bool:
    """Whether the first turn `reader` reads a buffer of `written` (what another role's
    first turn writes)."""
    return any(t.reads and t.root in written for t in reader)


def _align(ring: Ring, names: str) -> None:
    """Every role takes as many turns; the last turn of all is not the MMA role's nor a
    loop iteration."""
    m = ring.mma
    for other in ring.turns[1:]:
        if (m.loop is None) != (other.loop is None):
            looped = m if m.loop is not None else other
            raise SyncError(looped.loop, f"{WHO}: role '{looped.role.name}' takes its turns "
                                         f"on {names} in a loop and another role of their "
                                         f"ring in none: their turns cannot be paired")
        if m.loop is None:
            continue
        offset = bound_offset(m, other, names)
        extra_m, extra_o = m.pro + offset + _epi(m), other.pro + _epi(other)
        if extra_m != extra_o:
            raise SyncError(m.loop, f"{WHO}: roles '{m.role.name}' and "
                                    f"'{other.role.name}' take different numbers of turns "
                                    f"on {names} (their prologues, loops and epilogues "
                                    f"differ by {extra_m - extra_o} turns)")
    last = ring.turns[-1].sites[-1]
    if last.where == "loop":
        raise SyncError(last.last, f"{WHO}: role '{ring.turns[-1].role.name}''s last turn "
                                   f"on {names}, the last of their ring, is an iteration "
                                   f"of its loop, whose signal would have no receiver in "
                                   f"the last iteration; give the role an epilogue turn")


# -- the ops ------------------------------------------------------------------------------

def write_ring(writer, ring: Ring) -> None:
    """Writes the ring's mbarriers, waits, fences and signals (module docstring) with
    role_handoffs' writer (alloc, emit, parity, names)."""
    for root in ring.buffers:
        writer.names[root] = buffer_name(root)
    names = ", ".join(buffer_name(r) for r in ring.buffers)
    count = len(ring.turns)
    barriers = []
    for i, turns in enumerate(ring.turns):
        after = ring.turns[(i + 1) % count].role.name
        role = turns.role
        if i == 0:
            barriers.append(writer.alloc(1, f"{role.name} -> {after} ({names}): "
                                            f"tcgen05.commit after each turn of "
                                            f"'{role.name}' on them; '{after}' waits "
                                            f"before its turn"))
        else:
            barriers.append(writer.alloc(role.threads, f"{role.name} -> {after} ({names}): "
                                                       f"the {role.threads} threads of "
                                                       f"'{role.name}' arrive after each "
                                                       f"turn; '{after}' waits before its "
                                                       f"turn"))
    for i, turns in enumerate(ring.turns):
        before = ring.turns[i - 1].role.name
        for site in turns.sites:
            fence = i == 0 or cells_meet(ring.cells[id(site)],
                                         [c for s in _between(ring, i, site)
                                          for c in ring.cells[id(s)]])
            # (module docstring; the wait stays where the fence goes: it keeps the phases
            # in step and the order transitive along the ring)
            writer.receive(turns, site, barriers[i - 1], i == 0, names, fence,
                           f"the turn of {before!r} before it in their ring")
            if i < count - 1 or site is not turns.sites[-1]:
                after = ring.turns[(i + 1) % count].role.name
                writer.send(turns, site, barriers[i], names, i == 0, f"{after!r}'s turn",
                            f"{after!r} may take its turn")


def _between(ring: Ring, i: int, site) -> list:
    """The sites of the other roles whose turns may come between role i's previous turn
    and its turn at `site` (i >= 1): before an epilogue (round T - 1), the last site of
    each role before it and, of each role after it, the sites of its turn in round
    T - 2 (all but an epilogue); before any other site, every site of the others."""
    others = [t for k, t in enumerate(ring.turns) if k != i]
    if site.where != "epilogue":
        return [s for t in others for s in t.sites]
    found = [t.sites[-1] for t in ring.turns[:i]]
    for t in ring.turns[i + 1:]:
        found += t.sites[:-1] if t.sites[-1].where == "epilogue" else t.sites
    return found
