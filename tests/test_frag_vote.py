"""tcgen05.frag_vote: a warp's vote (PTX vote.sync.any / .all) over the rows it holds of a
per-row value, the i1 a branch takes uniformly in each warp (FlashAttention-4's
conditional rescaling decides with it). tests/kernels/frag_vote.mlir loads A (128 x 32
f32) through tensor memory, votes on "the row's max exceeds 0.5" and stores A or 2 A per
warp. Expected values by hand: warp w holds rows 32 w .. 32 w + 31 (.32x32b,
9.7.16.8.1), so its any / all are NumPy's over those rows."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from conftest import requires_ptxas
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import compile_source
from tcgen05_lower.sim.api import simulate
from tcgen05_lower.sim.state import SimError

KERNEL = Path(__file__).parent / "kernels" / "frag_vote.mlir"


@pytest.fixture(scope="module")
def compiled():
    return compile_source(KERNEL.read_text(), KERNEL.name)


def inputs():
    """Warp 0: no row over 0.5; warp 1: one row; warp 2: every row; warp 3: all rows but
    one."""
    rng = np.random.default_rng(0)
    a = rng.uniform(0, 0.4, (128, 32)).astype(np.float32)
    a[32 + 5, 7] = 0.9
    a[64:96, 3] = 0.8
    a[96:128, 9] = 0.7
    a[96 + 2, 9] = 0.1
    zeros = np.zeros((128, 32), np.float32)
    return {"A": a, "O": zeros.copy(), "P": zeros.copy()}


@pytest.mark.parametrize("schedule", ["late", "eager"])
def test_each_warp_votes_over_its_rows(compiled, schedule):
    given = inputs()
    a = given["A"].copy()
    sim = simulate(compiled.ptx, compiled.manifest, given, schedule=schedule)
    assert not sim.races and not sim.problems
    over = (a.max(axis=1) > 0.5).reshape(4, 32)
    assert over.any(axis=1).tolist() == [False, True, True, True]
    assert over.all(axis=1).tolist() == [False, False, True, False]
    for name, votes in (("O", over.any(axis=1)), ("P", over.all(axis=1))):
        factor = np.repeat(np.where(votes, 2.0, 1.0), 32)[:, None].astype(np.float32)
        assert np.array_equal(sim.outputs[name].reshape(128, 32), a * factor), name


def test_a_thread_outside_the_membermask_is_an_error(compiled):
    """vote.sync's membermask must name every executing thread (PTX ISA, vote): lanes 16-31
    left out."""
    ptx = re.sub(r"(vote\.sync\.any\.pred vote_out, vote_in, )0xffffffff", r"\g<1>0x0000ffff",
                 compiled.ptx)
    assert ptx != compiled.ptx
    with pytest.raises(SimError, match="vote.sync: a thread is not in its own membermask"):
        simulate(ptx, compiled.manifest, inputs())


@requires_ptxas
def test_ptxas_accepts_the_vote(compiled):
    assert "vote.sync.all.pred" in compiled.ptx
    assembled = run_ptxas(compiled.ptx, arch="sm_100a")
    assert assembled.ok, assembled.stderr
