"""The TMEM side of the ordering model's bookkeeping (ordering_tensor.py) as arrays: per
footprint, its TMEM masks summarized once; per model, the asynchronous tcgen05 ops in
flight indexed by what a check asks of them.

A footprint is complete when its op is issued and not changed afterwards (state.py), and
the same footprint is issued again and again (a built MMA, a tcgen05.ld of the same
address: the run's cache, tensor_core.py). ``TmemSummary`` keeps, for each of its masks,
the lanes and the columns it touches as bit words (two 64-bit words of lanes, eight of
columns) and the block of cells it spans, so that

- the test "can the new op share a cell with this record" (``_may_share``'s in
  ordering_tensor.py: their lane sets and their column sets both intersect, for
  write/write, write/read and read/write) is one array operation over all the records
  the issuer does not know complete (``InflightIndex.candidates``), instead of a Python
  call per record;
- the never-written test and the written cells look at the mask's block, not at all of
  TMEM.

``InflightIndex`` mirrors the model's ``inflight`` list (appended to by ``issue``,
replaced by ``barrier`` and ``FunctionalOrdering``): each record's completion agent,
sequence number, whether it writes TMEM and the number of its summary among the
distinct ones (each op summary's answers kept per number), in the list's order; and
per issuing thread its mma / cp / shift in issue order, so that a commit completes the
ops it tracks by taking them from the front of one queue (``due``) instead of walking
every record in flight.

Anything these do not describe exactly takes the general code: a footprint whose masks
are not ``bool[128, 512]`` arrays of ranks the model has (``TmemSummary.general``) is a
candidate for every check, and a thread whose records are not in increasing sequence
order (only a caller that builds records by hand can do that) has its commits walk the
list.
"""

from __future__ import annotations

from collections import deque

import numpy as np

from tcgen05_lower.sim.state import TMEM_COLUMNS, TMEM_LANES

#: 64-bit words of a lane set, of a column set, and of both (lanes first).
LANE_WORDS = TMEM_LANES // 64
WORDS = LANE_WORDS + TMEM_COLUMNS // 64
#: Index of a summary's writes and reads in its words.
WRITES, READS = 0, 1
#: The pairs ``_may_share`` tests: (the new op's, the record's) mask.
_MINE, _THEIRS = (WRITES, WRITES, READS), (WRITES, READS, WRITES)
#: Where a footprint keeps its summary (``Footprint._summaries``).
_KEY = ("tmem_index",)
#: Distinct record summaries an InflightIndex numbers before it numbers again only
#: those of the records in its list (``InflightIndex._renumber``).
DISTINCT_CAP = 2048


class MaskSummary:
    """One TMEM mask of a footprint: ``words`` (uint64[WORDS]: the lanes, then the
    columns it touches, bit i of the set in bit i % 64 of word i // 64), ``columns``
    (bool[512]) and ``box`` / ``block``: the slices of lanes and columns that span its
    cells and the mask there (None when it has none)."""

    __slots__ = ("mask", "words", "columns", "box", "block")

    def __init__(self, mask: np.ndarray):
        columns = mask.any(axis=0)
        self.mask, self.columns = mask, columns
        self.box = self.block = None
        lanes = np.zeros(TMEM_LANES, bool)
        if columns.any():
            # the lanes from the columns that hold cells only (an ld's 32 of 512)
            first = int(columns.argmax())
            end = TMEM_COLUMNS - int(columns[::-1].argmax())
            lanes = mask[:, first:end].any(axis=1)
            low = int(lanes.argmax())
            high = TMEM_LANES - int(lanes[::-1].argmax())
            self.box = (slice(low, high), slice(first, end))
            self.block = mask[self.box]
        self.words = _words(np.concatenate([lanes, columns]))

    @classmethod
    def of_cells(cls, mask: np.ndarray, lanes: np.ndarray, cols: np.ndarray) -> MaskSummary:
        """``MaskSummary(mask)`` for the mask whose cells are (``lanes``, ``cols``)
        (integer arrays of one shape, ``tc_datapath._mask``'s), from the cells instead of
        from the 128 x 512 mask: a tcgen05.ld's builder knows them. No cells: the
        mask's own summary."""
        if lanes.size == 0:
            return cls(mask)
        self = cls.__new__(cls)
        flags = np.zeros(TMEM_LANES + TMEM_COLUMNS, bool)
        flags[lanes.reshape(-1)] = True
        flags[TMEM_LANES + cols.reshape(-1)] = True
        self.mask, self.columns = mask, flags[TMEM_LANES:].copy()
        self.box = (slice(int(lanes.min()), int(lanes.max()) + 1),
                    slice(int(cols.min()), int(cols.max()) + 1))
        self.block = mask[self.box]
        self.words = _words(flags)
        return self

    @classmethod
    def of_block(cls, mask: np.ndarray, lanes: slice, cols: slice) -> MaskSummary:
        """``MaskSummary(mask)`` for a mask whose cells are exactly the block of lanes
        `lanes` and columns `cols` (two slices of step 1, neither empty, inside TMEM:
        ``_block_bounds``), from its bounds instead of from the 128 x 512 mask or its
        cells: the lane and column sets are runs of bits. The caller knows the mask is
        that block (it set it so)."""
        self = cls.__new__(cls)
        (l0, l1), (c0, c1) = (lanes.start, lanes.stop), (cols.start, cols.stop)
        columns = np.zeros(TMEM_COLUMNS, bool)
        columns[c0:c1] = True
        self.mask, self.columns = mask, columns
        self.box = (slice(l0, l1), slice(c0, c1))
        self.block = mask[self.box]
        self.words = np.frombuffer(bytearray((_run(l0, l1) | _run(c0, c1) << TMEM_LANES)
                                             .to_bytes(8 * WORDS, "little")), np.uint64)
        return self


