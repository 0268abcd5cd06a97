"""Where buffers go: items, strategies and lower bounds, in columns x lane halves.

Geometry
--------
Tensor memory is 128 lanes x 512 columns per CTA (9.7.16.1). Placement works on columns
and *lane halves*: half 0 is lanes 0-15 of every 32-lane quarter, half 1 lanes 16-31. A
full-datapath footprint covers both halves; a half-datapath one (Layouts F and C, whose
rows sit at lane offset 0 or 16 of each quarter, 9.7.16.10.5 and tmem-facts section 1)
covers one, so two of them can share columns.

An :class:`Item` is one buffer: its live range [start, end] in program order and the
shapes (:class:`Variant`) it may take. A variant is a set of rectangles (:class:`Part`)
relative to the item's first column; parts always put full-lane blocks below a
half-lane block (a "staircase"), which is what makes the search of :func:`optimal`
complete (see there). Variants of one item differ in lane offset or in how the stages of
a multi-buffered buffer are arranged:

- ``full``: a full-lane buffer, lane offset 0.
- ``lane0`` / ``lane16``: a half-lane buffer at lane offset 0 or 16.
- ``column_blocks`` (at lane offset 0, or 16 for half-lane stages): stage i at column
  ``i * columns``.
- ``lane_pairs`` (half-lane stages only): stages 2j and 2j+1 share columns
  ``j * columns`` at lane offsets 0 and 16; an odd last stage takes lane offset 0.

Items of one *tie* group must take the same lane offset: A in TMEM, D and the sparse
metadata of one Layout F/C MMA (9.7.16.10.5, 9.7.16.10.8.5). ``align`` is the column
alignment (2 for sparse metadata, which is addressed in 2-column granules, tmem-facts
section 3; otherwise 1).

Strategies
----------
- :func:`first_fit`: buffers in program order (of their live-range start), each at the
  lowest column, then the first variant, that is free for its whole live range: the
  column-major search of Triton's TMEM allocator. Linear in the number of buffers
  times the number live at once.
- :func:`no_reuse`: every buffer above all the buffers before it (in its lane halves).
- :func:`optimal`: minimum peak column. See its docstring for the search and the
  fallback.

Lower bounds
------------
:func:`lower_bound` is the maximum over program points of the lane-aware live footprint:
the cells of the buffers live there divided by 128 lanes, rounded up to whole columns. It
ignores geometry (that a half-lane buffer cannot be split over the two halves, that a
buffer's columns are contiguous, that placement is fixed for the whole live range), so a
kernel can need more; :func:`point_bound` is the exact packing of the buffers live at one
point, a stronger bound used to explain such kernels.
"""

from __future__ import annotations

import heapq
from dataclasses import dataclass, field
from types import MappingProxyType

FULL = 0b11
HALF_MASK = MappingProxyType({0: 0b01, 16: 0b10})

#: Search nodes :func:`optimal` explores per connected component before it falls back to
#: the best heuristic placement.
DEFAULT_NODE_LIMIT = 20_000
#: Components with more buffers than this are not searched at all (the heuristics'
#: placement is kept; it is still proven optimal when it meets the lower bound).
SEARCH_MAX_ITEMS = 64
#: Components with more buffers than this use only the program-order heuristics, which
#: stay linear in the number of buffers times the number live at once.
HEURISTIC_ALL_ORDERS_MAX_ITEMS = 400


@dataclass(frozen=True)
class Part:
    """A rectangle of an item: columns [column, column + width) of the item's origin, on
    the lane halves of ``halves`` (bit 0: lanes 0-15 of each quarter, bit 1: 16-31)."""

    column: int
    width: int
    halves: int


@dataclass(frozen=True)
class Variant:
    """One shape an item may take (see the module docstring)."""

    name: str
    lane_offset: int
    parts: tuple[Part, ...]

    @property
    def width(self) -> int:
        """Columns from the item's first column to the end of its last part."""
        return max(p.column + p.width for p in self.parts)

    @property
    def area(self) -> int:
        """Cells in units of (16 lanes of each quarter) x 1 column."""
        return sum(p.width * bin(p.halves).count("1") for p in self.parts)

    @property
    def halves(self) -> int:
        """The lane halves any part uses."""
        mask = 0
        for p in self.parts:
            mask |= p.halves
        return mask


