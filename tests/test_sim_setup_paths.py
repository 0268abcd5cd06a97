"""The short cuts of the simulator's fixed costs, each against the general code it stands
in for: the PTX parser's (sim/ptx.py: operand lists split without nesting, a statement's
end found without braces, a register operand read directly, an operand text read once
per scope) and the ordering model's clock updates (sim/ordering.py: one thread's release
and publication, rows updated in place over runs of consecutive threads, a barrier's
drop of ops every thread knows complete). Each test feeds both the same input and
compares; the inputs include the cases the short cut's guard sends to the general code,
so that a test fails when a guard is removed.

The clocks' reference is the model's rule written out with NumPy fancy indexing over
copies of the matrices (the module docstring of sim/ordering.py): a release adds one to
each thread's own entry in ``known`` and copies it to ``tc_known``; a publication is the
maximum over the threads' rows of ``known`` (generic) and of ``released`` and
``pending_tc`` with each thread's own epoch (tcgen05); an acquire is the row-wise
maximum of ``known`` and ``pending_tc`` with those vectors; fences before / after
thread_sync set ``released`` to max(known, tc_known) and ``tc_known`` to max(tc_known,
pending_tc) on the threads' rows.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_ordering import MBAR, ld, mma  # noqa: E402
from test_sim_ordering import model as ordering_model  # noqa: E402
from tcgen05_lower.sim import ptx as P  # noqa: E402
from tcgen05_lower.sim.ordering import OrderingModel  # noqa: E402
from tcgen05_lower.sim.ordering_records import InFlight, _row_runs  # noqa: E402
from tcgen05_lower.sim.state import CtaMemory, Footprint  # noqa: E402


# -- the parser ------------------------------------------------------------------------------
SPLIT_CASES = [
    ("", ","), ("   ", ","), ("a", ","), ("a, b, c", ","), ("a, b, ", ","), (", a", ","),
    ("a,,b", ","), ("%r1, %r2, 0f3F800000", ","),
    # nesting: the general loop keeps these together
    ("[%rd1+8], %r2", ","), ("{%r1, %r2}, [%rd3]", ","), ("f(a, b), c", ","),
    ("[a, {b, c}], d", ","), ("a], b, [c", ","),
    # other separators: one character, one that nests, several characters
    ("2 * n * 4", "*"), ("a*b*", "*"), ("a(b)c", "("), ("a**b", "**"),
]


@pytest.mark.parametrize("text,sep", SPLIT_CASES)
def test_split_top_agrees_with_the_nested_loop(text, sep):
    assert P.split_top(text, sep) == P._split_top_nested(text, sep)


def test_split_top_keeps_nested_separators():
    # by hand: the comma inside the brackets does not split
    assert P.split_top("[%rd1, 8], %r2") == ["[%rd1, 8]", "%r2"]


BODY = """
    mov.u32 %r1, 0;
    { .reg .pred p; setp.eq.u32 p, %r1, 0; @p bra done; done: }
    { .reg .pred p; setp.ne.u32 p, %r1, 1; }
    add.u32 %r1, %r1, 1;
    no_semicolon