def _run(start: int, stop: int) -> int:
    """The bits start .. stop - 1 set."""
    return ((1 << (stop - start)) - 1) << start


def _block_bounds(at) -> bool:
    """Whether `at` is a block of cells ``MaskSummary.of_block`` takes: two slices of
    step 1 with int bounds, neither empty, inside TMEM's lanes and columns."""
    if not isinstance(at, tuple) or len(at) != 2:
        return False
    for part, size in zip(at, (TMEM_LANES, TMEM_COLUMNS)):
        if not isinstance(part, slice) or part.step not in (None, 1) or \
                type(part.start) is not int or type(part.stop) is not int or \
                not 0 <= part.start < part.stop <= size:
            return False
    return True


class TmemSummary:
    """The TMEM masks of one footprint, summarized (module docstring): ``reads`` and
    ``writes`` (rank -> MaskSummary, in the footprint's order), ``words`` (rank ->
    uint64[2, WORDS], writes then reads, zeros for a missing mask), ``columns`` (rank ->
    the columns read or written, bool[512]) and ``column_keys`` (rank -> those columns
    as bytes, a dict key), ``ranks`` (a set). ``general``: a mask is
    not a bool[128, 512] array, and nothing else is filled in: the callers take their
    general code."""

    __slots__ = ("general", "ranks", "reads", "writes", "words", "columns", "column_keys",
                 "has_writes", "has_reads", "_pairs", "bits", "_bit_pairs")

    def __init__(self, fp, known: dict | None = None):
        """`known`: id of a mask -> its MaskSummary, made by the footprint's builder
        (used only for that very mask object)."""
        self.ranks = set(fp.tmem_reads) | set(fp.tmem_writes)
        self.reads, self.writes, self.words, self.columns = {}, {}, {}, {}
        self.column_keys = {}
        self.has_writes, self.has_reads = bool(fp.tmem_writes), bool(fp.tmem_reads)
        self._pairs = self._bit_pairs = None
        #: rank -> (writes, reads): each (lanes, columns) as Python ints (bit i: lane or
        #: column i, the words' bits), None for a missing mask (``_shares``)
        self.bits = {}
        self.general = not all(_regular(mask, rank) for masks in (fp.tmem_reads,
                                                                  fp.tmem_writes)
                               for rank, mask in masks.items())
        if self.general:
            return
        made = {}   # by mask: the ranks of a cta_group::2 MMA share theirs
        for key, part in (known or {}).items():
            made[key] = part
        for summaries, masks in ((self.reads, fp.tmem_reads), (self.writes, fp.tmem_writes)):
            for rank, mask in masks.items():
                if id(mask) not in made or made[id(mask)].mask is not mask:
                    made[id(mask)] = MaskSummary(mask)
                summaries[rank] = made[id(mask)]
        for rank in self.ranks:
            write, read = self.writes.get(rank), self.reads.get(rank)
            words = np.zeros((2, WORDS), np.uint64)
            if write is not None:
                words[WRITES] = write.words
            if read is not None:
                words[READS] = read.words
            self.words[rank] = words
            self.columns[rank] = read.columns if write is None else write.columns \
                if read is None else write.columns | read.columns
            self.column_keys[rank] = (words[WRITES, LANE_WORDS:] |
                                      words[READS, LANE_WORDS:]).tobytes()
            self.bits[rank] = (None if write is None else _bits(write.words),
                               None if read is None else _bits(read.words))


    @classmethod
    def of_one(cls, rank: int, part: MaskSummary, writes: bool) -> TmemSummary:
        """``TmemSummary(fp)`` of a footprint whose only TMEM mask is `part`'s (a
        regular one: bool[128, 512], of `rank`, an int >= 0), written when `writes`
        else read, without the general code's walk of the footprint's masks
        (``summary_of_block``)."""
        self = cls.__new__(cls)
        self.general, self.ranks = False, {rank}
        self.reads, self.writes = ({}, {rank: part}) if writes else ({rank: part}, {})
        self.has_writes, self.has_reads = writes, not writes
        self._pairs = self._bit_pairs = None
        words = np.zeros((2, WORDS), np.uint64)
        words[WRITES if writes else READS] = part.words
        self.words, self.columns = {rank: words}, {rank: part.columns}
        self.column_keys = {rank: part.words[LANE_WORDS:].tobytes()}
        bits = _bits(part.words)
        self.bits = {rank: (bits, None) if writes else (None, bits)}
        return self

    def pairs(self) -> list:
        """Per rank: (rank, the record's words to test (indices into WRITES / READS),
        this footprint's words they are tested against (uint64[pairs, WORDS])), for the
        pairs of ``_may_share`` whose first mask the footprint has; made once."""
        if self._pairs is None:
            pairs = [at for at, mine in enumerate(_MINE) if
                     (self.has_writes if mine == WRITES else self.has_reads)]
            theirs = np.array([_THEIRS[at] for at in pairs], np.intp)
            self._pairs = [(rank, theirs, self.words[rank][[_MINE[at] for at in pairs]])
                           for rank in self.ranks]
        return self._pairs


    def bit_pairs(self) -> list:
        """``pairs`` as the bits of ``bits``: per rank, (rank, [(the record's mask to
        test: WRITES or READS, this footprint's (lanes, columns) to test it against)]),
        for the pairs of ``_may_share`` whose first mask the footprint has; made once."""
        if self._bit_pairs is None:
            self._bit_pairs = [(rank, [(theirs, self.bits[rank][mine])
                                       for mine, theirs in zip(_MINE, _THEIRS)
                                       if self.bits[rank][mine] is not None])
                               for rank in self.ranks]
        return self._bit_pairs


