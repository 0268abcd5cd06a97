"""Shared-memory byte sets of the asynchronous proxy as 16-byte chunks: a TMA load's box
and an MMA's operand bytes.

Both are usually whole 16-byte aligned chunks: the swizzle modes move 16-byte chunks
(PTX ISA 5.5.6, tensor swizzling modes) and the shared memory descriptor's start address
and byte offsets are 16-byte aligned (9.7.16.4.1), so an MMA reads its operands as
16-byte rows of core matrices. That is checked for each byte set, not assumed
(``chunk_form``). The ordering model (``ordering_smem``, ``ordering_tensor``) keeps the
chunks of each such set (made once per box or footprint) and, for each CTA, a summary
per chunk of which TMA load wrote its bytes last and which tcgen05 op reads them
(``ChunkMarks``), so that the test "has this thread observed the completion of every
async operation that owns these bytes" and the update of the owners work on a few
hundred chunks instead of 12 K to 32 K bytes. The per-byte arrays stay the model's
state for everything else: a TMA load writes them by chunk-sized items, an MMA's readers
are written to them when something next reads or writes them byte by byte
(``ChunkMarks.fresh_readers``). A chunk whose bytes may have several owners is marked
``MIXED`` and the per-byte code decides there, as for a set that is not whole chunks.
"""

from __future__ import annotations

import numpy as np

#: Bytes per chunk.
CHUNK = 16
#: A chunk summary: its bytes may have different owners (only the bytes can tell).
MIXED = -2

_ALL, _MIN, _MAX = np.logical_and.reduce, np.minimum.reduce, np.maximum.reduce


class ChunkForm:
    """A set of byte addresses that is a union of whole 16-byte aligned chunks:
    ``index`` the chunks' numbers (address // 16, increasing), ``span`` the byte slice
    they make when contiguous (else None), ``low`` / ``high`` the least and greatest
    address."""

    __slots__ = ("index", "span", "low", "high")

    def __init__(self, index: np.ndarray, span: slice | None, low: int, high: int):
        self.index, self.span, self.low, self.high = index, span, low, high


