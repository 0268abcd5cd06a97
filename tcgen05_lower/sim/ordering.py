"""Ordering, completion and race detection for the simulated SM (PTX ISA 9.7.16.6).

The PTX executor (``executor.py``) calls this model for everything that orders memory
accesses; the model decides when asynchronous tcgen05 operations take effect and reports
every access that conflicts with an operation whose completion (or, for the pipelined
pairs of 9.7.16.6.2, whose issue) the accessing thread has not observed.

Threads are numbered across the cluster: ``g = rank * threads_per_cta + tid``. Every method
that takes ``line`` gets the 1-based PTX line of the instruction, for reports. Methods that
take ``threads`` get a ``np.ndarray`` of global thread ids that execute the instruction
together (the active threads of one step).

tcgen05.ld / tcgen05.st are warp-collective: the executor calls ``issue`` once per warp,
with the warp's lowest active thread as ``thread``, and ``wait`` with all the warp's
threads; the model keys their completion by warp.

Schedules
---------
- ``"late"`` (default): an asynchronous op takes effect at the latest moment the ISA allows.
  mma / cp / shift of a thread are performed, in issue order, only when a commit of that
  thread must complete because no thread can run any more (``progress``), or at exit;
  a ``tcgen05.st`` at its warp's ``wait::st``. ``tcgen05.ld`` reads its cells when issued
  (its registers are written then); its read stays in flight until ``wait::ld``.
- ``"eager"``: every asynchronous op takes effect when it is issued.
- ``"random"``: as ``"late"``, except that pending commits and TMA loads complete at random
  steps after their issue and in a random allowed order (``progress``, ``choose``; the
  executor draws them, sim/schedule.py).
A race-free program computes the same numbers under both.

How ordering is tracked (vector clocks)
---------------------------------------
Agents are the threads (their ordinary accesses), and per thread two streams of its
mma/cp/shift ops, "issued" and "completed", and per warp the completion streams of its
tcgen05.ld and tcgen05.st. Each thread keeps two clocks over all agents (a stream agent
gets its column in the clocks at its first issue, ``_stream``; until then it reads as a
column of zeros):

- ``known`` orders the thread's ordinary (generic-proxy) accesses: barrier.sync and
  mbarrier arrive/wait join it as PTX's memory model does.
- ``tc_known`` orders the thread's tcgen05 operations: knowledge received through a barrier
  or an mbarrier reaches it only at ``tcgen05.fence::after_thread_sync`` (9.7.16.6.3: an
  asynchronous tcgen05 op after that fence is ordered after the prior execution ordering
  operations), and what a thread releases about tcgen05 operations is what it knew at its
  last ``tcgen05.fence::before_thread_sync`` (ops prior to that fence are ordered before
  the subsequent execution ordering operations). ``tcgen05.commit`` performs that fence
  implicitly (9.7.16.6.4.2) and its mbarrier arrival publishes the completion of the ops it
  tracks. ``wait::ld`` / ``wait::st`` make the warp's own loads / stores complete for the
  waiting thread at once (9.7.16.6.4.2, Example 1).

A new asynchronous op conflicts with an earlier one (one of them writes cells the other
touches) unless the issuer knows the earlier one completed, or the two are a pipelined pair
(9.7.16.6.2: mma -> mma on the same accumulator and shape, cp -> mma, shift -> mma,
shift -> cp.4x256b, mma -> shift) and the issuer knows the earlier one was issued (its own,
or another thread's ordered by before/after_thread_sync, 9.7.16.6.4.3). Shared-memory
bytes read by mma / cp (the async proxy, 9.7.16.6.5) must have been written by ordinary
stores that are ordered before the issue and followed, in the writer, by
``fence.proxy.async``; an ordinary store to bytes an unfinished async op reads is a race.

Not tracked: races between ordinary accesses of different threads (no tcgen05 op
involved), and a byte read by several in-flight async ops of different issuers is
checked against the latest one only.

TMA loads (``cp.async.bulk.tensor``, ``tma_load``) write shared memory through the async
proxy. Each issuing thread has a stream agent of its TMA completions; a load's bytes are
marked as being written by it from its issue on, and its completion (its data lands, then
complete_tx of its bytes on its mbarrier, which releases the load's completion to the
phase) happens at the latest moment (``"late"``: when no thread can run, in issue order
with the commits) or at once (``"eager"``). A tcgen05 op, or an ordinary access, that
touches those bytes must know the completion (from a wait on the phase that the
complete_tx completed): otherwise a race. A TMA load into bytes that an unfinished
tcgen05 op reads is a race too (its completion, e.g. commit -> wait, must come first).

Asynchronous arrivals at exit. A commit's arrive-on (multicast or not) and a TMA load's
complete_tx are asynchronous: when the last thread of the CTA holding their mbarrier
exits (``cta_exited``), the phase the latest of them fell in must have been observed
complete by a wait of that CTA, else it is reported (whatever the schedule: under
``"eager"`` it landed at issue, under ``"late"`` when a later commit forced it, and on
the machine it may still be in flight). An arrival (those, a TMA load's data, a remote
``mbarrier.arrive``) that lands on the shared memory of a CTA whose threads have all
exited is reported too, and so is one still pending when the last thread of the cluster
exits, which is then completed. The reports come with the at-exit problems (``finish``).

mbarriers follow PTX's mbarrier semantics: init sets the expected arrival count and phase
0; a phase completes when its pending arrivals reach zero (and its transaction count is
zero); ``try_wait.parity P`` succeeds once the phase of parity P has completed, i.e. while
the current phase's parity differs from P, and acquires what the arrivals of that phase
released that it synchronizes with: a CTA's own arrivals always, another CTA's only when
both the arrive and the wait are ``.cluster`` (commit arrive-ons and TMA complete_tx count
as performed at the mbarrier's CTA). An mbarrier used from another CTA needs a
``fence.mbarrier_init.release.cluster`` after its init, ordered before the use. Reads of
TMEM cells no op wrote since their allocation are reported at exit (docs/memory-model.md).

This module holds the clocks, the thread synchronization (barriers, fences, tcgen05.wait)
and the end of the kernel; the rest of ``OrderingModel`` comes from its mixins:
``ordering_tensor`` (asynchronous tcgen05 ops, commits, TMEM allocation),
``ordering_smem`` (shared-memory accesses, TMA loads, CTA exits) and
``ordering_mbarriers`` (mbarriers); ``ordering_records`` holds what they record and
report (in-flight ops, mbarriers, races).
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.ordering_mbarriers import MbarrierOrdering
from tcgen05_lower.sim.ordering_records import (InFlight, Mbarrier, Race, TmaInFlight, _fit,
                                                 _row_runs, _rows)
from tcgen05_lower.sim.ordering_smem import SharedMemoryOrdering
from tcgen05_lower.sim.ordering_tensor import TensorOrdering
from tcgen05_lower.sim.smem_chunks import ChunkMarks
from tcgen05_lower.sim.state import TMEM_COLUMNS, CtaMemory, SimError


class OrderingModel(TensorOrdering, SharedMemoryOrdering, MbarrierOrdering):
    """Happens-before state, in-flight asynchronous ops, mbarriers and TMEM allocation."""

    #: Which thread synchronization orders tcgen05 ops across threads (docs/memory-model.md,
    #: "Two readings of tcgen05 ordering"): "canonical", only the ISA's fence patterns
    #: (9.7.16.6); "acquire", also every barrier and acquire mbarrier wait, as if
    #: fenced by before_thread_sync before and after_thread_sync after (``_implied``).
    fences = "canonical"

    def __init__(self, ctas: list[CtaMemory], threads_per_cta: int, schedule: str = "late"):
        if schedule not in ("late", "eager", "random"):
            raise ValueError(f"schedule must be late, eager or random, not {schedule!r}")
        self.ctas = ctas
        self.schedule = schedule
        self.threads_per_cta = threads_per_cta
        t = self.nthreads = threads_per_cta * len(ctas)
        w = self.nwarps = -(-t // 32)
        # agents: threads [0, t), issued [t, 2t), completed [2t, 3t), ld [3t, 3t+w), st
        # [3t+w, 3t+2w), TMA loads completed [3t+2w, 4t+2w)
        self.ISSUED, self.DONE, self.LD, self.ST = t, 2 * t, 3 * t, 3 * t + w
        self.TMA = 3 * t + 2 * w
        # the clocks' columns: the threads' [0, t), then one column that stays zero (of
        # every stream agent not used yet), then a column per stream agent in use,
        # given at its first issue (``_stream``): most streams (threads that never
        # issue) never get one, so a fence or barrier moves a quarter of the bytes
        self.column = np.full(4 * t + 2 * w, t, np.int64)   # agent -> its column
        self.columns = t + 1
        # each starts as the identity (a thread's own epoch 1); made with zeros rather
        # than copied, so that rows no thread ever touches cost no memory traffic
        self.known, self.tc_known, self.pending_tc, self.released = (
            _identity_clocks(t, t + 1 + _SPARE_COLUMNS) for _ in range(4))
        self.clock_max = _clock_max(self.known.dtype)   # (``_CLOCK_TYPES``)
        self.seq = np.zeros(t + 1 + _SPARE_COLUMNS, np.int64)   # last sequence number per
        # stream agent, by column
        self.inflight: list[InFlight] = []
        # commits and TMA loads (TmaInFlight) to complete, in issue order
        self.pending_commits: list = []
        self.mbarriers: dict[tuple[int, int], Mbarrier] = {}
        self.races: list[Race] = []
        self._race_keys: dict = {}   # the pair's (lower, higher) PTX line -> its Race
        self.allocated = [np.zeros(TMEM_COLUMNS, bool) for _ in ctas]
        # who allocated each column, and the sequence number of that alloc in the
        # allocating thread's "issued" stream (9.7.16.7.1: a synchronous tcgen05 op)
        self.alloc_by = [np.full(TMEM_COLUMNS, -1, np.int64) for _ in ctas]
        self.alloc_seq = [np.zeros(TMEM_COLUMNS, np.int64) for _ in ctas]
        self.alloc_line = [np.zeros(TMEM_COLUMNS, np.int64) for _ in ctas]
        self.relinquished = [False for _ in ctas]
        # TMEM cells written since their columns were allocated; reads of the others
        self.tmem_written = [np.zeros_like(c.tmem, dtype=bool) for c in ctas]
        # (line, kind, rank) -> the never-written cells the op at that line read
        self.unwritten_reads: dict = {}
        # shared memory: the last ordinary writer of each byte and its epoch; the latest
        # async reader of each byte (issuer, seq, line)
        # (the nine per-byte arrays of a CTA are rows of two blocks, ``_per_byte``)
        self.writer, self.reader, self.tma_writer = _per_byte(ctas, 3, -1, np.int32)
        (self.write_epoch, self.write_line, self.reader_seq, self.reader_line, self.tma_seq,
         self.tma_line) = _per_byte(ctas, 6, 0, np.int64)
        # per thread, its epochs at each fence.proxy.async (a thread without one reads as
        # an empty list, and none is made for it: most threads never fence)
        self.proxy_fences: _PerThread = _PerThread()
        # per thread, its epochs at each fence.mbarrier_init.release.cluster
        self.init_fences: _PerThread = _PerThread()
        # shared memory written by TMA loads: the issuing thread, the load's sequence
        # number in its TMA stream, its line
        # (tma_writer, tma_seq, tma_line: made above with the other per-byte arrays)
        # the same for 16-byte chunks, and the views by chunk (smem_chunks.py)
        self.chunk_marks = [ChunkMarks.of(self, r) for r in range(len(ctas))]
        # CTAs whose threads have all exited, and the arrivals that landed on their
        # shared memory afterwards (reported at finish; module docstring)
        self.exited = [False for _ in ctas]
        self.late_arrivals: dict = {}

    # -- helpers --------------------------------------------------------------------------
    def _race(self, message: str, line: int, other: int) -> None:
        """Reports a race of the op at `line` with the one at `other`, once per pair of
        lines (later occurrences count: ``Race.count``)."""
        key = (min(line, other), max(line, other))
        known = self._race_keys.get(key)
        if known is not None:
            known.count += 1
            return
        race = Race(f"race with PTX line {other}: {message}", line, other_line=other)
        self._race_keys[key] = race
        self.races.append(race)

    def _stream(self, agent: int) -> int:
        """The column of stream agent `agent` (a logical index, ``self.DONE + thread``
        and the like), given now if it has none: columns are read through
        ``self.column`` (the zero column for a stream without one) and given before the
        first write."""
        col = int(self.column[agent])
        if col != self.nthreads:
            if self.seq[col] >= self.clock_max:
                self._widen_entries(int(self.seq[col]) + 1)   # the stream's next number
            return col
        if self.columns == self.known.shape[1]:
            self._widen()
        col = self.column[agent] = self.columns
        self.columns += 1
        return col

    def _widen_entries(self, value: int) -> None:
        """The clocks in the narrowest of ``_CLOCK_TYPES`` that holds `value` from now
        on (their entries kept): an epoch or sequence number is about to pass
        ``clock_max``, the largest entry of their type."""
        wider = next(t for t in _CLOCK_TYPES if value <= _clock_max(t))
        if np.dtype(wider).itemsize <= self.known.dtype.itemsize:
            return
        for name in ("known", "tc_known", "pending_tc", "released"):
            setattr(self, name, getattr(self, name).astype(wider))
        self.clock_max = _clock_max(wider)

    def _widen(self) -> None:
        """More columns for stream agents (zeros: nobody knows anything of them yet)."""
        more = max(_SPARE_COLUMNS, self.columns - self.nthreads)
        for name in ("known", "tc_known", "pending_tc", "released"):
            setattr(self, name, _fit(getattr(self, name), self.columns + more))
        self.seq = _fit(self.seq, self.columns + more)

    def _epoch(self, thread: int) -> int:
        return int(self.known[thread, thread])

    def _release(self, threads: np.ndarray) -> None:
        """The threads' own epochs end: what they did is now publishable."""
        one = _single(threads)
        if one is None:
            self._release_rows(threads)
            return
        # one thread (an arrive, a commit): scalar updates
        epoch = int(self.known[one, one]) + 1
        if epoch > self.clock_max:
            self._widen_entries(epoch)
        self.known[one, one] = epoch
        self.tc_known[one, one] = epoch

    def _release_rows(self, threads) -> None:
        """``_release`` of any selection of threads."""
        own = self.known[threads, threads]
        if own.size and own.max() >= self.clock_max:
            self._widen_entries(int(own.max()) + 1)
        self.known[threads, threads] += 1
        self.tc_known[threads, threads] = self.known[threads, threads]

    def _published(self, threads) -> tuple[np.ndarray, np.ndarray]:
        """(generic, tcgen05) knowledge the threads release: all they know for ordinary
        accesses; for tcgen05 ops what they knew at their last before_thread_sync, and
        what they acquired as tcgen05 knowledge from others (``pending_tc``): those ops
        are ordered before the acquiring wait or barrier, so before this release too
        (causality order is transitive; 9.7.16.6.3: the fences compose with the
        execution ordering operations). A load thread that waits on a ring's empty stage
        (the MMAs' commit) and then arrives on its full stage forwards the MMAs'
        completion to the MMA thread's wait."""
        one = _single(threads)
        if one is None:
            return self._published_rows(threads)
        # one thread: its rows, no reductions
        generic = self.known[one].copy()
        tc = np.maximum(self.released[one], self.pending_tc[one])
        tc[one] = max(tc[one], generic[one])
        return generic, tc

    def _published_rows(self, threads) -> tuple[np.ndarray, np.ndarray]:
        """``_published`` of any selection of threads."""
        runs = _row_runs(threads)
        if runs is not None and len(runs) > 1:   # views of each run, no copies of rows
            generic = np.maximum.reduce([self.known[run].max(axis=0) for run in runs])
            tc = np.maximum.reduce([np.maximum(self.released[run].max(axis=0),
                                               self.pending_tc[run].max(axis=0))
                                    for run in runs])
        else:
            rows = _rows(threads)
            generic = self.known[rows].max(axis=0)
            tc = np.maximum(self.released[rows].max(axis=0),
                            self.pending_tc[rows].max(axis=0))
        own = np.asarray(threads).reshape(-1)
        tc[own] = np.maximum(tc[own], self.known[own, own])
        return generic, tc

    def _acquire(self, threads, generic: np.ndarray, tc: np.ndarray) -> None:
        width = self.known.shape[1]
        generic, tc = _fit(generic, width), _fit(tc, width)   # released before a _widen
        for rows in self._views(threads):
            _maximum_into(self.known, self.known, generic, rows)
            _maximum_into(self.pending_tc, self.pending_tc, tc, rows)

    def _views(self, threads) -> list:
        """``_row_views(threads)``, kept for the run by the threads' ids when every view
        is a slice: a pure function of the ids (slices hold no array), and a run acquires
        and fences with the same few groups (a warp, a CTA) again and again. An answer
        holding an index array is not kept: it is the caller's array, which the caller
        may change later. At most ``_KEPT_VIEWS`` answers are kept."""
        if type(threads) is not np.ndarray or threads.ndim != 1:
            return _row_views(threads)
        kept = self.__dict__.setdefault("_kept_views", {})
        key = (threads.dtype.char, threads.tobytes())
        found = kept.get(key)
        if found is None:
            found = _row_views(threads)
            if len(kept) < _KEPT_VIEWS and all(type(rows) is slice for rows in found):
                kept[key] = found
        return found

    @staticmethod
    def _describe(rank: int, mask: np.ndarray) -> str:
        lanes = np.flatnonzero(mask.any(axis=1))
        cols = np.flatnonzero(mask.any(axis=0))
        return (f"TMEM of CTA {rank}, lanes {lanes.min()}-{lanes.max()}, "
                f"columns {cols.min()}-{cols.max()}")

    def wait(self, threads: np.ndarray, kind: str, line: int) -> None:
        base = self.LD if kind == "ld" else self.ST
        for warp in np.unique(np.asarray(threads) // 32):
            agent = int(self.column[base + int(warp)])   # the zero column: none issued
            seq = int(self.seq[agent])
            if kind == "st":
                for record in self.inflight:
                    if record.agent == agent and record.seq <= seq:
                        self._perform(record)
            members = np.asarray(threads)[np.asarray(threads) // 32 == warp]
            self.known[members, agent] = np.maximum(self.known[members, agent], seq)
            self.tc_known[members, agent] = np.maximum(self.tc_known[members, agent], seq)

    def fence(self, threads: np.ndarray, kind: str, line: int) -> None:
        threads = np.asarray(threads)
        if kind == "before_thread_sync":
            for rows in self._views(threads):
                _maximum_into(self.released, self.known, self.tc_known, rows)
        elif kind == "after_thread_sync":
            # only what arrived through tcgen05-aware release (before_thread_sync or a
            # commit) orders later tcgen05 ops; plain generic knowledge does not
            for rows in self._views(threads):
                _maximum_into(self.tc_known, self.tc_known, self.pending_tc, rows)
        elif kind == "proxy_async":
            for t in threads:
                self.proxy_fences.setdefault(int(t), []).append(self._epoch(int(t)))
            self._release(threads)
        elif kind == "mbarrier_init":
            for t in threads.reshape(-1):
                self.init_fences.setdefault(int(t), []).append(self._epoch(int(t)))
            self._release(threads.reshape(-1))
        else:
            raise SimError(f"unknown fence kind {kind!r}", line)

    # -- thread synchronization -----------------------------------------------------------
    def _implied(self, threads, kind: str, line: int) -> None:
        """Under fences="acquire", the tcgen05 fence `kind` a synchronization implies."""
        if self.fences == "acquire":
            self.fence(np.asarray(threads).reshape(-1), kind, line)

    def barrier(self, threads: np.ndarray, line: int) -> None:
        threads = np.asarray(threads).reshape(-1)
        self._implied(threads, "before_thread_sync", line)
        self._release(threads)
        generic, tc = self._published(threads)
        if type(self)._published is OrderingModel._published and \
                type(self)._acquire is OrderingModel._acquire:
            self._join(threads, generic, tc)
        else:   # a subclass's release or merge: its own
            self._acquire(threads, generic, tc)
        self._implied(threads, "after_thread_sync", line)
        self._forget_known_complete()

    def _join(self, threads, generic: np.ndarray, tc: np.ndarray) -> None:
        """``_acquire(threads, generic, tc)`` where (generic, tc) is what the same threads
        publish (``_published``): generic is the maximum of their ``known`` rows and tc at
        least the maximum of their ``pending_tc`` rows, so the merge gives every row
        exactly those vectors. Assigned, without reading the rows (a barrier of a CTA
        pair moves two matrices of a megabyte: half the bytes)."""
        for rows in self._views(threads):
            self.known[rows] = generic
            self.pending_tc[rows] = tc

    def _forget_known_complete(self) -> None:
        """Drops the performed ops every thread knows complete (in both clocks): they can
        conflict with nothing any more. Tested for all records at once, the TMEM index
        kept in step (ordering_tensor._still_in_flight); nothing to test when no record
        was performed (the barriers before the first commit completes, or after all
        were dropped)."""
        if not any(record.performed for record in self.inflight):
            return
        self.inflight = self._still_in_flight()

    def _known_everywhere(self, agents: np.ndarray, seqs: np.ndarray) -> np.ndarray:
        """Per (stream agent's column, sequence number) pair: whether every thread knows
        it in both clocks (``known`` and ``tc_known`` at least the number in the whole
        column). When every column is a stream's (``_stream`` gives them after the
        threads' and the zero column), from the minimum of each stream column, taken
        once for the block of them: the last few entries of each row, instead of a
        gathered copy of every row's entry per record (a CTA pair's barrier tests some
        hundred records over 512 rows). Else (any other column) per column."""
        first = self.nthreads + 1
        if agents.size and int(agents.min()) >= first and int(agents.max()) < self.columns:
            block = slice(first, self.columns)
            low = np.minimum(self.tc_known[:, block].min(axis=0),
                             self.known[:, block].min(axis=0))
            return low[agents - first] >= seqs
        return (self.tc_known[:, agents] >= seqs).all(axis=0) & \
            (self.known[:, agents] >= seqs).all(axis=0)

    # -- progress and the end of the kernel ------------------------------------------------
    #: Under the "random" schedule: picks one of n allowed pending completions (the
    #: executor's schedule.RandomSchedule.choose); else the oldest completes first.
    choose = None

    def progress(self) -> bool:
        """Completes one pending commit or TMA load (False: none is pending)."""
        if not self.pending_commits:
            return False
        index = 0
        if self.choose is not None:
            allowed = self._allowed_completions()
            index = allowed[self.choose(len(allowed))]
        self._complete_pending(self.pending_commits.pop(index))
        return True

    def _allowed_completions(self) -> list[int]:
        """The pending completions that may come next: any TMA load (no bulk copy is
        ordered with another), a commit only when no earlier commit of its thread is
        pending (each tracks all prior async tcgen05 ops of its thread, 9.7.16.6.4.2, so
        its arrival implies the earlier one's condition; sim/schedule.py)."""
        allowed, committers = [], set()
        for index, entry in enumerate(self.pending_commits):
            if isinstance(entry, TmaInFlight):
                allowed.append(index)
                continue
            if entry[0] not in committers:
                allowed.append(index)
                committers.add(entry[0])
        return allowed

    def finish(self, line: int) -> list[str]:
        # Every thread has exited: a commit's arrive-on or a TMA load still pending lands
        # on the shared memory of CTAs that have exited (checked, then completed so that
        # the numbers are the program's).
        for rank in range(len(self.ctas)):
            self.cta_exited(rank)
        while self.pending_commits:
            self._complete_pending(self.pending_commits.pop(0))
        problems = list(self.late_arrivals.values()) + self._unwritten_report()
        for record in self.inflight:
            if not record.performed:
                self._perform(record)
                problems.append(f"tcgen05.{record.kind} at PTX line {record.line} was never "
                                "committed or waited for")
        for rank, used in enumerate(self.allocated):
            if used.any():
                cols = np.flatnonzero(used)
                problems.append(f"TMEM columns {cols.min()}-{cols.max()} of CTA {rank} are "
                                "still allocated at exit (9.7.16.7.1)")
        return problems


class _PerThread(dict):
    """Lists by thread id; a thread that has none reads as an empty one (not stored)."""

    def __missing__(self, thread) -> tuple:
        return ()


def _single(threads) -> int | None:
    """The thread of a selection of one (a list or vector of one integer), else None."""
    if isinstance(threads, np.ndarray):
        if threads.shape == (1,) and threads.dtype.kind in "iu":
            return int(threads[0])
        return None
    if isinstance(threads, list) and len(threads) == 1 and \
            isinstance(threads[0], (int, np.integer)):
        return int(threads[0])
    return None


def _row_views(threads) -> list:
    """The indices of the clock rows of `threads`: slices (views, updated in place) for
    one run of consecutive threads or a few (``_row_runs``), else one index array."""
    rows = _rows(threads)
    if isinstance(rows, slice):
        return [rows]
    runs = _row_runs(rows)
    return [rows] if runs is None else runs


def _maximum_into(target: np.ndarray, a: np.ndarray, b: np.ndarray, rows) -> None:
    """``target[rows] = max(a[rows], b)`` (b a vector of one row) or ``max(a[rows],
    b[rows])`` (b a matrix of rows), in place when `rows` is a slice."""
    other = b if b.ndim == 1 else b[rows]
    if isinstance(rows, slice):
        np.maximum(a[rows], other, out=target[rows])
    else:
        target[rows] = np.maximum(a[rows], other)


#: At most this many groups of threads have their row views kept (``OrderingModel._views``).
_KEPT_VIEWS = 1024


#: Stream-agent columns the clocks get at a time (``OrderingModel._widen``).
_SPARE_COLUMNS = 16


#: The clocks' integer types, narrowest first. Their entries are epochs (one more per
#: release of a thread: a barrier, an arrive, a fence.proxy.async or mbarrier_init fence,
#: a commit) and sequence numbers (one more per op of a stream), a few at most per
#: instruction a thread executes: below 2**15 in the examples' runs (a few hundred), below
#: 2**31 in any run the default budget allows (api.DEFAULT_MAX_INSTRUCTIONS, 5 * 10**7
#: warp instructions). So the clocks start 16-bit, which halves (against 32 bits) the
#: memory every fence, barrier, acquire and publication moves (a CTA pair's clocks are
#: four matrices of 512 x 529 entries) and the pages a run touches. Before an entry would
#: pass the largest of its type (``clock_max``), the clocks take the next type that holds
#: it (``_widen_entries``, from ``_release`` and ``_stream``, the only places epochs and
#: sequence numbers grow): the same numbers.
_CLOCK_TYPES = (np.int16, np.int32, np.int64)


def _clock_max(dtype) -> int:
    """The largest entry of clocks of `dtype` (64-bit ones do not widen further)."""
    return int(np.iinfo(dtype).max)


def _per_byte(ctas: list[CtaMemory], count: int, fill: int, dtype) -> list[list]:
    """`count` per-byte arrays of each CTA's shared memory, filled with `fill`: by array,
    the CTAs' in rank order. A CTA's `count` arrays are the rows of one block, made in
    one allocation and one fill instead of `count` (each row a separate array to its
    users: none of them reads past its CTA's bytes)."""
    blocks = [np.zeros((count, c.smem.size), dtype) if fill == 0 else
              np.full((count, c.smem.size), fill, dtype) for c in ctas]
    return [[block[i] for block in blocks] for i in range(count)]


def _identity_clocks(threads: int, agents: int) -> np.ndarray:
    """A clock matrix of ``threads`` rows over ``agents``: 1 at (t, t), else 0."""
    clocks = np.zeros((threads, agents), _CLOCK_TYPES[0])
    clocks[np.arange(threads), np.arange(threads)] = 1
    return clocks