def _bits(words: np.ndarray) -> tuple[int, int]:
    """A mask summary's words as (lanes, columns) Python ints: bit i of the int is bit
    i % 64 of word i // 64, so two sets intersect when their ints do."""
    data = words.tobytes()
    return (int.from_bytes(data[:8 * LANE_WORDS], "little"),
            int.from_bytes(data[8 * LANE_WORDS:], "little"))


def tmem_summary(fp) -> TmemSummary:
    """The summary of footprint `fp`, made once (kept in its ``_summaries``; made again
    for a footprint without them)."""
    kept = getattr(fp, "_summaries", None)
    if not isinstance(kept, dict):
        return TmemSummary(fp)
    summary = kept.get(_KEY)
    if summary is None:
        summary = kept[_KEY] = TmemSummary(fp)
    return summary


def shared_summary(fp, kept: dict | None, key, block: tuple | None = None) -> None:
    """Gives footprint `fp` the summary kept under `key` in `kept` (a dict the run owns,
    ``tc_mma.shared_parts``), made from `fp` the first time: MMAs built apart that hold
    the same mask objects (a D mask shared in the run) share one summary. A kept
    summary of other mask objects (another key's, or a mask made again) is not used:
    ``_same_masks`` compares the objects, so the summary is always `fp`'s.
    `block`: (a mask, the cells it holds as ``tmem_block`` gives them), when the caller
    knows them: a mask whose cells are a block ``MaskSummary.of_block`` takes is
    summarized from the block's bounds."""
    if kept is None or not isinstance(getattr(fp, "_summaries", None), dict):
        return
    summary = kept.get(key)
    if summary is None or not _same_masks(summary, fp):
        known = None
        if block is not None and _block_bounds(block[1]):
            known = {id(block[0]): MaskSummary.of_block(block[0], *block[1])}
        summary = kept[key] = TmemSummary(fp, known)
    fp._summaries[_KEY] = summary


