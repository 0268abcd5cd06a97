"""Asynchronous copies outside tcgen05 that other compilers emit: TMA stores with their bulk
async-groups, and the non-bulk cp.async (further below).

TMA stores:
``cp.async.bulk.tensor.2d.global.shared::cta.bulk_group{.tile} [tensorMap, {c0, c1}],
[src]`` (PTX ISA 9.7.9.25.5.1, cp.async.bulk.tensor), ``cp.async.bulk.commit_group``
(9.7.9.25.6.1) and ``cp.async.bulk.wait_group{.read} N`` (9.7.9.25.6.2).

Semantics followed:
- the store copies the box at element coordinates (c0, c1) of the tensor from shared
  memory, laid out as a TMA load of the same map would write it (rows of ``box[0]``
  elements, the map's swizzle; sim/tma.py), to global memory; box elements outside the
  tensor's extents are not written (tile mode's bounds);
- it reads shared memory through the async proxy: bytes written by ordinary stores must
  be ordered before the issue and followed, in their writer, by ``fence.proxy.async``
  (the same rule as for tcgen05 operands, 9.7.16.6.5 / the memory consistency model's
  proxy rules), else a race is reported;
- commit_group closes the thread's stores issued since its last commit_group into a bulk
  async-group; wait_group N waits until at most the N most recent groups of the
  executing thread are pending; with ``.read`` only until their reads of shared memory
  are done. The simulator reads the shared memory at the issue and writes global memory
  when a wait completes the group; between the two, a change of the bytes the store
  reads is reported as a race (the machine may read them at any time until
  ``wait_group.read``);
- a store not waited for when its thread exits is reported (its source shared memory
  may be gone), and completed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

import numpy as np

from tcgen05_lower.sim import ptx as P
from tcgen05_lower.sim.ops_support import MemoryAccess, _shared_target, _unknown
from tcgen05_lower.sim.state import SimError


@dataclass
class PendingStore:
    thread: int
    rank: int
    addresses: np.ndarray   # shared-memory bytes read, in box-image order
    image: np.ndarray       # what they held at the issue
    write: object           # callable: writes the image to global memory
    line: int


@dataclass
class ThreadGroups:
    open: list = field(default_factory=list)       # issued since the last commit_group
    committed: deque = field(default_factory=deque)  # lists of PendingStore, oldest first


def _groups(m, thread: int) -> ThreadGroups:
    state = m.__dict__.setdefault("bulk_groups", {})
    return state.setdefault(thread, ThreadGroups())


def handler(ins: P.Instr, memory: MemoryAccess):
    """The make-function of a TMA store or a bulk-group instruction, None for another
    cp instruction; a cp.async reads and lands through ``memory`` (ops' accesses)."""
    parts = ins.parts
    if parts[:4] == ["cp", "async", "bulk", "tensor"] and parts[5:6] == ["global"]:
        return tensor_store(ins)
    if parts[:3] == ["cp", "async", "bulk"] and parts[3:4] == ["commit_group"]:
        if len(parts) != 4:
            return None
        return _commit
    if parts[:3] == ["cp", "async", "bulk"] and parts[3:4] == ["wait_group"]:
        if parts[4:] not in ([], ["read"]):
            return None
        return _wait
    if parts[:2] == ["cp", "async"] and parts[2:3] in (["ca"], ["cg"]):
        return _cp_async(ins, memory)
    if parts in (["cp", "async", "commit_group"], ["cp", "async", "wait_group"],
                 ["cp", "async", "wait_all"]):
        return {"commit_group": _cp_async_commit, "wait_group": _cp_async_wait,
                "wait_all": _cp_async_wait}[parts[2]]
    return None


def tensor_store(ins: P.Instr):
    form = ["cp", "async", "bulk", "tensor", "2d", "global", "shared::cta", "bulk_group"]
    parts = [p for p in ins.parts if p != "tile"]
    if parts != form:
        raise _unknown(ins, "only cp.async.bulk.tensor.2d.global.shared::cta{.tile}"
                            ".bulk_group among TMA stores")

    def make(m, ins):
        if len(ins.operands) != 2 or not isinstance(ins.operands[0], P.TensorAddr) \
                or len(ins.operands[0].coordinates.items) != 2:
            raise SimError("cp.async.bulk.tensor.2d (store) needs [tensorMap, {c0, c1}], "
                           "[src]", ins.line, ins.text)
        tensor, src = ins.operands

        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                maps = m.address(tensor.base, act, ins) * np.ones(threads.size, np.uint64)
                srcs = m.address(src, act, ins) * np.ones(threads.size, np.uint64)
                coords = [m.read(c, act, 32, ins).astype(np.int64)
                          * np.ones(threads.size, np.int64) for c in tensor.coordinates.items]
                for n, g in enumerate(threads):
                    c0, c1 = (int(np.int32(np.uint32(c[n] & 0xFFFFFFFF))) for c in coords)
                    _issue(m, ins, int(g), int(maps[n]), int(srcs[n]), c0, c1)
            m.advance(idx)
        return run
    return make


def _issue(m, ins, thread: int, map_address: int, src: int, c0: int, c1: int) -> None:
    from tcgen05_lower.sim.tma import destination_addresses

    bound = m.tensor_maps.get(map_address)
    if bound is None:
        raise SimError(f"cp.async.bulk.tensor (store): the tensor map at address "
                       f"{map_address:#x} was not given at launch (bound tensor maps: "
                       f"{m.describe_tensor_maps()})", ins.line, ins.text)
    tmap, buffer = bound
    if src % 128:
        raise SimError(f"cp.async.bulk.tensor (store): shared-memory source {src:#x} is not "
                       f"128-byte aligned", ins.line, ins.text)
    itemsize = buffer.data.itemsize
    addresses = destination_addresses(tmap, src, itemsize)
    rank, _ = _shared_target(m, "shared::cta", np.array([thread]), np.uint64(src),
                             addresses.size, "cp.async.bulk.tensor read", ins)
    rank = int(np.asarray(rank).reshape(-1)[0])
    flat = addresses.reshape(-1)
    _check_source(m.ordering, thread, rank, flat, ins.line)
    image = m.smem[rank, flat].copy()

    def write(image=image):
        _write_box(tmap, buffer.raw, itemsize, c0, c1, image.reshape(addresses.shape))

    _groups(m, thread).open.append(PendingStore(thread, rank, flat, image, write, ins.line))


def _write_box(tmap, raw: np.ndarray, itemsize: int, c0: int, c1: int,
               image: np.ndarray) -> None:
    """The inverse of tma.box_image: the box's elements inside the tensor written."""
    b0, b1 = tmap.box
    i = c0 + np.arange(b0).reshape(1, b0)
    j = c1 + np.arange(b1).reshape(b1, 1)
    inside = (i >= 0) & (i < tmap.dims[0]) & (j >= 0) & (j < tmap.dims[1])
    start = j * tmap.strides[0] + i * itemsize
    offsets = start[..., None] + np.arange(itemsize)
    elements = image.reshape(b1, b0, itemsize)
    raw[offsets[inside]] = elements[inside]


def _check_source(ordering, thread: int, rank: int, addresses: np.ndarray,
                  line: int) -> None:
    """The async-proxy read of shared memory written by ordinary stores: each writer's
    latest store must be ordered before the issue and followed by fence.proxy.async in
    its writer, ordered before the issue too (module docstring)."""
    writers = ordering.writer[rank][addresses]
    written = writers >= 0
    if not written.any():
        return
    for w in np.unique(writers[written]):
        select = writers == w
        latest = int(ordering.write_epoch[rank][addresses][select].max())
        other = int(ordering.write_line[rank][addresses[select]].max())
        if w != thread and ordering.known[thread, w] <= latest:
            ordering._race(f"a TMA store (cp.async.bulk.tensor of thread {thread}) reads "
                           f"shared memory of CTA {rank} that thread {w} wrote, and that "
                           f"write is not ordered before it", line, other)
            continue
        fences = [f for f in ordering.proxy_fences[w] if f >= latest]
        if not fences or (w != thread and ordering.known[thread, w] <= fences[0]):
            ordering._race(f"a TMA store (cp.async.bulk.tensor of thread {thread}) reads "
                           f"shared memory of CTA {rank} that thread {w} wrote with "
                           f"ordinary stores, with no fence.proxy.async between", line,
                           other)


def _commit(m, ins: P.Instr):
    if ins.operands:
        raise SimError("cp.async.bulk.commit_group takes no operands", ins.line, ins.text)

    def run(ins, idx):
        for g in m.threads_of(m.guarded(ins, idx)):
            groups = _groups(m, int(g))
            groups.committed.append(groups.open)
            groups.open = []
        m.advance(idx)
    return run


def _wait(m, ins: P.Instr):
    if len(ins.operands) != 1 or not isinstance(ins.operands[0], P.Imm):
        raise SimError("cp.async.bulk.wait_group takes one integer constant", ins.line,
                       ins.text)
    keep = int(ins.operands[0].value)

    def run(ins, idx):
        for g in m.threads_of(m.guarded(ins, idx)):
            groups = _groups(m, int(g))
            while len(groups.committed) > keep:
                for store in groups.committed.popleft():
                    _complete(m, store)
        m.advance(idx)
    return run


def _complete(m, store: PendingStore) -> None:
    """The store's reads end and its data lands; a change of the bytes it read since its
    issue is a race (module docstring)."""
    now = m.smem[store.rank, store.addresses]
    changed = np.flatnonzero(now != store.image)
    if changed.size:
        byte = int(store.addresses[changed[0]])
        other = int(m.ordering.write_line[store.rank][byte]) or store.line
        m.ordering._race(f"shared memory of CTA {store.rank} (byte {byte:#x}) that the TMA "
                         f"store (cp.async.bulk.tensor of thread {store.thread}) reads is "
                         f"overwritten before cp.async.bulk.wait_group.read completes the "
                         f"read", store.line, other)
    store.write()


def finish(m) -> list[str]:
    """At exit: every TMA store and cp.async still pending is reported, then completed."""
    problems = finish_copies(m)
    for thread, groups in sorted(m.__dict__.get("bulk_groups", {}).items()):
        pending = [s for group in groups.committed for s in group] + groups.open
        for store in pending:
            problems.append(f"the TMA store (cp.async.bulk.tensor) at PTX line {store.line} "
                            f"of thread {thread} is not waited for (cp.async.bulk.commit_group"
                            f" then cp.async.bulk.wait_group.read) before its thread exits: "
                            f"its shared-memory source may be gone")
            _complete(m, store)
        groups.committed.clear()
        groups.open = []
    return problems


# -- cp.async (non-bulk, "LDGSTS": PTX ISA 9.7.9.25.3.1 cp.async, 9.7.9.25.3.2
# cp.async.commit_group, 9.7.9.25.3.3 cp.async.wait_group / cp.async.wait_all) -----------
# ``cp.async.{ca,cg}.shared{::cta}.global{.L2::...} [dst], [src], cp-size{, src-size}``
# copies cp-size bytes (4, 8 or 16; .cg: 16) from global to shared memory, asynchronously:
# only src-size bytes are read, the rest of the cp-size bytes are zero. commit_group
# closes the thread's copies since its last commit into a cp.async-group; wait_group N
# waits until at most N of its groups are pending, wait_all for all of them (and the
# uncommitted copies). The simulator reads global memory at the issue and writes shared
# memory, as the issuing thread's store, when the wait completes the copy: another
# thread sees the data only through ordering after that wait (e.g. a barrier). A copy
# never waited for is reported at exit.

@dataclass
class PendingCopy:
    thread: int
    dst: int
    data: np.ndarray   # cp-size bytes
    line: int
    ins: object
    store: object   # ops_memory.store (MemoryAccess.store), which lands the copy


def _copies(m, thread: int) -> ThreadGroups:
    state = m.__dict__.setdefault("cp_async_groups", {})
    return state.setdefault(thread, ThreadGroups())


def _cp_async(ins: P.Instr, memory: MemoryAccess):
    parts = ins.parts
    rest = [p for p in parts[3:] if not p.startswith("L2::")]
    if rest not in (["shared", "global"], ["shared::cta", "global"]):
        raise _unknown(ins, "only cp.async.{ca,cg}.shared{::cta}.global{.L2::...}")
    cg = parts[2] == "cg"

    def make(m, ins):
        ops_ = ins.operands
        if len(ops_) not in (3, 4) or not isinstance(ops_[2], P.Imm):
            raise SimError("cp.async takes [dst], [src], cp-size{, src-size}", ins.line,
                           ins.text)
        size = int(ops_[2].value)
        if size not in ((16,) if cg else (4, 8, 16)):
            raise SimError(f"cp.async{'.cg' if cg else '.ca'}: cp-size {size} is not "
                           f"{'16' if cg else '4, 8 or 16'}", ins.line, ins.text)

        def run(ins, idx):
            act = m.guarded(ins, idx)
            threads = m.threads_of(act)
            if threads.size:
                dsts = m.address(ops_[0], act, ins) * np.ones(threads.size, np.uint64)
                srcs = m.address(ops_[1], act, ins) * np.ones(threads.size, np.uint64)
                reads = (m.read(ops_[3], act, 32, ins) * np.ones(threads.size, np.uint64)
                         if len(ops_) == 4 else np.full(threads.size, size, np.uint64))
                if np.any(reads > np.uint64(size)):
                    raise SimError(f"cp.async: src-size {int(reads.max())} is more than "
                                   f"cp-size {size}", ins.line, ins.text)
                if np.any(dsts % np.uint64(size)) or np.any(srcs % np.uint64(size)):
                    raise SimError(f"cp.async: an address is not {size}-byte aligned",
                                   ins.line, ins.text)
                for n, g in enumerate(threads):
                    data = np.zeros(size, np.uint8)
                    count = int(reads[n])
                    if count:
                        which = int(memory.global_buffers(m, srcs[n:n + 1], count,
                                                          "cp.async read")[0])
                        buf = m.buffers[which]
                        start = int(srcs[n]) - buf.base
                        data[:count] = buf.raw[start:start + count]
                    _copies(m, int(g)).open.append(
                        PendingCopy(int(g), int(dsts[n]), data, ins.line, ins,
                                    memory.store))
            m.advance(idx)
        return run
    return make


def _cp_async_commit(m, ins: P.Instr):
    def run(ins, idx):
        for g in m.threads_of(m.guarded(ins, idx)):
            groups = _copies(m, int(g))
            groups.committed.append(groups.open)
            groups.open = []
        m.advance(idx)
    return run


def _cp_async_wait(m, ins: P.Instr):
    wait_all = ins.parts[2] == "wait_all"
    if wait_all:
        keep = 0
    elif len(ins.operands) == 1 and isinstance(ins.operands[0], P.Imm):
        keep = int(ins.operands[0].value)
    else:
        raise SimError("cp.async.wait_group takes one integer constant", ins.line, ins.text)

    def run(ins, idx):
        for g in m.threads_of(m.guarded(ins, idx)):
            groups = _copies(m, int(g))
            if wait_all:
                groups.committed.append(groups.open)
                groups.open = []
            while len(groups.committed) > keep:
                for copy in groups.committed.popleft():
                    _land(m, copy)
        m.advance(idx)
    return run


def _land(m, copy: PendingCopy) -> None:
    words = copy.data.view(np.uint32).astype(np.uint64).reshape(1, -1)
    copy.store(m, "shared::cta", np.array([copy.thread]), np.uint64(copy.dst), 4,
          words.shape[1], words, copy.ins)


def finish_copies(m) -> list[str]:
    """At exit: every cp.async never waited for is reported, then lands."""
    problems = []
    for thread, groups in sorted(m.__dict__.get("cp_async_groups", {}).items()):
        for copy in [c for group in groups.committed for c in group] + groups.open:
            problems.append(f"the cp.async at PTX line {copy.line} of thread {thread} is not "
                            f"waited for (cp.async.wait_group / wait_all) before its thread "
                            f"exits")
            _land(m, copy)
        groups.committed.clear()
        groups.open = []
    return problems
