"""A bounded, seeded mutation-fuzzing campaign (issues 12 and 25; tests/fuzz/).

Mutants of every shipped .mlir are compiled to PTX in a worker process with a time limit;
each must compile to PTX that ptxas accepts or fail with diagnostics that all have a
line. Any signal, hang, internal error, ptxas rejection or diagnostic without a location
fails the test, unless its signature is one of KNOWN below: those are compiler bugs found
by the fuzzer and not fixed yet, and make the test xfail with their names. A NEW
signature fails it. When a known bug is fixed, delete its entry.

The long run is ``benchmarks/fuzz/run.py`` (benchmarks/fuzz/REPORT.md).
"""

from __future__ import annotations

import random
import time

import pytest

from fuzz.corpus import load_seeds
from fuzz.mutate import Mutator, flag_values, split_flags, statements, with_flags
from fuzz.run import BAD, Pool, normalise, run_campaign

FUZZ_SEED = 12
FUZZ_MUTANTS = 1000

#: Failure signatures of today's compiler that this campaign finds -> why they happen.
KNOWN: dict[str, str] = {}


@pytest.fixture(scope="module")
def mutator():
    return Mutator(load_seeds())


def _describe(finding) -> str:
    return (f"{finding.signature}\n  ({finding.count} mutant(s); shortest: #{finding.index} "
            f"of {finding.seed_name}: {'; '.join(finding.mutations)})\n"
            f"  message: {finding.message.strip()[:400]}\n"
            + "\n".join("    | " + line for line in finding.text.splitlines()))


def test_fuzz_campaign_finds_no_new_failure(mutator):
    start = time.monotonic()
    campaign = run_campaign(FUZZ_MUTANTS, FUZZ_SEED, jobs=1, mutator=mutator)
    elapsed = time.monotonic() - start
    assert sum(campaign.counts.values()) == FUZZ_MUTANTS
    # The mutations must reach the back end, not only the parser.
    assert campaign.counts["ok"] >= FUZZ_MUTANTS // 20, campaign.counts
    new = [f for s, f in sorted(campaign.findings.items()) if s not in KNOWN]
    assert not new, (f"{len(new)} new failure signature(s) in {elapsed:.0f} s:\n\n"
                     + "\n\n".join(_describe(f) for f in new))
    known = sorted(s for s in campaign.findings if s in KNOWN)
    if known:
        pytest.xfail("known compiler bugs found by the fuzzer: "
                     + "; ".join(f"[{s}] {KNOWN[s]}" for s in known))


def test_mutants_are_deterministic(mutator):
    first = [mutator.mutant(7, k) for k in range(40)]
    again = [mutator.mutant(7, k) for k in reversed(range(40))][::-1]
    assert [(m.text, m.mutations) for m in first] == [(m.text, m.mutations) for m in again]
    assert len({m.text for m in first}) > 30
    assert all(m.mutations for m in first)


def test_every_operator_applies_to_an_example(mutator):
    text = next(s.text for s in mutator.seeds if s.name == "examples/gemm_bf16_kloop.mlir")
    for op, _ in mutator.operators:
        rng = random.Random(op.__name__)
        results = [op(text, rng) for _ in range(20)]
        changed = [r for r in results if r is not None and r[0] != text]
        assert changed, op.__name__


def test_statements_of_a_kernel(mutator):
    text = next(s.text for s in mutator.seeds if s.name == "examples/gemm_bf16_kloop.mlir")
    lines = text.split("\n")
    stmts = statements(text)
    # the example's five type aliases (one line each), then the kernel
    aliases = [s for s in stmts if lines[s.start].startswith("!")]
    assert len(aliases) == 5 and all(s.end - s.start == 1 and s.parent == -1 for s in aliases)
    kernel = stmts[len(aliases)]
    assert kernel.region and lines[kernel.start].startswith("func.func")
    loops = [s for s in stmts if lines[s.start].strip().startswith("scf.for")]
    assert len(loops) == 2 and all(s.parent == len(aliases) for s in loops)
    mmas = [s for s in stmts if '"tcgen05.mma"' in lines[s.start]]
    assert len(mmas) == 4 and all(s.end - s.start == 2 for s in mmas)   # op and signature


