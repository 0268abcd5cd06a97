"""Randomized schedules for the simulator (``simulate(schedule="random", seed=N)``,
``tcgen05-sim --schedule random --seed N``).

The default schedule is one fixed interleaving (the lowest PC first, asynchronous work
completed only when no thread can run). A program that is correct only under that
interleaving is still wrong: the hardware's warp schedulers and asynchronous units allow
many others. A random schedule draws one of them from a seed, deterministically (the same
seed, kernel and inputs give the same run):

- warp order: each step runs one warp chosen at random, weighted by per-warp priorities
  that are redrawn every few hundred steps; other warps at the same PC join the step with
  a probability drawn per run (1: the fast, vectorized order; 0: one warp at a time);
- starvation: one warp, drawn per run, does not run for a stretch of steps (unless it is
  the only one that can);
- asynchronous completion: each pending tcgen05.commit arrive-on (with the mma / cp /
  shift ops it tracks) and each pending TMA load (its data and its complete_tx) completes
  at a random step after its issue, at a rate drawn per run, in a random order among those
  allowed; when no thread can run, a random allowed one completes. Allowed: TMA loads in
  any order (the ISA orders no bulk asynchronous copy with another); commits of one thread
  in issue order (each tracks all prior async tcgen05 ops of its thread, so a later
  commit's arrival implies the earlier's condition; reordering their arrivals would hand a
  waiter less than the hardware does).

What stays fixed: a warp's divergent threads still run lowest PC first within the warp (so
warp-collective ``.sync.aligned`` instructions stay converged, as the ISA requires of the
program), a ``tcgen05.st`` still takes effect at its warp's ``wait::st`` and a
``tcgen05.ld`` reads when issued (as under ``"late"``).

A correct kernel computes the same numbers under every seed: the schedule changes only
the order of operations the program does not order, and the ordering model reports any
access that depends on that order (``ordering.py``).
"""

from __future__ import annotations

import bisect

import numpy as np

from tcgen05_lower.sim.words import ALL

#: Redraw the warps' priorities every this many steps (one value drawn per run).
RESHUFFLE_STEPS = (64, 1024)
#: The starved warp's stretch: it starts within this many steps and lasts this many.
STARVE_START = (0, 4000)
STARVE_STEPS = (200, 6000)
#: Per-run choices: the probability that another warp at the chosen PC joins the step,
#: and that a pending asynchronous operation completes before a step.
JOIN = (0.0, 0.25, 0.75, 1.0)
COMPLETE = (0.0, 0.01, 0.05, 0.25, 1.0)
#: The PC the executor gives a thread that cannot run (above any real PC).
NOT_RUNNABLE = np.int64(1 << 62)
_NOT_RUNNABLE = int(NOT_RUNNABLE)


