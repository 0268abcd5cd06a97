"""The turns warp roles take on the TMEM buffers they hand to each other: what
tcgen05-insert-sync{strategy=handoffs} (role_handoffs.py) reads before it writes the
protocol.

A *handoff pair* is the MMA role M (the one role issuing tcgen05.mma on a buffer) and a
role C that loads or stores the same buffer (tcgen05.ld / tcgen05.st); its buffers are
every TMEM buffer the two share. Two operands name the same buffer when they have the
same root (kernel_ir.root_buffers: the ``tcgen05.tmem_buffer`` their value comes from),
so a view of a buffer counts as the buffer it views, and a TMEM alias (``alias = "X"``)
as X, whose cells it names (mma_hazards.py).

A role's *turn* on its pair's buffers is one execution of one of its *sites*:

- the role's loop: the first ``scf.for`` of its body (in program order) that holds an
  access of the pair's buffers, counting from 0 by 1: each iteration is one turn;
- its prologue: the ops of its body before that loop that access them (one turn);
- its epilogue: those after the loop (one turn); without a loop, the body is one turn.

An access nested deeper (an scf.if or scf.for inside a site) belongs to the site that
holds it; the site's *anchors* are the ops of the site's block holding its first and its
last access, where the protocol's waits and signals go. Turn k of role R is its k-th
turn in program order: prologue 0, loop iteration j is turn pro + j (pro = 1 with a
prologue), the epilogue pro + U with U the loop's trip count.

The two roles' turns alternate: M_0, C_0, M_1, C_1, ... when M goes first (or C first).
The role whose first turn reads a buffer of the pair before writing it goes second (it
reads what the other wrote); the two roles must take as many turns for every trip
count: pro_M + U_M + epi_M = pro_C + U_C + epi_C, with U_M - U_C a constant (their
bounds differ by arithmetic on constants, pipelined_loads._offset_from).

Refused with a located diagnostic naming the rule (lit_tests/tcgen05-insert-sync/
handoffs-diagnostics.mlir): TMEM accesses other than mma, ld and st in roles (cp, shift,
ld_red), multi-stage TMEM buffers (tmem_stage rings), an operand whose buffer the pass
cannot trace to one root, a buffer shared by more than two roles or by two roles neither
or both of which issue the MMAs, a role that issues MMAs and loads or stores the buffers
it shares, a loop not from 0 by 1, loops whose bounds do not differ by a constant, turn
counts that differ, first turns that both (or neither) read what the other writes, and a
last turn that the MMA role takes (nothing would read what it wrote) or that is an
iteration of the second role's loop (its signal would have no receiver in the last
iteration). Cost: one walk of the roles, one pass over each site's block: linear in the
kernel."""

from __future__ import annotations

from dataclasses import dataclass, field

from tcgen05_lower import dialect as d
from tcgen05_lower.dialect.ops import LdOp, MmaOp, StOp, TmemBufferOp
from tcgen05_lower.kernel_ir import root_buffers
from tcgen05_lower.op_tables import OpDict
from tcgen05_lower.planning.aliases import parents
from tcgen05_lower.synchronization.common import SyncError, constant_value, enclosing_op
from tcgen05_lower.synchronization.pipelined_loads import _offset_from

#: The strategy's name in diagnostics.
WHO = "tcgen05-insert-sync{strategy=handoffs}"
#: TMEM accesses in roles that the handoffs do not plan yet.
UNPLANNED = ("cp", "shift", "ld_red")


@dataclass
class Touch:
    """One TMEM access of a role: its op, the root buffer op, whether it reads and
    writes the buffer, and whether the role's issuing thread runs it (mma) or every
    thread (ld, st)."""

    op: object
    root: object
    reads: bool
    writes: bool
    issuer: bool

    @property
    def load(self) -> bool:
        return self.op.name == "tcgen05." + LdOp.NAME

    @property
    def store(self) -> bool:
        return self.op.name == "tcgen05." + StOp.NAME


@dataclass
class Site:
    """A site of a role's turns (module docstring): where ("prologue", "loop",
    "epilogue"), the block its anchors sit in, the first and the last anchor, and
    whether it loads / stores the pair's buffers (the waits before its signal)."""

    where: str
    block: object
    first: object
    last: object
    loads: bool = False
    stores: bool = False
    roots: list = field(default_factory=list)   # the buffers it touches

    def shares(self, others: list) -> bool:
        """Whether it touches a buffer one of the sites `others` touches."""
        return any(root in site.roots for site in others for root in self.roots)


