"""The walk that plans the synchronization of one kernel (`Planner`): dependences found
op by op through loops and branches, the canonical patterns chosen for each, and the
pruning of what no dependence needs. The walk, the needs and the placement of the
chosen ops are mixins of their own (``planner_walk``, ``planner_needs``,
``planner_sites``); this module composes them and holds the run's state."""

from __future__ import annotations

from tcgen05_lower.kernel_ir import OpDict
from tcgen05_lower.synchronization.accesses import Buffers
# describe and is_trivial are re-exported for insertion.py.
from tcgen05_lower.synchronization.actions import (Action, Site, describe, is_trivial,
                                                   is_user_barrier)
from tcgen05_lower.synchronization.common import SyncError
from tcgen05_lower.synchronization.planner_needs import PlannerNeeds
from tcgen05_lower.synchronization.planner_sites import PlannerSites
from tcgen05_lower.synchronization.planner_walk import PlannerWalk


class Planner(PlannerWalk, PlannerNeeds, PlannerSites):
    """The program-order walk of one kernel: decides the Actions, inserts nothing.

    In check mode (``self.checking``) the same walk applies every planned action at its
    position and raises Unordered at the first need they leave unmet; that is how loops
    drop speculative actions that turned out redundant."""

    def __init__(self, kernel, strategy: str):
        self.kernel = kernel
        self.strategy = strategy
        self.actions: list[Action] = []
        self.sites: list[Site] = []
        # Tables keyed by ops are OpDicts (kernel_ir: a dict keyed by ops is quadratic).
        self.site_of = OpDict()  # anchor -> its site's mbarrier (sites are never dropped)
        self.hooks = OpDict()  # (anchor, side) -> [action index], applied when walked
        self.positions = OpDict()  # (anchor, side) -> [action index], every action
        self.disabled: set = set()
        self.checking = False
        self.step = 0
        self.blocks: list = []  # stack of (block, entry step, loop whose body it is)
        self.order_cache: dict = {}
        self.tail_cache = OpDict()
        self.prescan_state = OpDict()  # region op -> state before its pre-scan group
        self.inside_while = 0  # scf.while regions around the op being walked
        self.buffers = Buffers()  # what buffer values name (bound in check walks)

    def snapshot(self) -> tuple:
        """A point to roll the plan back to."""
        return (len(self.actions),)

    def rollback(self, snap: tuple) -> None:
        """Forgets the actions planned since `snap`."""
        # Sites stay: a state computed by a discarded walk may still name their mbarriers
        # (the loop's fixed-point check decides whether the final walk commits to them).
        n_actions, = snap
        # Only the positions of the forgotten actions hold their indices (an action is
        # hooked, if at all, at its own position): the cost is what is forgotten, not
        # the plan so far.
        forgotten = range(n_actions, len(self.actions))
        keys = {(self.actions[i].anchor, self.actions[i].side) for i in forgotten}
        self.disabled.difference_update(forgotten)
        del self.actions[n_actions:]
        for table in (self.hooks, self.positions):
            for key in keys:
                if key not in table:
                    continue
                kept = [i for i in table[key] if i < n_actions]
                if kept:
                    table[key] = kept
                else:
                    del table[key]

    def enabled(self) -> list[Action]:
        """The planned actions still in the plan."""
        return [a for i, a in enumerate(self.actions) if i not in self.disabled]

    def run(self) -> None:
        """Walks the kernel once (loops as described in the module docstring), drops
        every planned op that the kernel turns out not to need after all, then commits
        nothing waits for."""
        if len(self.kernel.regions[0].blocks) > 1:
            raise SyncError(self.kernel, "a kernel with several blocks (cf branches) needs "
                                         "lift-cf-to-scf before tcgen05-insert-sync (the "
                                         "default pipeline runs it first)")
        entry = self.kernel.regions[0].blocks[0]
        self.walk_block(entry, {}, None)
        if self.strategy == "minimal":
            self.prune_kernel(entry)
        waited = {a.barrier for a in self.enabled() if a.name == "mbarrier_wait"}
        for i, action in enumerate(self.actions):
            if action.name == "commit" and action.barrier not in waited:
                self.disabled.add(i)
        committed = {a.barrier for a in self.enabled() if a.name == "commit"}
        # A wait for the completion a user-written commit signals waits on its mbarrier.
        committed |= {b for b in waited if is_user_barrier(b)}
        if not waited <= committed:
            raise SyncError(self.kernel, "internal: a planned wait has no commit")
