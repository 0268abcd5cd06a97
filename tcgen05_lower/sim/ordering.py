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
tcgen05.ld and tcgen05.st. Each thread keeps two clocks over all agents:

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
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from tcgen05_lower.sim.state import TMEM_COLUMNS, CtaMemory, SimError, TensorOp


class Race(SimError):
    """Two accesses to the same cells that the program does not order.

    Races are grouped by the pair of PTX lines (the later access's ``ptx_line``, the
    earlier one's ``other_line``): the message is the first occurrence's, ``count`` how
    many were found for that pair (per thread, warp, cell range or CTA)."""

    def __init__(self, message: str, ptx_line: int | None = None, ptx_text: str = "",
                 other_line: int | None = None):
        super().__init__(message, ptx_line, ptx_text)
        self.other_line = other_line
        self.count = 1
        self.other_text = ""            # the earlier access's PTX line, when known
        self.other_source: str | None = None

    def __str__(self) -> str:
        if self.ptx_line is None or self.other_line is None:
            return super().__str__()
        at = f" ({self.source})" if self.source else ""
        other_at = f" ({self.other_source})" if self.other_source else ""
        times = f", {self.count} times" if self.count > 1 else ""
        detail = self.message.removeprefix(f"race with PTX line {self.other_line}: ")
        text = (f"PTX line {self.ptx_line}{at}: race with PTX line {self.other_line}"
                f"{other_at}{times}: {detail}")
        for line, code in ((self.ptx_line, self.ptx_text), (self.other_line, self.other_text)):
            if code.strip():
                text += f"\n    {line}: {code.strip()}"
        return text


#: 9.7.16.6.2: (earlier kind, later kind) pairs executed in issue order.
PIPELINED = frozenset({("mma", "mma"), ("cp", "mma"), ("shift", "mma"), ("shift", "cp4x256b"),
                       ("mma", "shift")})


@dataclass
class InFlight:
    op: TensorOp
    kind: str          # "mma", "cp", "shift", "ld", "st"
    issuer: int        # thread
    agent: int         # the completion agent
    issue_agent: int   # the issue agent (mma/cp/shift), else -1
    seq: int
    line: int
    performed: bool = False
    cp4x256b: bool = False


@dataclass
class TmaInFlight:
    """A TMA load issued and not yet complete (see the module docstring)."""
    thread: int
    seq: int
    rank: int
    addresses: np.ndarray
    write: object      # callable: lands the data in shared memory
    nbytes: int
    mbarrier: int
    line: int
    #: The CTA of the mbarrier (the destination's, or with .cta_group::2 possibly its
    #: peer's); None: the destination's CTA.
    mbarrier_rank: int | None = None


@dataclass
class Mbarrier:
    expected: int
    pending: int
    phase: int = 0
    tx: int = 0
    #: what the current phase's arrivals released, by source: (rank of the arriving
    #: agent, scope of the release) -> (known, tc_known); see ``_synchronizes``
    released: dict = field(default_factory=dict)
    completed: dict = field(default_factory=dict)  # phase -> its ``released``
    init_by: int = -1
    init_epoch: int = 0
    init_line: int = 0
    #: The latest asynchronous arrival (a commit's arrive-on, a TMA load's complete_tx):
    #: (the phase it fell in, what it was, its PTX line); and the latest phase a
    #: successful wait on this mbarrier observed complete (-1: none).
    last_async: tuple | None = None
    observed: int = -1
    rank: int = 0


