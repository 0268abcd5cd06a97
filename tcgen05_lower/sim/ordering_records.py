"""What the ordering model (``ordering.OrderingModel``) records and reports: the
asynchronous tcgen05 operations and TMA loads in flight, the mbarriers with their phases
and what each phase released, the pipelined pairs of 9.7.16.6.2, and the races (``Race``;
``group_races`` merges those of several runs per pair of PTX lines).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tcgen05_lower.sim.state import SimError, TensorOp


class Race(SimError):
    """Two accesses to the same cells that the program does not order.

    Races are grouped by the pair of PTX lines (the later access's ``ptx_line``, the
    earlier one's ``other_line``): the message is the first occurrence's, ``count`` how
    many were found for that pair (per thread, warp, cell range or CTA)."""

    def __init__(self, message: str, ptx_line: int | None = None, ptx_text: str = "",
                 other_line: int | None = None):
        super().__init__(message, ptx_line, ptx_text)
        self.other_line = other_line
        self.count = 1
        self.other_text = ""            # the earlier access's PTX line, when known
        self.other_source: str | None = None

    def __str__(self) -> str:
        if self.ptx_line is None or self.other_line is None:
            return super().__str__()
        at = f" ({self.source})" if self.source else ""
        other_at = f" ({self.other_source})" if self.other_source else ""
        times = f", {self.count} times" if self.count > 1 else ""
        detail = self.message.removeprefix(f"race with PTX line {self.other_line}: ")
        text = (f"PTX line {self.ptx_line}{at}: race with PTX line {self.other_line}"
                f"{other_at}{times}: {detail}")
        for line, code in ((self.ptx_line, self.ptx_text), (self.other_line, self.other_text)):
            if code.strip():
                text += f"\n    {line}: {code.strip()}"
        return text


#: 9.7.16.6.2: (earlier kind, later kind) pairs executed in issue order.
PIPELINED = frozenset({("mma", "mma"), ("cp", "mma"), ("shift", "mma"), ("shift", "cp4x256b"),
                       ("mma", "shift")})


@dataclass
class InFlight:
    op: TensorOp
    kind: str          # "mma", "cp", "shift", "ld", "st"
    issuer: int        # thread
    agent: int         # the completion agent
    issue_agent: int   # the issue agent (mma/cp/shift), else -1
    seq: int
    line: int
    performed: bool = False
    cp4x256b: bool = False


@dataclass
class TmaInFlight:
    """A TMA load issued and not yet complete (see the module docstring)."""
    thread: int
    seq: int
    rank: int
    addresses: np.ndarray
    write: object      # callable: lands the data in shared memory
    nbytes: int
    mbarrier: int
    line: int
    #: The CTA of the mbarrier (the destination's, or with .cta_group::2 possibly its
    #: peer's); None: the destination's CTA.
    mbarrier_rank: int | None = None


@dataclass
class Mbarrier:
    expected: int
    pending: int
    phase: int = 0
    tx: int = 0
    #: what the current phase's arrivals released, by source: (rank of the arriving
    #: agent, scope of the release) -> (known, tc_known); see ``_synchronizes``
    released: dict = field(default_factory=dict)
    completed: dict = field(default_factory=dict)  # phase -> its ``released``
    init_by: int = -1
    init_epoch: int = 0
    init_line: int = 0
    #: The latest asynchronous arrival (a commit's arrive-on, a TMA load's complete_tx):
    #: (the phase it fell in, what it was, its PTX line); and the latest phase a
    #: successful wait on this mbarrier observed complete (-1: none).
    last_async: tuple | None = None
    observed: int = -1
    rank: int = 0
    #: Groups of threads (their ids' bytes) whose use of this mbarrier is known ordered
    #: after its init (``_use_ordered``): clocks only grow, so that stays true.
    ordered_users: set = field(default_factory=set, repr=False, compare=False)


def _rows(threads):
    """`threads` as an index of rows of the clock matrices: a slice when they are
    consecutive (a warp, a CTA: the matrices' rows are then views, not copies)."""
    threads = np.asarray(threads)
    if threads.ndim != 1 or threads.size == 0 or threads.dtype.kind not in "iu":
        return threads
    first, last = int(threads[0]), int(threads[-1])
    if last - first + 1 == threads.size and (threads.size < 3 or (
            np.diff(threads) == 1).all()):
        return slice(first, last + 1)
    return threads


#: At most this many runs of consecutive threads are handled run by run (``_row_runs``).
_MAX_RUNS = 8


def _row_runs(threads) -> list | None:
    """`threads` (increasing ids) as the slices of their runs of consecutive ids, when
    there are at most ``_MAX_RUNS`` of them (the warps of a CTA pair's epilogue: two runs
    of 128), so that the clock matrices' rows are read and updated in place as views,
    without fancy-indexed copies of many rows (a megabyte each for 256 threads of a
    pair, fresh memory that page-faults); None otherwise (empty, not increasing, not a
    vector of integers, or too many runs): then index with ``_rows``."""
    threads = np.asarray(threads)
    if threads.ndim != 1 or threads.size == 0 or threads.dtype.kind not in "iu":
        return None
    steps = np.diff(threads.astype(np.int64, copy=False))
    if (steps <= 0).any():
        return None
    cuts = np.flatnonzero(steps != 1) + 1
    if cuts.size >= _MAX_RUNS:
        return None
    starts = [0] + cuts.tolist()
    ends = cuts.tolist() + [threads.size]
    firsts = threads[starts].tolist()
    return [slice(first, first + end - start)
            for first, start, end in zip(firsts, starts, ends)]


def group_races(races: list) -> list:
    """Races of several runs (the CTAs of a grid) merged per pair of PTX lines, counts
    summed, in first-found order; errors that are not grouped Races pass through."""
    grouped, out = {}, []
    for race in races:
        other = getattr(race, "other_line", None)
        if other is None:
            out.append(race)
            continue
        key = (min(race.ptx_line, other), max(race.ptx_line, other))
        if key in grouped:
            grouped[key].count += race.count
            continue
        grouped[key] = race
        out.append(race)
    return out


def _fit(clocks: np.ndarray, width: int) -> np.ndarray:
    """`clocks` (a vector or a matrix of rows) with `width` columns: the new ones zero."""
    if clocks.shape[-1] >= width:
        return clocks
    wider = np.zeros(clocks.shape[:-1] + (width,), clocks.dtype)
    wider[..., :clocks.shape[-1]] = clocks
    return wider