def chunk_form(addresses: np.ndarray) -> ChunkForm | None:
    """The chunks of the byte set `addresses` (1-D integers, in any order, repeats
    allowed), or None when it is empty, has a negative address or is not a union of
    whole aligned chunks (then only the per-byte code applies)."""
    if addresses.ndim != 1 or addresses.size == 0:
        return None
    if addresses.size > 1 and _ALL(addresses[1:] > addresses[:-1]):
        ordered = addresses   # already increasing, no repeats (unique_addresses)
    else:
        low, high = int(_MIN(addresses)), int(_MAX(addresses))
        if low < 0 or high - low > 1 << 24:
            return None
        seen = np.zeros(high - low + 1, bool)
        seen[addresses - low] = True
        ordered = np.flatnonzero(seen) + low
    low, high = int(ordered[0]), int(ordered[-1])
    if low < 0 or ordered.size % CHUNK or low % CHUNK:
        return None
    heads = ordered[0::CHUNK]
    # increasing and unique: CHUNK of them from an aligned head to head + 15 are the chunk
    if _MAX(heads % CHUNK) != 0 or not _ALL(ordered[CHUNK - 1::CHUNK] - heads == CHUNK - 1):
        return None
    span = slice(low, high + 1) if high - low + 1 == ordered.size else None
    return ChunkForm((heads // CHUNK).astype(np.int64), span, low, high)


def chunk_form_of_chunks(chunks: np.ndarray) -> ChunkForm | None:
    """``chunk_form`` of the bytes of the 16-byte chunks ``chunks`` (chunk numbers,
    1-D integers, in any order, repeats allowed; their bytes are the addresses 16 c to
    16 c + 15 of each c), found from the chunks instead of the bytes: the same rules
    (none when empty or negative, or, out of order, spread over more than 2^24 bytes)
    and the same form (the chunks' numbers, increasing, and the span of bytes when
    they are contiguous). A TMA box's chunks (tma.destination_chunks)."""
    if chunks.ndim != 1 or chunks.size == 0:
        return None
    if chunks.size > 1 and _ALL(chunks[1:] > chunks[:-1]):
        ordered = chunks   # increasing and unique: so are their bytes
    else:
        low, high = int(_MIN(chunks)), int(_MAX(chunks))
        if low < 0 or CHUNK * (high - low) + CHUNK - 1 > 1 << 24:
            return None
        seen = np.zeros(high - low + 1, bool)
        seen[chunks - low] = True
        ordered = np.flatnonzero(seen) + low
    low, high = CHUNK * int(ordered[0]), CHUNK * int(ordered[-1]) + CHUNK - 1
    if low < 0:
        return None
    span = slice(low, high + 1) if high - low + 1 == CHUNK * ordered.size else None
    return ChunkForm(ordered.astype(np.int64), span, low, high)


#: Where a footprint keeps the chunks of its shared-memory reads of CTA `rank`
#: (``Footprint._summaries``): (CHUNKS, rank) -> (the addresses, their chunk_form).
CHUNKS = "chunks"


def kept_chunk_form(fp, rank: int, addresses: np.ndarray):
    """``chunk_form(addresses)``, the reads of CTA `rank` of footprint `fp` (which has
    ``_summaries``), made once per footprint (complete when issued) unless given."""
    summaries, key = fp._summaries, (CHUNKS, rank)
    kept = summaries.get(key)
    if kept is None or kept[0] is not addresses:
        kept = summaries[key] = (addresses, chunk_form(np.asarray(addresses)))
    return kept[1]


def give_chunk_form(fp, rank: int, addresses: np.ndarray, form) -> None:
    """Gives footprint `fp` `form`, which must be ``chunk_form(addresses)``, as the
    chunks of its reads `addresses` of CTA `rank` (several MMAs that read the same kept
    addresses share one form)."""
    if isinstance(getattr(fp, "_summaries", None), dict):
        fp._summaries[CHUNKS, rank] = (addresses, form)


class ChunkMarks:
    """Per-chunk summaries of one CTA's TMA-written and async-read bytes: for each chunk,
    the owner all its bytes share (``tma_writer`` / ``reader``: the thread, -1 for none,
    ``MIXED`` when they may differ) and the greatest sequence number among its bytes
    (``tma_seq`` / ``reader_seq``), plus views of the per-byte arrays as rows of a chunk.
    Exact as long as every write of those per-byte arrays goes through ``set_tma`` /
    ``set_reader`` or is followed by ``mix`` (ordering_smem.tma_load and
    ordering_tensor._note_async_smem_reads are their only writers); the per-byte reader
    arrays of the chunks ``set_reader`` summarizes are written when next read or written
    byte by byte (``fresh_readers``, which every such access calls first)."""

    def __init__(self, model, rank: int):
        n = model.tma_writer[rank].size // CHUNK
        # the per-byte arrays are made with -1 owners and zero sequence numbers
        self.tma_writer = np.full(n, -1, np.int32)
        self.tma_seq = np.zeros(n, np.int64)
        self.reader = np.full(n, -1, np.int32)
        self.reader_seq = np.zeros(n, np.int64)
        # the readers' bytes are written when read (``fresh_readers``): chunks whose
        # per-byte reader, reader_seq and reader_line lag the summaries (an MMA's operands
        # are read again by few but written by every MMA issue)
        self.reader_line = np.zeros(n, np.int64)
        self.stale = np.zeros(n, bool)
        self.any_stale = False
        # the same for the TMA loads' bytes (``fresh_tma``): a ring's loads overwrite
        # the same stages again and again, and few accesses read those bytes one by one
        self.tma_line = np.zeros(n, np.int64)
        self.tma_stale = np.zeros(n, bool)
        # per chunk: the model's count of ordinary stores (``_stores``) when ``set_tma``
        # last took its bytes' ordinary writers away (-1: never); a chunk whose count is
        # the current one has had no ordinary writer since (``cleared_since``)
        self.cleared_at = np.full(n, -1, np.int64)
        self.any_tma_stale = False
        self.bytes_tma = tuple(a[rank].reshape(-1, CHUNK) for a in (
            model.tma_writer, model.tma_seq, model.tma_line))
        self.bytes_writer = model.writer[rank].reshape(-1, CHUNK)   # a row per chunk
        self.bytes_reader = tuple(a[rank].reshape(-1, CHUNK) for a in (
            model.reader, model.reader_seq, model.reader_line))
        self.chunks = n

    @staticmethod
    def of(model, rank: int) -> ChunkMarks | None:
        """The marks of CTA `rank`, made with the model (None when its shared memory
        is not a whole number of chunks: then only the per-byte code applies)."""
        if model.tma_writer[rank].size % CHUNK:
            return None
        return ChunkMarks(model, rank)

    def fits(self, form: ChunkForm | None) -> bool:
        """Whether `form` is known and inside this CTA's shared memory."""
        return form is not None and form.high < self.chunks * CHUNK

    def set_tma(self, form: ChunkForm, thread: int, seq: int, line: int,
                stores: int = -1) -> None:
        """Bytes `form` are TMA load `seq` of `thread`'s, at `line`, and no ordinary
        write's any more (`stores`: the model's count of ordinary stores now, -1 when
        not given)."""
        at = chunks_of(form)
        if not self.cleared_since(form, stores):   # else every byte's writer is -1
            self.bytes_writer[at] = -1             # already (a ring's stage reloaded)
            self.cleared_at[at] = stores
        _mark(at, (self.tma_writer, self.tma_seq, self.tma_line), (thread, seq, line),
              self.tma_stale)
        self.any_tma_stale = True

    def cleared_since(self, form: ChunkForm, stores: int) -> bool:
        """Whether every chunk of `form` had its ordinary writers taken away by
        ``set_tma`` when the model's count of ordinary stores was already `stores`
        (its current count, which only grows: no store has been made since, so none of
        their bytes has an ordinary writer). False: not known here."""
        return stores >= 0 and int(_MIN(self.cleared_at[chunks_of(form)])) == stores

    def fresh_tma(self) -> None:
        """Writes the per-byte tma_writer, tma_seq and tma_line of the chunks
        ``set_tma`` summarized since the last call: before anything reads or writes
        them byte by byte."""
        if self.any_tma_stale:
            _write_out(self.tma_stale, self.bytes_tma,
                       (self.tma_writer, self.tma_seq, self.tma_line))
            self.any_tma_stale = False

    def set_reader(self, form: ChunkForm, thread: int, seq: int, line: int) -> None:
        """Bytes `form` are read by tcgen05 op `seq` of `thread`, at `line` (their
        per-byte arrays written by the next ``fresh_readers``)."""
        _mark(chunks_of(form), (self.reader, self.reader_seq, self.reader_line),
              (thread, seq, line), self.stale)
        self.any_stale = True

    def fresh_readers(self) -> None:
        """Writes the per-byte reader, reader_seq and reader_line of the chunks
        ``set_reader`` summarized since the last call: before anything reads or writes
        them byte by byte."""
        if self.any_stale:
            _write_out(self.stale, self.bytes_reader,
                       (self.reader, self.reader_seq, self.reader_line))
            self.any_stale = False

    def mix(self, owners: np.ndarray, addresses: np.ndarray) -> None:
        """Bytes `addresses` got owners byte by byte (no chunk form): their chunks'
        summaries are unknown from now on."""
        owners[addresses // CHUNK] = MIXED


def owners_seen(model, owners: np.ndarray, seqs: np.ndarray, stream: int, who: int,
                form: ChunkForm) -> bool:
    """Whether thread `who` has observed, for every byte of `form`, the completion of
    the async operation that owns it (``owners`` / ``seqs``: a ``ChunkMarks``' summaries
    of one kind; the issuer's stream ``stream + issuer``), decided when the chunks have
    no owner or all the same one. False means "not decided here": the per-byte code then
    decides (and reports what it finds)."""
    at = chunks_of(form)
    mine = owners[at]
    last = int(_MAX(mine))
    if int(_MIN(mine)) != last:
        return False   # several owners, or some unknown
    if last == -1:
        return True    # no byte has an owner
    if last < 0:
        return False
    return bool(model.known[who, model.column[stream + last]] >= _MAX(seqs[at]))


def _write_out(stale: np.ndarray, per_byte, summaries) -> None:
    """Writes each stale chunk's summary into its 16 entries of the per-byte arrays
    (per_byte[i] from summaries[i]) and marks the chunks fresh."""
    at = np.flatnonzero(stale)
    for array, summary in zip(per_byte, summaries):
        array[at] = summary[at, None]
    stale[at] = False


def chunks_of(form: ChunkForm):
    """The chunk numbers of `form`: contiguous ones as a slice (a view, where an index
    array copies), else its index array."""
    if form.span is None:
        return form.index
    return slice(form.low // CHUNK, (form.high + 1) // CHUNK)


def _mark(at, summaries, values, stale: np.ndarray) -> None:
    """Chunks `at` get values[i] in summaries[i], and are stale (their per-byte arrays
    not yet written)."""
    for summary, value in zip(summaries, values):
        summary[at] = value
    stale[at] = True
