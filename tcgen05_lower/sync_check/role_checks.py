"""The checks of the concurrent model: each access against the earlier accesses it
conflicts with that its view has not seen complete, what is in flight at a dealloc, and
overruns of an mbarrier's phases."""

from __future__ import annotations

from bisect import bisect_right

from tcgen05_lower.sync_check.model import ANY_TILE, TMA_LOAD, line_col_text
from tcgen05_lower.sync_check.role_trace import Cursor, Event, LD, ST, View


class ConcurrentChecks:
    """Conflicts between the programs' accesses. A part of the concurrent model
    (roles.Concurrent), which composes it."""

    def check_in_flight(self, exits: dict) -> None:
        """At the exit of the CTA that holds an mbarrier (its program's end, after the
        joining barrier: `exits`, CTA -> the view there), every asynchronous arrival on
        it must be known complete: a tcgen05.commit's arrive-on is performed when the
        tcgen05 ops before it complete, unordered with the arrivals of other commits
        (9.7.16.12.1), and a TMA load's complete_tx when its bytes land (9.7.9.25.5.1);
        one still in flight at exit lands in the shared memory of a CTA that has
        exited. A thread's own mbarrier_arrive (local, or remote with release at
        cluster scope) is performed before the thread passes the joining (cluster)
        barrier, and needs nothing. The phase of the latest arrival must be observed by
        a wait (the producer tail of a ring: docs/partitions.md). Not checked when a
        wait deadlocks (the kernel never exits; reported already)."""
        if any(cursor.blocked is not None for cursor in self.cursors):
            return
        missing: dict = {}
        for barrier, (phase, event) in self.asynchronous.items():
            view = exits.get(self.owner(barrier))
            if view is None or view.know.get(barrier, 0) > phase:
                continue
            missing.setdefault(event.op, []).append((barrier, phase, event))
        for op, entries in missing.items():
            event = entries[0][2]
            load = event.kind == TMA_LOAD
            what = "the complete_tx of tcgen05.tma_load" if load else \
                f"the arrival of {op.name}"
            which = "; ".join(f"phase {phase} (parity {phase & 1}) of the mbarrier "
                              f"{self.mbarrier_text(barrier)}"
                              for barrier, phase, _ in entries)
            self.problem(op, ("in flight",),
                         f"{what} in role '{self.cursors[event.role].name}' may still be "
                         f"in flight when the CTA holding its mbarrier exits: no wait "
                         f"observes {which} (an asynchronous arrival, "
                         f"{'9.7.9.25.5.1' if load else 'unordered with the arrivals of other commits, 9.7.16.12.1'}); "
                         f"missing an mbarrier wait for that phase before the join"
                         + ("" if load else " (a ring's producer tail: the load role "
                                            "waits once more on each empty stage after "
                                            "its loop)"))

    @staticmethod
    def places(inst) -> list:
        """(bucket, "r" | "w") of what `inst` reads and writes: 32-column granules of TMEM
        and shared-memory tiles (a tile that may be any is its own bucket, which every
        tile meets)."""
        found = []
        for cells, mode in [(c, "r") for c in inst.tmem_reads] + \
                [(c, "w") for c in inst.tmem_writes]:
            for granule in range(cells.lo // 32, max(cells.lo, cells.hi - 1) // 32 + 1):
                found.append((("tmem", granule), mode))
        for tiles, mode in ((inst.tiles_read, "r"), (inst.tiles_written, "w")):
            for tile in tiles:
                found.append((("tile", ANY_TILE if tile is ANY_TILE else tile), mode))
        return found

    def record(self, event: Event) -> None:
        """Keeps, per role, the latest access of each kind (op name, and for an MMA its
        shape, for a TMA load its mbarrier) on the same cells and tiles: an access ordered
        after it is ordered after the earlier ones too, since what orders it (a commit
        after it, a tcgen05.wait, a fence, a later phase of the same mbarrier) comes later
        in the same role's program. So the history stays as large as the kernel's
        distinct accesses, whatever the loops and unrolling."""
        inst = event.inst
        cells = tuple((c.lo, c.hi, c.lanes) for c in inst.tmem_reads + inst.tmem_writes)
        tiles = tuple(inst.tiles_read) + tuple(inst.tiles_written)
        key = (event.role, event.kind, inst.shape_key, cells, tiles,
               event.barrier if event.kind == TMA_LOAD else None)
        if key not in self.history:
            for bucket, mode in self.event_places(event):
                self.index.setdefault((bucket, mode), {})[key] = None
                if bucket[0] == "tile":
                    self.index.setdefault((self.any_tile(bucket), mode), {})[key] = None
        self.history[key] = event

    def event_places(self, event: Event) -> list:
        """The (bucket, mode) places `event` accesses (one CTA: its instruction's)."""
        return self.places(event.inst)

    @staticmethod
    def any_tile(bucket) -> tuple:
        """The bucket standing for every tile of `bucket`'s memory (one CTA: all)."""
        return ("tile", "*")

    def candidates(self, inst) -> list:
        """The recorded accesses that may conflict with `inst` (one reads what the other
        writes, or both write), each once."""
        keys: dict = {}
        for (kind, what), mode in self.places(inst):
            wanted = ("w",) if mode == "r" else ("w", "r")
            buckets = [(kind, what)]
            if kind == "tile":
                buckets = [("tile", "*")] if what is ANY_TILE else \
                    [(kind, what), ("tile", ANY_TILE)]
            for bucket in buckets:
                for other in wanted:
                    keys.update(self.index.get((bucket, other), {}))
        return [self.history[key] for key in keys]

    def check(self, cursor: Cursor, later: Event) -> None:
        for earlier in self.candidates(later.inst):
            self.checked += 1
            conflict = self.tracer.overlap(earlier.inst, later.inst)
            if conflict is None:
                continue
            missing, section = self.missing(cursor, earlier, later)
            if missing is None:
                continue
            what, verb = conflict
            roles = (f"role '{cursor.name}'" if earlier.role == later.role else
                     f"role '{cursor.name}' and role '{self.cursors[earlier.role].name}'")
            self.problem(later.op, (earlier.op, missing),
                         f"{later.op.name} in role '{cursor.name}' {what} that "
                         f"{earlier.op.name} at {line_col_text(earlier.op)} in role "
                         f"'{self.cursors[earlier.role].name}' {verb}, without ordering "
                         f"between {roles}: missing {missing} ({section})")

    def complete(self, earlier: Event, view: View) -> bool:
        """Whether the single-thread op or TMA load `earlier` is known complete in `view`."""
        if earlier.kind == TMA_LOAD:
            return earlier.parity < 0 or view.know.get(earlier.barrier, 0) > earlier.parity
        owner = self.cursors[earlier.role]
        seen = set()
        for position in range(bisect_right(owner.commits, earlier.index), len(owner.commits)):
            barrier, phase = owner.commit_at[position]
            if barrier in seen:
                continue
            seen.add(barrier)
            if view.know.get(barrier, 0) > phase:
                return True
        return False

    def missing(self, cursor: Cursor, earlier: Event, later: Event) -> tuple:
        """(what is missing, the ISA section), or (None, None) when ordered."""
        a, b = earlier.inst, later.inst
        same = earlier.role == later.role
        if earlier.kind == TMA_LOAD:
            if self.complete(earlier, cursor.view):
                return None, None
            return ("an mbarrier wait for the phase of the tcgen05.mbarrier_expect_tx that "
                    "the load joined", "PTX ISA 9.7.9.25.5.1, complete_tx")
        if a.single_thread:
            if same and b.single_thread and self.tracer.pipelined(a, b):
                return None, None
            if not (b.single_thread or b.warpgroup):
                if self.complete(earlier, cursor.view):
                    return None, None
                return ("tcgen05.commit after it -> an mbarrier wait for that commit's phase",
                        "9.7.16.6.5")
            section = "9.7.16.6.4.2" if b.single_thread else "9.7.16.6.4.4"
            if self.complete(earlier, cursor.acquired):
                return None, None
            if self.complete(earlier, cursor.view):
                return "tcgen05.fence::after_thread_sync after the mbarrier wait", section
            return ("tcgen05.commit after it -> an mbarrier wait for that commit's phase -> "
                    "tcgen05.fence::after_thread_sync"), section
        if a.warpgroup:
            kind = ST if earlier.kind == ST else LD
            if same and b.warpgroup:
                if cursor.waited[kind] > earlier.index:
                    return None, None
                return f"tcgen05.wait::{kind}", "9.7.16.6.4.2"
            if cursor.acquired.rel.get((earlier.role, kind), -1) > earlier.index:
                return None, None
            if cursor.view.rel.get((earlier.role, kind), -1) > earlier.index:
                return "tcgen05.fence::after_thread_sync after the synchronization", \
                    "9.7.16.6.4.4"
            if same:
                steps = [f"tcgen05.wait::{kind}", "tcgen05.fence::before_thread_sync",
                         "the role's barrier (tcgen05.barrier)",
                         "tcgen05.fence::after_thread_sync"]
                first = 2 if cursor.released[kind] > earlier.index else \
                    1 if cursor.waited[kind] > earlier.index else 0
                return " -> ".join(steps[first:]), "9.7.16.6.4.4"
            sync = f"mbarrier_arrive (role '{self.cursors[earlier.role].name}') -> mbarrier wait"
            return (f"tcgen05.wait::{kind} -> tcgen05.fence::before_thread_sync -> {sync} -> "
                    f"tcgen05.fence::after_thread_sync"), "9.7.16.6.4.4"
        # smem_fill (generic-proxy writes) -> an async-proxy read of the tile
        if not b.single_thread:
            return None, None
        if cursor.view.prox.get(earlier.role, -1) > earlier.index:
            return None, None
        sync = "the role's barrier" if same else \
            f"mbarrier_arrive (role '{self.cursors[earlier.role].name}') -> mbarrier wait"
        return f"fence.proxy.async -> {sync}", "9.7.16.6.5"

    def check_dealloc(self, cursor: Cursor, event: Event) -> None:
        for earlier in self.history.values():
            self.checked += 1
            inst = earlier.inst
            if earlier.kind in ("smem_fill", TMA_LOAD):
                continue
            if inst.single_thread:
                if self.complete(earlier, cursor.acquired):
                    continue
                missing = ("tcgen05.fence::after_thread_sync after the joining barrier"
                           if self.complete(earlier, cursor.view) else
                           "tcgen05.commit after it -> an mbarrier wait for its phase "
                           "before the joining barrier -> tcgen05.fence::after_thread_sync")
            else:
                kind = ST if earlier.kind == ST else LD
                if cursor.acquired.rel.get((earlier.role, kind), -1) > earlier.index:
                    continue
                missing = ("tcgen05.fence::after_thread_sync after the joining barrier"
                           if cursor.view.rel.get((earlier.role, kind), -1) > earlier.index
                           else f"tcgen05.wait::{kind} -> tcgen05.fence::before_thread_sync "
                                f"in role '{self.cursors[earlier.role].name}' -> the "
                                f"joining barrier -> tcgen05.fence::after_thread_sync")
            cells = (inst.tmem_writes or inst.tmem_reads)[0].text()
            self.problem(event.op, (earlier.op, missing),
                         f"tcgen05.dealloc frees {cells} that {earlier.op.name} at "
                         f"{line_col_text(earlier.op)} in role '{self.cursors[earlier.role].name}' "
                         f"accesses, without ordering: missing {missing} (9.7.16.6.4.4)")

    def check_overruns(self) -> None:
        """A wait must run before the phase after the one it waits for can complete
        (module docstring)."""
        for event, barrier, ends in self.waits:
            count = self.tracer.counts[barrier]
            arrivals = self.arrivals.get(barrier, [])
            completing = next((a for a in arrivals if a.upto >= (ends + 1) * count), None)
            if completing is None or completing.view.vc.get(event.role, 0) > event.index:
                continue
            by = completing.event
            self.problem(event.op, ("overrun",),
                         f"phase {ends} of this wait's mbarrier may complete before the "
                         f"wait (for parity {event.parity}) in role "
                         f"'{self.cursors[event.role].name}' runs: its arrival "
                         f"{by.op.name} at {line_col_text(by.op)} in role "
                         f"'{self.cursors[by.role].name}' is not ordered after the wait, "
                         f"which then waits for phase {ends + 1} (9.7.13.15.16)")

    def problem(self, op, key: tuple, message: str) -> None:
        self.problems.setdefault((op, key), (op, message))
