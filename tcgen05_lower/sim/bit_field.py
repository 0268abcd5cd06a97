"""bfe's bit-field extraction (PTX ISA 9.7.2, bfe) on arrays of raw bits, for the
handler in ``ops_arith``."""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.words import MASK


def bit_extract(x, pos, length, bits: int, signed: bool):
    """bfe (9.7.2.x): bits pos..pos+len-1 of x, zero- or sign-extended."""
    x = np.asarray(x, np.uint64)
    pos = np.asarray(pos, np.uint64)
    length = np.asarray(length, np.uint64)
    avail = np.where(pos >= bits, np.uint64(0), np.uint64(bits) - np.minimum(pos, np.uint64(bits)))
    n = np.minimum(length, avail)
    shifted = x >> np.minimum(pos, np.uint64(63))
    field = np.where(n >= 64, shifted, shifted & ((np.uint64(1) << np.minimum(n, np.uint64(63)))
                                                  - np.uint64(1)))
    field = np.where(n == 0, np.uint64(0), field)
    if not signed:
        return field
    top = np.minimum(pos + length - np.uint64(1), np.uint64(bits - 1))
    sbit = np.where(length == 0, np.uint64(0), (x >> np.minimum(top, np.uint64(63))) & np.uint64(1))
    fill = ~((np.uint64(1) << np.minimum(n, np.uint64(63))) - np.uint64(1))
    fill = np.where(n >= 64, np.uint64(0), fill)
    return np.where(sbit == 1, field | fill, field) & MASK[bits]
