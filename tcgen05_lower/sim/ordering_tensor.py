"""The ordering model's asynchronous tcgen05 operations (PTX ISA 9.7.16.6): their issue,
the conflicts of a new op with those in flight (TMEM cells, the allocation of its
columns, the shared memory it reads through the async proxy), when they are performed,
tcgen05.commit, and TMEM allocation (9.7.16.7). A mixin of ``ordering.OrderingModel``,
whose module docstring describes the clocks it uses.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.ordering_records import PIPELINED, InFlight
from tcgen05_lower.sim.smem_chunks import CHUNK, kept_chunk_form, owners_seen
from tcgen05_lower.sim.state import TMEM_COLUMNS, SimError, TensorOp
from tcgen05_lower.sim.tmem_index import InflightIndex, tmem_summary


class TensorOrdering:
    """The asynchronous tcgen05 operations, commits and TMEM allocation of
    ``OrderingModel`` (a mixin of it: the state is its ``__init__``'s)."""

    # -- asynchronous tcgen05 operations ------------------------------------------------
    def issue(self, thread: int, op: TensorOp, line: int) -> None:
        kind = op.kind
        cp4 = kind == "cp" and getattr(op, "shape", "") == "4x256b"
        self._check_conflicts(thread, op, kind, cp4, line)
        self._check_allocation_ordered(thread, op, line)
        self._check_async_smem_reads(thread, op, line)
        warp = thread // 32
        if kind in ("mma", "cp", "shift"):
            agent = self._stream(self.DONE + thread)
            issue_agent = self._stream(self.ISSUED + thread)
            self.seq[issue_agent] += 1
            seq = int(self.seq[issue_agent])
            self.known[thread, issue_agent] = seq
            self.tc_known[thread, issue_agent] = seq
        else:
            agent = self._stream((self.LD if kind == "ld" else self.ST) + warp)
            issue_agent = -1
            self.seq[agent] += 1
            seq = int(self.seq[agent])
        record = InFlight(op, kind, thread, agent, issue_agent, seq, line, cp4x256b=cp4)
        self.inflight.append(record)
        self._note_async_smem_reads(thread, op, seq, line)
        if kind == "ld" or self.schedule == "eager":
            self._perform(record)

    def _perform(self, record: InFlight) -> None:
        if not record.performed:
            record.performed = True
            self._check_tmem_written(record)
            try:
                record.op.perform(self.ctas)
            except SimError as err:   # name the op's line, not the one that completed it
                if err.ptx_line is None:
                    err.ptx_line = record.line
                raise
            summary = tmem_summary(record.op.footprint)
            if summary.general:
                for rank, mask in record.op.footprint.tmem_writes.items():
                    self.tmem_written[rank] |= mask
                return
            known = self._written_known()
            for rank, written in summary.writes.items():   # the mask's block only
                if written.box is not None and known.get((id(written), rank)) is not written:
                    self.tmem_written[rank][written.box] |= written.block
                    known[id(written), rank] = written
                    _note_written_box(known, rank, written)

    def _check_tmem_written(self, record: InFlight) -> None:
        """An op reads TMEM cells that no tcgen05.mma / st / cp / shift wrote since their
        columns were allocated: their contents are undefined (9.7.16.7.1 allocates columns,
        it does not clear them), so whatever the op computes from them is too."""
        summary = tmem_summary(record.op.footprint)
        known = self._written_known()
        for rank, mask in record.op.footprint.tmem_reads.items():
            read = None if summary.general else summary.reads[rank]
            if read is not None and known.get((id(read), rank)) is read:
                continue   # all its cells written, and no alloc since
            if read is not None and _in_written_box(known, rank, read.box):
                known[id(read), rank] = read
                continue   # inside a box all of whose cells are written: what the test
                # below finds (no cell of the box unwritten), without reading the mask
            if read is not None and (read.box is None or not np.greater(
                    read.block, self.tmem_written[rank][read.box]).any()):
                known[id(read), rank] = read
                continue   # its block has no cell read and not written: none unwritten
            unwritten = mask & ~self.tmem_written[rank]
            if not unwritten.any():
                continue
            key = (record.line, record.kind, rank)
            seen = self.unwritten_reads.get(key)
            self.unwritten_reads[key] = unwritten if seen is None else seen | unwritten

    def _written_known(self) -> dict:
        """The mask summaries (tmem_index.MaskSummary) whose cells are all in
        ``tmem_written``, by (id, rank) -> the summary (kept alive, so that no other
        object takes its id): ``tmem_written`` only gains cells until the next
        tcgen05.alloc clears columns, which starts a new dict (as would 1024 entries).
        An MMA's D mask and an ld's footprint are issued again and again: their
        written test and update are then one lookup."""
        kept = self.__dict__.get("_written_kept")
        if kept is None or kept[0] is not self._alloc_state or len(kept[1]) >= 1024:
            kept = self.__dict__["_written_kept"] = (self._alloc_state, {})
        return kept[1]

    def _unwritten_report(self) -> list[str]:
        """One line per (op line, CTA): the cells it read, over all its executions."""
        return [f"tcgen05.{kind} at PTX line {line} reads {self._describe(rank, mask)} "
                f"({int(mask.sum())} cells) that no tcgen05 operation wrote since "
                "tcgen05.alloc: their contents are undefined"
                for (line, kind, rank), mask in self.unwritten_reads.items()]

    def _ordered(self, thread: int, record: InFlight, kind: str, op, cp4: bool) -> bool:
        if self.tc_known[thread, record.agent] >= record.seq:
            return True   # its completion is known (9.7.16.6.4.2, .4.4)
        later = "cp4x256b" if cp4 else kind
        if (record.kind, later) not in PIPELINED:
            return False
        if record.kind == "mma" and kind == "mma" and record.op.accumulator != op.accumulator:
            return False  # 9.7.16.6.2: same accumulator and shape only
        # the pipelined pair executes in issue order once the issue is ordered
        # (the same thread, or 9.7.16.6.4.3 across threads)
        return self.tc_known[thread, record.issue_agent] >= record.seq

    def _check_conflicts(self, thread: int, op: TensorOp, kind: str, cp4: bool,
                         line: int) -> None:
        fp = op.footprint
        if not fp.tmem_reads and not fp.tmem_writes:
            return
        # Only a record whose completion the issuer does not know can race with the new
        # op (_ordered's first test), and only when their masks can share a cell
        # (_may_share): both tested for all records at once (tmem_index.py); the rest
        # is the exact test, in the records' order.
        index = InflightIndex.of(self)
        found = index.candidates(self.tc_known[thread], tmem_summary(fp), not fp.tmem_writes)
        if not found:
            return
        ranks = set(fp.tmem_reads) | set(fp.tmem_writes)
        for at in found:
            self._check_pair(thread, op, kind, cp4, line, ranks, self.inflight[at])

    def _conflict_candidates_general(self, thread: int, op: TensorOp) -> list[int]:
        """What ``InflightIndex.candidates`` computes for `op`, record by record (the
        reference its tests compare with)."""
        fp = op.footprint
        ranks = set(fp.tmem_reads) | set(fp.tmem_writes)
        return [at for at, record in enumerate(self.inflight)
                if self.tc_known[thread, record.agent] < record.seq
                and (fp.tmem_writes or record.op.footprint.tmem_writes)
                and any(_may_share(fp, record.op.footprint, rank) for rank in ranks)]

    def _check_pair(self, thread: int, op: TensorOp, kind: str, cp4: bool, line: int,
                    ranks: set, record: InFlight) -> None:
        """The race of new op `op` with in-flight `record`, if they share a cell
        (write/write, write/read, read/write) and the issuer does not order them."""
        if self._ordered(thread, record, kind, op, cp4):
            return
        fp, other = op.footprint, record.op.footprint
        for rank in ranks:
            mine_w = fp.tmem_writes.get(rank)
            mine_r = fp.tmem_reads.get(rank)
            their_w = other.tmem_writes.get(rank)
            their_r = other.tmem_reads.get(rank)
            overlap = None
            for a, b in ((mine_w, their_w), (mine_w, their_r), (mine_r, their_w)):
                if a is not None and b is not None:
                    both = a & b
                    if both.any():
                        overlap = both
                        break
            if overlap is None:
                continue
            self._race(f"tcgen05.{kind} and tcgen05.{record.kind} both access "
                       f"{self._describe(rank, overlap)}, and the second is not ordered "
                       "after the first's completion (9.7.16.6)", line, record.line)
            break

    def _still_in_flight(self) -> list:
        """The in-flight records without the performed ones whose completion every
        thread knows, for ordinary accesses and for tcgen05 ops (``barrier``): tested
        for all records at once, the index kept in step."""
        index = InflightIndex.of(self)
        records = self.inflight
        performed = np.flatnonzero(np.fromiter((r.performed for r in records), bool,
                                               len(records)))
        agents, seqs = index.agent[performed], index.seq[performed]
        known = self._known_everywhere(agents, seqs)   # (ordering.py)
        keep = np.ones(len(records), bool)
        keep[performed[known]] = False
        return index.keep(keep)

    def _check_allocation_ordered(self, thread: int, op: TensorOp, line: int) -> None:
        """The columns an op touches were allocated by a tcgen05.alloc ordered before it:
        by the issuing warp itself, or through before_thread_sync, a barrier or mbarrier,
        and after_thread_sync (9.7.16.6.3)."""
        fp = op.footprint
        for rank in set(fp.tmem_reads) | set(fp.tmem_writes):
            ordered, key = _ordered_allocations(self, fp, rank, thread)
            if ordered is not None and key in ordered:
                continue   # found ordered for this thread and columns, no alloc since
            if not _allocation_races(self, thread, op, rank, line) and ordered is not None:
                ordered.add(key)

    #: Replaced by every tcgen05.alloc: the allocations _allocations_of found hold
    #: while it is the same object.
    _alloc_state = None

    def _allocations_of(self, fp, rank: int) -> list:
        """(owner thread, sequence number of its latest alloc, that alloc's PTX line)
        for each thread whose allocation holds columns of CTA ``rank`` that ``fp``
        touches, by owner; kept per set of columns until the next alloc (an MMA or ld
        is issued again and again, and ops of one accumulator touch the same columns)."""
        summary = tmem_summary(fp)
        if summary.general:
            return self._owners_of(rank, _columns_of(fp, rank))
        kept = self.__dict__.get("_allocations_kept")
        if kept is None or kept[0] is not self._alloc_state:
            kept = self.__dict__["_allocations_kept"] = (self._alloc_state, {})
        key = (rank, summary.column_keys[rank])
        found = kept[1].get(key)
        if found is None:
            found = kept[1][key] = self._owners_of(rank, summary.columns[rank])
        return found

    def _owners_of(self, rank: int, mask: np.ndarray) -> list:
        """_allocations_of for the columns `mask` (bool[512]) of CTA `rank`: columns of
        one allocation (or of none) without np.unique, else ``owners_of_general``."""
        owners = self.alloc_by[rank][mask]
        if owners.size:
            low = int(owners.min())
            if low == int(owners.max()):   # one owner for all, or none
                return [] if low < 0 else [(low, int(self.alloc_seq[rank][mask].max()),
                                            int(self.alloc_line[rank][mask].max()))]
        return owners_of_general(self, rank, mask)

    def _check_async_smem_reads(self, thread: int, op: TensorOp, line: int) -> None:
        """9.7.16.6.5: ordinary stores read by the async proxy need fence.proxy.async;
        bytes a TMA load writes need its completion observed."""
        for rank, addresses in op.footprint.smem_reads.items():
            size = self.writer[rank].size
            marks, form = self._operand_chunks(op.footprint, rank, addresses)
            if form is None and addresses.size and (addresses.min() < 0 or
                                                    addresses.max() >= size):
                raise SimError(f"tcgen05.{op.kind} reads shared-memory bytes "
                               f"{int(addresses.min()):#x}-{int(addresses.max()):#x} of CTA "
                               f"{rank}, past its {size} bytes of shared memory", line)
            if form is None or not owners_seen(self, marks.tma_writer, marks.tma_seq,
                                               self.TMA, thread, form):
                self._check_tma_written(thread, rank, addresses,
                                        f"tcgen05.{op.kind} by thread {thread} reads", line)
            if form is not None and _unwritten(self, marks, form):
                continue   # what the per-byte test below finds too, on 16-byte rows
            writers = self.writer[rank][addresses]
            written = writers >= 0
            if not written.any():
                continue
            for w in np.unique(writers[written]):
                select = writers == w
                latest = int(self.write_epoch[rank][addresses][select].max())
                # the issuing thread's own stores are ordered by program order
                if w != thread and self.known[thread, w] <= latest:
                    self._race(f"tcgen05.{op.kind} reads shared memory of CTA {rank} that "
                               f"thread {w} wrote, and that write is not ordered before it",
                               line, self._write_line(rank, addresses, select))
                    continue
                # a fence.proxy.async of the writer after the store, ordered before the
                # issue (for the issuer itself, any later fence is)
                fences = [f for f in self.proxy_fences[w] if f >= latest]
                if not fences or self.known[thread, w] <= fences[0]:
                    self._race(f"tcgen05.{op.kind} reads shared memory of CTA {rank} that "
                               f"thread {w} wrote with ordinary stores, with no "
                               "fence.proxy.async between (9.7.16.6.5)", line,
                               self._write_line(rank, addresses, select))

    def _write_line(self, rank: int, addresses, select) -> int:
        return int(self.write_line[rank][addresses[select]].max())

    def _note_async_smem_reads(self, thread: int, op: TensorOp, seq: int, line: int) -> None:
        for rank, addresses in op.footprint.smem_reads.items():
            marks, form = self._operand_chunks(op.footprint, rank, addresses)
            if form is not None:
                marks.set_reader(form, thread, seq, line)
                continue
            if marks is not None:
                marks.fresh_readers()   # the chunks' earlier readers first
            self.reader[rank][addresses] = thread
            self.reader_seq[rank][addresses] = seq
            self.reader_line[rank][addresses] = line
            if marks is not None:
                marks.mix(marks.reader, addresses)

    def _operand_chunks(self, fp, rank: int, addresses: np.ndarray):
        """(the chunk marks of CTA `rank`, the chunks of `addresses`, footprint `fp`'s
        shared-memory reads there): the chunks made once per footprint (complete when
        issued), None when they are not whole chunks inside the CTA's shared memory
        (smem_chunks.py; the per-byte code then)."""
        marks = self.chunk_marks[rank]
        if marks is None:
            return None, None
        if getattr(fp, "_summaries", None) is None:
            return marks, None
        form = kept_chunk_form(fp, rank, addresses)
        return marks, (form if marks.fits(form) else None)

    def commit(self, thread: int, rank: int, mbarrier: int, cta_mask: int, line: int) -> None:
        for r in range(len(self.ctas)):
            if cta_mask >> r & 1:
                self._mbar(r, mbarrier, line, thread)
        seq = int(self.seq[self.column[self.ISSUED + thread]])
        done = self._stream(self.DONE + thread)
        # the implicit before_thread_sync of tcgen05.commit (9.7.16.6.4.2)
        self.released[thread] = np.maximum(self.known[thread], self.tc_known[thread])
        self._release(np.array([thread]))
        generic, tc = self._published([thread])
        generic[done] = max(generic[done], seq)
        tc[done] = max(tc[done], seq)
        targets = [r for r in range(len(self.ctas)) if cta_mask >> r & 1]
        entry = (thread, seq, mbarrier, tuple(targets), line, generic, tc)
        if self.schedule == "eager":
            self._complete_commit(entry)
        else:
            self.pending_commits.append(entry)

    def _complete_commit(self, entry) -> None:
        thread, seq, mbarrier, targets, line, generic, tc = entry
        # the thread's mma / cp / shift up to seq, in issue order (tmem_index.py)
        for record in InflightIndex.of(self).due(thread, seq):
            self._perform(record)
        what = "the arrive-on of tcgen05.commit" + (" (multicast)" if len(targets) > 1
                                                    else "")
        for r in targets:
            self._landing(r, mbarrier, what, line)
            phase = self._arrive(r, mbarrier, 1, generic, tc, line)
            self._mbar(r, mbarrier, line).last_async = (phase, what, line)

    # -- tensor-memory allocation (9.7.16.7) ------------------------------------------------
    def alloc(self, warp_threads: np.ndarray, rank: int, columns: int, cta_group: int,
              line: int) -> int:
        if columns < 32 or columns > TMEM_COLUMNS or columns & (columns - 1):
            raise SimError(f"tcgen05.alloc of {columns} columns: nCols must be a power of 2 "
                           "from 32 to 512 (9.7.16.7.1)", line)
        if self.relinquished[rank]:
            raise SimError("tcgen05.alloc after tcgen05.relinquish_alloc_permit "
                           "(9.7.16.7.1)", line)
        used = self.allocated[rank]
        owner = int(np.asarray(warp_threads).reshape(-1)[0])
        for start in range(0, TMEM_COLUMNS, columns):
            if not used[start:start + columns].any():
                used[start:start + columns] = True
                issued = self._stream(self.ISSUED + owner)
                self.seq[issued] += 1
                seq = int(self.seq[issued])
                self.known[owner, issued] = seq
                self.tc_known[owner, issued] = seq
                self._alloc_state = object()   # _allocations_of's kept answers are stale
                self.alloc_by[rank][start:start + columns] = owner
                self.alloc_seq[rank][start:start + columns] = seq
                self.alloc_line[rank][start:start + columns] = line
                self.tmem_written[rank][:, start:start + columns] = False
                return start   # lane 0, column start (9.7.16.1.1)
        raise SimError(f"tcgen05.alloc of {columns} columns: no free columns left in CTA "
                       f"{rank} (the instruction would block forever here)", line)

    def dealloc(self, warp_threads: np.ndarray, rank: int, taddr: int, columns: int,
                cta_group: int, line: int) -> None:
        start = taddr & 0xFFFF
        if taddr >> 16 or not self.allocated[rank][start:start + columns].all() \
                or start + columns > TMEM_COLUMNS:
            raise SimError(f"tcgen05.dealloc of {columns} columns at {taddr:#x} frees "
                           f"columns that are not allocated in CTA {rank} (9.7.16.7.1)", line)
        thread = int(np.asarray(warp_threads).reshape(-1)[0])
        for record in _unknown_records(self, thread):
            masks = [m for m in (record.op.footprint.tmem_reads.get(rank),
                                 record.op.footprint.tmem_writes.get(rank)) if m is not None]
            if any(m[:, start:start + columns].any() for m in masks):
                self._race(f"tcgen05.dealloc frees columns {start}-{start + columns - 1} of "
                           f"CTA {rank} that tcgen05.{record.kind} still uses", line,
                           record.line)
        self.allocated[rank][start:start + columns] = False
        self._dealloc_count = self.__dict__.get("_dealloc_count", 0) + 1

    def relinquish(self, warp_threads: np.ndarray, rank: int, cta_group: int, line: int) -> None:
        self.relinquished[rank] = True

    def check_tmem_allocated(self, rank: int, mask: np.ndarray, line: int) -> None:
        kept = _allocated_kept(self, mask)
        if kept is not None and kept.get((id(mask), rank)) is mask:
            return   # its columns found allocated, and no dealloc since
        columns = self._columns_of_mask(mask)
        outside = columns[~self.allocated[rank][columns]]
        if outside.size:
            raise SimError(f"access to TMEM columns {outside.min()}-{outside.max()} of CTA "
                           f"{rank}, which are not allocated (9.7.16.7)", line)
        if kept is not None:
            kept[id(mask), rank] = mask

    def _columns_of_mask(self, mask: np.ndarray) -> np.ndarray:
        """``np.flatnonzero(mask.any(axis=0))``, kept per read-only mask that owns its
        cells (an MMA's shared D mask, a kept tcgen05.ld's: issued again and again, and
        no write can change them): by id, with the mask kept alive so that no other
        object takes its id; 256 masks at most. Any other mask: computed."""
        if not isinstance(mask, np.ndarray) or mask.flags.writeable or mask.base is not None:
            return np.flatnonzero(mask.any(axis=0))
        kept = self.__dict__.get("_mask_columns")
        if kept is None or len(kept) >= 256:
            kept = self.__dict__["_mask_columns"] = {}
        found = kept.get(id(mask))
        if found is None or found[0] is not mask:
            found = kept[id(mask)] = (mask, np.flatnonzero(mask.any(axis=0)))
        return found[1]


def _allocation_races(model, thread: int, op: TensorOp, rank: int, line: int) -> bool:
    """Reports each allocation of the columns of CTA `rank` that `op` touches that is
    not ordered before `thread` issues it (``_check_allocation_ordered``): whether one
    was."""
    raced = False
    for owner, need, alloc_line in model._allocations_of(op.footprint, rank):
        if owner // 32 == thread // 32:
            continue  # the allocating warp itself: program order
        if model.tc_known[thread, model.column[model.ISSUED + owner]] < need:
            raced = True
            model._race(f"tcgen05.{op.kind} uses TMEM columns of CTA {rank} whose "
                        f"tcgen05.alloc (by thread {owner}) is not ordered before it "
                        "(before_thread_sync, a barrier, after_thread_sync: 9.7.16.6.3)",
                        line, alloc_line)
    return raced


def _ordered_allocations(model, fp, rank: int, thread: int) -> tuple:
    """(the set of (thread, CTA, columns' key) whose allocations
    ``_check_allocation_ordered`` found ordered before the thread's use, the key of
    footprint `fp`'s columns of CTA `rank` for `thread`), or (None, None) for a
    footprint without a summary of its columns. Kept until the next tcgen05.alloc
    (``_alloc_state``), as ``_allocations_of``'s answers are: until then the owners and
    sequence numbers it compares with are the same, and the issuer's ``tc_known``
    only grows, so what was ordered stays ordered. An MMA or ld is issued again and
    again by the same threads over the same columns."""
    summary = tmem_summary(fp)
    if summary.general:
        return None, None
    kept = model.__dict__.get("_ordered_allocations")
    if kept is None or kept[0] is not model._alloc_state:
        kept = model.__dict__["_ordered_allocations"] = (model._alloc_state, set())
    return kept[1], (thread, rank, summary.column_keys[rank])


def _unknown_records(model, thread: int) -> list:
    """The in-flight records whose completion `thread` does not know
    (``tc_known[thread, agent] < seq``), in order: tested for all records at once
    (the index's arrays), where the dealloc used to test the masks of every record
    first (all of a run's lds and MMAs, when no barrier dropped them)."""
    index = InflightIndex.of(model)
    n = index.count
    unknown = (model.tc_known[thread][index.agent[:n]] < index.seq[:n]).nonzero()[0]
    records = model.inflight
    return [records[at] for at in unknown.tolist()]


def _allocated_kept(model, mask: np.ndarray) -> dict | None:
    """The read-only masks (by (id, rank) -> the mask, kept alive so that no other
    object takes its id) whose columns ``check_tmem_allocated`` found allocated,
    None for a mask that is not kept (``_columns_of_mask``'s rule). Only a dealloc
    takes columns away (an alloc adds some), so a mask found allocated stays so
    until the next dealloc, which starts a new dict (as do 256 entries). An MMA's
    D mask and an ld's are checked again at every issue."""
    if not isinstance(mask, np.ndarray) or mask.flags.writeable or mask.base is not None:
        return None
    deallocs = model.__dict__.get("_dealloc_count", 0)
    kept = model.__dict__.get("_allocated_masks")
    if kept is None or kept[0] != deallocs or len(kept[1]) >= 256:
        kept = model.__dict__["_allocated_masks"] = (deallocs, {})
    return kept[1]


def owners_of_general(model, rank: int, mask: np.ndarray) -> list:
    """``TensorOrdering._owners_of``, owner by owner (the reference its test compares
    with)."""
    owners = model.alloc_by[rank][mask]
    seqs = model.alloc_seq[rank][mask]
    found = []
    for owner in np.unique(owners[owners >= 0]):
        select = owners == owner
        found.append((int(owner), int(seqs[select].max()),
                      int(model.alloc_line[rank][mask][select].max())))
    return found


#: At most this many whole written boxes are kept per CTA (``_note_written_box``): an MMA
#: ring writes one or two D blocks again and again; the test is a loop over them.
_WRITTEN_BOXES = 8


def _note_written_box(known: dict, rank: int, written) -> None:
    """Keeps the box of the write summary ``written`` (tmem_index.MaskSummary) of CTA
    ``rank`` in ``known`` (``_written_known``'s dict) when its mask fills it (an MMA's D
    block): every cell of the box is then in ``tmem_written`` until the next alloc, which
    starts a new dict. Called once per summary and dict (its first update)."""
    boxes = known.setdefault(("boxes", rank), [])
    if len(boxes) < _WRITTEN_BOXES and written.block.all():
        lanes, cols = written.box
        boxes.append((lanes.start, lanes.stop, cols.start, cols.stop))


def _in_written_box(known: dict, rank: int, box) -> bool:
    """Whether the lanes and columns of ``box`` (a MaskSummary's, or None) lie inside a
    box ``_note_written_box`` kept for CTA ``rank``: all of its cells are written."""
    if box is None:
        return False
    lanes, cols = box
    for low, high, first, end in known.get(("boxes", rank), ()):
        if low <= lanes.start and lanes.stop <= high and first <= cols.start and \
                cols.stop <= end:
            return True
    return False


def _may_share(mine, theirs, rank: int) -> bool:
    """Whether two footprints' TMEM masks of CTA `rank` can share a cell in one of the
    pairs _check_conflicts tests (write/write, write/read, read/write): their lane sets
    and their column sets both intersect (state.Footprint.tmem_bits). False rules the
    pair out; True leaves the exact test to the caller."""
    if not hasattr(mine, "tmem_bits") or not hasattr(theirs, "tmem_bits"):
        return True
    mine_w, mine_r = mine.tmem_bits("writes", rank), mine.tmem_bits("reads", rank)
    their_w, their_r = theirs.tmem_bits("writes", rank), theirs.tmem_bits("reads", rank)
    for a, b in ((mine_w, their_w), (mine_w, their_r), (mine_r, their_w)):
        if a is not None and b is not None and a[0] & b[0] and a[1] & b[1]:
            return True
    return False


def _no_ordinary_writer(marks, form) -> bool:
    """Whether no byte of the chunks `form` has an ordinary writer (``writer`` -1), read
    as rows of 16 bytes (``ChunkMarks.bytes_writer``) rather than byte by byte."""
    # (np.take copies a row at a time: ten times faster here than indexing by an array)
    rows = np.take(marks.bytes_writer, form.index, axis=0) if form.span is None else \
        marks.bytes_writer[form.low // CHUNK:(form.high + 1) // CHUNK]
    return int(rows.max()) < 0


def _unwritten(model, marks, form) -> bool:
    """``_no_ordinary_writer(marks, form)``, remembered for the form with the model's
    count of ordinary stores (``_stores``, which smem_access and smem_access_warp raise):
    only an ordinary store gives a byte an ordinary writer (a TMA load takes them away),
    so chunks found unwritten stay so until the next store. (An MMA ring reads the same
    few operand tiles again and again.)"""
    stores = model.__dict__.get("_stores", 0)
    kept = model.__dict__.setdefault("_unwritten_forms", {})
    seen = kept.get(id(form))
    if seen is not None and seen[0] is form and seen[1] == stores:
        return True
    # chunks a TMA load wrote after the last store (an operand stage): none has an
    # ordinary writer, without reading their bytes' writers
    if not marks.cleared_since(form, stores) and not _no_ordinary_writer(marks, form):
        return False
    kept[id(form)] = (form, stores)   # the form kept alive: its id names no other
    return True


def _columns_of(fp, rank: int) -> np.ndarray:
    """The TMEM columns of CTA `rank` a footprint without summaries touches."""
    mask = np.zeros(TMEM_COLUMNS, bool)
    for masks in (fp.tmem_reads, fp.tmem_writes):
        if rank in masks:
            mask |= masks[rank].any(axis=0)
    return mask