class RandomSchedule:
    """The choices of one random run of one cluster: seeded by (seed, cluster id), so a
    grid's clusters get different but reproducible schedules."""

    def __init__(self, seed: int, nwarps: int, cluster_id: tuple = (0, 0, 0)):
        if int(seed) < 0:
            raise ValueError(f"a schedule seed is a non-negative integer, not {seed}")
        self.seed = int(seed)
        self.rng = np.random.default_rng([self.seed, *[int(c) for c in cluster_id]])
        rng = self.rng
        self.nwarps = nwarps
        self.reshuffle = int(rng.integers(*RESHUFFLE_STEPS))
        self.starved = int(rng.integers(nwarps))
        self.starve_from = int(rng.integers(*STARVE_START))
        self.starve_to = self.starve_from + int(rng.integers(*STARVE_STEPS))
        self.join = float(rng.choice(JOIN))
        self.complete = float(rng.choice(COMPLETE))
        self.priority = self._draw_priorities()
        #: _ready's last answer: (starving, the priorities, the warps, their weights)
        self._ready_made = None
        #: The last pick_threads: (its warps, its PC); the warps' lowest and highest PCs.
        self._last, self._lowest, self._highest = None, [], []
        self._warp_threads = [np.arange(32 * w, 32 * w + 32) for w in range(nwarps)]
        for threads in self._warp_threads:
            threads.setflags(write=False)
        self.steps = 0

    def _draw_priorities(self) -> np.ndarray:
        # exponential weights: a few warps dominate for a while, as under a greedy scheduler
        return self.rng.exponential(1.0, self.nwarps) + 1e-9

    def describe(self) -> str:
        """The run's drawn parameters, for reports."""
        return (f"seed {self.seed}: warp {self.starved} starved for steps "
                f"{self.starve_from}-{self.starve_to}, join {self.join:g}, "
                f"async completion rate {self.complete:g}")

    def complete_now(self) -> bool:
        """Whether a pending asynchronous operation completes before this step."""
        return self.complete > 0 and self.rng.random() < self.complete

    def pick(self, pcs: np.ndarray, warp_of: np.ndarray) -> np.ndarray:
        """The threads to run this step (a boolean mask over the cluster's threads): a
        random runnable warp's threads at its lowest runnable PC, with some other warps
        whose lowest runnable PC is the same. ``pcs``: each thread's PC, ``NOT_RUNNABLE``
        for a thread that cannot run. (The choice over the few warps is made on Python
        lists: the same arithmetic as NumPy's cumsum and searchsorted, in sequence, and
        the same draws from the generator, at a fraction of the cost per step.)"""
        self.steps += 1
        if self.steps % self.reshuffle == 0:
            self.priority = self._draw_priorities()
        if pcs.size == self.nwarps * 32:   # threads are numbered warp by warp
            warp_pc = pcs.reshape(self.nwarps, 32).min(axis=1)
        else:
            warp_pc = np.full(self.nwarps, NOT_RUNNABLE)
            np.minimum.at(warp_pc, warp_of, pcs)
        lowest = warp_pc.tolist()
        ready = [w for w, pc in enumerate(lowest) if pc < _NOT_RUNNABLE]
        starving = self.starve_from <= self.steps < self.starve_to
        if starving and len(ready) > 1:
            ready = [w for w in ready if w != self.starved]
        priority = self.priority.tolist()
        weights, total = [], 0.0
        for w in ready:               # np.cumsum: sequential float64 sums
            total += priority[w]
            weights.append(total)
        # np.searchsorted(weights, x) (side "left"): the first index with weights >= x
        chosen = ready[min(bisect.bisect_left(weights, self.rng.random() * weights[-1]),
                           len(ready) - 1)]
        m = lowest[chosen]
        joining = warp_pc == m
        if self.join < 1.0:
            joining &= self.rng.random(self.nwarps) < self.join
        if starving:
            joining[self.starved] = False
        joining[chosen] = True
        return (pcs == m) & joining[warp_of]

    def pick_threads(self, pcs: np.ndarray, warp_of: np.ndarray,
                     moved: bool | str = False) -> tuple:
        """``pick``'s choice, with the same draws, as (PC, threads, warps): the threads
        as ``ALL`` (all of them) or their sorted ids, and how many warps they
        fall in. The warps that join are found on Python lists and their threads at the
        PC per warp, instead of masks over every thread of the cluster. ``moved``: the
        only change to ``pcs`` since the last pick is that its threads moved on to the
        next PC (the executor's straight step), so the warps' lowest and highest PCs
        are updated for its warps only; ``"local"``: only its threads' entries changed
        (a local step), so only its warps' are looked up again."""
        nwarps = self.nwarps
        if pcs.size != nwarps * 32:   # threads not numbered warp by warp in full warps
            sel = self.pick(pcs, warp_of)
            idx = np.flatnonzero(sel)
            return (int(pcs[idx[0]]), ALL if idx.size == pcs.size else idx,
                    int(np.unique(warp_of[idx]).size))
        self.steps += 1
        if self.steps % self.reshuffle == 0:
            self.priority = self._draw_priorities()
        lowest, highest = self._warp_pcs(pcs, moved)
        starving = self.starve_from <= self.steps < self.starve_to
        ready, weights = self._ready(lowest, starving)
        # np.searchsorted(weights, x) (side "left"): the first index with weights >= x
        chosen = ready[min(bisect.bisect_left(weights, self.rng.random() * weights[-1]),
                           len(ready) - 1)]
        m = lowest[chosen]
        draws = self.rng.random(nwarps) if self.join < 1.0 else None
        if lowest.count(m) == 1:
            # no other warp at m: whatever the draws, the chosen warp runs alone (it is
            # not the starved one unless that is the only warp that can run, and then
            # it runs anyway)
            joined = [chosen]
        else:
            if draws is not None:
                on = (draws < self.join).tolist()
                joined = [w for w, pc in enumerate(lowest) if pc == m and on[w]]
            else:
                joined = [w for w, pc in enumerate(lowest) if pc == m]
            if starving and self.starved in joined:
                joined.remove(self.starved)
            if chosen not in joined:
                joined.append(chosen)
                joined.sort()
        # a warp whose every thread can run at m: all its threads (shared, read-only)
        parts = [self._warp_threads[w] if highest[w] == m else
                 np.flatnonzero(pcs[32 * w:32 * w + 32] == m) + 32 * w for w in joined]
        idx = parts[0] if len(parts) == 1 else np.concatenate(parts)
        self._last = (joined, m)
        return m, (ALL if idx.size == pcs.size else idx), len(joined)

    def _warp_pcs(self, pcs: np.ndarray, moved: bool | str) -> tuple:
        """Each warp's lowest and highest PC in ``pcs`` (lists). After a step whose
        threads (all those of its warps at its PC m) moved to m + 1 and nothing else
        changed, only those warps change: their lowest PC is m + 1 (their other
        runnable threads were above m), their highest m + 1 if it was m, else looked up;
        which warps can run is the same. After a local step (``moved == "local"``) of
        one warp, that warp's are looked up (of several, all: two reductions over the
        cluster cost less than two per warp). Which warps can run is found again
        (``_ready``) only when it may have changed."""
        if not moved or self._last is None or (moved == "local" and len(self._last[0]) > 1):
            by_warp = pcs.reshape(self.nwarps, 32)
            self._lowest = by_warp.min(axis=1).tolist()
            self._highest = by_warp.max(axis=1).tolist()
            self._ready_made = None
            return self._lowest, self._highest
        lowest, highest = self._lowest, self._highest
        joined, m = self._last
        if moved == "local":
            for w in joined:
                # 32 PCs: a list's min and max cost less than two NumPy reductions
                warp = pcs[32 * w:32 * w + 32].tolist()
                low = min(warp)
                if (low < _NOT_RUNNABLE) != (lowest[w] < _NOT_RUNNABLE):
                    self._ready_made = None
                lowest[w], highest[w] = low, max(warp)
            return lowest, highest
        for w in joined:
            lowest[w] = m + 1
            highest[w] = m + 1 if highest[w] == m else max(pcs[32 * w:32 * w + 32].tolist())
        return lowest, highest

    def _ready(self, lowest: list, starving: bool) -> tuple:
        """The warps the draw chooses from (those that can run, less the starved one
        while it starves unless it is the only one) and their cumulative priorities
        (``pick``'s arithmetic: np.cumsum's sequential float64 sums), made again only
        when which warps can run (``_warp_pcs`` forgets them), the priorities or
        whether a warp starves change."""
        made = self._ready_made
        if made is not None and made[0] == starving and made[1] is self.priority:
            return made[2], made[3]
        ready = [w for w, pc in enumerate(lowest) if pc < _NOT_RUNNABLE]
        if starving and len(ready) > 1:
            ready = [w for w in ready if w != self.starved]
        priority = self.priority.tolist()
        weights, total = [], 0.0
        for w in ready:
            total += priority[w]
            weights.append(total)
        self._ready_made = (starving, self.priority, ready, weights)
        return ready, weights

    def choose(self, n: int) -> int:
        """One of ``n`` allowed pending asynchronous operations, at random."""
        return int(self.rng.integers(n))


def parse_seeds(text: str) -> list[int]:
    """``"0-15"`` -> [0, ..., 15]; ``"3,7,9-10"`` -> [3, 7, 9, 10]. ValueError when the
    text is not such a list of non-negative integers and ranges."""
    seeds = []
    for part in text.split(","):
        low, dash, high = part.strip().partition("-")
        if not low.isdigit() or (dash and not high.isdigit()):
            raise ValueError(f"{text!r}: expected seeds like 0-15 or 1,4,9-12")
        first, last = int(low), int(high) if dash else int(low)
        if last < first:
            raise ValueError(f"{text!r}: the range {part.strip()} is empty")
        seeds.extend(range(first, last + 1))
    return seeds
