"""What the planners that write ops into a kernel's roles share: the ops they add,
recorded for the pass's report (`Recorder`, every planner); and, for pipelined_loads.py
and role_handoffs.py (`Emitter`), their mbarriers, allocated before the partitions op,
and one index constant per value, before the partitions op so that it dominates every
insertion point in the roles."""

from __future__ import annotations

from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import ir
from tcgen05_lower.dialect.ops import AllocMbarrierOp
from tcgen05_lower.synchronization.phases import _const


class Recorder:
    """Mixin of every planner that writes ops (roles.py, ring_protocol.py and the two
    below): the class that uses it sets `added`, the ops written, in order."""

    def emit(self, cls, **fields):
        """Builds `cls` at the current insertion point and records it as added."""
        op = cls.build(**fields)
        self.added.append(op)
        return op


class Emitter(Recorder):
    """Mixin. The class that uses it sets `partitions` (the kernel's partitions op),
    `barriers` (a list of (count, purpose), one per mbarrier allocated), `added` (the
    ops written, in order) and `constants` (value -> index constant)."""

    def alloc(self, count: int, purpose: str, stages: int = 1):
        """An mbarrier of arrival count `count` (`stages` of them when above 1), recorded
        with `purpose` for the report."""
        with ir.InsertionPoint(self.partitions), self.partitions.location:
            fields = dict(count=count) if stages == 1 else dict(count=count, stages=stages)
            op = AllocMbarrierOp.build(result_types=[d.mbarrier_type()], **fields)
        self.barriers.append((count, purpose))
        return op.results[0]

    def index(self, value: int):
        """The index constant `value`, one per value, before the partitions op."""
        found = self.constants.get(value)
        if found is None:
            with ir.InsertionPoint(self.partitions), self.partitions.location:
                found = self.constants[value] = _const(value, ir.IndexType.get())
        return found
