"""Compares tcgen05-insert-sync's strategies on every example and corpus kernel.

    python benchmarks/sync/compare_strategies.py               # print the report
    python benchmarks/sync/compare_strategies.py -o benchmarks/sync/REPORT.md
    python benchmarks/sync/compare_strategies.py --before 6b1b613 -o benchmarks/sync/REPORT.md

For each kernel and strategy (minimal, conservative): the sync ops added, by kind; the
mbarriers used; whether tcgen05-verify-sync accepts the result; and the mutation count:
how many of the added ops can each be deleted with verify-sync still accepting the kernel
(ops that no dependence needs). Kernels that planning rejects, or that insert-sync reports
as not supported, are listed with the reason. With ``--before REF``, the report also
compares each kernel's totals with those of the report committed at git revision REF
(read through ``git show REF:benchmarks/sync/REPORT.md``).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import time
from pathlib import Path

# The MLIR bindings retry importing a Python module for the tcgen05 dialect on every op,
# type and value they wrap; an empty module stops that (same results, faster).

from tcgen05_lower import dialect as d  # noqa: E402
from tcgen05_lower.bindings import MLIRError, capture_diagnostics, error_diagnostics  # noqa: E402
from tcgen05_lower.parsing import parse_module  # noqa: E402
from tcgen05_lower.passes.tcgen05_insert_sync import (COUNTED,  # noqa: E402
                                                      Tcgen05InsertSync, count_sync_ops)
from tcgen05_lower.passes.tcgen05_verify_sync import Tcgen05VerifySync  # noqa: E402
from tcgen05_lower.pipeline import (before_sync, build_pass_manager,  # noqa: E402
                                    parse_pipeline)

ROOT = Path(__file__).resolve().parent.parent.parent
STRATEGIES = ("minimal", "conservative")


def kernels() -> list[Path]:
    return sorted((ROOT / "examples").glob("*.mlir")) + \
        sorted((ROOT / "benchmarks" / "tmem").glob("**/*.mlir"))


def reason_of(diagnostics) -> str:
    errors = [x.message for x in diagnostics if x.severity == "error"]
    return errors[0] if errors else "unknown"


def measure(path: Path, strategy: str, mutations: bool = True) -> dict:
    """One kernel under one strategy: counts, verdict and mutation count (or a skip)."""
    text = path.read_text()
    match = re.search(r"^// PIPELINE: (.*)$", text, re.M)
    context = d.make_context()
    with context, capture_diagnostics(context) as diagnostics:
        try:
            module = parse_module(text, str(path))
            build_pass_manager(parse_pipeline(
                before_sync(match.group(1) if match else None))).run(module)
        except MLIRError as error:
            return {"skip": "planning rejects it: " +
                    reason_of(list(diagnostics) + error_diagnostics(error))}
        start = time.perf_counter()
        inserted = Tcgen05InsertSync(strategy=strategy).run_on(module)
        if not inserted:
            return {"skip": "insert-sync: " + reason_of(diagnostics)}
        seconds = time.perf_counter() - start
        added = [op for ops in inserted.inserted.values() for op in ops]
        counts = count_sync_ops(added)
        barriers = sum(1 for kernel in d.kernels(module) for op in d.walk_ops(kernel)
                       if d.op_name(op) == "alloc_mbarrier")
        ordered = Tcgen05VerifySync().run_on(module)
        planned = module.get_asm(enable_debug_info=True)
    redundant = 0
    if not mutations:
        return {"counts": counts, "barriers": barriers, "ordered": ordered}
    context = d.make_context()
    with context, capture_diagnostics(context):
        module = parse_module(planned, str(path))
        for index in range(len(added)):
            mutant = module.clone()
            ops = [op for kernel in d.kernels(mutant) for op in d.walk_ops(kernel)
                   if "reason" in op.attributes]
            ops[index].erase()
            if Tcgen05VerifySync().run_on(mutant):
                redundant += 1
    return {"counts": counts, "barriers": barriers, "ordered": ordered,
            "redundant": redundant, "seconds": seconds}


REPORT = "benchmarks/sync/REPORT.md"


def committed_totals(ref: str) -> dict:
    """(kernel, strategy) -> total sync ops, from the report committed at git `ref`."""
    text = subprocess.run(["git", "show", f"{ref}:{REPORT}"], cwd=ROOT, check=True,
                          capture_output=True, text=True).stdout
    header = next(line for line in text.splitlines() if line.startswith("| kernel |"))
    columns = [c.strip() for c in header.strip("|").split("|")]
    found = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == len(columns) and cells[1] in STRATEGIES:
            found[(cells[0], cells[1])] = int(cells[columns.index("total")])
    return found


def whole_a_total(path: Path) -> int | None:
    """The minimal total when insert-sync reads an MMA's A in tensor memory as its whole
    buffer (as before issue 19), not the columns of its K block: ``a_block_cells``
    replaced for the one run. None when the kernel does not plan."""
    from tcgen05_lower.synchronization import accesses as sync

    def whole(op, value, buffers):
        start, columns, lanes, _, _ = buffers.cells(value)
        return sync.Cells(start, start + columns, lanes, None, (start, start + columns))

    saved = sync.a_block_cells
    sync.a_block_cells = whole
    try:
        found = measure(path, "minimal", mutations=False)
    finally:
        sync.a_block_cells = saved
    return None if "skip" in found else found["counts"]["total"]


def before_after(ref: str, now: dict) -> list[str]:
    """The section comparing this run's totals (`now`: (kernel, strategy) -> total)
    with the report committed at `ref`."""
    before = committed_totals(ref)
    short, subject = subprocess.run(
        ["git", "log", "-1", "--format=%h%n%s", ref], cwd=ROOT, check=True,
        capture_output=True, text=True).stdout.splitlines()[:2]
    lines = [f"## Before and after: totals against the report at {short}", "",
             f"\"Before\" is the table of `git show {ref}:{REPORT}` (commit {short}, "
             f"\"{subject[:100]}\"); \"after\" is the table above. `-` marks a "
             "kernel one of the two did not measure. `minimal, A whole` is this "
             "revision's minimal strategy with an MMA's read of A in tensor memory taken as "
             "its whole buffer again (`a_block_cells` replaced for that run), for the "
             "kernels that did not exist at the earlier revision too.", "",
             "| kernel | minimal before | minimal after | change | minimal, A whole | "
             "conservative before | conservative after |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    names = list(dict.fromkeys([k for k, _ in now] + [k for k, _ in before]))
    paths = {f"{p.parent.name}/{p.stem}": p for p in kernels()}
    emulated = []
    sums = {key: 0 for key in ("mb", "ma", "cb", "ca")}
    for name in names:
        mb, ma = before.get((name, "minimal")), now.get((name, "minimal"))
        cb, ca = before.get((name, "conservative")), now.get((name, "conservative"))
        change = "-" if mb is None or ma is None else ("0" if ma == mb else f"{ma - mb:+d}")
        if None not in (mb, ma, cb, ca):
            for key, value in zip(("mb", "ma", "cb", "ca"), (mb, ma, cb, ca)):
                sums[key] += value
        show = (lambda v: "-" if v is None else str(v))
        whole = whole_a_total(paths[name]) if name in paths else None
        if whole is not None and ma is not None and whole != ma:
            emulated.append(f"{name} ({whole} -> {ma})")
        lines.append(f"| {name} | {show(mb)} | {show(ma)} | {change} | {show(whole)} | "
                     f"{show(cb)} | {show(ca)} |")
    lines.append(f"| **kernels measured in both** | **{sums['mb']}** | **{sums['ma']}** | "
                 f"**{sums['ma'] - sums['mb']:+d}** | | **{sums['cb']}** | "
                 f"**{sums['ca']}** |")
    changed = [n for n in names if before.get((n, "minimal")) is not None and
               now.get((n, "minimal")) is not None and
               before[(n, "minimal")] != now[(n, "minimal")]]
    lines += ["", "Kernels whose minimal total changed since the earlier report: " +
              (", ".join(changed) if changed else "none") + ". Kernels whose minimal "
              "total depends on reading A by K block (A whole -> K block): " +
              (", ".join(emulated) if emulated else "none") + ".", ""]
    return lines


def report(before: str | None = None) -> str:
    labels = [label for label, _ in COUNTED]
    lines = [
        "# tcgen05-insert-sync: minimal vs. conservative",
        "",
        "Generated by `python benchmarks/sync/compare_strategies.py "
        f"{f'--before {before} ' if before else ''}-o "
        "benchmarks/sync/REPORT.md` on every example and corpus kernel "
        "(benchmarks/tmem). Per kernel and strategy: the sync ops added, by kind; the "
        "mbarriers allocated; whether tcgen05-verify-sync accepts the result (`ok`); and "
        "`redundant`, how many of the added ops can each be deleted with verify-sync "
        "still accepting the kernel (under conservative, the completions no dependence "
        "needs; the line after the table lists the kernels where minimal has any). "
        "Kernels with scf.while are "
        "synchronized by completing each run of asynchronous ops inside the loop, then "
        "dropping what no dependence needs (corpus/36, examples/gemm_bf16_kloop_dynamic).",
        "",
        "| kernel | strategy | " + " | ".join(labels) + " | total | mbarriers | ok | "
        "redundant |",
        "|" + "---|" * (len(labels) + 6),
    ]
    skipped = []
    totals = {s: 0 for s in STRATEGIES}
    worse = []
    redundant = []
    now = {}
    for path in kernels():
        name = f"{path.parent.name}/{path.stem}"
        results = {s: measure(path, s) for s in STRATEGIES}
        if any("skip" in r for r in results.values()):
            skipped.append((name, next(r["skip"] for r in results.values() if "skip" in r)))
            continue
        for strategy, r in results.items():
            c = r["counts"]
            totals[strategy] += c["total"]
            now[(name, strategy)] = c["total"]
            lines.append(f"| {name} | {strategy} | " + " | ".join(str(c[x]) for x in labels) +
                         f" | {c['total']} | {r['barriers']} | "
                         f"{'yes' if r['ordered'] else 'NO'} | {r['redundant']} |")
        if results["minimal"]["counts"]["total"] > results["conservative"]["counts"]["total"]:
            worse.append(name)
        if results["minimal"]["redundant"]:
            redundant.append(name)
    lines += ["", f"Totals: minimal {totals['minimal']} ops, conservative "
              f"{totals['conservative']} ops. Kernels where minimal adds more than "
              f"conservative: {', '.join(worse) if worse else 'none'}. Kernels where "
              f"minimal adds an op verify-sync finds redundant: "
              f"{', '.join(redundant) if redundant else 'none'}.", ""]
    if skipped:
        lines += ["Not measured:", ""]
        lines += [f"- {name}: {why}" for name, why in skipped]
        lines.append("")
    if before:
        lines += before_after(before, now)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", dest="output", help="write the report here")
    parser.add_argument("--before", metavar="REF",
                        help="compare the totals with the report committed at git REF")
    args = parser.parse_args()
    text = report(args.before)
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
