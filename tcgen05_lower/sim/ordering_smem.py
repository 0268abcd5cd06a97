"""The ordering model's shared memory: ordinary ld.shared / st.shared against the
writes of other threads, the reads of tcgen05 ops in flight and TMA loads; the TMA loads
themselves (cp.async.bulk.tensor) and their completion; and the exit of a CTA, after
which an arrival on its shared memory is reported. A mixin of ``ordering.OrderingModel``.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.ordering_mbarriers import _contribute
from tcgen05_lower.sim.ordering_records import TmaInFlight
from tcgen05_lower.sim.smem_chunks import chunk_form, owners_seen


#: Reductions called as ufunc methods (no Python wrapper): smem_access_warp's tests.
_MAX, _MIN, _ANY = np.maximum.reduce, np.minimum.reduce, np.logical_or.reduce


def _lanes(n: int, size: int) -> np.ndarray:
    """0, 1, .., size - 1, n times: each byte's offset in its thread's access."""
    return np.tile(np.arange(size), n)


def _owners(at: slice, size: int) -> np.ndarray:
    """The thread of each byte of the accesses of threads ``at``, ``size`` bytes each,
    as the writer arrays hold it (int32)."""
    return np.arange(at.start, at.stop, dtype=np.int32).repeat(size)


class SharedMemoryOrdering:
    """Shared-memory accesses, TMA loads and CTA exits of ``OrderingModel`` (a
    mixin of it: the state is its ``__init__``'s)."""

    def cta_exited(self, rank: int) -> None:
        """Every thread of CTA `rank` has exited: its shared memory is gone. An
        asynchronous arrival on one of its mbarriers that no wait of the CTA observed
        (the phase it fell in is later than any phase a wait saw complete) is reported:
        on the machine it may still have been in flight, since nothing the CTA did
        depended on it (the ISA orders no commit's arrival with another's, 9.7.16.12.1).
        And an arrival that lands on it from now on is reported (``_landing``)."""
        if self.exited[rank]:
            return
        self.exited[rank] = True
        for (r, address), bar in self.mbarriers.items():
            if r != rank or bar.last_async is None or bar.last_async[0] <= bar.observed:
                continue
            phase, what, line = bar.last_async
            self.late_arrivals.setdefault(
                (what, line, rank, address),
                f"{what} at PTX line {line} on the mbarrier at {address:#x} of CTA {rank} "
                f"(its phase {phase}) is observed by no wait of that CTA before the CTA "
                f"exits: it may still be in flight then (the producer tail of a ring waits "
                f"for the last commits; docs/partitions.md)")

    def _landing(self, rank: int, address: int | None, what: str, line: int) -> None:
        """Reports `what` (an arrival, a complete_tx or a TMA load's data) landing on
        the shared memory of CTA `rank` after that CTA exited: nothing it ran waited
        for it (a ring's producer tail is that wait for the last commits to its empty
        mbarriers; docs/partitions.md)."""
        if not self.exited[rank]:
            return
        key = (what, line, rank, address)
        self.late_arrivals.setdefault(
            key, f"{what} at PTX line {line} lands on the shared memory of CTA {rank} "
                 + (f"(the mbarrier at {address:#x}) " if address is not None else "")
                 + f"after CTA {rank} exited: no wait of that CTA observed it")

    # -- ordinary accesses ----------------------------------------------------------------
    def smem_access(self, threads: np.ndarray, rank, addresses: np.ndarray,
                    size: int, write: bool, line: int) -> None:
        threads = np.asarray(threads).reshape(-1)
        if not threads.size:
            return
        ranks = np.asarray(rank).reshape(-1)
        addresses = np.asarray(addresses).astype(np.int64).reshape(-1)
        if ranks.size != threads.size:   # one for all threads
            ranks = np.broadcast_to(ranks, threads.shape)
        if addresses.size != threads.size:
            addresses = np.broadcast_to(addresses, threads.shape)
        # usually every thread accesses one CTA's memory: one rank, all of them
        one = (ranks == ranks[0]).all()
        for r in (ranks[:1] if one else np.unique(ranks)):
            sel = slice(None) if one else ranks == r
            byte = (addresses[sel].reshape(-1, 1) + np.arange(size)).reshape(-1)
            who = np.repeat(threads[sel], size)
            self._check_tma_written(who, r, byte, ("st.shared" if write else "ld.shared") +
                                    " accesses", line)
            if not write:
                writers = self.writer[r][byte]
                other = (writers >= 0) & (writers != who)
                if other.any():
                    unseen = self.known[who[other], writers[other]] <= \
                        self.write_epoch[r][byte][other]
                    if unseen.any():
                        first = np.flatnonzero(other)[np.flatnonzero(unseen)[0]]
                        self._race(f"ld.shared by thread {who[first]} reads shared memory of "
                                   f"CTA {r} (byte {byte[first]:#x}) that thread "
                                   f"{writers[first]} wrote, and the write is not ordered "
                                   "before the read", line,
                                   int(self.write_line[r][byte[first]]))
            if write:
                self._fresh_readers(r)
                readers = self.reader[r][byte]
                busy = readers >= 0
                if busy.any():
                    agents = self.column[self.DONE + readers[busy]]
                    known = self.known[who[busy], agents]
                    late = known < self.reader_seq[r][byte][busy]
                    if late.any():
                        first = np.flatnonzero(busy)[np.flatnonzero(late)[0]]
                        self._race(f"st.shared by thread {who[first]} overwrites shared "
                                   f"memory of CTA {r} (byte {byte[first]:#x}) that "
                                   f"tcgen05 op of thread {readers[first]} still reads "
                                   "(its completion is not observed)", line,
                                   int(self.reader_line[r][byte[first]]))
                self.writer[r][byte] = who
                self._stores = self.__dict__.get("_stores", 0) + 1   # ordering_tensor
                # each thread's epoch, for each of its bytes (``who`` is threads repeated)
                mine = threads[sel]
                self.write_epoch[r][byte] = np.repeat(self.known[mine, mine], size)
                self.write_line[r][byte] = line

    def smem_access_warp(self, at: slice, rank: int, addresses: np.ndarray, size: int,
                         write: bool, line: int) -> None:
        """``smem_access`` of the threads ``at`` of CTA ``rank`` (a slice of
        consecutive threads, or sorted thread ids), its i-th thread at
        ``addresses[i]`` (int64, inside the CTA's shared memory:
        ops_memory_warp checked it): the same checks and bookkeeping in fewer array
        operations. It first finds, without changing anything, whether there is a race
        to report (a TMA-written byte, another thread's write not ordered before a read,
        a tcgen05 op still reading a byte written) or the bytes' readers are mixed;
        then ``smem_access`` does the access instead (and reports what there is)."""
        consecutive = type(at) is slice
        same = self.__dict__.get("_last_warp")   # the last call's threads and size
        if consecutive and same is not None and same[0] is at and same[1] == size:
            lanes, who = same[2]
        else:
            n = at.stop - at.start if consecutive else len(at)
            lanes = None if size == 1 else self._made(("lanes", n, size), _lanes, n, size)
            who = self._made(("who", at.start, at.stop, size), _owners, at, size) \
                if consecutive else at.astype(np.int32).repeat(size)
            if consecutive:
                self._last_warp = (at, size, (lanes, who))
        byte = addresses if size == 1 else addresses.repeat(size) + lanes
        if rank in self.__dict__.get("_tma_ranks", ()) and \
                self._fresh_tma(rank) is None and _MAX(self.tma_writer[rank][byte]) >= 0:
            return self._smem_access_general(at, rank, addresses, size, write, line)
        if not write:
            writers = self.writer[rank][byte]
            if np.count_nonzero(np.greater_equal(writers, self._zero_i32())) and \
                    _ANY((writers >= 0) & (writers != who)):
                return self._smem_access_general(at, rank, addresses, size, write, line)
            return None
        self._fresh_readers(rank)
        readers = self.reader[rank][byte]
        # how many bytes a tcgen05 op reads (a count: one call, where a minimum and a
        # maximum are two reductions, each slower on a warp's bytes)
        read = np.count_nonzero(np.greater_equal(readers, self._zero_i32()))
        if read == readers.size:   # every byte read by a tcgen05 op (an operand tile)
            known = self.known[who, self.column[self.DONE + readers]]
            if _ANY(known < self.reader_seq[rank][byte]):
                return self._smem_access_general(at, rank, addresses, size, write, line)
        elif read:   # some bytes read, some not: byte by byte
            return self._smem_access_general(at, rank, addresses, size, write, line)
        self.writer[rank][byte] = who
        self._stores = self.__dict__.get("_stores", 0) + 1   # ordering_tensor._unwritten
        # each thread's own epoch
        epochs = self.known[at, at].diagonal() if consecutive else self.known[at, at]
        self.write_epoch[rank][byte] = epochs if size == 1 else epochs.repeat(size)
        self.write_line[rank][byte] = line
        return None

    def _zero_i32(self) -> np.ndarray:
        """A 0-d int32 zero (a ufunc converts it faster than a scalar), the model's own."""
        zero = self.__dict__.get("_zero")
        if zero is None:
            zero = self._zero = np.zeros((), np.int32)
        return zero

    def _smem_access_general(self, at: slice, rank: int, addresses, size, write,
                             line) -> None:
        threads = np.arange(at.start, at.stop) if type(at) is slice else at
        self.smem_access(threads, np.full(threads.shape, rank, np.int64), addresses, size,
                         write, line)

    #: Read-only arrays smem_access_warp makes once: by key, the bytes' offsets in their
    #: access (("lanes", threads, size)) and the thread of each byte (("who", ...)).
    _arrays_made: dict = {}

    def _made(self, key, make, *args) -> np.ndarray:
        found = self._arrays_made.get(key)
        if found is None:
            found = self._arrays_made[key] = make(*args)
            found.flags.writeable = False
        return found

    def _clear_one_owner(self, owner: np.ndarray, seq: np.ndarray, stream: int,
                         who: int, addresses: np.ndarray) -> bool:
        """Whether thread `who` has observed, for every byte of `addresses`, the
        completion of the async operation that owns it (``owner``: the issuing thread or
        -1, ``seq``: the operation's number in the issuer's stream ``stream + issuer``),
        decided with a few reductions where the bytes have no owner or all the same one
        (a TMA load's tile, an MMA's operands): then the latest operation's number is
        all there is to compare. False means "not decided here": the caller then checks
        byte by byte (and reports what it finds)."""
        owners = owner[addresses]
        if not owners.size:
            return False
        last = int(_MAX(owners))
        if last < 0:
            return True   # no byte has an owner
        if int(_MIN(owners)) != last:
            return False
        seen = self.known[who, self.column[stream + last]]
        return bool(seen >= _MAX(seq[addresses]))

    def _fresh_readers(self, rank) -> None:
        """The per-byte readers of CTA `rank` up to date (smem_chunks.ChunkMarks writes
        an MMA's readers by chunk, and bytes only when they are read)."""
        marks = self.chunk_marks[rank]
        if marks is not None and marks.any_stale:
            marks.fresh_readers()

    def _fresh_tma(self, rank) -> None:
        """The per-byte TMA writers of CTA `rank` up to date (smem_chunks.ChunkMarks
        writes a TMA load's box by chunk, and its bytes only when they are read)."""
        marks = self.chunk_marks[rank]
        if marks is not None and marks.any_tma_stale:
            marks.fresh_tma()

    def _form_of(self, addresses: np.ndarray):
        """The chunks of a read-only byte set (a TMA box's destinations, kept for the
        run by tma.py), made once per array for the run; None for a writable array
        (its bytes could change) or a set that is not whole chunks."""
        if addresses.flags.writeable:
            return None
        forms = self.__dict__.setdefault("_chunk_forms", {})
        kept = forms.get(id(addresses))
        if kept is None or kept[0] is not addresses:
            kept = forms[id(addresses)] = (addresses, chunk_form(addresses))
        return kept[1]

    def give_form(self, addresses: np.ndarray, form) -> None:
        """Gives ``_form_of`` `form`, which must be ``chunk_form(addresses)``, for the
        read-only byte set `addresses` (tma.py finds a box's form from its chunks)."""
        if not addresses.flags.writeable:
            self.__dict__.setdefault("_chunk_forms", {})[id(addresses)] = (addresses, form)

    # -- TMA loads (cp.async.bulk.tensor) --------------------------------------------------
    def _check_tma_written(self, who: np.ndarray, rank: int, addresses: np.ndarray,
                           what: str, line: int) -> None:
        """Races of accesses by threads `who` (one per byte, or one thread for all) to
        bytes a TMA load writes whose completion they have not observed."""
        self._fresh_tma(rank)
        if isinstance(who, (int, np.integer)) and self._clear_one_owner(
                self.tma_writer[rank], self.tma_seq[rank], self.TMA, who, addresses):
            return
        writers = self.tma_writer[rank][addresses]
        busy = writers >= 0
        if not busy.any():
            return
        if isinstance(who, (int, np.integer)):
            seen = self.known[who][self.column[self.TMA + writers[busy]]]
        else:
            seen = self.known[who[busy], self.column[self.TMA + writers[busy]]]
        late = seen < self.tma_seq[rank][addresses][busy]
        if late.any():
            first = np.flatnonzero(busy)[np.flatnonzero(late)[0]]
            self._race(f"{what} shared memory of CTA {rank} (byte {addresses[first]:#x}) "
                       f"that a TMA load (cp.async.bulk.tensor of thread {writers[first]}) "
                       f"writes, and its completion (the complete_tx phase of its mbarrier, "
                       f"observed by a wait) is not ordered before", line,
                       int(self.tma_line[rank][addresses[first]]))

    def tma_load(self, thread: int, rank: int, addresses: np.ndarray, write, nbytes: int,
                 mbarrier: int, line: int, mbarrier_rank: int | None = None) -> None:
        """cp.async.bulk.tensor by `thread`: writes `addresses` of CTA `rank` (``write()``
        lands the data), then complete_tx of `nbytes` on `mbarrier` of CTA
        `mbarrier_rank` (default `rank`; module docstring)."""
        bar_rank = rank if mbarrier_rank is None else mbarrier_rank
        self._mbar(bar_rank, mbarrier, line, thread)
        marks = self.chunk_marks[rank]
        form = self._form_of(addresses) if marks is not None else None
        if marks is None or not marks.fits(form):
            form = None
        # by chunk when they decide it (smem_chunks.py), else byte by byte
        clear = form is not None and owners_seen(self, marks.reader, marks.reader_seq,
                                                 self.DONE, thread, form)
        if not clear:
            self._fresh_readers(rank)
            clear = self._clear_one_owner(self.reader[rank], self.reader_seq[rank],
                                          self.DONE, thread, addresses)
        readers = None if clear else self.reader[rank][addresses]
        if not clear and (readers >= 0).any():
            busy = readers >= 0
            known = self.known[thread, self.column[self.DONE + readers[busy]]]
            late = known < self.reader_seq[rank][addresses][busy]
            if late.any():
                first = np.flatnonzero(busy)[np.flatnonzero(late)[0]]
                self._race(f"a TMA load (cp.async.bulk.tensor of thread {thread}) "
                           f"overwrites shared memory of CTA {rank} (byte "
                           f"{addresses[first]:#x}) that a tcgen05 op of thread "
                           f"{readers[first]} still reads (its completion is not observed)",
                           line, int(self.reader_line[rank][addresses[first]]))
        if form is None or not owners_seen(self, marks.tma_writer, marks.tma_seq, self.TMA,
                                           thread, form):
            self._check_tma_written(thread, rank, addresses,
                                    f"a TMA load of thread {thread} also writes", line)
        stream = self._stream(self.TMA + thread)
        self.seq[stream] += 1
        seq = int(self.seq[stream])
        # the CTAs a TMA load ever wrote: smem_access_warp looks for TMA-written bytes
        # only in those (tma_writer stays -1 elsewhere)
        self.__dict__.setdefault("_tma_ranks", set()).add(rank)
        # the bytes are the TMA load's now: earlier ordinary writes are overwritten
        if form is not None:
            marks.set_tma(form, thread, seq, line, self.__dict__.get("_stores", 0))
        else:   # (_check_tma_written above made the per-byte arrays fresh)
            self.tma_writer[rank][addresses] = thread
            self.tma_seq[rank][addresses] = seq
            self.tma_line[rank][addresses] = line
            self.writer[rank][addresses] = -1
            if marks is not None:
                marks.mix(marks.tma_writer, addresses)
        entry = TmaInFlight(thread, seq, rank, addresses, write, nbytes, mbarrier, line,
                            bar_rank)
        if self.schedule == "eager":
            self._complete_tma(entry)
        else:
            self.pending_commits.append(entry)

    def _complete_tma(self, entry: TmaInFlight) -> None:
        """The load's data lands; complete_tx of its bytes on its mbarrier releases its
        completion to the phase that completes."""
        bar_rank = entry.rank if entry.mbarrier_rank is None else entry.mbarrier_rank
        self._landing(entry.rank, None, "the data of a TMA load (cp.async.bulk.tensor)",
                      entry.line)
        self._landing(bar_rank, entry.mbarrier, "the complete_tx of a TMA load "
                      "(cp.async.bulk.tensor)", entry.line)
        entry.write()
        bar = self._mbar(bar_rank, entry.mbarrier, entry.line)
        bar.last_async = (bar.phase, "the complete_tx of a TMA load (cp.async.bulk.tensor)",
                          entry.line)
        # in the clocks' own integer type: an acquire of it then merges without a cast
        # (the clocks widen to 64 bits before a sequence number needs them: _stream)
        generic = np.zeros(self.known.shape[1], self.known.dtype)
        generic[self.column[self.TMA + entry.thread]] = entry.seq
        # complete_tx is performed on the mbarrier by the async proxy: a waiter of the
        # mbarrier's CTA observes it (docs/memory-model.md)
        _contribute(bar, (bar_rank, "cluster"), generic, generic)
        bar.tx -= entry.nbytes
        self._maybe_complete(bar)

    def _complete_pending(self, entry) -> None:
        if isinstance(entry, TmaInFlight):
            self._complete_tma(entry)
        else:
            self._complete_commit(entry)