def test_signatures_strip_particulars():
    assert normalise("m.mlir:3:5: tcgen05.mma %acc0 of 'x' has N = 250, f16") == \
        normalise("m.mlir:9:1: tcgen05.mma %d of 'yy' has N = 7, bf16")


def test_worker_crashes_and_hangs_are_classified():
    """The pool records a worker killed by a signal, one that exits and one past its time
    limit against the job in flight, and goes on with a new worker."""
    jobs = [("segv", {"selftest": "segv"}), ("exit", {"selftest": "exit"}),
            ("hang", {"selftest": "hang"}),
            ("fine", 'func.func @k() attributes {tcgen05.kernel = {target = "sm_100a", '
                     'threads = 128 : i64, cta_group = 1 : i64}} {\n  return\n}\n')]
    with Pool(1, timeout=3.0) as pool:
        got = dict(pool.run(jobs))
        assert pool.restarts == 3
    assert got["segv"].cls == "signal" and "SIGSEGV" in got["segv"].signature
    assert got["exit"].cls == "signal" and "exit 3" in got["exit"].signature
    assert got["hang"].cls == "hang" and "selftest" in got["hang"].signature
    assert got["fine"].cls == "ok", got["fine"].message
    assert {o.cls for o in got.values()} - {"ok"} <= BAD


def test_issue34_seeds_are_located_or_named():
    """The seeds of issue 34's four compiler signatures (tests/fuzz/seeds/issue34.mlir), as
    the campaign's worker classifies them: an abort (SIGABRT), an internal error, a
    diagnostic that lost its line and an option error naming neither pass nor option
    before the fixes; each a located diagnostic, a named flag error or a kernel that
    compiles now. Expected classes by hand from the seeds' comments."""
    seeds = [s for s in load_seeds() if s.name.startswith("tests/fuzz/seeds/issue34.mlir")]
    assert len(seeds) == 6
    # A misspelled kernel dictionary entry with --arch (signature 3) and a node-limit of
    # -1 (signature 4, accepted before).
    arch_seed = seeds[3].text.replace("cta_group = 1 : i64}", "cta_group = 1 : i64, x = 1}")
    flags, body = split_flags(seeds[4].text)
    negative = with_flags(body, ["--pass-option", "tcgen05-plan-tmem{node-limit=-1}"])
    jobs = [(s.name, s.text) for s in seeds] + [("arch", arch_seed), ("negative", negative)]
    with Pool(1, timeout=60.0) as pool:
        got = {key: outcome for key, outcome in pool.run(jobs)}
    classes = {key: (o.cls, o.message.splitlines()[0] if o.message else "")
               for key, o in got.items()}
    name = "tests/fuzz/seeds/issue34.mlir#"
    assert classes[name + "0"] == ("located", "argument 0: llvm.align = 48 is not a power "
                                   "of two (an alignment in bytes, as LLVM's are)"), classes
    assert classes[name + "1"][0] == "located", classes
    assert classes[name + "2"][0] == "located" and "-18446744073709551616" in \
        classes[name + "2"][1], classes
    assert classes[name + "3"][0] == "ok", classes
    assert classes[name + "4"] == ("flag", "pass 'tcgen05-plan-tmem' option 'node-limit' "
                                   "expects an integer >= 1, got 'abc'"), classes
    assert classes[name + "5"][0] == "ok", classes
    assert classes["arch"] == ("located", "tcgen05.kernel has no entry 'x' (its entries: "
                               "target, threads, cta_group, grid, cluster)"), classes
    assert classes["negative"][0] == "flag", classes


def test_flags_line_round_trips():
    text = "func.func @k() {\n  return\n}\n"
    flagged = with_flags(text, ["--arch", "sm_103a", "--pass-option",
                                "tcgen05-plan-tmem{strategy=optimal node-limit=3}"])
    assert flagged.startswith("// fuzz-flags: --arch sm_103a --pass-option "
                              "'tcgen05-plan-tmem{strategy=optimal node-limit=3}'\n")
    flags, body = split_flags(flagged)
    assert body == text
    assert flag_values(flags) == ("sm_103a",
                                  ["tcgen05-plan-tmem{strategy=optimal node-limit=3}"])
    # An unbalanced quote (a raw-character mutation of the line) is no flags at all.
    assert split_flags("// fuzz-flags: --arch 'sm_100a\n" + text)[0] == []
