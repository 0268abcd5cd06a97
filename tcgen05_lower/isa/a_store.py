"""tcgen05.st into a buffer an MMA reads as its A operand: which messages write A's rows
on the lanes the MMA reads, and which registers of a fragment pack into each message
register.

Where the MMA reads A (tmem-facts section 1, "A in TMEM: Layout D/F place A like D";
9.7.16.10.5: Layouts F and C "must use the same Tensor Memory lane alignment across
matrices A, D and the sparsity metadata"): row r of A sits on the lane D's row r uses,
its K elements packed little-endian along 32-bit columns from the buffer's column
(9.7.16.10.4: D is not packed, A is; 9.7.16.10.4.3: 8-bit containers "contiguously
packed in a 32-bit Tensor Memory word", four per column; 16-bit elements two per column,
the lower K index in the low half).

- Layout D (M = 128, cta_group::1, 9.7.16.10.5.4): row r on lane r. Warp w of the
  warpgroup reaches lanes 32w .. 32w+31 (9.7.16.8.1), so a ``.32x32b`` message
  (9.7.16.2.3.1, thread l writes lane taddr.lane + l, register j column taddr.col + j)
  at lane 32w writes rows 32w .. 32w+31, one per thread.
- Layout F (M = 64, not .ws, 9.7.16.10.5.6, "4x1 (1/2 datapath utilized)", lane
  alignment 0 or 16): row r on lane 32*(r div 16) + r mod 16 + a, a the buffer's lane
  offset. Warp w holds rows 16w .. 16w+15 on lanes 32w+a .. 32w+a+15 only; a 32-lane
  message would also write the other 16 lanes, which may hold another buffer (a second
  M = 64 tile, or S beside P). ``.16x32bx2`` (9.7.16.2.3.1.5, 9.7.16.8.3: "two accesses
  into Tensor Memory of the shape .16x32b", the second at taddr + immHalfSplitoff)
  writes exactly lanes a .. a+15 of the warp's quarter: thread l writes lane l mod 16,
  threads 16-31 at the column immHalfSplitoff on. With immHalfSplitoff = .num the
  halves are adjacent: thread l holds row 16w + l mod 16, packed columns
  [(l div 16) .num, (l div 16 + 1) .num) of each message. No ``tcgen05.cp`` shape does
  this (every one but .4x256b writes whole quarters, 9.7.16.9.2), which is why a
  half-lane A is stored from registers.

The message plan is a ``WarpgroupAccess`` of the buffer's layout on its *packed* columns
(``cols / per_word`` 32-bit columns, ``width / per_word`` of them for a fragment of
``width`` K elements), without ``.unpack::16b`` (which would put one element per column,
the packing of D, 9.7.16.8.2). Register q of a thread holds packed column c of its row,
that is K elements ``per_word * c + h`` for h < per_word, so the fragment being stored
must hold those elements, in that thread, as its registers ``per_word * q + h``
(:func:`source_mismatch` checks this on every thread, by the same
``addressing.element`` the lowering uses).
"""

from __future__ import annotations

import functools
import math
from types import MappingProxyType

from .addressing import LANES_PER_WARP, WARPS, WarpgroupAccess, element

#: K elements per 32-bit TMEM column of A by element width (9.7.16.10.4).
PER_WORD = MappingProxyType({16: 2, 8: 4})
#: The message shape that writes A's rows, by layout (module docstring).
SHAPE = MappingProxyType({"D": "32x32b", "F": "16x32bx2"})
#: Table 47's largest .num for the shapes above (registers per thread).
MAX_NUM = 128


def supported(layout: str) -> bool:
    """Whether A of `layout` can be stored from registers (Layouts D and F)."""
    return layout in SHAPE


def default_num(layout: str, packed_width: int) -> int:
    """The .num of the store of `packed_width` packed columns per warp: one message when
    Table 47 allows it (.32x32b: .num columns; .16x32bx2: 2 .num columns, the two
    halves), else the largest power of two that tiles the slice."""
    per_message = 1 if SHAPE[layout] == "32x32b" else 2
    if packed_width % per_message:
        return 0  # create() reports it
    return math.gcd(packed_width // per_message, MAX_NUM)


def packed_access(layout: str, *, cols: int, width: int, bits: int,
                  num: int | None = None) -> WarpgroupAccess:
    """The store of K elements [column, column + width) of an A buffer of `cols` K
    elements of `bits`-bit data: messages of ``SHAPE[layout]`` on the packed columns.
    Raises IsaRuleError when they cannot tile the slice (addressing.WarpgroupAccess)."""
    per_word = PER_WORD[bits]
    packed = width // per_word
    shape = SHAPE[layout]
    if num is None:
        num = default_num(layout, packed) or 1
    return WarpgroupAccess.create(layout, n=cols // per_word, width=packed, shape=shape,
                                  num=num, op="st",
                                  half_split=num if shape == "16x32bx2" else None)


def matching_num(layout: str, source: WarpgroupAccess, bits: int) -> int | None:
    """The .num of the A store whose registers pack those of a fragment held as
    `source` (the load it comes from), when one exists: for .16x32bx2 both halves
    must split the row at the same K element, so the store's .num is the source's
    .num / per_word; None for .32x32b (any .num tiles a row alike)."""
    if SHAPE[layout] != "16x32bx2" or source.shape != "16x32bx2":
        return None
    num = source.num // PER_WORD[bits]
    return num if num >= 1 and num * PER_WORD[bits] == source.num else None


@functools.lru_cache(maxsize=64)
def source_mismatch(source: WarpgroupAccess, store: WarpgroupAccess,
                    per_word: int) -> str | None:
    """None when, in every thread of the warpgroup, the fragment registers
    ``per_word * q + h`` held as `source` are K elements ``per_word * c + h`` of the row
    that the store's register q writes at packed column c (module docstring); else
    why not, for the diagnostic. Worked out on concrete thread numbers."""
    if source.pack16:
        return "it is packed (.pack::16b), two columns per register"
    if source.fold != 1:
        return f"Layout {source.layout} puts a row's columns on several lanes"
    if source.registers != per_word * store.registers:
        return (f"each thread holds {source.registers} of its elements, not "
                f"{per_word * store.registers}")
    for warp in range(WARPS):
        for thread in range(LANES_PER_WARP):
            for q in range(store.registers):
                row, packed = element(store, warp=warp, thread=thread, reg=q)
                for h in range(per_word):
                    got = element(source, warp=warp, thread=thread, reg=per_word * q + h)
                    if got != (row, per_word * packed + h):
                        return (f"thread {thread} of warp {warp} holds element {got} in "
                                f"register {per_word * q + h}, where the store needs "
                                f"{(row, per_word * packed + h)}")
    return None
