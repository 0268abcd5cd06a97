"""TMA loads in the simulator: tensor maps bound at launch, and
``cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes``.

A CUtensorMap's 128 bytes are driver-defined, so the simulator does not read them: a
tensor-map kernel parameter is bound at launch to a ``TensorMap`` (the array it
describes, its dimensions and strides, the box and the swizzle mode), and the parameter's
value is an address the simulator made up for it. ``cp.async.bulk.tensor`` looks the
address up; an address that was not given (a pointer to an array, a computed address)
is a SimError.

The copy (PTX ISA 9.7.9.25.5.1, 5.5 "Tensors"): the box of ``box[0] x box[1]`` elements
(innermost first) at element coordinates ``(c0, c1)`` is read from the tensor (element
(i, j) at byte ``j * strides[0] + i * element bytes``; elements outside
``[0, dims)`` in any dimension are written as zero, the tiled mode's out-of-bound
fill), and written to shared memory as ``box[1]`` rows of ``box[0] * element bytes``
bytes from the destination address on; with a swizzle mode, the 16-byte chunks of that
image move as the tensor swizzling modes (5.5.6) define, the same 16-byte-chunk XOR on
the shared-memory address that the tensor core's operand layouts use: the simulator's own
model, ``tc_descriptors.swizzled_address``. The bytes are written through the async proxy
when the copy completes, which also performs complete_tx of the box's bytes on the
mbarrier (``ordering.OrderingModel.tma_load``).
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.smem_chunks import chunk_form_of_chunks
from tcgen05_lower.sim.state import SimError

#: Where the made-up tensor-map addresses start (apart from the arrays' addresses), and
#: the bytes of each (a CUtensorMap is 128 bytes, 64-byte aligned).
TENSOR_MAP_BASE = 0x7E00_0000_0000
TENSOR_MAP_BYTES = 128
#: Swizzle mode -> bytes of a swizzle row (the span whose 16-byte chunks it permutes).
SWIZZLE_SPAN = MappingProxyType({"none": None, "32B": 32, "64B": 64, "128B": 128})


@dataclass(frozen=True)
class TensorMap:
    """What ``cuTensorMapEncodeTiled`` was given, for a 2-D tensor: ``tensor`` names the
    array parameter (the global address), ``dims`` its extents in elements and
    ``strides`` its byte strides of the dimensions after the first (innermost first, as
    the driver API orders them); ``box`` the box in elements, ``swizzle`` "none", "32B",
    "64B" or "128B". Element strides are 1, interleave none, out-of-bound fill zero."""
    tensor: str
    dims: tuple
    strides: tuple
    box: tuple
    swizzle: str

    @staticmethod
    def of_array(tensor: str, array: np.ndarray, box, swizzle: str) -> "TensorMap":
        """The map of a whole C-contiguous 2-D array (rows x columns: dims {columns,
        rows}, strides {row bytes})."""
        if array.ndim != 2:
            raise SimError(f"a tensor map of {tensor} needs a 2-D array, not {array.ndim}-D")
        rows, columns = array.shape
        return TensorMap(tensor, (columns, rows), (array.strides[0],), tuple(box), swizzle)

    def check(self, itemsize: int) -> None:
        """The encoding rules cuTensorMapEncodeTiled enforces that the copy relies on."""
        if len(self.dims) != 2 or len(self.box) != 2 or len(self.strides) != 1:
            raise SimError(f"tensor map of {self.tensor}: only 2-D maps are simulated")
        if self.swizzle not in SWIZZLE_SPAN:
            raise SimError(f"tensor map of {self.tensor}: swizzle {self.swizzle!r} is not "
                           f"none, 32B, 64B or 128B")
        if any(not 1 <= b <= 256 for b in self.box):
            raise SimError(f"tensor map of {self.tensor}: box {self.box} has a dimension "
                           f"outside 1..256")
        if self.strides[0] % 16:
            raise SimError(f"tensor map of {self.tensor}: stride {self.strides[0]} is not "
                           f"a multiple of 16 bytes")
        inner = self.box[0] * itemsize
        if inner % 16:
            raise SimError(f"tensor map of {self.tensor}: the box's inner dimension is "
                           f"{inner} bytes, not a multiple of 16")
        span = SWIZZLE_SPAN[self.swizzle]
        if span is not None and inner > span:
            raise SimError(f"tensor map of {self.tensor}: the box's inner dimension is "
                           f"{inner} bytes, more than the {self.swizzle} swizzle span")


def box_image(tmap: TensorMap, raw: np.ndarray, itemsize: int, c0: int, c1: int) -> np.ndarray:
    """The box at element coordinates (c0, c1) as ``box[1]`` rows of bytes, elements
    outside the tensor zero (module docstring)."""
    b0, b1 = tmap.box
    inner = _inner_box(tmap, raw, itemsize, c0, c1)
    if inner is not None:
        return inner
    i = c0 + np.arange(b0).reshape(1, b0)
    j = c1 + np.arange(b1).reshape(b1, 1)
    inside = (i >= 0) & (i < tmap.dims[0]) & (j >= 0) & (j < tmap.dims[1])
    start = np.where(inside, j * tmap.strides[0] + i * itemsize, 0)
    offsets = start[..., None] + np.arange(itemsize)
    image = raw[offsets]
    image[~inside] = 0
    return image.reshape(b1, b0 * itemsize)


def _inner_box(tmap: TensorMap, raw: np.ndarray, itemsize: int, c0: int, c1: int):
    """``box_image`` of a box wholly inside the tensor, as a copy of the rows' bytes read
    through strides (the same bytes as its gather); None when the box reaches outside
    the tensor or its bytes outside ``raw`` (the gather then fills or fails)."""
    b0, b1 = tmap.box
    stride, row = int(tmap.strides[0]), b0 * itemsize
    if raw.ndim != 1 or raw.strides != (1,) or stride < 0 or c0 < 0 or c1 < 0 or \
            c0 + b0 > tmap.dims[0] or c1 + b1 > tmap.dims[1]:
        return None
    first = c1 * stride + c0 * itemsize
    if (c1 + b1 - 1) * stride + c0 * itemsize + row > raw.size:
        return None
    if 0 < row <= stride and first + b1 * stride <= raw.size:
        # the rows as a reshaped slice (a view, no as_strided: a plain reshape costs a
        # fraction of its array-interface round trip); the last row needs its whole
        # stride inside ``raw`` for that, so a box at the tensor's end reads as below
        return raw[first:first + b1 * stride].reshape(b1, stride)[:, :row].copy()
    return np.lib.stride_tricks.as_strided(raw[first:], shape=(b1, row),
                                           strides=(stride, 1)).copy()


def destination_addresses(tmap: TensorMap, dst: int, itemsize: int) -> np.ndarray:
    """The shared-memory byte address of every byte of the box image (module docstring)."""
    from tcgen05_lower.sim.tc_descriptors import swizzled_address

    b0, b1 = tmap.box
    row = b0 * itemsize
    dense = dst + np.arange(b1 * row, dtype=np.int64).reshape(b1, row)
    span = SWIZZLE_SPAN[tmap.swizzle]
    return dense if span is None else swizzled_address(dense, span)


def bulk_load_parts(parts: list) -> list:
    """The load's modifiers with the defaults spelled out: ``.shared::cta`` as the
    ``.shared::cluster`` address of the executing CTA it is, and the default load mode
    ``.tile`` (PTX ISA 9.7.9.25.5.1: .dst is .shared::cluster or .shared::cta, .load_mode
    .tile by default)."""
    parts = list(parts)
    if parts[5:6] == ["shared::cta"]:
        parts[5] = "shared::cluster"
    if len(parts) > 7 and parts[7] != "tile" and not parts[7].startswith("im2col"):
        parts.insert(7, "tile")
    return parts


def without_cache_hint(parts: list) -> tuple[list, bool]:
    """The load's modifiers without ``.L2::cache_hint``, and whether it had one. PTX ISA
    9.7.9.25.5.1 (cp.async.bulk.tensor): with ``.L2::cache_hint`` the instruction takes
    one more operand, the 64-bit cache-policy (last, after ctaMask); a cache policy
    (made by createpolicy) is a performance hint on how L2 evicts the lines, which
    changes no value the kernel reads: accepted, its operand read, and ignored."""
    if "L2::cache_hint" not in parts:
        return list(parts), False
    return [p for p in parts if p != "L2::cache_hint"], True


def prefetch_tensormap(ins: P.Instr):
    """``prefetch{.const, .param}.tensormap [a]`` (PTX ISA, prefetch / prefetchu): brings
    the cache line of the tensor map at `a` closer "for subsequent use by the
    cp.async.bulk.tensor instruction"; it has no architectural effect, so it is a no-op
    here, except that `a` must be the generic address of a tensor map given at launch
    (a by-value one through cvta.param, or one passed by pointer): an address that names
    none is the kernel's bug (it would prefetch, then load, something else). Only the
    generic form (no state space) is simulated."""
    from tcgen05_lower.sim.ops_support import _unknown

    if ins.parts != ["prefetch", "tensormap"]:
        raise _unknown(ins, "only prefetch.tensormap [a] with a generic address (and no "
                            "other prefetch) is simulated")

    def make(m, ins):
        if len(ins.operands) != 1:
            raise SimError("prefetch.tensormap takes one address operand", ins.line,
                           ins.text)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            if m.threads_of(act).size:
                addresses = np.unique(np.asarray(m.address(ins.operands[0], act, ins),
                                                 np.uint64).reshape(-1))
                for address in addresses:
                    if int(address) not in m.tensor_maps:
                        raise SimError(f"prefetch.tensormap of {int(address):#x}, which is "
                                       f"not the address of a tensor map given at launch "
                                       f"(bound tensor maps: {m.describe_tensor_maps()})",
                                       ins.line, ins.text)
            m.advance(idx)
        return run
    return make


def handler(ins: P.Instr):
    """cp.async.bulk.tensor, 2-D tile mode, global -> shared::cluster with
    mbarrier::complete_tx::bytes, optionally ``.cta_group::1`` / ``.cta_group::2``; other
    forms are not simulated.

    The mbarrier operand is a shared::cluster address (a shared::cta address names the
    executing CTA's). Without ``.cta_group`` and with ``.cta_group::1`` it must be in the
    CTA whose shared memory the copy writes; with ``.cta_group::2`` it may be in that CTA
    or in its peer CTA of the pair (%cluster_ctarank differing in bit 0; PTX ISA
    9.7.9.25.5.1, ".cta_group"): a CTA pair's loads complete on the even CTA's mbarrier
    (docs/cta-pairs.md). Any other CTA's mbarrier is a SimError."""
    form = ["cp", "async", "bulk", "tensor", "2d", "shared::cluster", "global", "tile",
            "mbarrier::complete_tx::bytes"]
    parts, hinted = without_cache_hint(bulk_load_parts(ins.parts))
    group = parts[len(form):]
    multicast = group[:1] == ["multicast::cluster"]
    if multicast:
        group = group[1:]
    if parts[:len(form)] != form or group not in ([], ["cta_group::1"],
                                                     ["cta_group::2"]):
        from tcgen05_lower.sim.ops_support import _unknown
        raise _unknown(ins, "only cp.async.bulk.tensor.2d.shared::cluster.global.tile"
                            ".mbarrier::complete_tx::bytes{.multicast::cluster}"
                            "{.cta_group::1, ::2}")
    pair = group == ["cta_group::2"]

    def make(m, ins):
        if len(ins.operands) != 3 + multicast + hinted:
            raise SimError(f"cp.async.bulk.tensor{'.multicast::cluster' if multicast else ''}"
                           f"{'.L2::cache_hint' if hinted else ''} takes "
                           f"{3 + multicast + hinted} operands", ins.line, ins.text)
        dst, tensor, mbar = ins.operands[:3]
        if not isinstance(tensor, P.TensorAddr) or len(tensor.coordinates.items) != 2:
            raise SimError("cp.async.bulk.tensor.2d needs [tensorMap, {c0, c1}]", ins.line,
                           ins.text)

        def run(ins, idx):
            from tcgen05_lower.sim.ops_support import _check_mbarrier_address

            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if hinted:  # read (it must be a defined 64-bit value), then ignored
                m.read(ins.operands[-1], act, 64, ins)
            if threads.size:
                dsts = m.address(dst, act, ins) * np.ones(threads.size, np.uint64)
                maps = m.address(tensor.base, act, ins) * np.ones(threads.size, np.uint64)
                bars = m.address(mbar, act, ins) * np.ones(threads.size, np.uint64)
                coords = [m.read(c, act, 32, ins).astype(np.int64) * np.ones(threads.size,
                                                                             np.int64)
                          for c in tensor.coordinates.items]
                masks = (m.read(ins.operands[3], act, 16, ins).astype(np.int64)
                         * np.ones(threads.size, np.int64)) if multicast else None
                for n, g in enumerate(threads):
                    bound = m.tensor_maps.get(int(maps[n]))
                    if bound is None:
                        raise SimError(f"cp.async.bulk.tensor: the tensor map at address "
                                       f"{int(maps[n]):#x} was not given at launch (bound "
                                       f"tensor maps: {m.describe_tensor_maps()})",
                                       ins.line, ins.text)
                    tmap, buffer = bound
                    itemsize = buffer.data.itemsize
                    c0, c1 = (_int32(int(c[n])) for c in coords)
                    if int(dsts[n]) % 128:
                        raise SimError(f"cp.async.bulk.tensor: shared-memory destination "
                                       f"{int(dsts[n]):#x} is not 128-byte aligned",
                                       ins.line, ins.text)
                    addresses, chunks = _destinations(m, tmap, int(dsts[n]), itemsize)
                    nbytes = addresses.size
                    rank, _ = _target(m, int(g), int(dsts[n]), nbytes,
                                      "cp.async.bulk.tensor write", ins)
                    bar_rank, bar_local = _target(m, int(g), int(bars[n]), 8,
                                                  "cp.async.bulk.tensor mbarrier", ins)
                    if bar_rank != rank and not (pair and bar_rank == rank ^ 1):
                        raise SimError(
                            f"cp.async.bulk.tensor{'.cta_group::2' if pair else ''}: the "
                            f"mbarrier is in CTA {bar_rank}, but the copy writes CTA "
                            f"{rank}: the mbarrier must be in the destination's CTA"
                            + (" or its peer" if pair else " (with .cta_group::2, or its "
                                                           "peer)")
                            + " (PTX ISA 9.7.9.25.5.1)", ins.line, ins.text)
                    _check_mbarrier_address(m, bar_local)
                    targets = [(rank, bar_rank)] if masks is None else \
                        multicast_targets(int(masks[n]) & 0xFFFF, rank, bar_rank,
                                          m.launch.cluster, ins)
                    for to, signal in targets:
                        def write(tmap=tmap, buffer=buffer, itemsize=itemsize, c0=c0, c1=c1,
                                  addresses=addresses, chunks=chunks, rank=to):
                            image = box_image(tmap, buffer.raw, itemsize, c0, c1)
                            land_box(m.smem, rank, addresses, chunks, image)

                        # what the load reads, for the timing model's L2 (sim/timing.py;
                        # each copy of a multicast is a load of the same key there)
                        write.source = (tmap.tensor, c0, c1, nbytes)
                        m.ordering.tma_load(int(g), to, addresses, write, nbytes,
                                            bar_local, ins.line, mbarrier_rank=signal)
                m.epoch += 1
            m.advance(idx)
        return run
    return make


def _int32(value: int) -> int:
    """The low 32 bits of `value` as a signed 32-bit integer (two's complement): a
    coordinate operand's value (``np.int32(np.uint32(value & 0xFFFFFFFF))``, on Python
    integers)."""
    value &= 0xFFFFFFFF
    return value - (1 << 32) if value & 0x80000000 else value


def _target(m, thread: int, address: int, size: int, what: str, ins) -> tuple[int, int]:
    """(CTA rank, CTA-local address) of the ``size`` bytes at shared::cluster `address`
    as `thread` names them (ops_support._shared_target, which also refuses an address
    outside the cluster or the shared memory), kept for the run by (the thread's own
    CTA, address, size, what): the result is a function of those and of the launch's
    cluster and shared-memory sizes, fixed for the run (a ring loads into the same few
    stages and signals the same few mbarriers). A refused address is not kept: each
    load of it raises the same SimError again."""
    from tcgen05_lower.sim.ops_support import _shared_target

    cache = m.__dict__.setdefault("_tma_targets", {})
    key = (int(m.rank[thread]), address, size, what)
    found = cache.get(key)
    if found is None:
        rank, local = _shared_target(m, "shared::cluster", np.array([thread]),
                                     np.uint64(address), size, what, ins)
        found = cache[key] = (int(np.asarray(rank).reshape(-1)[0]),
                              int(np.asarray(local).reshape(-1)[0]))
    return found


def _destinations(m, tmap: TensorMap, dst: int, itemsize: int):
    """(``destination_addresses``, their ``chunk_rows``), kept for the run (on the
    machine: a ring loads the same few boxes into the same few stages again and again),
    read-only. Not kept across runs: a run leaves nothing behind for the next."""
    cache = m.__dict__.setdefault("_tma_destinations", {})
    key = (tmap.box, tmap.swizzle, dst, itemsize)
    kept = cache.get(key)
    if kept is None:
        made = destination_chunks(tmap, dst, itemsize)
        if made is None:   # the general code: the bytes' addresses, then their chunks
            # one dimension: the same array object every time (ordering_smem keeps its
            # 16-byte chunks by array)
            addresses = destination_addresses(tmap, dst, itemsize).reshape(-1)
            addresses.setflags(write=False)
            made = (addresses, chunk_rows(addresses))
        else:   # the chunks' form too, for the ordering model (its chunk_form)
            give = getattr(getattr(m, "ordering", None), "give_form", None)
            if give is not None:
                give(made[0], chunk_form_of_chunks(made[1]))
        kept = cache[key] = made
    return kept


def destination_chunks(tmap: TensorMap, dst: int, itemsize: int):
    """(``destination_addresses`` as one dimension, their ``chunk_rows``), both
    read-only, computed per 16-byte chunk instead of per byte; None when the
    destination or the image's size is not a whole number of 16-byte chunks (the
    general code then).

    The image's bytes go, unswizzled, to dst + i (rows of ``box[0] * itemsize`` bytes,
    one after another), so with dst a multiple of 16 its 16 bytes 16 j .. 16 j + 15 are
    chunk c = dst / 16 + j in order. A swizzle (``tc_descriptors.swizzled_address``)
    XORs address bits 4-6 with bits 7.. under its mask: for the address 16 c + b
    (0 <= b < 16), bits 7.. are c >> 3, and the XOR leaves bits 0-3 (b) alone, so the
    byte lands at 16 (c ^ ((c >> 3) & mask)) + b: each chunk moves whole, in order,
    to chunk c ^ ((c >> 3) & mask), which is what ``chunk_rows`` finds from the bytes."""
    b0, b1 = tmap.box
    total = b1 * b0 * itemsize
    span = SWIZZLE_SPAN.get(tmap.swizzle, "unknown")
    if dst < 0 or dst % _CHUNK or total <= 0 or total % _CHUNK or span == "unknown":
        return None
    chunks = dst // _CHUNK + np.arange(total // _CHUNK, dtype=np.int64)
    if span is not None:
        chunks ^= (chunks >> 3) & (span // _CHUNK - 1)
    addresses = (chunks * _CHUNK)[:, None] + np.arange(_CHUNK, dtype=np.int64)
    addresses = addresses.reshape(-1)
    addresses.setflags(write=False)
    chunks.setflags(write=False)
    return addresses, chunks


#: Bytes of a chunk the swizzle modes move whole (PTX ISA 5.5.6).
_CHUNK = 16
_CHUNK_ITEM = np.dtype((np.void, _CHUNK))


def chunk_rows(addresses: np.ndarray) -> np.ndarray | None:
    """The destination chunk (address // 16) of each 16 bytes of a box image, in image
    order, when every 16 consecutive image bytes go to one whole aligned 16-byte chunk
    (what the swizzle modes do: they move 16-byte chunks, 5.5.6); else None (the byte
    scatter then)."""
    if addresses.ndim != 1 or not addresses.size or addresses.size % _CHUNK:
        return None
    rows = addresses.reshape(-1, _CHUNK)
    heads = rows[:, 0]
    if int(heads.min()) < 0 or np.any(heads % _CHUNK) or \
            np.any(rows != heads[:, None] + np.arange(_CHUNK)):
        return None
    chunks = heads // _CHUNK
    chunks.setflags(write=False)
    return chunks


def land_box(smem: np.ndarray, rank: int, addresses: np.ndarray, chunks, image) -> None:
    """Writes the box `image` (bytes in image order) to `addresses` of CTA `rank`'s
    shared memory: by 16-byte chunks when ``chunk_rows`` found them and they fit (one
    copy per chunk, some forty times faster than per byte), else byte by byte (which
    also fails as before on an address outside the shared memory)."""
    flat = image.reshape(-1)
    row = smem[rank]
    if chunks is None or row.dtype != np.uint8 or flat.dtype != np.uint8 or \
            row.size % _CHUNK or not row.flags.c_contiguous or not flat.flags.c_contiguous or flat.size != chunks.size * _CHUNK or \
            int(chunks.max()) >= row.size // _CHUNK:
        smem[rank, addresses.reshape(-1)] = flat
        return
    row.view(_CHUNK_ITEM)[chunks] = flat.view(_CHUNK_ITEM)


def multicast_targets(mask: int, rank: int, bar_rank: int, cluster: int,
                      ins: P.Instr) -> list[tuple[int, int]]:
    """(destination CTA, CTA whose mbarrier it signals) of each copy of a
    ``.multicast::cluster`` load (PTX ISA 9.7.9.25.5.1, cp.async.bulk.tensor): bit i of
    the 16-bit ctaMask names the CTA of %cluster_ctarank i; the box lands at the same
    CTA-relative offset as dstMem in each, and the complete_tx signal goes to the same
    CTA-relative offset as the mbarrier in each destination, or, with .cta_group::2 and
    an mbarrier in the issuing CTA's peer, in each destination's peer (the destination's
    rank with the same bit 0 flip). A mask naming no CTA, or a CTA outside the cluster,
    is a SimError. `rank` is the CTA the destination address names (the copy's data go
    to the mask's CTAs, whichever it is)."""
    if mask == 0 or mask >> cluster:
        raise SimError(f"cp.async.bulk.tensor.multicast::cluster: ctaMask {mask:#06x} "
                       f"names {'no CTA' if mask == 0 else 'a CTA outside the cluster'} of "
                       f"{cluster} CTAs (bit i: %cluster_ctarank i)", ins.line, ins.text)
    flip = bar_rank ^ rank
    return [(to, to ^ flip) for to in range(cluster) if mask >> to & 1]