@dataclass
class Turns:
    """A role's turns on its pair's buffers."""

    role: object
    sites: list
    loop: object = None        # the scf.for of its loop site, if any
    pro: int = 0               # 1 when it has a prologue site
    first_reads: bool = False  # its first turn reads a buffer before writing it

    @property
    def bound(self):
        return self.loop.operands[1] if self.loop is not None else None


@dataclass
class Pair:
    """A handoff pair: the MMA role's and the other role's turns on their buffers, and
    which goes first."""

    mma: Turns
    other: Turns
    buffers: list               # root tmem_buffer ops, first met first
    first: Turns = None
    touches: dict = field(default_factory=dict)

    @property
    def second(self) -> Turns:
        return self.other if self.first is self.mma else self.mma


def buffer_name(root) -> str:
    """The buffer's ``name`` attribute, or a placeholder."""
    name = TmemBufferOp(root).name
    return name if name else "a TMEM buffer"


def alias_roots(kernel) -> OpDict:
    """alias ``tcgen05.tmem_buffer`` op -> the buffer op whose cells it names (one pass
    over the kernel's buffers; planning.aliases.parents)."""
    buffers = [op.operation for op in d.walk_ops(kernel) if TmemBufferOp.matches(op)]
    return OpDict(parents(buffers).items())


def cells_root(root, aliased):
    """The buffer op owning the cells of buffer op `root` (its parent if it is an alias)."""
    if root is None or aliased is None or root not in aliased:
        return root
    return aliased[root]


def role_touches(role, aliased=None) -> list:
    """Every TMEM access of `role`, in program order (refuses the unplanned ones); an
    alias's accesses count as its parent's (`aliased`, :func:`alias_roots`)."""
    found = []
    for op in d.walk_ops(role.op):
        name = d.op_name(op)
        if name is None:
            continue
        op = op.operation
        if name in UNPLANNED:
            raise SyncError(op, f"{WHO}: tcgen05.{name} in a role is not planned yet (the "
                                f"handoffs cover tcgen05.mma, tcgen05.ld and tcgen05.st)")
        if name == MmaOp.NAME:
            found.extend(_mma_touches(op, aliased))
        elif name == LdOp.NAME:
            found.append(Touch(op, _root(LdOp(op).source, op, aliased), True, False, False))
        elif name == StOp.NAME:
            found.append(Touch(op, _root(StOp(op).dest, op, aliased), False, True, False))
    return found


def _mma_touches(op, aliased) -> list:
    mma = MmaOp(op)
    # A from tensor memory, scale factors and sparsity metadata: read.
    found = [Touch(op, _root(v, op, aliased), True, False, True)
             for v in (mma.a, mma.scale_a, mma.scale_b, mma.metadata)
             if v is not None and d.is_tmem(v)]
    # enable_input_d constant false: the MMA overwrites D without reading it.
    accumulates = constant_value(mma.enable_input_d) != 0
    return found + [Touch(op, _root(mma.d, op, aliased), accumulates, True, True)]


def _root(value, op, aliased=None):
    roots = root_buffers(value)
    if roots is None or len(roots) != 1:
        what = "buffers the pass cannot trace" if roots is None else \
            f"{len(roots)} buffers"
        raise SyncError(op, f"{WHO}: a TMEM operand that may name {what}; each operand "
                            f"must name one buffer")
    root = cells_root(roots[0], aliased)
    if len(d.type_info(root.results[0].type).shape) > 2:
        raise SyncError(op, f"{WHO}: a multi-stage TMEM buffer (tmem_stage ring) is not "
                            f"planned yet: each stage would need handoffs of its own")
    return root


def buffer_users(roles, aliased=None):
    """Each role's touches of TMEM buffers ({role index: [touches]}), and for each buffer
    (its root, `aliased`: :func:`alias_roots`) the touches by role ({root: {role index:
    [touches]}}) with the roots in the order first met (roles in order, each in program
    order)."""
    touches = {role.index: role_touches(role, aliased) for role in roles}
    users, order = OpDict(), []
    for role in roles:
        for touch in touches[role.index]:
            if touch.root not in users:
                users[touch.root] = {}
                order.append(touch.root)
            users[touch.root].setdefault(role.index, []).append(touch)
    return touches, users, order


