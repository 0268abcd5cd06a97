"""A small fixed campaign of the simulator's fuzzer (issue 34; tests/fuzz/sim_fuzz.py):
mutated check files, manifests, --set and --grid values and compiled MLIR mutants of
three small examples, each run by tcgen05-sim in a worker process. Every outcome must be
a run that reported, a located or clear error, or a run stopped by a limit with a
message: any internal error, silent exit, crash or hang fails the test with its
reproducer. The long run is benchmarks/fuzz/sim_run.py (benchmarks/fuzz/SIM_REPORT.md)."""

from __future__ import annotations

import pytest

from fuzz.sim_fuzz import BAD, BASES, SimFuzzer, run_sim_campaign
from fuzz.sim_worker import classify

SMALL = ("gemm_bf16_128x256", "gemm_m64_pair", "gemm_bf16_pair_m128")
CASES = 16
SEED = 34


@pytest.fixture(scope="module")
def fuzzer():
    return SimFuzzer([b for b in BASES if b.example in SMALL])


def test_sim_fuzz_campaign_finds_nothing_bad(fuzzer):
    campaign = run_sim_campaign(CASES, SEED, fuzzer=fuzzer)
    assert sum(campaign.counts.values()) == CASES
    assert campaign.counts["ok"] >= 1 and campaign.counts["error"] >= 1, campaign.counts
    bad = sorted(campaign.findings.values(), key=lambda f: f.signature)
    assert not bad, "\n\n".join(
        f"{f.signature} ({f.count}): input #{f.case.index} of {f.case.base}: "
        f"{'; '.join(f.case.mutations)}\n  tcgen05-sim {' '.join(f.case.argv)}\n  "
        f"{f.message[:400]}" for f in bad)


def test_cases_are_deterministic_and_varied(fuzzer):
    first = [fuzzer.case(5, k) for k in range(30)]
    again = [fuzzer.case(5, k) for k in reversed(range(30))][::-1]
    assert [(c.files, c.argv, c.mutations) for c in first] == \
        [(c.files, c.argv, c.mutations) for c in again]
    kinds = {m.split(":")[0].split()[0] for c in first for m in c.mutations}
    assert {"check", "manifest", "--set", "--grid", "mlir"} <= kinds, kinds


def test_the_worker_classifies_by_status_and_message():
    assert classify(0, "  C: OK", "")["cls"] == "ok"
    assert classify(1, "  C (..): MISMATCH", "")["cls"] == "ok"
    assert classify(1, "", "tcgen05-sim: error: f.py:3: SyntaxError: x")["cls"] == "error"
    assert classify(1, "", "tcgen05-sim: LimitExceeded: stopped after 9 warp "
                           "instructions, ...")["cls"] == "limit"
    # a progress line is not a message
    assert classify(1, "", "tcgen05-sim: 4096 warp instructions, 2.0 s")["cls"] == "silent"
    assert classify(2, "", "tcgen05-sim: internal error: KeyError: 'x'")["cls"] == "internal"
    assert classify(1, "", "Traceback (most recent call last):\n  ...")["cls"] == "internal"
    assert classify(2, "", "usage: tcgen05-sim ...\ntcgen05-sim: error: argument "
                           "--seed: -1 is negative")["cls"] == "error"
    assert {"internal", "silent", "signal", "hang"} == BAD