"""


def test_statement_end_agrees_with_the_nested_loop():
    body = P._EntryBody(P.Entry("k"), BODY, P._Lines(BODY))
    starts = [i for i, c in enumerate(BODY) if not c.isspace()]
    for pos in starts:
        try:
            want = body._statement_end_nested(pos)
        except P.PtxParseError as err:
            with pytest.raises(P.PtxParseError) as got:
                body._statement_end(pos)
            assert str(got.value) == str(err)
            continue
        assert body._statement_end(pos) == want, pos


def test_statement_end_skips_semicolons_in_braces():
    # by hand: from the first '{', the statement ends after the block's '}' is closed
    text = "{ a; b; } c;"
    body = P._EntryBody(P.Entry("k"), text, P._Lines(text))
    assert body._statement_end(0) == len(text) - 1


OPERANDS = ["%r1", "%tid.x", "%rd12", "%r1|%p2", "_|%p1", "%", "%r1 + 2", "%r<3>", "x",
            "done", "-5", "0x10", "0f3F800000", "1.5", "[%rd1+8]", "{%r1, %r2}", "!%p1",
            "%p1|",
            # names (ptx._NAME): a block's register, labels, variables; and texts the
            # names' short cut must leave to the general reader
            "_", "$L__BB0_2", "x.y#3", "done#1", "a$b", "x|p", "x+1", "1x", "0f3F800000x",
            "0d3FF0000000000000", "-x", "x y", "é", "a-b"]


@pytest.mark.parametrize("text", OPERANDS)
def test_register_operands_agree_with_the_general_reader(text):
    resolve = {"done": "done#1", "%r1": "%r1"}.get

    def res(name):
        return resolve(name) or name

    try:
        want = P._operand_any(text.strip(), res)
    except ValueError as err:
        with pytest.raises(ValueError) as got:
            P._operand(text, res)
        assert str(got.value) == str(err)
        return
    assert P._operand(text, res) == want


def test_destination_pair_is_not_a_register():
    # elect.sync's d|p (PTX ISA 9.7.13.14): two registers, not one named "%r1|%p2"
    assert P._operand("%r1|%p2", lambda n: n) == P.DestPair(P.Reg("%r1"), P.Reg("%p2"))


PTX = """
.version 8.7
.target sm_100a
.address_size 64
.visible .entry k()
{
    .reg .b32 %r<4>;
    mov.u32 %r1, 0;
    { .reg .pred p; setp.eq.u32 p, %r1, 0; selp.u32 %r2, 1, 0, p; @p bra done; done: }
    { .reg .pred p; setp.ne.u32 p, %r1, 1; selp.u32 %r2, 1, 0, p; }
    add.u32 %r1, %r1, 1;
    ret;
}
"""


def test_each_instruction_reads_its_operands_in_its_own_scope():
    """Operands shared by text must not cross scopes: ``p`` is ``p#1`` in the first block
    and ``p#2`` in the second (ptx.py's renaming of block-local names)."""
    entry = P.parse(PTX).entry()
    for ins in entry.instructions:
        assert ins.parts == ins.opcode.split(".")
    setps = [ins for ins in entry.instructions if ins.opcode.startswith("setp")]
    assert [ins.operands[0] for ins in setps] == [P.Reg("p#1"), P.Reg("p#2")]
    selps = [ins for ins in entry.instructions if ins.opcode == "selp.u32"]
    assert [ins.operands[3] for ins in selps] == [P.Reg("p#1"), P.Reg("p#2")]


# -- the clocks --------------------------------------------------------------------------------
def model(threads=256, ctas=2, seed=0) -> OrderingModel:
    """A model whose four clock matrices hold random entries (the update rules do not
    depend on how the entries came about)."""
    m = OrderingModel([CtaMemory(r, np.zeros(1024, np.uint8)) for r in range(ctas)], threads)
    rng = np.random.default_rng(seed)
    for name in ("known", "tc_known", "pending_tc", "released"):
        getattr(m, name)[...] = rng.integers(0, 50, getattr(m, name).shape)
    return m


def clocks(m: OrderingModel) -> dict:
    return {name: getattr(m, name).copy()
            for name in ("known", "tc_known", "pending_tc", "released")}


#: One thread (as a list and as a vector), a warp, a CTA's four epilogue warps on each
#: CTA of the pair (two runs), runs beyond _MAX_RUNS, threads out of order, one per warp.
SELECTIONS = {
    "one": [7], "one-vector": np.array([300]), "warp": np.arange(32, 64),
    "two-runs": np.r_[np.arange(128, 256), np.arange(384, 512)],
    "many-runs": np.arange(0, 512, 2), "unordered": np.array([40, 3, 4, 5, 90]),
    "one-per-warp": np.arange(0, 512, 32), "all": np.arange(512),
}


def reference_release(c: dict, threads) -> None:
    t = np.asarray(threads).reshape(-1)
    c["known"][t, t] += 1
    c["tc_known"][t, t] = c["known"][t, t]


