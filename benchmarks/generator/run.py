"""Generated kernels over the feature lattice (issue 33): kernel i of campaign SEED is
compiled, assembled with ptxas, simulated under the late and eager schedules and compared
with its NumPy reference (tests/generator/check.py); the report gives, per pair of
features, the kernels generated and passed (with the value pairs covered), the pairs no
valid kernel can have and why, and each failure signature with its shrunk reproducer.

    python benchmarks/generator/run.py --count N --seed S [--start I] [--jobs J]
                                       [--results FILE.jsonl] [-o REPORT.md]
    python benchmarks/generator/run.py --seed S --show I      # print kernel I's MLIR

Results are appended to --results (one JSON line per kernel: its index and outcome; a
later line of an index replaces an earlier one), so a campaign can run in chunks
(--start) and the report covers every chunk so far; --report-only rewrites the report
from the results; --retry-known reruns the kernels that failed by a known open bug
(check.KNOWN), once its fix is merged. Exit status 1 on any failure that no
known bug explains.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))

from generator import campaign  # noqa: E402
from generator import check  # noqa: E402
from generator import kernelgen as kg  # noqa: E402
from fuzz.run import commit_of  # noqa: E402

HERE = Path(__file__).resolve().parent


def _work(spec: kg.Spec) -> dict:
    outcome = check.run_spec(spec)
    return {"stage": outcome.stage, "message": outcome.message[:600],
            "seconds": round(outcome.seconds, 3), "known": outcome.known()}


def _load(path: Path, seed: int) -> dict:
    out = {}
    if path.exists():
        for line in path.read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                if row["seed"] == seed:
                    out[row["i"]] = row
    return out


def report(seed: int, results: dict, shrunk: dict, commands: list[str],
           pin: dict | None = None) -> str:
    count = max(results) + 1 if results else 0
    specs, _ = campaign.specs(seed, count, pin)
    # The first 400 kernels settle every pair (covered or infeasible; the generator's
    # test checks it), so the list of infeasible pairs is complete.
    _, infeasible = campaign.specs(seed, max(count, 400), pin)
    done = [(specs[i], results[i]) for i in sorted(results)]
    passed = sum(r["stage"] == "ok" for _, r in done)
    known = [(s, r) for s, r in done if r["stage"] != "ok" and r.get("known")]
    failed = [(s, r) for s, r in done if r["stage"] != "ok" and not r.get("known")]
    seconds = sum(r["seconds"] for _, r in done)
    table = campaign.tally([(s, r["stage"] == "ok") for s, r in done])
    feasible_total = len(campaign.value_pairs()) - len(infeasible)
    covered = {(a, b) for (fa, fb), cells in table.items() for (va, vb) in cells
               for a, b in [((fa, va), (fb, vb))]}
    lines = [
        "# Generated kernels",
        "",
        "Written by `benchmarks/generator/run.py` (issue 33). Each kernel is one point of the "
        "feature lattice of `tests/generator/kernelgen.py`; it must compile with the default "
        "pipeline, pass ptxas (sm_100a), simulate with no race, no simulator error and "
        "nothing left at exit under both the late and the eager schedule, and match its "
        "NumPy reference (computed from the inputs in float64, tolerance derived from the "
        "element types: `kernelgen.reference`) in every element of C, with C's padding "
        "columns untouched.",
        "",
        "Commands (in order):",
        "",
        "```sh",
        *commands,
        "```",
        "",
        f"- campaign seed {seed}: **{len(done)} kernels**, **{passed} passed**, "
        f"{len(known)} failed by a known open bug, **{len(failed)} failed otherwise**; "
        f"{seconds:.0f} s of checks in all ({seconds / max(len(done), 1):.2f} s per kernel)",
        f"- pairs of feature values: {len(covered & set(map(tuple, campaign.value_pairs())))}"
        f" of the {feasible_total} feasible ones covered; {len(infeasible)} infeasible (below)",
    ]
    if pin:
        lines.append("- a focused campaign (--pin): every kernel a free draw with " + ", ".join(
            f"{k} in {{{', '.join(map(str, v))}}}" for k, v in pin.items()) + "; no pair "
            "covering, so the pairs the pin excludes count as uncovered and none as "
            "infeasible")
    unpassed = sorted((fa, va, fb, vb) for (fa, fb), cells in table.items()
                      for (va, vb), (g, ok) in cells.items() if ok == 0)
    lines.append(f"- pairs of feature values covered only by kernels that failed: "
                 f"{len(unpassed)}" + (" (below)" if unpassed else ""))
    lines.append("")
    if known:
        lines += ["## Failures of known open bugs", ""]
        by = {}
        for s, r in known:
            by.setdefault(r["known"], []).append(s)
        for bug, ss in by.items():
            lines.append(f"- {bug}: {len(ss)} kernels (first: `{ss[0].key()}`)")
        lines.append("")
    if unpassed:
        lines += ["## Pairs of values no kernel passed", "",
                  "Every kernel with both values failed (by the known bugs above):", ""]
        lines += [f"- {fa}={va}, {fb}={vb}" for fa, va, fb, vb in unpassed]
        lines.append("")
    lines += ["## Failures", ""]
    if not failed:
        lines += ["None.", ""]
    sigs = {}
    for s, r in failed:
        sig = check.Outcome(s, r["stage"], r["message"]).signature
        sigs.setdefault(sig, []).append((s, r))
    for sig, items in sigs.items():
        s, r = items[0]
        small = shrunk.get(sig)
        lines += [f"### {sig}", "", f"{len(items)} kernels; first `{s.key()}`:", "",
                  "```", r["message"], "```", ""]
        if small:
            lines += [f"Shrunk to `{small}`.", ""]
    lines += ["## Per pair of features", "",
              "A feature is on in a kernel when it is not at its base value (the first of "
              "`kernelgen.FEATURES`: bf16, M = 128, N = 64, B stored N x K, A in shared "
              "memory, a uniform program, fills, one stage, one accumulator, one CTA, "
              "static shapes, an f32 store, no bias, no activation, no scale, one K block, "
              "one tile, no cluster, no row reduction, the default tcgen05.ld shape, no "
              "chained GEMM, strategy=auto; "
              "block_scale is on for the mx kinds, row_shuffle for a row reduction of "
              ".16x32bx2 fragments). For each pair of features: "
              "the kernels with both on, how many passed, and how many pairs of their "
              "values (all values, on or off) the campaign covered of those feasible.", "",
              "| feature | feature | both on: generated | both on: passed | "
              "value pairs covered |",
              "| --- | --- | ---: | ---: | --- |"]
    bad = set(infeasible)
    names = sorted({n for n in kg.Spec().features()})
    infeasible_by = {}
    for (fa, va), (fb, vb) in infeasible:
        infeasible_by.setdefault((fa, fb), []).append((va, vb))
    both = {}
    for s, r in done:
        on = sorted(k for k, v in s.features().items()
                    if (k in campaign.DERIVED and v) or
                    (k not in campaign.DERIVED and v != kg.FEATURES[k][0]))
        for i, fa in enumerate(on):
            for fb in on[i + 1:]:
                cell = both.setdefault((fa, fb), [0, 0])
                cell[0] += 1
                cell[1] += r["stage"] == "ok"
    for i, fa in enumerate(names):
        for fb in names[i + 1:]:
            cells = table.get((fa, fb), {})
            gen, ok = both.get((fa, fb), (0, 0))
            n_a = len(kg.FEATURES.get(fa, [0, 1]))
            n_b = len(kg.FEATURES.get(fb, [0, 1]))
            feasible = n_a * n_b - len(infeasible_by.get((fa, fb), []))
            on_a = [str(v) for v in kg.FEATURES[fa][1:]] if fa in kg.FEATURES else ["True"]
            on_b = [str(v) for v in kg.FEATURES[fb][1:]] if fb in kg.FEATURES else ["True"]
            possible = any(((fa, a), (fb, b)) not in bad for a in on_a for b in on_b)
            note = "" if possible else " (no valid kernel has both on: below)"
            lines.append(f"| {fa} | {fb} | {gen} | {ok} | {len(cells)} / {feasible}{note} |")
    lines += ["", "## Pairs of values no valid kernel has", "",
              "Each is a combination the compiler (or the simulator) does not take, found by "
              "the generator's rules (`kernelgen.problems`), with the reason.", ""]
    for pair in sorted(infeasible):
        (fa, va), (fb, vb) = pair
        lines.append(f"- {fa}={va}, {fb}={vb}: {campaign.infeasible_reason(pair)}")
    lines += ["", "## Kernels per value", ""]
    per_value = {}
    for s, r in done:
        for k, v in s.features().items():
            cell = per_value.setdefault((k, str(v)), [0, 0])
            cell[0] += 1
            cell[1] += r["stage"] == "ok"
    lines += ["| feature | value | generated | passed |", "| --- | --- | ---: | ---: |"]
    for (k, v), (g, p) in sorted(per_value.items()):
        lines.append(f"| {k} | {v} | {g} | {p} |")
    return "\n".join(lines) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--count", type=int, default=100)
    parser.add_argument("--seed", type=int, default=33)
    parser.add_argument("--start", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--results", type=Path, default=HERE / "results.jsonl")
    parser.add_argument("-o", "--output", type=Path, default=HERE / "REPORT.md")
    parser.add_argument("--show", type=int, default=None)
    parser.add_argument("--shrink", type=int, default=30, help="runs per shrunk failure")
    parser.add_argument("--report-only", action="store_true")
    parser.add_argument("--pin", action="append", default=[], metavar="FEATURE=V1,V2",
                        help="a focused campaign: every kernel drawn with FEATURE among "
                             "the values (free draws, no pair covering)")
    parser.add_argument("--retry-known", action="store_true",
                        help="rerun only the kernels whose last result is a failure of a "
                             "known open bug (after its fix is merged)")
    args = parser.parse_args(argv)
    pin = {}
    for item in args.pin:
        name, _, values = item.partition("=")
        pin[name] = [campaign._typed(name, v) for v in values.split(",")]
    pin = pin or None

    if args.show is not None:
        specs, _ = campaign.specs(args.seed, args.show + 1, pin)
        print("//", specs[args.show].key())
        print(kg.render(specs[args.show]), end="")
        return 0
    # the code the kernels run with is the checkout's when the run starts (a commit made
    # during a long run must not be recorded as the one it ran at)
    started_at = commit_of(ROOT, mark_changes=True) or "an unknown commit"
    if not args.report_only:
        if args.retry_known:
            last = _load(args.results, args.seed)
            todo = sorted(i for i, row in last.items() if row.get("known"))
            specs, _ = campaign.specs(args.seed, max(last) + 1 if last else 0, pin)
        else:
            specs, _ = campaign.specs(args.seed, args.start + args.count, pin)
            todo = list(range(args.start, args.start + args.count))
        start = time.perf_counter()
        args.results.parent.mkdir(parents=True, exist_ok=True)
        with args.results.open("a") as sink:
            pool = multiprocessing.Pool(args.jobs) if args.jobs > 1 else None
            mapper = pool.imap if pool else map
            for n, (i, row) in enumerate(zip(todo, mapper(_work, [specs[i] for i in todo]))):
                sink.write(json.dumps({"seed": args.seed, "i": i, **row}) + "\n")
                sink.flush()
                if row["stage"] != "ok":
                    print(f"kernel {i}: {row['stage']} {row['known'] or ''}\n  "
                          f"{specs[i].key()}\n  {row['message'][:300]}", file=sys.stderr)
                if (n + 1) % 50 == 0:
                    print(f"{n + 1} / {len(todo)} in {time.perf_counter() - start:.0f} s",
                          file=sys.stderr)
            if pool:
                pool.close()
    results = _load(args.results, args.seed)
    if not results:
        print("no results", file=sys.stderr)
        return 1
    specs, _ = campaign.specs(args.seed, max(results) + 1, pin)
    shrunk, failing = {}, False
    for i in sorted(results):
        row = results[i]
        if row["stage"] == "ok" or row.get("known"):
            continue
        failing = True
        outcome = check.Outcome(specs[i], row["stage"], row["message"])
        if outcome.signature not in shrunk and args.shrink:
            small = check.shrink(outcome, budget=args.shrink)
            shrunk[outcome.signature] = small.spec.key()
    commands_file = args.results.with_suffix(".commands")
    commands = commands_file.read_text().splitlines() if commands_file.exists() else []
    if not args.report_only:
        line = ("python benchmarks/generator/run.py " + " ".join(
            a if " " not in a else repr(a) for a in (argv or sys.argv[1:])))
        commands.append(f"{line}   # at {started_at}")
        commands_file.write_text("\n".join(commands) + "\n")
    args.output.write_text(report(args.seed, results, shrunk, commands, pin))
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
