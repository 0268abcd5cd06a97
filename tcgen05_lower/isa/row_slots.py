"""Which rows of a warpgroup access each thread holds, for per-row reductions that span
the threads of a row (tcgen05.frag_reduce, frag_broadcast, maps of per-row values).

A fragment is "row-slotted" when every message a thread takes part in holds columns of
one row only: then the thread's registers fall into ``lane_halves`` slots (slot s: the
registers of its messages m with m mod lane_halves = s, ``addressing.message_address``),
each of one row, the row ``addressing.reduced_row`` names, which is how tcgen05.ld.red
holds its per-row result (9.7.16.8.3). Of the message shapes (tmem-facts section 2):

- ``.32x32b``: thread l holds lane taddr.lane + l, all its columns: one row per thread;
- ``.16x32bx2``: thread l holds lane taddr.lane + l mod 16, columns r (l < 16) or
  immHalfSplitoff + r (l >= 16): threads l and l xor 16 share a row;
- ``.16x64b``, ``.16x128b``, ``.16x256b``: one message holds two rows in each thread
  (lanes l/4 and l/4 + 8), not row-slotted.

Layouts that fold a row's columns onto other warps' lanes (B, E, G) are not either:
their threads never share a warp. The threads of a warp that hold a row are found
by XOR masks of the lane (shfl.sync.bfly, 9.7.10.9): every mask that maps each thread to
one holding the same rows, and together they must reach every holder.
All of it is worked out on concrete thread numbers with ``addressing.element``, the
formula the lowering emits.
"""

from __future__ import annotations

import functools

from .addressing import LANES_PER_WARP, WARPS, WarpgroupAccess, element

#: The message shapes whose messages hold one row per thread (module docstring).
ROW_SHAPES = ("32x32b", "16x32bx2")


def slot_of(access: WarpgroupAccess, reg: int) -> int:
    """The slot (lane half of its message) of register `reg` of a row-slotted access."""
    return (reg // access.message_registers) % access.lane_halves


@functools.lru_cache(maxsize=128)
def slot_rows(access: WarpgroupAccess) -> tuple | None:
    """For each (warp, thread), the rows of its slots, when the access is row-slotted
    (module docstring); None otherwise."""
    if access.fold != 1 or access.shape not in ROW_SHAPES:
        return None
    table = []
    for warp in range(WARPS):
        for thread in range(LANES_PER_WARP):
            rows = [None] * access.lane_halves
            for reg in range(access.registers):
                row, _ = element(access, warp=warp, thread=thread, reg=reg)
                slot = slot_of(access, reg)
                if rows[slot] is None:
                    rows[slot] = row
                elif rows[slot] != row:
                    return None
            table.append(tuple(rows))
    return tuple(table)


@functools.lru_cache(maxsize=128)
def shuffle_masks(access: WarpgroupAccess) -> tuple[int, ...] | None:
    """The lane XOR masks (powers of two) that combine the threads holding each row, in
    increasing order; () when each row is held by one thread; None when the access is
    not row-slotted or the holders of a row are not a group of XOR masks."""
    table = slot_rows(access)
    if table is None:
        return None
    masks = []
    for bit in (1, 2, 4, 8, 16):
        if all(table[w * LANES_PER_WARP + t] == table[w * LANES_PER_WARP + (t ^ bit)]
               for w in range(WARPS) for t in range(LANES_PER_WARP)):
            masks.append(bit)
    for w in range(WARPS):
        for t in range(LANES_PER_WARP):
            holders = sum(table[w * LANES_PER_WARP + u] == table[w * LANES_PER_WARP + t]
                          for u in range(LANES_PER_WARP))
            if holders != 1 << len(masks):
                return None
    return tuple(masks)


def why_not(access: WarpgroupAccess) -> str | None:
    """None when a per-row reduction of a fragment held as `access` is supported; else
    why not."""
    if access.fold != 1:
        return (f"Layout {access.layout} puts the columns of a row beyond the first "
                f"{access.block} on other lanes (other warps')")
    if slot_rows(access) is None:
        return (f"a .{access.shape} message holds parts of two rows in each thread; a "
                f"reduction is supported for .32x32b and .16x32bx2, whose messages hold "
                f"one row per thread")
    if shuffle_masks(access) is None:
        return "the threads that hold a row are not reached by lane XOR masks"
    return None


def same_rows(first: WarpgroupAccess, second: WarpgroupAccess) -> bool:
    """Whether fragments held as the two accesses give every thread the same rows in the
    same slots (so per-row values combine without moving between threads)."""
    a, b = slot_rows(first), slot_rows(second)
    return a is not None and a == b