def handoff_pairs(roles, aliased=None, ringed=None) -> list:
    """The kernel's handoff pairs, each with its turns and its first role (module
    docstring); `aliased`: :func:`alias_roots`; `ringed`: buffers of rings
    (role_rings.py), left out."""
    touches, users, order = buffer_users(roles, aliased)
    by_index = {role.index: role for role in roles}
    pairs: dict = {}
    for root in order:
        shared = users[root]
        if len(shared) < 2 or (ringed is not None and root in ringed):
            continue   # one role's own buffer (no handoff), or a ring's
        key = _pair_of(root, shared)
        pairs.setdefault(key, []).append(root)
    issuers = {m for m, _ in pairs}
    others = {c for _, c in pairs}
    for m, c in pairs:
        if m in others or c in issuers:
            role = by_index[m if m in others else c]
            raise SyncError(role.op, f"{WHO}: role '{role.name}' issues MMAs on some "
                                     f"shared TMEM buffers and loads or stores others; "
                                     f"the handoffs are between an MMA role and roles "
                                     f"that only load and store")
    return [_pair(by_index[m], by_index[c], roots, touches) for (m, c), roots in pairs.items()]


def _pair_of(root, shared: dict) -> tuple:
    issuing = [r for r, ts in shared.items() if any(t.issuer for t in ts)]
    if len(shared) > 2 or len(issuing) != 1:
        first = next(t for ts in shared.values() for t in ts)
        why = f"{len(shared)} roles" if len(shared) > 2 else \
            f"two roles, {'both' if issuing else 'neither'} issuing its MMAs"
        raise SyncError(first.op, f"{WHO}: TMEM buffer {buffer_name(root)} is accessed by "
                                  f"{why}; a handoff is between the MMA role and one role "
                                  f"that loads or stores the buffer")
    m = issuing[0]
    return m, next(r for r in shared if r != m)


def _pair(mma_role, other_role, roots, touches) -> Pair:
    picked = OpDict((root, True) for root in roots)
    mine = [t for t in touches[mma_role.index] if t.root in picked]
    theirs = [t for t in touches[other_role.index] if t.root in picked]
    pair = Pair(role_turns(mma_role, mine), role_turns(other_role, theirs), roots)
    _align(pair)
    return pair


def role_turns(role, touches: list) -> Turns:
    """The sites of `role`'s turns on the buffers of `touches` (module docstring)."""
    body = role.op.regions[0].blocks[0]
    position = OpDict((op.operation, i) for i, op in enumerate(body.operations))
    anchors = [(_anchor(t.op, role.op), t) for t in touches]
    loops = [a for a, _ in anchors if a.name == "scf.for"]
    loop = min(loops, key=lambda a: position[a]) if loops else None
    if loop is None:
        return Turns(role, [_site("prologue", body, anchors, position)],
                     first_reads=_reads_first([t for _, t in anchors]))
    _check_loop(loop, role)
    at = position[loop]
    inner = loop.regions[0].blocks[0]
    inner_position = OpDict((op.operation, i) for i, op in enumerate(inner.operations))
    before = [(a, t) for a, t in anchors if position[a] < at]
    during = [(_anchor(t.op, loop), t) for a, t in anchors if a == loop]
    after = [(a, t) for a, t in anchors if position[a] > at]
    sites = []
    if before:
        sites.append(_site("prologue", body, before, position))
    sites.append(_site("loop", inner, during, inner_position))
    if after:
        sites.append(_site("epilogue", body, after, position))
    first = before or during
    return Turns(role, sites, loop, 1 if before else 0,
                 _reads_first([t for _, t in first]))


def _anchor(op, holder):
    """The op of `holder`'s (first) block that holds `op`."""
    while True:
        parent = enclosing_op(op)
        if parent == holder:
            return op
        op = parent


def _site(where: str, block, anchored: list, position) -> Site:
    ranked = sorted(anchored, key=lambda at: position[at[0]])
    roots = []
    for _, touch in anchored:
        if touch.root not in roots:
            roots.append(touch.root)
    return Site(where, block, ranked[0][0], ranked[-1][0],
                loads=any(t.load for _, t in anchored),
                stores=any(t.store for _, t in anchored), roots=roots)


def _reads_first(touches: list) -> bool:
    """Whether the accesses (in program order) read a buffer before writing it."""
    written = []
    for touch in touches:
        if touch.reads and touch.root not in written:
            return True
        if touch.writes:
            written.append(touch.root)
    return False


