"""The ld/st message strategies (tcgen05_lower.strategies.ldst) on hand-derived cases.

Registers per thread follow from Table 47 and the layouts (tmem-facts sections 1-2): a
full-datapath warp moves 32 lanes, one register per cell per thread, so W columns are W
registers; a half-datapath warp moves 16 lanes, W/2 registers; .pack::16b halves both.
"""

import pytest

from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.strategies.ldst import (AccessRequest, MaxWidth, RegisterBudget,
                                           num_exceeds_budget, parse_strategy,
                                           registers_per_thread)


def test_parse():
    assert isinstance(parse_strategy("max-width"), MaxWidth)
    budget = parse_strategy("register-budget=48")
    assert isinstance(budget, RegisterBudget) and budget.budget == 48
    assert budget.text() == "register-budget=48"
    for bad in ("register-budget", "register-budget=x", "register-budget=0", "max-width=2",
                "fastest"):
        with pytest.raises(ValueError):
            parse_strategy(bad)


def test_max_width_epilogue_128x256():
    # 256 columns per warp; .32x32b.x128 is the widest message (Table 47), so two.
    access = MaxWidth().access(AccessRequest("D", 256, 256))
    assert (access.shape, access.num, access.messages, access.registers) == (
        "32x32b", 128, 2, 256)
    assert MaxWidth().chunk_width(AccessRequest("D", 256, 256)) == 256


def test_budget_32_epilogue_128x256():
    strategy = RegisterBudget(32)
    request = AccessRequest("D", 256, 256)
    assert strategy.chunk_width(request) == 32
    chunk = strategy.access(AccessRequest("D", 256, 32))
    assert (chunk.shape, chunk.num, chunk.messages, chunk.registers) == ("32x32b", 32, 1, 32)


def test_non_power_of_two_width_uses_equal_messages():
    # 48 columns: .x16 is the widest .num dividing 48, three messages.
    access = MaxWidth().access(AccessRequest("D", 256, 48))
    assert (access.num, access.messages) == (16, 3)


def test_half_datapath_layout_f():
    # 128 columns x 16 lanes = 64 registers; budget 32 -> 64-column chunks of
    # .16x32bx2.x32 (halves 32 columns apart).
    strategy = RegisterBudget(32)
    request = AccessRequest("F", 128, 128)
    assert registers_per_thread(request, 128, pack16=False) == 64
    assert strategy.chunk_width(request) == 64
    chunk = strategy.access(AccessRequest("F", 128, 64))
    assert (chunk.shape, chunk.num, chunk.half_split, chunk.registers) == (
        "16x32bx2", 32, 32, 32)


def test_folded_layouts_chunk_inside_a_block():
    # E, N = 256: blocks of 128 columns; a warp holds 128 registers of the whole of D,
    # so chunks of 32 columns lie inside one block and take two warps each.
    strategy = RegisterBudget(32)
    assert strategy.chunk_width(AccessRequest("E", 256, 256)) == 32
    chunk = strategy.access(AccessRequest("E", 256, 32))
    assert (chunk.taking_part, chunk.registers) == (2, 32)
    # G, N = 256: blocks of 64 columns, one warp per block.
    assert strategy.chunk_width(AccessRequest("G", 256, 256)) == 32
    assert strategy.access(AccessRequest("G", 256, 32)).taking_part == 1
    # The whole of a folded D within budget is not split: each warp holds one block.
    assert RegisterBudget(64).chunk_width(AccessRequest("B", 128, 128)) == 128


def test_sixteen_bit_data_is_packed():
    # f16, 64 columns: 32 packed registers, .32x32b.x32.pack::16b covers 64 columns.
    access = RegisterBudget(32).access(AccessRequest("D", 64, 64, element_bits=16))
    assert (access.pack16, access.num, access.registers) == (True, 32, 32)
    assert RegisterBudget(32).chunk_width(AccessRequest("D", 64, 64, element_bits=16)) == 64
    # Asked not to pack: one element per register, 64 registers, two chunks.
    plain = AccessRequest("D", 64, 64, element_bits=16, pack16=False)
    assert RegisterBudget(32).chunk_width(plain) == 32
    with pytest.raises(IsaRuleError, match="packs 16-bit data"):
        MaxWidth().access(AccessRequest("D", 64, 64, pack16=True))


def test_reductions():
    # ld.red: never packed, .num >= 2, shapes .32x32b / .16x32bx2 only.
    red = MaxWidth().access(AccessRequest("F", 64, 64, op="ld_red"))
    assert (red.shape, red.num, red.pack16) == ("16x32bx2", 32, False)
    with pytest.raises(IsaRuleError, match="tcgen05.ld.red has only"):
        MaxWidth().access(AccessRequest("D", 64, 64, op="ld_red", shape="16x64b"))
    # One column per warp cannot be an .x2 message.
    with pytest.raises(IsaRuleError, match="cannot tile"):
        MaxWidth().access(AccessRequest("D", 64, 1, op="ld_red"))


def test_requests_win_and_impossible_budgets_are_reported():
    access = RegisterBudget(8).access(AccessRequest("D", 64, 64, shape="16x128b", num=16))
    assert (access.shape, access.num, access.messages) == ("16x128b", 16, 2)
    with pytest.raises(IsaRuleError, match="no chunk"):
        RegisterBudget(2).chunk_width(AccessRequest("D", 64, 64, shape="16x256b"))


def test_an_ops_own_num_wins_over_the_budget():
    # .32x32b.x64: 64 columns and 64 registers per message (Table 47); Layout D's warps each
    # move every column, so chunks are whole multiples of 64 columns.
    own = AccessRequest("D", 256, 256, shape="32x32b", num=64)
    assert RegisterBudget(32).chunk_width(own) == 64    # one message, over the budget
    assert RegisterBudget(128).chunk_width(own) == 128  # two messages fit in 128
    assert num_exceeds_budget(RegisterBudget(32), own) == 64
    assert num_exceeds_budget(RegisterBudget(64), own) is None
    assert num_exceeds_budget(MaxWidth(), own) is None
    # Without a num of its own the budget decides the messages.
    assert RegisterBudget(32).chunk_width(AccessRequest("D", 256, 256, shape="32x32b")) == 32
    # .16x256b.x4 moves 32 columns per message in each 16-lane half (8 per repetition,
    # 9.7.16.2.3) and 16 registers (Table 47); each warp of Layout D needs two messages,
    # one per 16-lane half of its quarter, so a 32-column chunk holds 32 registers.
    wide = AccessRequest("D", 64, 64, shape="16x256b", num=4)
    assert RegisterBudget(16).chunk_width(wide) == 32
    assert num_exceeds_budget(RegisterBudget(16), wide) == 32
    assert num_exceeds_budget(RegisterBudget(32), wide) is None