@dataclass
class Item:
    """A buffer to place."""

    index: int
    label: str
    start: int
    end: int
    variants: tuple[Variant, ...]
    align: int = 1
    tie: int = -1
    #: Per-stage columns and stage count (for multi-buffered buffers).
    columns: int = 0
    stages: int = 1

    def overlaps(self, other: "Item") -> bool:
        """Whether the two live ranges share a program point."""
        return self.start <= other.end and other.start <= self.end

    @property
    def min_area(self) -> int:
        """The smallest area of a variant (they are all equal today)."""
        return min(v.area for v in self.variants)

    @property
    def min_width(self) -> int:
        """The narrowest variant's width in columns."""
        return min(v.width for v in self.variants)


@dataclass
class Placement:
    """The result of a strategy: per item index, (variant, first column)."""

    strategy: str
    spots: dict[int, tuple[Variant, int]] = field(default_factory=dict)
    #: For ``optimal``: whether the search proved the peak minimal.
    proven: bool = False
    nodes: int = 0

    def peak(self) -> int:
        """The highest column any placed item reaches (0 when empty)."""
        return max((column + v.width for v, column in self.spots.values()), default=0)


# ------------------------------------------------------------------------- variants


def item_variants(*, columns: int, half_lanes: bool, stages: int,
                  lane_offsets: tuple[int, ...]) -> tuple[Variant, ...]:
    """The variants of a buffer of `stages` stages of `columns` columns each, in
    first-fit's order of preference. `lane_offsets` are the lane offsets the buffer
    may take (only (0,) unless it is a half-lane D, A or metadata of Layout F/C)."""
    if not half_lanes:
        return (Variant("full" if stages == 1 else "column_blocks", 0,
                        (Part(0, columns * stages, FULL),)),)
    variants = []
    if stages >= 2 and 0 in lane_offsets:
        pairs, odd = divmod(stages, 2)
        parts = [Part(0, pairs * columns, FULL)]
        if odd:
            parts.append(Part(pairs * columns, columns, HALF_MASK[0]))
        variants.append(Variant("lane_pairs", 0, tuple(parts)))
    for offset in lane_offsets:
        name = f"lane{offset}" if stages == 1 else "column_blocks"
        variants.append(Variant(name, offset, (Part(0, columns * stages, HALF_MASK[offset]),)))
    return tuple(variants)