def summary_of_cells(fp, mask: np.ndarray, lanes: np.ndarray, cols: np.ndarray) -> None:
    """Gives footprint `fp`, which holds `mask` (the cells `lanes`, `cols`), its summary
    with that mask's made from the cells (``MaskSummary.of_cells``)."""
    if isinstance(getattr(fp, "_summaries", None), dict):
        fp._summaries[_KEY] = TmemSummary(fp, {id(mask): MaskSummary.of_cells(mask, lanes,
                                                                              cols)})


def summary_of_block(fp, mask: np.ndarray, at, lanes: np.ndarray,
                     cols: np.ndarray) -> None:
    """``summary_of_cells(fp, mask, lanes, cols)`` for a footprint whose cells (`lanes`,
    `cols`) are the block `at` (``tmem_block``'s slices): when `mask` is `fp`'s only TMEM
    mask, a regular one of an int rank >= 0, and `at` a block ``MaskSummary.of_block``
    takes, the summary made from the block's bounds (``TmemSummary.of_one``); anything
    else takes ``summary_of_cells``. The caller knows the mask's cells are the block."""
    if not isinstance(getattr(fp, "_summaries", None), dict):
        return
    masks = fp.tmem_writes or fp.tmem_reads
    if len(fp.tmem_writes) + len(fp.tmem_reads) != 1 or not _block_bounds(at):
        summary_of_cells(fp, mask, lanes, cols)
        return
    (rank, only), = masks.items()
    if only is not mask or type(rank) is not int or not _regular(mask, rank):
        summary_of_cells(fp, mask, lanes, cols)
        return
    fp._summaries[_KEY] = TmemSummary.of_one(rank, MaskSummary.of_block(mask, *at),
                                             bool(fp.tmem_writes))


def summary_of_one_block(fp, rank: int, mask: np.ndarray, at, writes: bool) -> None:
    """Gives footprint `fp`, whose only TMEM mask is `mask` (a bool[128, 512] holding
    exactly the block of cells `at`), written when `writes` else read, of CTA `rank`
    (an int >= 0), its summary made from the block's bounds (``TmemSummary.of_one`` of
    ``MaskSummary.of_block``); a block ``_block_bounds`` does not take, the summary of
    the footprint's masks (the general code). The caller (tensor_core's build of a
    tcgen05.ld / st of a block) knows the rest."""
    if not isinstance(getattr(fp, "_summaries", None), dict):
        return
    fp._summaries[_KEY] = TmemSummary.of_one(rank, MaskSummary.of_block(mask, *at), writes) \
        if _block_bounds(at) else TmemSummary(fp)


def _same_masks(summary: TmemSummary, fp) -> bool:
    """Whether `summary` was made from masks that are `fp`'s, object for object."""
    if summary.general:
        return False
    for summaries, masks in ((summary.reads, fp.tmem_reads),
                             (summary.writes, fp.tmem_writes)):
        if summaries.keys() != masks.keys() or any(
                summaries[rank].mask is not mask for rank, mask in masks.items()):
            return False
    return True


def _shares(mine: TmemSummary, theirs: TmemSummary) -> bool:
    """Whether an op of summary `mine` can share a cell with a record of summary `theirs`
    (neither general, both of the model's ranks): ``InflightIndex.candidates_general``'s
    test on the record's words (its summary's, zeros for a rank it does not have), on
    the words as Python ints (``bits``: a few integer ands, not NumPy calls)."""
    for rank, pairs in mine.bit_pairs():
        their_bits = theirs.bits.get(rank)
        if their_bits is None:
            continue
        for which, (lanes, columns) in pairs:
            other = their_bits[which]
            if other is not None and lanes & other[0] and columns & other[1]:
                return True
    return False


def _regular(mask, rank) -> bool:
    return isinstance(mask, np.ndarray) and mask.dtype == bool and \
        mask.shape == (TMEM_LANES, TMEM_COLUMNS) and isinstance(rank, (int, np.integer)) \
        and rank >= 0


