"""Machine state the simulator's parts share: the PTX executor owns it, the tensor-core
model reads and writes it through the operations it returns.

The simulator takes its semantics from the PTX ISA text (section 9.7.16), never from the
compiler: nothing under ``tcgen05_lower.sim`` imports ``tcgen05_lower.isa``,
``tcgen05_lower.lowering``, ``tcgen05_lower.passes`` or ``tcgen05_lower.planning``
(tests/test_sim_independence.py checks it).

Conventions
-----------
- A CTA is identified by its rank in the cluster (``%cluster_ctarank``): 0, or 0 and 1 for a
  CTA pair.
- Shared memory of a CTA is ``CtaMemory.smem``, a flat ``uint8`` array; a ``.shared::cta``
  address ``a`` is the byte ``smem[a]``.
- Tensor memory of a CTA is ``CtaMemory.tmem``, ``uint32[128, 512]``: cell (lane, column)
  holds one 32-bit column of one lane (9.7.16.1). A TMEM address is ``lane << 16 | column``
  (9.7.16.1.1).
- Footprints name cells by CTA rank: TMEM cells as a boolean mask ``[128, 512]``, shared
  memory bytes as a sorted, unique ``int64`` array of byte addresses.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

TMEM_LANES = 128
TMEM_COLUMNS = 512


class Address(int):
    """The value of a bracketed PTX operand (``[%r9]``, ``[%rd3+16]``): an address, not data."""


class SimError(Exception):
    """The simulated program did something the ISA forbids or leaves undefined.

    The executor adds the PTX line (``ptx_line``, 1-based, and its text) before reporting;
    ``simulate()`` adds ``source``, the source location (``file:line:col``) of the PTX's
    ``.loc`` that line falls under, when the PTX carries ``.loc``."""

    def __init__(self, message: str, ptx_line: int | None = None, ptx_text: str = ""):
        super().__init__(message)
        self.message = message
        self.ptx_line = ptx_line
        self.ptx_text = ptx_text
        self.source: str | None = None

    def __str__(self) -> str:
        if self.ptx_line is None:
            return self.message
        at = f" ({self.source})" if self.source else ""
        return f"PTX line {self.ptx_line}{at}: {self.message}\n    {self.ptx_text.strip()}"


class LimitExceeded(SimError):
    """The run reached (or would reach before it starts) its instruction or time budget
    (``simulate(max_instructions=, timeout=)``, tcgen05-sim --max-instructions /
    --timeout)."""


@dataclass
class CtaMemory:
    """One CTA's on-chip memories."""

    rank: int
    smem: np.ndarray  # uint8[bytes]
    tmem: np.ndarray = field(
        default_factory=lambda: np.zeros((TMEM_LANES, TMEM_COLUMNS), dtype=np.uint32))
    # the tensor core's collector buffers (9.7.16.10): buffer name ("a", "b0".."b3") ->
    # (element type, operand bytes) its last ::fill stored, while valid (datamove.py)
    collectors: dict = field(default_factory=dict)


@dataclass
class Footprint:
    """The cells an operation reads and writes, per CTA rank."""

    tmem_reads: dict[int, np.ndarray] = field(default_factory=dict)   # rank -> bool[128, 512]
    tmem_writes: dict[int, np.ndarray] = field(default_factory=dict)  # rank -> bool[128, 512]
    smem_reads: dict[int, np.ndarray] = field(default_factory=dict)   # rank -> int64 addresses
    smem_writes: dict[int, np.ndarray] = field(default_factory=dict)  # rank -> int64 addresses
    #: Summaries of the TMEM masks, computed once (``tmem_bits``, tmem_index's): an
    #: operation's footprint is complete when it is issued and not changed afterwards.
    _summaries: dict = field(default_factory=dict, repr=False, compare=False)

    def tmem_bits(self, which: str, rank: int) -> tuple[int, int] | None:
        """(lanes, columns) the ``which`` ("reads" or "writes") mask of CTA ``rank``
        touches, as bit sets (Python ints: bit i set when lane / column i holds a cell of
        it), or None without such a mask. Two masks share a cell only if both their lane
        sets and their column sets intersect: the per-record test (ordering_tensor's
        ``_may_share``) that ``tmem_index`` computes for all records at once."""
        key = (which, rank)
        if key not in self._summaries:
            mask = (self.tmem_reads if which == "reads" else self.tmem_writes).get(rank)
            self._summaries[key] = None if mask is None else tmem_bits_of(mask)
        return self._summaries[key]


def tmem_bits_of(mask: np.ndarray) -> tuple[int, int]:
    """(lanes, columns) a TMEM mask ``bool[128, 512]`` touches, as bit sets
    (``Footprint.tmem_bits``)."""
    return _bit_set(mask.any(axis=1)), _bit_set(mask.any(axis=0))


def _bit_set(flags: np.ndarray) -> int:
    """The bool vector ``flags`` as a Python int (bit i = flags[i])."""
    return int.from_bytes(np.packbits(flags, bitorder="little").tobytes(), "little")


def unique_addresses(addresses: np.ndarray) -> np.ndarray:
    """``np.unique(addresses).astype(np.int64)`` for non-negative integer addresses that
    span a small range (shared-memory byte addresses): marks them in a bool vector over
    their range instead of sorting, several times faster for the ~10^4 bytes of an MMA's
    operands."""
    addresses = np.asarray(addresses).reshape(-1)
    if addresses.size == 0:
        return np.unique(addresses).astype(np.int64)
    low, high = int(addresses.min()), int(addresses.max())
    if low < 0 or high - low > 1 << 24:
        return np.unique(addresses).astype(np.int64)
    seen = np.zeros(high - low + 1, bool)
    seen[addresses - low] = True
    return np.flatnonzero(seen).astype(np.int64) + low


class TensorOp(Protocol):
    """One issued asynchronous tcgen05 operation, as the tensor core executes it.

    ``kind`` is the instruction class the ISA's ordering rules speak of (9.7.16.6.2):
    "mma", "cp", "shift", "ld", "st". ``accumulator`` identifies, for an mma, the
    (rank, d-tmem address, shape) that makes two MMAs a pipelined pair; None otherwise.
    ``perform`` applies the effect, reading its inputs at that moment.
    """

    kind: str
    footprint: Footprint
    accumulator: tuple | None

    def perform(self, ctas: list[CtaMemory]) -> None: ...
