"""The fast paths of the issue side of tcgen05.mma in the simulator, each against the
general code it stands for, on the same input (what the fast path must equal):

- the operands of an MMA read through a plan made at decode (tcgen05_ops
  ``_planned_operand``) against ``_scalar_operand``;
- the qualifiers' form kept per (opcode, CTA rank, cluster) in the run's cache
  (tensor_core.issue_async) against issue_async without a cache: the same MMAs, and the
  same errors, also when the form of another rank is kept;
- an MMA's operand addresses and their chunk form shared by the run's MMAs of the same
  descriptors and instruction descriptor (tc_mma ``_build_mma``'s "smem side") against
  MMAs built alone, for MMAs that differ in every part of the key;
- the allocations of a set of TMEM columns with one owner
  (ordering_tensor ``_owners_of``) against the owner-by-owner loop;
- the conflict candidates' table per op summary (tmem_index ``InflightIndex``) when
  summaries appear after an op's table was made, against ``candidates_general``.

Each test also has a case that the fast path without its guard gets wrong."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from test_sim_mma_parts import idesc, memories, smem_descriptor  # noqa: E402
from test_sim_ordering import FakeOp, cells, model  # noqa: E402
from tcgen05_lower.sim import ptx as P  # noqa: E402
from tcgen05_lower.sim import ordering_tensor  # noqa: E402
from tcgen05_lower.sim import tcgen05_ops  # noqa: E402
from tcgen05_lower.sim import tensor_core as tc  # noqa: E402
from tcgen05_lower.sim.machine_registers import MachineRegisters  # noqa: E402
from tcgen05_lower.sim.smem_chunks import chunk_form, kept_chunk_form  # noqa: E402
from tcgen05_lower.sim.state import Address, CtaMemory, Footprint, SimError  # noqa: E402
from tcgen05_lower.sim.tmem_index import InflightIndex, tmem_summary  # noqa: E402


# -- operands read through a plan ---------------------------------------------------------

class FakeMachine(MachineRegisters):
    """Registers of 8 threads (MachineRegisters' own reads), declared as a kernel would."""

    def __init__(self, rng):
        self.nthreads = 8
        self.entry = P.Entry("k", regs={"%h": ".b16", "%r": ".b32", "%rd": ".b64",
                                        "%p": ".pred", "%f": ".f32", "%q": ".u8"})
        self.pc = np.zeros(8, np.int64)
        self.shared_addr = {"smem": 0x400}
        self.regs = {name: rng.integers(0, 2 ** 63, 8, dtype=np.uint64) * 2 + 1
                     for name in ("%h", "%r", "%rd", "%f", "%q")}
        self.regs["%rd"][3] = 2 ** 64 - 8   # an address that wraps with a positive offset
        self.regs["%p"] = np.array([True, False] * 4)


OPERANDS = [P.Reg("%h"), P.Reg("%r"), P.Reg("%rd"), P.Reg("%p"), P.Reg("%f"), P.Reg("%q"),
            P.Addr(P.Reg("%rd"), 16), P.Addr(P.Reg("%rd"), -24), P.Addr(P.Reg("%r"), 0),
            P.Addr(P.Reg("%p"), 8), P.Addr(P.Sym("smem"), 32), P.Addr(None, 64),
            P.Imm(5), P.Imm(-1), P.Imm(1 << 40), P.Vec((P.Reg("%r"), P.Reg("%h"))),
            P.Reg("%undeclared")]


def test_planned_operands_are_scalar_operands():
    # Every operand form an MMA takes, for every thread: the same value and type as
    # _scalar_operand (masked to the register's width; a [register+offset] address
    # wrapping at 64 bits like m.address; a predicate as bool, or as 0 / 1 in an
    # address); what the plan does not read itself, _scalar_operand reads.
    m = FakeMachine(np.random.default_rng(3))
    ins = P.Instr("tcgen05.mma", OPERANDS, 7, "text")
    for op in OPERANDS[:-1]:
        plan = tcgen05_ops._operand_plan(m, op)
        for g in range(8):
            want = tcgen05_ops._scalar_operand(m, op, g, ins)
            got = tcgen05_ops._planned_operand(m, plan, g, ins)
            assert got == want and type(got) is type(want), (op, g)
    # an undeclared register: the same error when read
    plan = tcgen05_ops._operand_plan(m, OPERANDS[-1])
    with pytest.raises(SimError) as want:
        tcgen05_ops._scalar_operand(m, OPERANDS[-1], 0, ins)
    with pytest.raises(SimError) as got:
        tcgen05_ops._planned_operand(m, plan, 0, ins)
    assert str(got.value) == str(want.value)


def test_a_plan_reads_a_symbol_address_through_the_general_code():
    # [symbol+offset] has no register to read: taken as a register address it would
    # read a register named like the symbol (none here: an error).
    m = FakeMachine(np.random.default_rng(4))
    op = P.Addr(P.Sym("smem"), 32)
    assert tcgen05_ops._operand_plan(m, op)[0] == tcgen05_ops._OTHER
    assert tcgen05_ops._planned_operand(m, tcgen05_ops._operand_plan(m, op), 0, None) == \
        Address(0x400 + 32)


# -- the qualifiers' form kept in the run's cache ------------------------------------------

PAIR = "tcgen05.mma.cta_group::2.kind::f16"
PAIR_OPERANDS = [Address(0), smem_descriptor(3072, 16, 1024, 2),
                 smem_descriptor(3072, 16, 1024, 2), idesc(256, 64), True]


def message(call):
    try:
        call()
    except SimError as err:
        return str(err)
    return None


@pytest.mark.parametrize("opcode", [
    PAIR, "tcgen05.mma.cta_group::1.kind::f16.ashift",
    "tcgen05.mma.cta_group::1.kind::f16.block_scale",
    "tcgen05.mma.cta_group::1.kind::f16.collector::b0::fill",
    "tcgen05.ld.sync.aligned.32x32b.x1.b32"])
def test_a_kept_form_reports_what_the_qualifiers_report(opcode):
    # The pair's even CTA builds (its form kept); the odd CTA of the pair must still be
    # refused (9.7.16.5.1) although the even one's form is kept: the rank is part of the
    # key. The other opcodes are refused each time, as without a cache.
    cache = {}
    for rank in (0, 1, 0, 1):
        mine = message(lambda: tc.issue_async(opcode, list(PAIR_OPERANDS), rank, 2,
                                              cache=cache))
        want = message(lambda: tc.issue_async(opcode, list(PAIR_OPERANDS), rank, 2,
                                              cache=None))
        assert mine == want
        if opcode == PAIR:
            assert (want is None) == (rank == 0)
    forms = [key for key in cache if key[0] == "mma form"]
    assert forms == ([("mma form", PAIR, 0, 2)] if opcode == PAIR else [])


# -- an MMA's operand addresses shared by MMAs of the same descriptors ----------------------

ONE = "tcgen05.mma.cta_group::1.kind::f16"
A, B = smem_descriptor(2048, 16, 1024, 2), smem_descriptor(34816, 16, 1024, 2)
#: MMAs that share descriptors but differ in d-tmem, enable-input-d, the instruction
#: descriptor (N, a transposed B) or one descriptor: each the same as built alone.
SIDES = [(Address(0), A, B, idesc(128, 64), False), (Address(128), A, B, idesc(128, 64), True),
         (Address(0), A, B, idesc(128, 32), True), (Address(0), A, B, idesc(128, 64, False,
                                                                              True), True),
         (Address(0), A, smem_descriptor(34816 + 32, 16, 1024, 2), idesc(128, 64), True),
         (Address(0), smem_descriptor(2048 + 32, 16, 1024, 2), B, idesc(128, 64), True),
         (Address(256), A, B, idesc(128, 64), True)]


def test_mmas_sharing_operand_addresses_are_those_built_alone():
    ctas = memories(1)
    alone = [CtaMemory(c.rank, c.smem.copy(), c.tmem.copy()) for c in ctas]
    cache = {}
    ops = []
    for operands in SIDES:
        mine = tc.issue_async(ONE, list(operands), 0, 1, cache=cache)
        want = tc.issue_async(ONE, list(operands), 0, 1, cache=None)
        for which in ("tmem_reads", "tmem_writes", "smem_reads"):
            got, expected = getattr(mine.footprint, which), getattr(want.footprint, which)
            assert got.keys() == expected.keys()
            for rank in expected:
                np.testing.assert_array_equal(got[rank], expected[rank])
        # the chunk form given is the one made from the addresses
        reads = mine.footprint.smem_reads[0]
        given = kept_chunk_form(mine.footprint, 0, reads)
        made = chunk_form(reads.copy())
        assert (given.index.tolist(), given.span, given.low, given.high) == \
            (made.index.tolist(), made.span, made.low, made.high)
        mine.perform(ctas)
        want.perform(alone)
        np.testing.assert_array_equal(ctas[0].tmem, alone[0].tmem)
        ops.append(mine)
    # the d-tmem and enable-input-d variants share the first one's addresses (read-only)
    shared = ops[0].footprint.smem_reads[0]
    assert ops[1].footprint.smem_reads[0] is shared and ops[-1].footprint.smem_reads[0] \
        is shared and not shared.flags.writeable
    assert all(op.footprint.smem_reads[0] is not shared for op in ops[2:-1])


def test_the_kept_operand_addresses_stay_bounded_apart_from_the_parts():
    # Many descriptors (a long ring): the kept addresses are emptied alone when full,
    # the run's other shared parts (D's cells, operand patterns) stay.
    from tcgen05_lower.sim import tc_mma
    cache = {}
    for j in range(tc_mma._SIDES_SIZE + 5):
        tc.issue_async(ONE, [Address(0), smem_descriptor(2048 + 32 * j, 16, 1024, 2), B,
                             idesc(128, 64), True], 0, 1, cache=cache)
    parts = cache[tc_mma._PARTS]
    assert 0 < len(parts[tc_mma._SIDES]) <= tc_mma._SIDES_SIZE
    assert any(key[0] == "d" for key in parts if isinstance(key, tuple))


# -- the allocations of a set of columns ---------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_owners_of_columns_are_the_owner_by_owner_loop(seed):
    # Columns of one allocation, of none, of several, and partly of none: the same
    # (owner, latest alloc, its line) list as the loop over np.unique's owners.
    rng = np.random.default_rng(seed)
    m = model()
    for _ in range(60):
        form = rng.integers(0, 4)
        owners = np.full(512, -1, np.int64)
        if form == 1:
            owners[:] = rng.integers(0, 128)
        elif form == 2:
            owners[:] = rng.integers(0, 4, 512) * 32
        elif form == 3:
            owners[rng.integers(0, 512, 200)] = 32
        m.alloc_by[0][:] = owners
        m.alloc_seq[0][:] = rng.integers(1, 50, 512)
        m.alloc_line[0][:] = rng.integers(10, 90, 512)
        mask = rng.random(512) < rng.choice([0.0, 0.1, 1.0])
        assert m._owners_of(0, mask) == ordering_tensor.owners_of_general(m, 0, mask)


# -- the candidates' table per op summary --------------------------------------------------

def test_an_op_tables_grow_with_summaries_that_appear_later():
    # An ld's table is made when few summaries exist; MMAs of new masks are issued
    # after it: issued again, the ld finds them (the table grown, the new pairs
    # tested), as candidates_general does. Without the growth the new summaries'
    # numbers would be past its table.
    m = model()
    read = FakeOp("ld", Footprint(tmem_reads={0: cells(slice(0, 32), slice(0, 64))}))
    thread = 0
    index = InflightIndex.of(m)
    summary = tmem_summary(read.footprint)
    for step in range(12):
        cols = slice(32 * step % 512, 32 * step % 512 + 48)
        m.issue(1, FakeOp("mma", Footprint(tmem_writes={0: cells(slice(0, 128), cols)})),
                100 + step)
        index = InflightIndex.of(m)
        fast = index.candidates(m.tc_known[thread], summary, True)
        assert fast == index.candidates_general(m.tc_known[thread], summary, True)
        assert fast == m._conflict_candidates_general(thread, read)
    assert len(index.distinct) == 13 and fast == [0, 1]


@pytest.mark.parametrize("seed", range(3))
def test_renumbered_summaries_give_the_same_candidates(seed, monkeypatch):
    # tmem_index.InflightIndex._renumber with a cap of 3 distinct summaries (2048 in a
    # run): random ops, barriers that drop records, and every issue's candidates
    # compared with the per-record loops (test_sim_tmem_index's test, run here with
    # the small cap). Renumbered records must keep the right summary's number.
    from test_sim_tmem_index import test_the_candidates_are_the_per_record_loops
    from tcgen05_lower.sim import tmem_index
    calls = []
    renumber = tmem_index.InflightIndex._renumber

    def counted(self, rows):
        calls.append(rows)
        renumber(self, rows)
        assert len(self.distinct) <= rows + 1

    monkeypatch.setattr(tmem_index, "DISTINCT_CAP", 3)
    monkeypatch.setattr(tmem_index.InflightIndex, "_renumber", counted)
    test_the_candidates_are_the_per_record_loops(seed)
    assert len(calls) >= 3