class OrderingModel:
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
        agents = 4 * t + 2 * w
        self.known = np.zeros((t, agents), np.int64)
        self.known[np.arange(t), np.arange(t)] = 1
        self.tc_known = self.known.copy()
        self.pending_tc = self.known.copy()
        self.released = self.known.copy()
        self.seq = np.zeros(agents, np.int64)       # last sequence number per stream agent
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
        self.writer = [np.full(c.smem.size, -1, np.int32) for c in ctas]
        self.write_epoch = [np.zeros(c.smem.size, np.int64) for c in ctas]
        self.write_line = [np.zeros(c.smem.size, np.int64) for c in ctas]
        self.reader = [np.full(c.smem.size, -1, np.int32) for c in ctas]
        self.reader_seq = [np.zeros(c.smem.size, np.int64) for c in ctas]
        self.reader_line = [np.zeros(c.smem.size, np.int64) for c in ctas]
        self.proxy_fences: list[list[int]] = [[] for _ in range(t)]
        # per thread, its epochs at each fence.mbarrier_init.release.cluster
        self.init_fences: list[list[int]] = [[] for _ in range(t)]
        # shared memory written by TMA loads: the issuing thread, the load's sequence
        # number in its TMA stream, its line
        self.tma_writer = [np.full(c.smem.size, -1, np.int32) for c in ctas]
        self.tma_seq = [np.zeros(c.smem.size, np.int64) for c in ctas]
        self.tma_line = [np.zeros(c.smem.size, np.int64) for c in ctas]
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

    def _epoch(self, thread: int) -> int:
        return int(self.known[thread, thread])

    def _release(self, threads: np.ndarray) -> None:
        """The threads' own epochs end: what they did is now publishable."""
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
        generic = self.known[threads].max(axis=0)
        tc = np.maximum(self.released[threads].max(axis=0),
                        self.pending_tc[threads].max(axis=0))
        own = np.asarray(threads).reshape(-1)
        tc[own] = np.maximum(tc[own], self.known[own, own])
        return generic, tc

    def _acquire(self, threads, generic: np.ndarray, tc: np.ndarray) -> None:
        self.known[threads] = np.maximum(self.known[threads], generic)
        self.pending_tc[threads] = np.maximum(self.pending_tc[threads], tc)

    @staticmethod
    def _describe(rank: int, mask: np.ndarray) -> str:
        lanes = np.flatnonzero(mask.any(axis=1))
        cols = np.flatnonzero(mask.any(axis=0))
        return (f"TMEM of CTA {rank}, lanes {lanes.min()}-{lanes.max()}, "
                f"columns {cols.min()}-{cols.max()}")

    # -- asynchronous tcgen05 operations ------------------------------------------------
    def issue(self, thread: int, op: TensorOp, line: int) -> None:
        kind = op.kind
        cp4 = kind == "cp" and getattr(op, "shape", "") == "4x256b"
        self._check_conflicts(thread, op, kind, cp4, line)
        self._check_allocation_ordered(thread, op, line)
        self._check_async_smem_reads(thread, op, line)
        warp = thread // 32
        if kind in ("mma", "cp", "shift"):
            agent, issue_agent = self.DONE + thread, self.ISSUED + thread
            self.seq[issue_agent] += 1
            seq = int(self.seq[issue_agent])
            self.known[thread, issue_agent] = seq
            self.tc_known[thread, issue_agent] = seq
        else:
            agent, issue_agent = (self.LD if kind == "ld" else self.ST) + warp, -1
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
            for rank, mask in record.op.footprint.tmem_writes.items():
                self.tmem_written[rank] |= mask

    def _check_tmem_written(self, record: InFlight) -> None:
        """An op reads TMEM cells that no tcgen05.mma / st / cp / shift wrote since their
        columns were allocated: their contents are undefined (9.7.16.7.1 allocates columns,
        it does not clear them), so whatever the op computes from them is too."""
        for rank, mask in record.op.footprint.tmem_reads.items():
            unwritten = mask & ~self.tmem_written[rank]
            if not unwritten.any():
                continue
            key = (record.line, record.kind, rank)
            seen = self.unwritten_reads.get(key)
            self.unwritten_reads[key] = unwritten if seen is None else seen | unwritten

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
        for record in self.inflight:
            # an op whose completion the thread knows, or a pipelined predecessor, cannot
            # race with this one: decided before the masks are compared (the cheap test)
            if self._ordered(thread, record, kind, op, cp4):
                continue
            other = record.op.footprint
            for rank in set(fp.tmem_reads) | set(fp.tmem_writes):
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

    def _check_allocation_ordered(self, thread: int, op: TensorOp, line: int) -> None:
        """The columns an op touches were allocated by a tcgen05.alloc ordered before it:
        by the issuing warp itself, or through before_thread_sync, a barrier or mbarrier,
        and after_thread_sync (9.7.16.6.3)."""
        fp = op.footprint
        for rank in set(fp.tmem_reads) | set(fp.tmem_writes):
            mask = np.zeros(TMEM_COLUMNS, bool)
            for masks in (fp.tmem_reads, fp.tmem_writes):
                if rank in masks:
                    mask |= masks[rank].any(axis=0)
            owners = self.alloc_by[rank][mask]
            seqs = self.alloc_seq[rank][mask]
            for owner in np.unique(owners[owners >= 0]):
                if owner // 32 == thread // 32:
                    continue  # the allocating warp itself: program order
                need = int(seqs[owners == owner].max())
                if self.tc_known[thread, self.ISSUED + owner] < need:
                    lines = self.alloc_line[rank][mask][owners == owner]
                    self._race(f"tcgen05.{op.kind} uses TMEM columns of CTA {rank} whose "
                               f"tcgen05.alloc (by thread {owner}) is not ordered before it "
                               "(before_thread_sync, a barrier, after_thread_sync: 9.7.16.6.3)",
                               line, int(lines.max()))

    def _check_async_smem_reads(self, thread: int, op: TensorOp, line: int) -> None:
        """9.7.16.6.5: ordinary stores read by the async proxy need fence.proxy.async;
        bytes a TMA load writes need its completion observed."""
        for rank, addresses in op.footprint.smem_reads.items():
            size = self.writer[rank].size
            if addresses.size and (addresses.min() < 0 or addresses.max() >= size):
                raise SimError(f"tcgen05.{op.kind} reads shared-memory bytes "
                               f"{int(addresses.min()):#x}-{int(addresses.max()):#x} of CTA "
                               f"{rank}, past its {size} bytes of shared memory", line)
            self._check_tma_written(np.full(addresses.shape, thread), rank, addresses,
                                    f"tcgen05.{op.kind} by thread {thread} reads", line)
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
            self.reader[rank][addresses] = thread
            self.reader_seq[rank][addresses] = seq
            self.reader_line[rank][addresses] = line

    def commit(self, thread: int, rank: int, mbarrier: int, cta_mask: int, line: int) -> None:
        for r in range(len(self.ctas)):
            if cta_mask >> r & 1:
                self._mbar(r, mbarrier, line, thread)
        seq = int(self.seq[self.ISSUED + thread])
        # the implicit before_thread_sync of tcgen05.commit (9.7.16.6.4.2)
        self.released[thread] = np.maximum(self.known[thread], self.tc_known[thread])
        self._release(np.array([thread]))
        generic, tc = self._published([thread])
        generic[self.DONE + thread] = max(generic[self.DONE + thread], seq)
        tc[self.DONE + thread] = max(tc[self.DONE + thread], seq)
        targets = [r for r in range(len(self.ctas)) if cta_mask >> r & 1]
        entry = (thread, seq, mbarrier, tuple(targets), line, generic, tc)
        if self.schedule == "eager":
            self._complete_commit(entry)
        else:
            self.pending_commits.append(entry)

    def _complete_commit(self, entry) -> None:
        thread, seq, mbarrier, targets, line, generic, tc = entry
        for record in self.inflight:
            if record.issuer == thread and record.issue_agent >= 0 and record.seq <= seq:
                self._perform(record)
        what = "the arrive-on of tcgen05.commit" + (" (multicast)" if len(targets) > 1
                                                    else "")
        for r in targets:
            self._landing(r, mbarrier, what, line)
            phase = self._arrive(r, mbarrier, 1, generic, tc, line)
            self._mbar(r, mbarrier, line).last_async = (phase, what, line)

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

    def wait(self, threads: np.ndarray, kind: str, line: int) -> None:
        base = self.LD if kind == "ld" else self.ST
        for warp in np.unique(np.asarray(threads) // 32):
            agent = base + int(warp)
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
            self.released[threads] = np.maximum(self.known[threads], self.tc_known[threads])
        elif kind == "after_thread_sync":
            # only what arrived through tcgen05-aware release (before_thread_sync or a
            # commit) orders later tcgen05 ops; plain generic knowledge does not
            self.tc_known[threads] = np.maximum(self.tc_known[threads],
                                                self.pending_tc[threads])
        elif kind == "proxy_async":
            for t in threads:
                self.proxy_fences[int(t)].append(self._epoch(int(t)))
            self._release(threads)
        elif kind == "mbarrier_init":
            for t in threads.reshape(-1):
                self.init_fences[int(t)].append(self._epoch(int(t)))
            self._release(threads.reshape(-1))
        else:
            raise SimError(f"unknown fence kind {kind!r}", line)

    # -- ordinary accesses ----------------------------------------------------------------
    def smem_access(self, threads: np.ndarray, rank, addresses: np.ndarray,
                    size: int, write: bool, line: int) -> None:
        threads = np.asarray(threads).reshape(-1)
        ranks = np.broadcast_to(np.asarray(rank).reshape(-1), threads.shape)
        addresses = np.broadcast_to(np.asarray(addresses).astype(np.int64).reshape(-1),
                                    threads.shape)
        for r in np.unique(ranks):
            sel = ranks == r
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
                readers = self.reader[r][byte]
                busy = readers >= 0
                if busy.any():
                    agents = self.DONE + readers[busy]
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
                self.write_epoch[r][byte] = self.known[who, who]
                self.write_line[r][byte] = line

    # -- TMA loads (cp.async.bulk.tensor) --------------------------------------------------
    def _check_tma_written(self, who: np.ndarray, rank: int, addresses: np.ndarray,
                           what: str, line: int) -> None:
        """Races of accesses by threads `who` (one per byte) to bytes a TMA load writes
        whose completion they have not observed."""
        writers = self.tma_writer[rank][addresses]
        busy = writers >= 0
        if not busy.any():
            return
        seen = self.known[who[busy], self.TMA + writers[busy]]
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
        readers = self.reader[rank][addresses]
        busy = readers >= 0
        if busy.any():
            known = self.known[thread, self.DONE + readers[busy]]
            late = known < self.reader_seq[rank][addresses][busy]
            if late.any():
                first = np.flatnonzero(busy)[np.flatnonzero(late)[0]]
                self._race(f"a TMA load (cp.async.bulk.tensor of thread {thread}) "
                           f"overwrites shared memory of CTA {rank} (byte "
                           f"{addresses[first]:#x}) that a tcgen05 op of thread "
                           f"{readers[first]} still reads (its completion is not observed)",
                           line, int(self.reader_line[rank][addresses[first]]))
        self._check_tma_written(np.full(addresses.shape, thread), rank, addresses,
                                f"a TMA load of thread {thread} also writes", line)
        self.seq[self.TMA + thread] += 1
        seq = int(self.seq[self.TMA + thread])
        self.tma_writer[rank][addresses] = thread
        self.tma_seq[rank][addresses] = seq
        self.tma_line[rank][addresses] = line
        # the bytes are the TMA load's now: earlier ordinary writes are overwritten
        self.writer[rank][addresses] = -1
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
        generic = np.zeros(self.known.shape[1], np.int64)
        generic[self.TMA + entry.thread] = entry.seq
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
        self._acquire(threads, generic, tc)
        self._implied(threads, "after_thread_sync", line)
        # ops every thread knows complete can conflict with nothing any more
        self.inflight = [r for r in self.inflight if not (
            r.performed and (self.tc_known[:, r.agent] >= r.seq).all()
            and (self.known[:, r.agent] >= r.seq).all())]

    def _mbar(self, rank: int, address: int, line: int, thread: int | None = None) -> Mbarrier:
        bar = self.mbarriers.get((rank, address))
        if bar is None:
            raise SimError(f"mbarrier at shared address {address:#x} of CTA {rank} is used "
                           "before mbarrier.init", line)
        if thread is not None and thread != bar.init_by and \
                self.known[thread, bar.init_by] <= bar.init_epoch:
            self._race(f"thread {thread} uses the mbarrier at {address:#x} of CTA {rank} "
                       "before its mbarrier.init is ordered before the use", line, bar.init_line)
        elif thread is not None and thread // self.threads_per_cta != rank:
            self._check_init_fenced(thread, bar, address, line)
        return bar

    def _check_init_fenced(self, thread: int, bar: Mbarrier, address: int, line: int) -> None:
        """A thread (or an async op it issues) of another CTA uses the mbarrier: its
        mbarrier.init must be followed, in the initializing thread, by
        ``fence.mbarrier_init.release.cluster`` ordered before the use (9.7.13.4: the fence
        makes prior mbarrier.init visible at cluster scope; without it the init is ordered
        for the initializing CTA only; docs/memory-model.md)."""
        fences = [f for f in self.init_fences[bar.init_by] if f >= bar.init_epoch]
        if fences and self.known[thread, bar.init_by] > fences[0]:
            return
        self._race(f"thread {thread} of CTA {thread // self.threads_per_cta} uses the "
                   f"mbarrier at {address:#x} of CTA {bar.rank}, and no "
                   "fence.mbarrier_init.release.cluster after its mbarrier.init is ordered "
                   "before the use (9.7.13.4)", line, bar.init_line)

    def mbarrier_init(self, thread: int, rank: int, address: int, count: int, line: int) -> None:
        if count < 1:
            raise SimError(f"mbarrier.init with count {count}", line)
        self.mbarriers[(rank, address)] = Mbarrier(expected=count, pending=count,
                                                   init_by=thread, init_epoch=self._epoch(thread),
                                                   init_line=line, rank=rank)

    def _arrive(self, rank: int, address: int, count: int, generic, tc, line: int,
                source: tuple | None = None) -> int:
        """An arrive-on of `count` releasing (generic, tc) from `source` (rank of the
        arriving agent, scope); default: an async agent on the mbarrier's own CTA at
        cluster scope (a commit's arrive-on, 9.7.16.12.1: "the scope of the arrive-on
        operation is the cluster scope")."""
        bar = self._mbar(rank, address, line)
        token = bar.phase
        _contribute(bar, source or (rank, "cluster"), generic, tc)
        bar.pending -= count
        if bar.pending < 0:
            raise SimError(f"mbarrier at {address:#x} of CTA {rank}: more arrivals than its "
                           "expected count in one phase", line)
        self._maybe_complete(bar)
        return token

    @staticmethod
    def _maybe_complete(bar: Mbarrier) -> None:
        if bar.pending == 0 and bar.tx == 0:
            bar.completed[bar.phase] = bar.released
            bar.completed.pop(bar.phase - 2, None)
            bar.phase += 1
            bar.pending = bar.expected
            bar.released = {}

    def mbarrier_arrive(self, thread: int, rank: int, address: int, count: int,
                        line: int, scope: str = "cta") -> int:
        """mbarrier.arrive{.release}{.scope} by `thread` (scope .cta unless given:
        9.7.13.15.13's default) on the mbarrier at `address` of CTA `rank`."""
        self._mbar(rank, address, line, thread)
        self._landing(rank, address, "mbarrier.arrive" + (
            " (remote, shared::cluster)" if rank != thread // self.threads_per_cta
            else ""), line)
        self._implied([thread], "before_thread_sync", line)
        self._release(np.array([thread]))
        generic, tc = self._published([thread])
        return self._arrive(rank, address, count, generic, tc, line,
                            (thread // self.threads_per_cta, scope))

    def mbarrier_expect_tx(self, thread: int, rank: int, address: int, nbytes: int,
                           line: int) -> None:
        self._mbar(rank, address, line).tx += nbytes

    def mbarrier_try_wait_parity(self, thread: int, rank: int, address: int, parity: int,
                                 line: int, scope: str = "cta") -> bool:
        """mbarrier.try_wait.parity{.acquire}{.scope} (scope .cta unless given:
        9.7.13.15.16's default): acquires what the completed phase's arrivals released, from
        the sources its scope synchronizes with (``_synchronizes``)."""
        bar = self._mbar(rank, address, line, thread)
        if bar.phase % 2 == parity % 2:
            return False
        # A successful wait observes the latest completed phase (its parity is P).
        bar.observed = max(bar.observed, bar.phase - 1)
        mine = thread // self.threads_per_cta
        for source, (generic, tc) in bar.completed.get(bar.phase - 1, {}).items():
            if _synchronizes(source, mine, scope):
                self._acquire(np.array([thread]), generic, tc)
        self._implied([thread], "after_thread_sync", line)
        return True

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
                self.seq[self.ISSUED + owner] += 1
                seq = int(self.seq[self.ISSUED + owner])
                self.known[owner, self.ISSUED + owner] = seq
                self.tc_known[owner, self.ISSUED + owner] = seq
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
        for record in self.inflight:
            masks = [m for m in (record.op.footprint.tmem_reads.get(rank),
                                 record.op.footprint.tmem_writes.get(rank)) if m is not None]
            if any(m[:, start:start + columns].any() for m in masks) and \
                    self.tc_known[thread, record.agent] < record.seq:
                self._race(f"tcgen05.dealloc frees columns {start}-{start + columns - 1} of "
                           f"CTA {rank} that tcgen05.{record.kind} still uses", line,
                           record.line)
        self.allocated[rank][start:start + columns] = False

    def relinquish(self, warp_threads: np.ndarray, rank: int, cta_group: int, line: int) -> None:
        self.relinquished[rank] = True

    def check_tmem_allocated(self, rank: int, mask: np.ndarray, line: int) -> None:
        columns = np.flatnonzero(mask.any(axis=0))
        outside = columns[~self.allocated[rank][columns]]
        if outside.size:
            raise SimError(f"access to TMEM columns {outside.min()}-{outside.max()} of CTA "
                           f"{rank}, which are not allocated (9.7.16.7)", line)

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


def _contribute(bar: Mbarrier, source: tuple, generic: np.ndarray, tc: np.ndarray) -> None:
    """Adds what one arrival (or complete_tx) releases to the current phase, by source."""
    known = bar.released.get(source)
    bar.released[source] = (generic.copy(), tc.copy()) if known is None else \
        (np.maximum(known[0], generic), np.maximum(known[1], tc))


def _synchronizes(source: tuple, waiter_rank: int, wait_scope: str) -> bool:
    """Whether a release from `source` (rank of the arriving agent, its scope) and an
    acquire by a thread of CTA `waiter_rank` at `wait_scope` synchronize: each operation's
    scope must include the other's thread (8.7, morally strong operations; 9.7.13.15
    mbarrier). A CTA's own arrivals always do; another CTA's only when both are
    .cluster (docs/memory-model.md)."""
    rank, scope = source
    return rank == waiter_rank or (scope == "cluster" and wait_scope == "cluster")


def group_races(races: list) -> list:
    """Races of several runs (the CTAs of a grid) merged per pair of PTX lines, counts
    summed, in first-found order; errors that are not grouped Races pass through."""
    grouped, out = {}, []
    for race in races:
        other = getattr(race, "other_line", None)
        if other is None:
            out.append(race)
            continue
        key = (min(race.ptx_line, other), max(race.ptx_line, other))
        if key in grouped:
            grouped[key].count += race.count
            continue
        grouped[key] = race
        out.append(race)
    return out
