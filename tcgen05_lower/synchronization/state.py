"""How far each asynchronous op in flight is ordered (`Status`), how two paths' states
meet, and what ordering a dependence requires (9.7.16.6.4)."""

from __future__ import annotations

from dataclasses import dataclass

from tcgen05_lower.synchronization.accesses import (Access, Cells, access_of,
                                                    loop_of_induction_variable, pipelined)
from tcgen05_lower.synchronization.common import (GENERIC, ISSUER, NEED_ACQUIRED,
                                                  NEED_COMPLETE, NEED_SYNCED, WARPGROUP,
                                                  constant_value, is_nested_in)


#: carried_by of an op whose relation to a loop's iterations is no longer known.
UNKNOWN_LOOP = "unknown-loop"


@dataclass(frozen=True)
class Status:
    """How far the newest instance of one asynchronous op is ordered."""

    access: Access
    stamp: float  # walk step at which it was issued (-1: an earlier iteration)
    carried_by: object = None  # the loop whose back edge it came through
    covered: frozenset = frozenset()  # mbarriers whose most recent commit follows it
    complete: bool = False
    released: bool = False  # warpgroup op: fence::before_thread_sync after completion
    proxied: bool = False  # smem_fill: fence.proxy.async after it
    synced: bool = False  # barrier after release / proxy fence
    acquired: bool = False  # fence::after_thread_sync after completion / sync
    consumed: bool = False  # ld: its registers were read
    also: tuple = ()  # earlier ops with the same access that this one stands for

    def evolve(self, **changes) -> "Status":
        """A copy with `changes` (``dataclasses.replace`` without its per-call field
        introspection: the walk makes a new status for most ops it visits)."""
        copy = object.__new__(Status)
        fields = copy.__dict__
        fields.update(self.__dict__)
        fields.update(changes)
        return copy

    def done(self) -> bool:
        """Nothing any later op could need from it."""
        return self.synced if self.access.cls == GENERIC else self.acquired

    def meet(self, other: "Status") -> "Status":
        """The weaker of two statuses of one op (where two paths meet)."""
        carried = self.carried_by if same_loop(self.carried_by, other.carried_by) \
            else UNKNOWN_LOOP
        also = self.also + tuple(o for o in other.also if o not in self.also)
        # Instances on different buffers (a first iteration's and a later one's): every
        # buffer the op can touch.
        access = self.access if self.access == other.access else access_of(self.access.op)
        return Status(access, max(self.stamp, other.stamp), carried,
                      self.covered & other.covered, self.complete and other.complete,
                      self.released and other.released, self.proxied and other.proxied,
                      self.synced and other.synced, self.acquired and other.acquired,
                      self.consumed and other.consumed, also)

    def at_least(self, other: "Status") -> bool:
        """Whether this status is as far along as `other` in every respect."""
        return (self.covered >= other.covered
                and all(getattr(self, f) >= getattr(other, f) for f in
                        ("complete", "released", "proxied", "synced", "acquired",
                         "consumed")))


def same_loop(a, b) -> bool:
    """Equality of ops that may be None or UNKNOWN_LOOP (MLIR ops refuse None)."""
    if a is None or b is None or isinstance(a, str) or isinstance(b, str):
        return a is b or (isinstance(a, str) and a == b)
    return a == b


def join(a: dict, b: dict) -> dict:
    """The state where two paths meet: every op of either, the weaker status of both."""
    if a is b:
        return a
    out = dict(a)
    for op, status in b.items():
        mine = out.get(op)
        out[op] = status if mine is None else mine.meet(status)
    return out


def same_state(a: dict, b: dict) -> bool:
    """Whether two states hold the same ops, each as far along in both."""
    return a.keys() == b.keys() and all(
        s.at_least(b[op]) and b[op].at_least(s) and s.access == b[op].access
        and same_loop(s.carried_by, b[op].carried_by) for op, s in a.items())


def conflict(status: Status, access: Access) -> str | None:
    """The dependence of `access` on the in-flight op `status`, or None."""
    earlier = status.access
    for w in earlier.writes:
        for c in access.reads:
            if overlap(w, c, status):
                return f"RAW on {c.describe()}"
        for c in access.writes:
            if overlap(w, c, status):
                return f"WAW on {c.describe()}"
    for r in earlier.reads:
        for c in access.writes:
            if overlap(r, c, status):
                return f"WAR on {c.describe()}"
    for tile in earlier.smem_writes:
        if tile in access.smem_reads:
            return "RAW on a shared-memory tile"
    for tile in earlier.smem_reads:
        if tile in access.smem_writes:
            return "WAR on a shared-memory tile"
    return None


def overlap(p: Cells, c: Cells, status: Status) -> bool:
    """Whether cells `p` of an in-flight op and cells `c` of a later op intersect."""
    if not p.lanes & c.lanes:
        return False
    if p.base is None and c.base is None:
        return p.lo < c.hi and c.lo < p.hi
    if p.base is not None and c.base is not None and p.base == c.base:
        loop = loop_of_induction_variable(p.base)
        carried = status.carried_by
        if carried is None or (carried is not UNKNOWN_LOOP and not same_loop(carried, loop)
                               and is_nested_in(carried, loop)):
            return p.lo < c.hi and c.lo < p.hi  # this iteration: the same base value
        step = constant_value(loop.operands[2])
        if same_loop(carried, loop) and step is not None and step > 0:
            # Every earlier iteration's slice lies `step` or more columns lower.
            return not p.hi - step <= c.lo
    return p.bound[0] < c.bound[1] and c.bound[0] < p.bound[1]


def requirement(earlier: Access, later: Access) -> str | None:
    """How far `earlier` must be ordered before `later` (the rules table above)."""
    if earlier.cls == ISSUER:
        if later.cls == ISSUER:
            return None if pipelined(earlier, later) else NEED_ACQUIRED
        if later.cls == WARPGROUP:
            return NEED_ACQUIRED
        return NEED_COMPLETE  # generic writes after async-proxy reads
    if earlier.cls == WARPGROUP:
        if later.cls == WARPGROUP:
            return NEED_COMPLETE
        return NEED_ACQUIRED if later.cls == ISSUER else None
    return NEED_SYNCED if later.cls == ISSUER else None  # generic writes, async reads


def level_rank(level: str) -> int:
    return {NEED_COMPLETE: 0, NEED_SYNCED: 1, NEED_ACQUIRED: 2}[level]


def satisfied(status: Status, level: str) -> bool:
    if level == NEED_COMPLETE:
        return status.complete or status.acquired
    return status.synced if level == NEED_SYNCED else status.acquired