def _words(flags: np.ndarray) -> np.ndarray:
    """The bool vector `flags` (a multiple of 64 long) as uint64 words (all made the
    same way, so that two sets intersect when their words do)."""
    return np.packbits(flags, bitorder="little").view(np.uint64)


class InflightIndex:
    """Arrays over a list of in-flight records (``ordering_records.InFlight``), in its
    order, and the per-thread queues of its mma / cp / shift (module docstring). The
    queues hold the records a filtered list (``keep``) drops too: only performed ones,
    which a commit skips.
    ``ranks``: the CTAs of the model (a summary of another rank is ``general``)."""

    def __init__(self, records: list, ranks: int):
        self.records, self.ranks, self.count = records, ranks, 0
        self.rank_set = frozenset(range(ranks))
        self.agent = np.zeros(0, np.int64)
        self.seq = np.zeros(0, np.int64)
        self.writes = np.zeros(0, bool)
        #: per record: the number of its summary in ``distinct`` (0: a general record)
        self.sid = np.zeros(0, np.intp)
        #: per record, in the list's order: its summary, None for a general one
        self.summaries: list = []
        #: the records' summaries, each once, by number (0 stands for every general
        #: record), and the number of each; kept alive, so that no other takes its id
        self.distinct: list = [None]
        self.sid_of: dict = {}
        #: an op's summary -> int8 per number in ``distinct``: whether an op of it can
        #: share a cell with a record of that summary (``_shares``; 1 yes, 0 no, -1 not
        #: tested yet; a general record: 1). Summaries never change, so neither does an
        #: answer once tested.
        self.hits: dict = {}
        #: how many numbers before ``_renumber`` (each op's table has one byte each)
        self.distinct_cap = DISTINCT_CAP
        self.queues: dict[int, deque] = {}
        self.last_seq: dict[int, int] = {}
        #: threads whose records came out of sequence order: their commits walk the list
        self.disordered: set[int] = set()
        self.sync()

    @staticmethod
    def of(model) -> InflightIndex:
        """The model's index, made again when its ``inflight`` is another list (or
        shorter than what the index holds), brought up to date with it."""
        index = model.__dict__.get("_tmem_index")
        records = model.inflight
        if index is None or index.records is not records or index.count > len(records):
            index = model.__dict__["_tmem_index"] = InflightIndex(records, len(model.ctas))
        else:
            index.sync()
        return index

    def sync(self) -> None:
        """Adds the records appended to the list since the last call."""
        records = self.records
        new = records[self.count:]
        if not new:
            return
        end = self.count + len(new)
        if end > self.agent.size:
            self._grow(max(2 * self.agent.size, end, 64))
        if len(new) == 1:   # an issue's record
            self.agent[self.count], self.seq[self.count] = new[0].agent, new[0].seq
        else:
            at = slice(self.count, end)
            self.agent[at] = [r.agent for r in new]
            self.seq[at] = [r.seq for r in new]
        for offset, record in enumerate(new):
            self._add(self.count + offset, record)
        self.count = end

    def _grow(self, size: int) -> None:
        for name in ("agent", "seq", "writes", "sid"):
            old = getattr(self, name)
            grown = np.zeros((size,) + old.shape[1:], old.dtype)
            grown[:old.shape[0]] = old
            setattr(self, name, grown)

    def _add(self, row: int, record) -> None:
        summary = tmem_summary(record.op.footprint)
        self.writes[row] = summary.has_writes
        if summary.general or not summary.ranks <= self.rank_set:
            self.summaries.append(None)
            self.sid[row] = 0
        else:
            self.summaries.append(summary)
            sid = self.sid_of.get(summary)
            if sid is None:
                if len(self.distinct) >= self.distinct_cap:
                    self._renumber(row)
                sid = self.sid_of[summary] = len(self.distinct)
                self.distinct.append(summary)
            self.sid[row] = sid
        if record.issue_agent < 0:
            return
        thread = record.issuer
        if self.last_seq.get(thread, -1) >= record.seq:
            self.disordered.add(thread)
        self.last_seq[thread] = record.seq
        if not record.performed:
            self.queues.setdefault(thread, deque()).append(record)

    def _renumber(self, rows: int) -> None:
        """Numbers again the summaries of the first `rows` records only, the tables
        forgotten: summaries of records no longer in the list (a long run's lds of
        many addresses, built again after the run's cache was emptied) do not keep
        their numbers, so ``distinct`` and each op's table stay bounded."""
        self.distinct, self.sid_of, self.hits = [None], {}, {}
        for row, summary in enumerate(self.summaries[:rows]):
            if summary is not None:
                sid = self.sid_of.get(summary)
                if sid is None:
                    sid = self.sid_of[summary] = len(self.distinct)
                    self.distinct.append(summary)
                self.sid[row] = sid
        self.distinct_cap = max(DISTINCT_CAP, 2 * len(self.distinct))

    def keep(self, keep: np.ndarray) -> list:
        """The list of the records where `keep` (bool, one per record) is True, which
        the index mirrors from now on (its arrays filtered, not made again)."""
        self.sync()
        kept = [record for record, stays in zip(self.records, keep.tolist()) if stays]
        at = np.flatnonzero(keep)
        for name in ("agent", "seq", "writes", "sid"):
            setattr(self, name, getattr(self, name)[at])
        self.summaries = [self.summaries[row] for row in at.tolist()]
        self.records, self.count = kept, len(kept)
        return kept

    def candidates(self, tc_row: np.ndarray, summary: TmemSummary,
                   reads_only: bool) -> list[int]:
        """Indices, in order, of the records that the thread whose ``tc_known`` row is
        `tc_row` does not know complete and that can share a cell with an op of
        footprint `summary` (``_may_share`` of ordering_tensor.py, exactly: general
        records and summaries are candidates always). `reads_only`: the op writes no
        TMEM, so only records that write it count."""
        n = self.count
        open_ = tc_row[self.agent[:n]] < self.seq[:n]
        if reads_only:
            open_ &= self.writes[:n]
        index = open_.nonzero()[0]   # (np.flatnonzero, without its wrapper's cost)
        if summary.general or not index.size or not summary.ranks <= self.rank_set:
            return index.tolist()
        # the records share a few summaries (a footprint's, a shared D mask's): the test
        # is made once per pair of summaries (the op's table, by the records' numbers),
        # a general record is a candidate always
        sids = self.sid[index]
        table = self._table(summary)
        hit = table[sids]
        if b"\xff" in hit.tobytes():   # a -1: a pair not tested yet (faster than a min)
            for sid in np.unique(sids[hit < 0]).tolist():
                table[sid] = _shares(summary, self.distinct[sid])
            hit = table[sids]
        return index[hit > 0].tolist()

    def _table(self, summary: TmemSummary) -> np.ndarray:
        """The op summary's ``hits`` entry, long enough for every number given."""
        table = self.hits.get(summary)
        size = len(self.distinct)
        if table is None or table.size < size:
            grown = np.full(max(size, 2 * (0 if table is None else table.size)), -1, np.int8)
            if table is not None:
                grown[:table.size] = table
            grown[0] = 1   # a general record: a candidate always
            table = self.hits[summary] = grown
        return table

    def candidates_general(self, tc_row: np.ndarray, summary: TmemSummary,
                           reads_only: bool) -> list[int]:
        """``candidates`` with every record's words tested at once, no answer kept
        (what it computes, the reference its tests compare with)."""
        n = self.count
        index = np.flatnonzero(tc_row[self.agent[:n]] < self.seq[:n])
        if reads_only:
            index = index[self.writes[index]]
        if summary.general or index.size == 0 or not summary.ranks <= self.rank_set:
            return index.tolist()
        rows = [self.summaries[at] for at in index.tolist()]
        hit = np.array([theirs is None for theirs in rows], bool)
        words = np.zeros((len(rows), self.ranks, 2, WORDS), np.uint64)
        for at, theirs in enumerate(rows):
            for rank, their_words in ({} if theirs is None else theirs.words).items():
                words[at, rank] = their_words
        for rank, theirs, mine in summary.pairs():
            both = words[:, rank, theirs] & mine
            hit |= (both[..., :LANE_WORDS].any(-1) & both[..., LANE_WORDS:].any(-1)).any(-1)
        return index[hit].tolist()

    def due(self, thread: int, seq: int) -> list:
        """The mma / cp / shift of `thread` up to sequence number `seq` that a commit
        completes (not performed yet at their indexing; ``_perform`` skips the others),
        in issue order, taken off its queue."""
        if thread in self.disordered:
            return [r for r in self.records
                    if r.issuer == thread and r.issue_agent >= 0 and r.seq <= seq]
        queue = self.queues.get(thread)
        taken = []
        while queue and queue[0].seq <= seq:
            taken.append(queue.popleft())
        return taken