def _check_loop(loop, role) -> None:
    if constant_value(loop.operands[0]) != 0 or constant_value(loop.operands[2]) != 1:
        raise SyncError(loop, f"{WHO}: the loop of role '{role.name}''s turns must count "
                              f"from 0 by 1 (its iteration is the turn)")


def _align(pair: Pair) -> None:
    """Checks that the two roles take as many turns and decides which goes first."""
    m, c = pair.mma, pair.other
    names = ", ".join(buffer_name(r) for r in pair.buffers)
    if (m.loop is None) != (c.loop is None):
        looped = m if m.loop is not None else c
        raise SyncError(looped.loop, f"{WHO}: role '{looped.role.name}' takes its turns on "
                                     f"{names} in a loop and the other role in none: their "
                                     f"turns cannot be paired")
    if m.loop is not None:
        offset = bound_offset(m, c, names)
        extra_m, extra_c = m.pro + offset + _epi(m), c.pro + _epi(c)
    else:
        extra_m = extra_c = 1
    if extra_m != extra_c:
        raise SyncError(m.loop or m.role.op,
                        f"{WHO}: roles '{m.role.name}' and '{c.role.name}' take different "
                        f"numbers of turns on {names} (their prologues, loops and "
                        f"epilogues differ by {extra_m - extra_c} turns)")
    if m.first_reads == c.first_reads:
        raise SyncError(c.sites[0].first,
                        f"{WHO}: the first turns of roles '{m.role.name}' and "
                        f"'{c.role.name}' on {names} {'both' if m.first_reads else 'neither'}"
                        f" read what the other writes: which goes first is not determined")
    pair.first = c if m.first_reads else m
    last = pair.second.sites[-1]
    if pair.second is m:
        raise SyncError(last.last, f"{WHO}: the last turn on {names} is the MMA role's: "
                                   f"no role reads what its MMAs write there")
    if last.where == "loop":
        raise SyncError(last.last, f"{WHO}: role '{c.role.name}''s last turn on {names} "
                                   f"is an iteration of its loop, whose signal would have "
                                   f"no receiver in the last iteration; give the role an "
                                   f"epilogue turn")


def _epi(turns: Turns) -> int:
    return 1 if turns.sites[-1].where == "epilogue" else 0


def bound_offset(m: Turns, other: Turns, names: str) -> int:
    """d when the bound of `m`'s loop is the bound of `other`'s plus d (either written from
    the other, by addi / subi of constants); refused when the bounds do not differ by a
    constant, since the roles' turns then cannot be paired."""
    offset = _offset_from(m.bound, other.bound)
    if offset is not None:
        return offset
    back = _offset_from(other.bound, m.bound)
    if back is None:
        raise SyncError(m.loop, f"{WHO}: the bounds of the loops of roles "
                                f"'{m.role.name}' and '{other.role.name}' on {names} "
                                f"must differ by a constant")
    return -back


def previous_sites(receiver: Turns, site: Site, sender: Turns, first: bool) -> list:
    """The sites of `sender` that may hold the turn just before `site`'s turns of
    `receiver` (`first`: the receiver goes first): before its prologue, the sender's first
    site; before its epilogue, the sender's last site (the receiver second) or any other
    (first: turn T - 2 is the sender's loop, or its prologue when the loop runs no
    iteration); before an iteration of its loop, any."""
    if site.where == "prologue" and not first:
        return sender.sites[:1]
    if site.where == "epilogue":
        return sender.sites[-1:] if not first else sender.sites[:-1] or sender.sites
    return sender.sites


def turn_parity(writer, turns: Turns, site: Site, shift: int):
    """The parity a wait at `site` of `turns` waits for, from `writer`'s counters
    (`writer.parity(base, plus)`), and the words saying which: an iteration j waits for
    (j + prologue turns + `shift`) & 1, the turn after the loop for (U + ...) & 1 with U the
    loop's bound, a first turn in the prologue for phase 0 (`shift`: 1 when the waiting
    role goes first, so that its turn follows the other's previous one)."""
    if site.where == "loop":
        iv = turns.loop.regions[0].blocks[0].arguments[0]
        return (writer.parity(iv, turns.pro + shift),
                f"turn j{' + 1' if turns.pro else ''} waits for parity "
                f"(j + {turns.pro + shift}) & 1")
    if site.where == "epilogue":
        return (writer.parity(turns.bound, turns.pro + shift),
                f"the turn after the loop waits for parity (U + {turns.pro + shift}) & 1, "
                f"U the loop's bound")
    return writer.parity(None, 0), "its first turn waits for phase 0"