def reference_published(c: dict, threads):
    t = np.asarray(threads).reshape(-1)
    generic = c["known"][t].max(axis=0)
    tc = np.maximum(c["released"][t].max(axis=0), c["pending_tc"][t].max(axis=0))
    tc[t] = np.maximum(tc[t], c["known"][t, t])
    return generic, tc


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_release_and_publication_agree_with_the_rule(name):
    threads = SELECTIONS[name]
    m = model()
    want = clocks(m)
    m._release(threads)
    reference_release(want, threads)
    for key, value in clocks(m).items():
        assert np.array_equal(value, want[key]), key
    generic, tc = m._published(threads)
    want_generic, want_tc = reference_published(want, threads)
    assert np.array_equal(generic, want_generic) and np.array_equal(tc, want_tc)
    assert generic.dtype == tc.dtype == m.known.dtype
    # the published vectors are copies: the model's rows do not move with them
    generic += 1000
    tc += 1000
    assert np.array_equal(m.known, want["known"]) and np.array_equal(m.released,
                                                                     want["released"])


@pytest.mark.parametrize("name", sorted(SELECTIONS))
def test_acquire_agrees_with_the_rule(name):
    threads = SELECTIONS[name]
    m = model(seed=1)
    want = clocks(m)
    rng = np.random.default_rng(2)
    width = m.known.shape[1]
    generic, tc = rng.integers(0, 80, width), rng.integers(0, 80, width - 3)  # narrower
    m._acquire(threads, generic, tc)
    t = np.asarray(threads).reshape(-1)
    tc_wide = np.r_[tc, np.zeros(3, tc.dtype)]
    want["known"][t] = np.maximum(want["known"][t], generic)
    want["pending_tc"][t] = np.maximum(want["pending_tc"][t], tc_wide)
    for key, value in clocks(m).items():
        assert np.array_equal(value, want[key]), key


@pytest.mark.parametrize("name", sorted(SELECTIONS))
@pytest.mark.parametrize("kind", ["before_thread_sync", "after_thread_sync"])
def test_tcgen05_fences_agree_with_the_rule(name, kind):
    threads = SELECTIONS[name]
    m = model(seed=3)
    want = clocks(m)
    m.fence(threads, kind, 1)
    t = np.asarray(threads).reshape(-1)
    if kind == "before_thread_sync":
        want["released"][t] = np.maximum(want["known"][t], want["tc_known"][t])
    else:
        want["tc_known"][t] = np.maximum(want["tc_known"][t], want["pending_tc"][t])
    for key, value in clocks(m).items():
        assert np.array_equal(value, want[key]), key


#: Selections the one-thread short cut must leave to the general code.
ODD = {"list-of-a-vector": [np.array([5, 9])], "list-of-two": [5, 9],
       "matrix-of-one": np.array([[5]]), "empty": np.array([], np.int64)}


@pytest.mark.parametrize("name", sorted(SELECTIONS) + sorted(ODD))
def test_one_thread_short_cut_agrees_with_the_general_code(name):
    threads = {**SELECTIONS, **ODD}[name]

    def outcome(call):
        m = model(seed=6)
        try:
            result = call(m)
        except (ValueError, IndexError, TypeError) as err:
            return type(err).__name__
        return result, clocks(m)

    def same(a, b):
        if isinstance(a, str) or isinstance(b, str):
            return a == b
        (ra, ca), (rb, cb) = a, b
        if ra is None:
            return rb is None and all(np.array_equal(ca[k], cb[k]) for k in ca)
        return all(np.array_equal(x, y) for x, y in zip(ra, rb)) and \
            all(np.array_equal(ca[k], cb[k]) for k in ca)

    assert same(outcome(lambda m: m._release(threads)),
                outcome(lambda m: m._release_rows(threads)))
    assert same(outcome(lambda m: m._published(threads)),
                outcome(lambda m: m._published_rows(threads)))


def test_row_runs():
    # by hand: the two epilogue halves of a pair are two runs; anything else general
    assert _row_runs(np.r_[np.arange(128, 256), np.arange(384, 512)]) == [
        slice(128, 256), slice(384, 512)]
    assert _row_runs(np.array([5])) == [slice(5, 6)]
    assert _row_runs(np.array([3, 3])) is None          # not increasing
    assert _row_runs(np.array([4, 3])) is None
    assert _row_runs(np.array([], np.int64)) is None
    assert _row_runs(np.arange(0, 512, 2)) is None      # more runs than _MAX_RUNS