def stage_spot(variant: Variant, column: int, columns: int, stage: int) -> tuple[int, int]:
    """(lane offset, first column) of stage `stage` of an item placed at `column`."""
    if variant.name == "lane_pairs":
        return 16 * (stage % 2), column + (stage // 2) * columns
    return variant.lane_offset, column + stage * columns


def stage_rectangles(variant: Variant, column: int, columns: int, stages: int):
    """Per stage: (lane offset, half mask, first column, width)."""
    out = []
    for s in range(stages):
        lane, col = stage_spot(variant, column, columns, s)
        halves = FULL if variant.halves == FULL and variant.name != "lane_pairs" else \
            HALF_MASK[lane]
        out.append((lane, halves, col, columns))
    return out


# ------------------------------------------------------------------------- geometry


def _collides(variant: Variant, column: int, other: Variant, other_column: int) -> bool:
    for p in variant.parts:
        a0 = column + p.column
        a1 = a0 + p.width
        for q in other.parts:
            if p.halves & q.halves:
                b0 = other_column + q.column
                if a0 < b0 + q.width and b0 < a1:
                    return True
    return False


def _round_up(value: int, align: int) -> int:
    return -(-value // align) * align


def lowest_column(item: Item, variant: Variant, obstacles, floor: int = 0) -> int:
    """The lowest column >= `floor` (aligned) where `variant` of `item` collides with
    none of `obstacles` ((variant, column) pairs, all live at the same time as the item).

    The lowest such column is `floor` or makes one of the item's parts start right after
    one of an obstacle's parts, so those are the only candidates."""
    halves = variant.halves
    relevant = [(v, c) for v, c in obstacles if v.halves & halves]
    candidates = {_round_up(floor, item.align)}
    for v, c in relevant:
        for q in v.parts:
            if not q.halves & halves:
                continue
            end = c + q.column + q.width
            for p in variant.parts:
                if p.halves & q.halves:
                    candidate = _round_up(end - p.column, item.align)
                    if candidate >= floor:
                        candidates.add(candidate)
    for candidate in sorted(candidates):
        if not any(_collides(variant, candidate, v, c) for v, c in relevant):
            return candidate
    raise AssertionError("unreachable: the column after every obstacle is free")


def allowed_variants(item: Item, tie_lanes: dict) -> tuple[Variant, ...]:
    """The item's variants that agree with the lane offset its tie group has taken."""
    if item.tie < 0 or item.tie not in tie_lanes:
        return item.variants
    lane = tie_lanes[item.tie]
    return tuple(v for v in item.variants if v.lane_offset == lane)


# ------------------------------------------------------------------------- first-fit


def first_fit(items: list[Item], *, order=None, reverse_variants: bool = False,
              strategy: str = "first-fit") -> Placement:
    """Program order, lowest column first, then the first variant (see the module
    docstring). `order` (a sort key) and `reverse_variants` give the other orders
    :func:`optimal` tries as heuristics."""
    placement = Placement(strategy)
    key = order or (lambda it: (it.start, it.index))
    active: list = []  # heap of (end, index) of the items in `live`
    tie_lanes: dict = {}
    pending = sorted(items, key=key)
    program_order = order is None
    live: dict[int, tuple] = {}
    for item in pending:
        if program_order:
            # Items come by start, so what ended before this start never meets it again.
            while active and active[0][0] < item.start:
                _, index = heapq.heappop(active)
                live.pop(index, None)
        obstacles = [(v, c) for v, c, other in live.values() if other.overlaps(item)]
        best = None
        variants = allowed_variants(item, tie_lanes)
        if reverse_variants:
            variants = tuple(reversed(variants))
        for variant in variants:
            column = lowest_column(item, variant, obstacles)
            if best is None or column < best[1]:
                best = (variant, column)
        variant, column = best
        placement.spots[item.index] = best
        if item.tie >= 0:
            tie_lanes.setdefault(item.tie, variant.lane_offset)
        live[item.index] = (variant, column, item)
        if program_order:
            heapq.heappush(active, (item.end, item.index))
    return placement


def no_reuse(items: list[Item]) -> Placement:
    """Every buffer its own cells: in program order, each buffer goes right above
    everything placed before it in the lane halves it uses (two half-lane buffers on
    different halves may share columns: their cells differ). Linear in the number of
    buffers."""
    placement = Placement("no-reuse")
    tops = {1: 0, 2: 0}  # highest column used so far in lane half 0 (mask 1) and 1 (mask 2)
    tie_lanes: dict = {}
    for item in sorted(items, key=lambda it: (it.start, it.index)):
        best = None
        for variant in allowed_variants(item, tie_lanes):
            column = 0
            for part in variant.parts:
                for half in (1, 2):
                    if part.halves & half:
                        column = max(column, tops[half] - part.column)
            column = _round_up(column, item.align)
            if best is None or column < best[1]:
                best = (variant, column)
        variant, column = best
        placement.spots[item.index] = best
        if item.tie >= 0:
            tie_lanes.setdefault(item.tie, variant.lane_offset)
        for part in variant.parts:
            for half in (1, 2):
                if part.halves & half:
                    tops[half] = max(tops[half], column + part.column + part.width)
    return placement


# ------------------------------------------------------------------------- bounds


def _points(items: list[Item]) -> list[int]:
    """Program points where the live set can be maximal: the starts of live ranges."""
    return sorted({it.start for it in items})


def live_at(items: list[Item], point: int) -> list[Item]:
    """The items whose live range contains `point`."""
    return [it for it in items if it.start <= point <= it.end]


def lower_bound(items: list[Item]) -> tuple[int, int]:
    """(bound, program point): the maximum over points of the lane-aware live footprint,
    in whole columns (see the module docstring). A sweep over range starts and ends."""
    events = []
    for it in items:
        events.append((it.start, 0, it.min_area))
        events.append((it.end + 1, -1, -it.min_area))
    events.sort(key=lambda e: (e[0], e[1]))
    best, where, area = 0, 0, 0
    for point, _, delta in events:
        area += delta
        columns = -(-area // 2)
        if columns > best:
            best, where = columns, point
    return best, where


def footprint_at(items: list[Item], point: int) -> int:
    """Lane-aware footprint (whole columns) of the items live at `point`."""
    return -(-sum(it.min_area for it in live_at(items, point)) // 2)


#: How many points (largest lane-aware footprint first) :func:`point_bound` packs exactly.
POINT_BOUND_POINTS = 64


def point_bound(items: list[Item], node_limit: int = DEFAULT_NODE_LIMIT
                ) -> tuple[int, int, bool]:
    """(bound, point, exact): the largest, over the program points with the largest
    lane-aware footprints, of the minimum columns that the buffers live at that point
    need when placed together. `exact` is False if a search hit its node limit (the
    value is then the lane-aware bound of that point)."""
    best, where, exact = 0, 0, True
    ranked = sorted(_points(items), key=lambda p: -footprint_at(items, p))
    for point in ranked[:POINT_BOUND_POINTS]:
        live = live_at(items, point)
        static = [Item(it.index, it.label, 0, 0, it.variants, it.align, it.tie,
                       it.columns, it.stages) for it in live]
        placement = optimal(static, node_limit=node_limit)
        value = placement.peak() if placement.proven else footprint_at(items, point)
        exact = exact and placement.proven
        if value > best:
            best, where = value, point
    return best, where, exact


# ------------------------------------------------------------------------- optimal


def _components(items: list[Item]) -> list[list[Item]]:
    """Groups of items whose live ranges chain together (and tie groups): placements in
    different groups never meet."""
    ordered = sorted(items, key=lambda it: (it.start, it.index))
    groups: list[list[Item]] = []
    end = None
    for item in ordered:
        if end is None or item.start > end:
            groups.append([])
            end = item.end
        groups[-1].append(item)
        end = max(end, item.end)
    # Tie groups always overlap in time (every member is live at the MMA), so they are
    # never split; merge defensively if they were.
    owner: dict[int, int] = {}
    merged: list[list[Item]] = []
    for group in groups:
        target = None
        for item in group:
            if item.tie >= 0 and item.tie in owner:
                target = owner[item.tie]
        if target is None:
            merged.append(list(group))
            target = len(merged) - 1
        else:
            merged[target].extend(group)
        for item in group:
            if item.tie >= 0:
                owner[item.tie] = target
    return merged


def _heuristics(items: list[Item]) -> Placement:
    """The best of first-fit in several orders (program order first, so that the result
    is never worse than first-fit)."""
    orders = [
        None,
        lambda it: (-it.min_width, it.start, it.index),
        lambda it: (-it.min_area * (it.end - it.start + 1), it.index),
        lambda it: (-(it.end - it.start), it.start, it.index),
        lambda it: (it.end, it.index),
    ]
    if len(items) > HEURISTIC_ALL_ORDERS_MAX_ITEMS:
        orders = orders[:1]
    best = None
    for order in orders:
        for reverse in (False, True):
            candidate = first_fit(items, order=order, reverse_variants=reverse)
            if best is None or candidate.peak() < best.peak():
                best = candidate
    return best


class _Search:
    """Branch and bound for the minimum peak of one component (see :func:`optimal`)."""

    def __init__(self, items: list[Item], best: Placement, bound: int, node_limit: int):
        self.items = items
        self.best_peak = best.peak()
        self.best_spots = dict(best.spots)
        self.bound = bound
        self.node_limit = node_limit
        self.nodes = 0
        self.aborted = False
        self.overlapping = {it.index: [o for o in items if o is not it and o.overlaps(it)]
                            for it in items}
        self.spots: dict[int, tuple[Variant, int]] = {}
        self.tie_lanes: dict = {}
        self.lookup = {it.index: it for it in items}
        # Lowest columns computed so far, per (item, variant): valid while no item that
        # overlaps the item in time is placed or removed (its epoch is unchanged).
        self.epoch = {it.index: 0 for it in items}
        self.cache: dict = {}

    def run(self) -> None:
        """Searches unless the heuristic placement already meets the bound."""
        if self.best_peak > self.bound:
            self.dfs(set(self.lookup), 0, None, 0)

    def lowest(self, item: Item, variant: Variant, floor: int) -> int:
        """:func:`lowest_column` among the placed items, cached."""
        key = (item.index, variant)
        epoch = self.epoch[item.index]
        hit = self.cache.get(key)
        if hit is not None and hit[0] == epoch and hit[1] <= floor <= hit[2]:
            return hit[2]
        obstacles = [self.spots[o.index] for o in self.overlapping[item.index]
                     if o.index in self.spots]
        column = lowest_column(item, variant, obstacles, floor)
        self.cache[key] = (epoch, floor, column)
        return column

    def touch(self, item: Item) -> None:
        """Invalidates the cached columns of the items that overlap `item`."""
        for other in self.overlapping[item.index]:
            self.epoch[other.index] += 1

    def dfs(self, remaining: set, floor: int, last: Item | None, peak: int) -> None:
        """Places one more item at each level (see :func:`optimal`)."""
        if self.aborted:
            return
        self.nodes += 1
        if self.nodes > self.node_limit:
            self.aborted = True
            return
        if not remaining:
            if peak < self.best_peak:
                self.best_peak = peak
                self.best_spots = dict(self.spots)
            return
        target = self.best_peak - 1
        candidates = []
        for index in remaining:
            item = self.lookup[index]
            fits = False
            for variant in allowed_variants(item, self.tie_lanes):
                column = self.lowest(item, variant, floor)
                if column + variant.width > target:
                    continue
                fits = True
                if (last is not None and column == floor and index < last.index
                        and not item.overlaps(last)):
                    continue  # same placement as the other order of two independent items
                candidates.append((column, -variant.width, index, variant))
            if not fits:
                return  # this item can never be placed below the best peak any more
        candidates.sort(key=lambda c: (c[0], c[1], c[2]))
        for column, neg_width, index, variant in candidates:
            if self.aborted or self.best_peak <= self.bound:
                return
            if column - neg_width > self.best_peak - 1:
                continue
            item = self.lookup[index]
            self.spots[index] = (variant, column)
            self.touch(item)
            tie_new = item.tie >= 0 and item.tie not in self.tie_lanes
            if tie_new:
                self.tie_lanes[item.tie] = variant.lane_offset
            remaining.discard(index)
            self.dfs(remaining, column, item, max(peak, column - neg_width))
            remaining.add(index)
            if tie_new:
                del self.tie_lanes[item.tie]
            del self.spots[index]
            self.touch(item)


def optimal(items: list[Item], *, node_limit: int = DEFAULT_NODE_LIMIT) -> Placement:
    """The placement of minimum peak column.

    Each connected component of the live ranges is solved on its own. A component's
    upper bound is the best of first-fit in several orders (so ``optimal`` is never worse
    than ``first-fit``); if that meets the component's :func:`lower_bound`, it is optimal.
    Otherwise a branch and bound searches placements that put items one by one, each at
    the lowest column (not below the previous item's) where it fits among the items
    placed so far, over every choice of next item and variant.

    Why that search is complete: take an optimal placement and move items to lower free
    columns while any can move (the peak never grows). Sorted by column, each item then
    sits at the lowest column where it fits among the items before it: an item above it
    cannot block it, because parts are staircases (full blocks below half blocks), so
    every part of a higher item that shares a lane half with a lower item's part lies
    above that part. The search tries exactly that sequence. Pruning: a branch stops
    when some remaining item fits nowhere below the best peak; of two independent items
    (disjoint live ranges) at the same column only one order is tried.

    Fallback: the search of a component stops after `node_limit` nodes, and a component
    of more than ``SEARCH_MAX_ITEMS`` buffers is not searched (kernels far larger than the
    corpus); the best placement found so far is kept, ``proven`` says False and the report
    says the result is the best found, not a proof. Components of more than
    ``HEURISTIC_ALL_ORDERS_MAX_ITEMS`` buffers try program order only, so the fallback
    stays as fast as first-fit.
    """
    placement = Placement("optimal", proven=True)
    for component in _components(items):
        bound, _ = lower_bound(component)
        bound = max(bound, max(it.min_width for it in component))
        heuristic = _heuristics(component)
        if heuristic.peak() <= bound:
            placement.spots.update(heuristic.spots)
            continue
        if len(component) > SEARCH_MAX_ITEMS:
            placement.spots.update(heuristic.spots)
            placement.proven = False
            continue
        search = _Search(component, heuristic, bound, node_limit)
        search.run()
        placement.spots.update(search.best_spots)
        placement.nodes += search.nodes
        placement.proven = placement.proven and not search.aborted
    return placement


STRATEGIES = MappingProxyType({
    "first-fit": first_fit,
    "optimal": optimal,
    "no-reuse": no_reuse,
})


def place(strategy: str, items: list[Item], **options) -> Placement:
    """Runs the named strategy."""
    if strategy not in STRATEGIES:
        raise ValueError(f"unknown strategy '{strategy}' (one of {', '.join(STRATEGIES)})")
    if not items:
        return Placement(strategy, proven=True)
    if strategy == "optimal":
        return optimal(items, **options)
    return STRATEGIES[strategy](items)
