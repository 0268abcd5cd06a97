"""The tensor core's data path in tensor memory (PTX ISA 9.7.16.10.5, for ``tensor_core``
and ``tc_mma``): the cells of D under each data-path layout, the cells of A in tensor
memory, the accumulation into D with its rounding, the ``Operation`` an issue builds,
and the one-BLAS-thread guard the products run under.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from tcgen05_lower.sim.state import TMEM_COLUMNS, TMEM_LANES, CtaMemory, Footprint, SimError
from tcgen05_lower.sim.tc_descriptors import InstrDescriptor


# -- Data-path layouts (9.7.16.10.5, tmem-facts section 1) ------------------------------------

def d_cells(m: int, n: int, cta_group: int, ws: bool, taddr: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(lanes[rows, N], columns[rows, N], rows) of the D rows one CTA holds, for the
    data-path layout the MMA's shape selects (9.7.16.10.5). Row i of the result is the
    CTA's i-th row of D (for a CTA pair: row i + rows * (rank & 1) of the pair's D)."""
    lane0, col0 = taddr >> 16, taddr & 0xFFFF
    c = np.arange(n).reshape(1, n)
    if cta_group == 1 and m == 128:           # Layout D (also .ws with M = 128)
        rows, lane, col = 128, np.arange(128).reshape(128, 1) + lane0 + 0 * c, col0 + c
    elif cta_group == 1 and m == 64 and not ws:   # Layout F: 16 lanes of each quarter
        if lane0 not in (0, 16):
            raise SimError(f"Layout F (M = 64): d-tmem lane {lane0} must be 0 or 16 "
                           "(9.7.16.10.5.6)")
        r = np.arange(64).reshape(64, 1)
        rows, lane, col = 64, 32 * (r // 16) + r % 16 + lane0 + 0 * c, col0 + c
    elif cta_group == 1 and m == 64 and ws:       # Layout E: two column halves
        half = n // 2
        r = np.arange(64).reshape(64, 1)
        rows, lane, col = 64, r + 64 * (c // half) + lane0, col0 + c % half
    elif cta_group == 1 and m == 32 and ws:       # Layout G: four column quarters
        quarter = n // 4
        r = np.arange(32).reshape(32, 1)
        rows, lane, col = 32, r + 32 * (c // quarter) + lane0, col0 + c % quarter
    elif cta_group == 2 and m == 256:            # Layout A: 128 rows per CTA
        rows, lane, col = 128, np.arange(128).reshape(128, 1) + lane0 + 0 * c, col0 + c
    elif cta_group == 2 and m == 128:            # Layout B (dense): 64 rows per CTA
        half = n // 2
        r = np.arange(64).reshape(64, 1)
        rows, lane, col = 64, r + 64 * (c // half) + lane0, col0 + c % half
    else:
        raise SimError(f"no data-path layout for M = {m}, cta_group::{cta_group}"
                       f"{', .ws' if ws else ''} (9.7.16.10.5)")
    lane = np.broadcast_to(lane, (rows, n))
    col = np.broadcast_to(col, (rows, n))
    if lane.max() >= TMEM_LANES or col.max() >= TMEM_COLUMNS:
        raise SimError(f"D of M = {m}, N = {n} at TMEM address {taddr:#x} runs past tensor "
                       f"memory (128 lanes x 512 columns)")
    return lane, col, rows


def _mask(lanes: np.ndarray, cols: np.ndarray) -> np.ndarray:
    mask = np.zeros((TMEM_LANES, TMEM_COLUMNS), bool)
    mask[lanes, cols] = True
    return mask


# -- tcgen05.mma ---------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1)   # the library is looked up once per process
def _openblas_local_threads():
    """OpenBLAS's ``openblas_set_num_threads_local`` (0.3.27 and later: sets the calling
    thread's BLAS thread count, returns the previous one) from the OpenBLAS NumPy ships
    with, or None when NumPy links another BLAS."""
    import ctypes
    import glob
    import os

    here = os.path.dirname(np.__file__)
    for path in sorted(glob.glob(os.path.join(here, os.pardir, "numpy.libs", "*openblas*")) +
                       glob.glob(os.path.join(here, ".dylibs", "*openblas*"))):
        try:
            function = ctypes.CDLL(path).openblas_set_num_threads_local
        except (OSError, AttributeError):
            continue
        function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
        return function
    return None


class one_blas_thread:
    """Runs the products of one MMA (a few hundred thousand multiply-adds) on one BLAS
    thread: a threaded BLAS splits a product that small across threads that then wait for
    each other, tens of milliseconds per MMA when the cores are busy. The numbers are the
    same (each element of the product is computed by one thread either way)."""

    def __enter__(self):
        set_threads = _openblas_local_threads()
        self.previous = set_threads(1) if set_threads else None

    def __exit__(self, *exc):
        if self.previous is not None:
            _openblas_local_threads()(self.previous)


@dataclass
class Operation:
    """One issued tcgen05.mma, cp, ld or st (the TensorOp protocol of state.py)."""

    kind: str
    footprint: Footprint
    accumulator: tuple
    _perform: object

    def perform(self, ctas: list[CtaMemory]) -> None:
        self._perform(ctas)


def _a_tmem_cells(d_lanes: np.ndarray, rows: int, a_taddr: int, k_bytes: int):
    """Cells of A in tensor memory (9.7.16.10.4, tmem-facts section 1): row i on the lane
    D's row i uses, shifted to a-tmem's lane field; the K elements packed little-endian
    along 32-bit columns from a-tmem's column. Returns (lanes[rows, words],
    columns[rows, words])."""
    words = -(-k_bytes // 4)
    lane = d_lanes[:, :1] - int(d_lanes[0, 0]) + (a_taddr >> 16) + np.zeros((1, words), int)
    col = (a_taddr & 0xFFFF) + np.arange(words).reshape(1, words) + np.zeros((rows, 1), int)
    if lane.max() >= TMEM_LANES or col.max() >= TMEM_COLUMNS:
        raise SimError(f"A at TMEM address {a_taddr:#x} runs past tensor memory")
    return lane, col


def _tmem_bytes(cta: CtaMemory, lane, col, rows) -> np.ndarray:
    words = cta.tmem[lane, col]                                  # [rows, words] uint32
    return words.view(np.uint8).reshape(rows, -1) if words.flags.c_contiguous else \
        np.ascontiguousarray(words).view(np.uint8).reshape(rows, -1)


def tmem_block(lanes: np.ndarray, cols: np.ndarray) -> tuple:
    """The cells (lanes[rows, N], columns[rows, N]) as a pair of slices when they are the
    block of lanes l0.. and columns c0.. in row-major order (D under layouts A and D), so
    that tensor memory is indexed by a view instead of gathered and scattered cell by
    cell (the same elements in the same order); else (lanes, cols) unchanged."""
    if lanes.ndim != 2 or lanes.shape != cols.shape or not lanes.size:
        return lanes, cols
    rows, n = lanes.shape
    l0, c0 = int(lanes[0, 0]), int(cols[0, 0])
    if (lanes == np.arange(l0, l0 + rows).reshape(rows, 1)).all() and \
            (cols == np.arange(c0, c0 + n).reshape(1, n)).all():
        return slice(l0, l0 + rows), slice(c0, c0 + n)
    return lanes, cols


def _accumulate(cta: CtaMemory, lanes, cols, product, info: InstrDescriptor,
                enable_input_d: bool, scale_input_d: int, keep_lanes) -> None:
    """D's cells (lanes, cols: index arrays, or ``tmem_block``'s slices) = product
    (+ D's old value scaled when enable_input_d), rounded to D's type. An f32 D that is
    a block of cells takes ``_accumulate_f32_block`` (the same operations in place)."""
    if info.d_type == "f32" and keep_lanes is None and \
            _accumulate_f32_block(cta.tmem, lanes, cols, product, enable_input_d,
                                  scale_input_d):
        return
    old = cta.tmem[lanes, cols]
    if info.d_type == "s32":
        total = product.astype(np.int64)
        if enable_input_d:
            total = total + old.view(np.int32).astype(np.int64)
        if info.saturate:
            total = np.clip(total, -2**31, 2**31 - 1)
        new = (total & 0xFFFFFFFF).astype(np.uint32)
    else:
        if enable_input_d:
            if info.d_type == "f32":
                prior = old.view(np.float32).astype(np.float64)
            else:
                prior = (old & 0xFFFF).astype(np.uint16).view(np.float16).astype(np.float64)
            product = product + prior * 2.0 ** -scale_input_d
        if info.d_type == "f32":
            new = product.astype(np.float32).view(np.uint32)
        else:   # 9.7.16.10.4.1: a 16-bit D element in the low 16 bits of its word
            new = product.astype(np.float16).view(np.uint16).astype(np.uint32)
    if keep_lanes is not None:
        new = np.where(keep_lanes, old, new)
    cta.tmem[lanes, cols] = new


def _accumulate_f32_block(tmem: np.ndarray, lanes, cols, product, enable_input_d: bool,
                          scale_input_d: int) -> bool:
    """``_accumulate`` of an f32 D whose cells are a block (``tmem_block``'s slices),
    with no lane kept, done in place: True when done, False (nothing done) for anything
    else, which the general code then does.

    The same operations on the same values, so the same bits: the old words are read
    as float32 and converted to float64 (the general code's ``prior``), multiplied by
    2^-scale-input-d (the same multiplication) unless that is 2^0 = 1, which leaves
    every value as it is (x * 1.0 = x exactly for a number; a NaN converted from float32
    is already quiet, and a multiplication returns a quiet NaN operand unchanged), and
    added as ``product + prior`` (the same operand order, so the same NaN comes out when
    both are NaNs); the sum is then converted to float32 by NumPy's float64 -> float32
    cast as it is stored through a float32 view of the cells, the cast
    ``astype(float32)`` makes before the general code stores the words. The tests run
    both on NaN payloads, infinities, signed zeros and values past float32's range."""
    if type(lanes) is not slice or type(cols) is not slice or tmem.dtype != np.uint32 \
            or not isinstance(product, np.ndarray) or product.dtype != np.float64:
        return False
    view = tmem[lanes, cols].view(np.float32)
    if product.shape != view.shape:
        return False   # broadcast or mismatched: the general code's
    if not enable_input_d:
        view[...] = product
        return True
    prior = view.astype(np.float64)
    if scale_input_d:
        np.multiply(prior, 2.0 ** -scale_input_d, out=prior)
    np.add(product, prior, out=prior)
    view[...] = prior
    return True


#: A 16-byte chunk of shared memory as one NumPy item (``gather_bytes``).
_CHUNK_ITEM = np.dtype((np.void, 16))


def gather_bytes(smem: np.ndarray, addresses: np.ndarray, chunks) -> np.ndarray:
    """``smem[addresses]`` (a CTA's shared memory, uint8[bytes]; addresses[rows, bytes]),
    copied by 16-byte chunks when ``chunks`` gives them: (index, offset, highest), the
    chunk (address // 16) each 16 bytes of a row of ``addresses`` are, in order, being
    index[rows, bytes / 16] (non-negative, the largest ``highest``) plus offset
    (``tc_mma._operand_chunks``); or None. One copy per chunk instead of per byte, the
    same bytes in the same places; the byte gather whenever the chunks do not fit this
    memory or these addresses (it also fails as before on an address outside the shared
    memory)."""
    if chunks is None:
        return smem[addresses]
    index, offset, highest = chunks
    if smem.dtype != np.uint8 or smem.ndim != 1 or not smem.flags.c_contiguous \
            or offset < 0 or offset + highest >= smem.size // 16 or addresses.ndim != 2 \
            or index.shape != (addresses.shape[0], addresses.shape[1] // 16) \
            or addresses.shape[1] % 16:
        return smem[addresses]
    return smem[16 * offset:smem.size // 16 * 16].view(_CHUNK_ITEM)[index].view(np.uint8)