class _NoCells:
    """An op that touches no cell (the drop rule looks only at agents and sequences)."""
    footprint = Footprint()


_NO_CELLS = _NoCells()


def test_barrier_forgets_what_every_thread_knows_complete():
    """The barrier's drop of in-flight ops against the rule written per record: an op is
    dropped when it is performed and every thread's known and tc_known entries of its
    agent reach its sequence number."""
    m = model(threads=64, ctas=1, seed=4)
    width = m.known.shape[1]
    rng = np.random.default_rng(5)
    records = []
    for i in range(40):
        agent = int(rng.integers(0, width))
        seq = int(rng.integers(0, 60))
        records.append(InFlight(_NO_CELLS, "mma", 0, agent, -1, seq, 10 + i,
                                performed=bool(rng.integers(0, 2))))
    # some that every thread knows: all entries of their agent at least their seq
    for r in records[:6]:
        r.performed = True
        m.known[:, r.agent] = np.maximum(m.known[:, r.agent], r.seq)
        m.tc_known[:, r.agent] = np.maximum(m.tc_known[:, r.agent], r.seq)
    # and some that every thread knows in one clock only: they stay
    for r in records[6:8]:
        r.performed = True
        m.known[:, r.agent] = np.maximum(m.known[:, r.agent], r.seq + 1)
        m.tc_known[0, r.agent] = r.seq - 1
    for r in records[8:10]:
        r.performed = True
        m.tc_known[:, r.agent] = np.maximum(m.tc_known[:, r.agent], r.seq + 1)
        m.known[0, r.agent] = r.seq - 1
    m.inflight = list(records)
    want = [r for r in records if not (
        r.performed and (m.tc_known[:, r.agent] >= r.seq).all()
        and (m.known[:, r.agent] >= r.seq).all())]
    m._forget_known_complete()
    assert m.inflight == want
    assert len(want) <= len(records) - 6 and all(r in want for r in records[6:10])


def test_fence_epochs_per_thread():
    # a thread that never fenced reads as no fences; one that did, its epochs in order
    m = OrderingModel([CtaMemory(0, np.zeros(64, np.uint8))], 64)
    assert list(m.proxy_fences[5]) == [] and list(m.init_fences[np.int64(5)]) == []
    m.fence(np.array([5, 6]), "proxy_async", 1)
    m.fence(np.array([5]), "proxy_async", 2)
    m.fence(np.array([6]), "mbarrier_init", 3)
    # epochs start at 1 and each fence ends one (a release)
    assert m.proxy_fences[np.int64(5)] == [1, 2] and m.proxy_fences[6] == [1]
    assert m.init_fences[6] == [2] and list(m.init_fences[5]) == []


# -- the clocks' width ---------------------------------------------------------------------------
def test_clocks_are_16_bit_until_an_epoch_passes_it():
    """An epoch one past the largest 16-bit value (2**15 - 1, by hand: 2**15) is kept
    exactly: the clocks become 32-bit first; one past the largest 32-bit value (2**31)
    likewise, as 64-bit clocks."""
    m = OrderingModel([CtaMemory(0, np.zeros(64, np.uint8))], 64)
    assert m.known.dtype == np.int16 and m.clock_max == 2**15 - 1
    m.known[5, 5] = m.tc_known[5, 5] = 2**15 - 2
    m._release([5])                       # 2**15 - 1 still fits
    assert m.known.dtype == np.int16 and m.known[5, 5] == 2**15 - 1
    m._release([5])
    assert m.known.dtype == m.tc_known.dtype == m.pending_tc.dtype == np.int32
    assert m.released.dtype == np.int32 and m.clock_max == 2**31 - 1
    assert m.known[5, 5] == m.tc_known[5, 5] == 2**15
    m.known[5, 5] = m.tc_known[5, 5] = 2**31 - 2
    m._release([5])                       # 2**31 - 1 still fits
    assert m.known.dtype == np.int32 and m.known[5, 5] == 2**31 - 1
    m._release([5])
    assert m.known.dtype == m.tc_known.dtype == m.pending_tc.dtype == np.int64
    assert m.known[5, 5] == m.tc_known[5, 5] == 2**31
    # a barrier of everyone then publishes it to every thread, exactly
    everyone = np.arange(64)
    m.barrier(everyone, 1)
    assert (m.known[:, 5] == 2**31 + 1).all()


@pytest.mark.parametrize("start, dtype", [(2**15 - 1, np.int32), (2**31 - 1, np.int64)])
def test_clocks_widen_for_many_threads_at_once(start, dtype):
    """Every thread's epoch at ``start``, the largest entry of 16 or 32 bits (set in
    clocks wide enough for it): a barrier's release passes it, and the clocks widen
    first."""
    m = OrderingModel([CtaMemory(0, np.zeros(64, np.uint8))], 64)
    everyone = np.arange(64)
    if start > m.clock_max:
        m._widen_entries(start)
    m.known[everyone, everyone] = start
    m.barrier(everyone, 1)                # every thread's epoch passes `start`
    assert m.known.dtype == dtype and (m.known[:, :64] == start + 1).all()


@pytest.mark.parametrize("waits", [True, False])
@pytest.mark.parametrize("bits, wider", [(16, np.int32), (32, np.int64)])
def test_clocks_widen_before_a_sequence_number_passes_their_bits(waits, bits, wider):
    """The MMA stream of thread 0 at the largest 16-bit (32-bit) number: its next MMA is
    number 2**15 (2**31), and the commit -> wait -> fence pattern (9.7.16.6.4.4, Example
    2) still orders it before thread 32's ld, which races with it without the wait. (A
    stream number set to 2**31 - 2 in 16-bit clocks takes them to 32 bits at once.)"""
    top = 2**(bits - 1)
    m = ordering_model()
    m.issue(0, mma(), 10)
    issued = int(m.column[m.ISSUED + 0])
    m.seq[issued] = top - 2
    m.issue(0, mma(), 11)                 # top - 1: still fits
    narrow = np.int16 if bits == 16 else np.int32
    assert m.known.dtype == narrow and m.known[0, issued] == top - 1
    m.issue(0, mma(), 12)
    assert m.known.dtype == wider
    assert m.known[0, issued] == m.tc_known[0, issued] == top
    m.commit(0, 0, MBAR, 1, 13)
    if waits:
        while not m.mbarrier_try_wait_parity(32, 0, MBAR, 0, 14):
            assert m.progress()
    m.fence(np.array([32]), "after_thread_sync", 15)
    m.issue(32, ld(slice(32, 64)), 16)
    if waits:
        assert m.races == []
        assert m.tc_known[32, m.column[m.DONE + 0]] == top
    else:
        assert m.races and m.races[0].ptx_line == 16


def test_per_byte_arrays_are_each_ctas_own():
    """The ordering model's per-byte arrays (ordering._per_byte: a CTA's arrays are rows
    of one block): by hand, each as long as its CTA's shared memory, filled with -1
    (owners) or 0 (epochs, sequence numbers, lines), and a write to one changes no other."""
    m = OrderingModel([CtaMemory(0, np.zeros(64, np.uint8)),
                       CtaMemory(1, np.zeros(32, np.uint8))], 64)
    owners = (m.writer, m.reader, m.tma_writer)
    numbers = (m.write_epoch, m.write_line, m.reader_seq, m.reader_line, m.tma_seq,
               m.tma_line)
    for arrays, fill, dtype in ((owners, -1, np.int32), (numbers, 0, np.int64)):
        for per_cta in arrays:
            assert [a.shape for a in per_cta] == [(64,), (32,)]
            assert all(a.dtype == dtype and (a == fill).all() for a in per_cta)
    every = [a for per_cta in owners + numbers for a in per_cta]
    for i, a in enumerate(every):
        a[:] = 1000 + i
    assert [int(a.min()) for a in every] == [int(a.max()) for a in every] == \
        [1000 + i for i in range(len(every))]
