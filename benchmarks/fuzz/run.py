"""The long mutation-fuzzing run (issues 12 and 25): N mutants of every shipped .mlir,
each compiled to PTX in a worker process with a time limit and classified (tests/fuzz/run.py
lists the classes); the report gives the counts per class and, per distinct failure
signature, the smallest reproducer found (then shrunk by deleting lines) and its message.

    python benchmarks/fuzz/run.py --mutants N --seed S [--jobs J] [--timeout T]
                                  [-o benchmarks/fuzz/REPORT.md] [--json FINDINGS.json]
    python benchmarks/fuzz/run.py --seed S --show K     # print mutant K of campaign S

Run long campaigns with ``nice -n 10``. The report is rewritten every --checkpoint
mutants (without minimisation), so a stopped run leaves what it found. The exit status is
1 if any failure signature was found.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from fuzz.corpus import load_seeds  # noqa: E402
from fuzz.mutate import Mutator  # noqa: E402
from fuzz.run import DEFAULT_TIMEOUT, commit_of, report_markdown, run_campaign  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--mutants", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT,
                        help=f"seconds per mutant before it is a hang ({DEFAULT_TIMEOUT:g})")
    parser.add_argument("--minimise", type=float, default=60.0, metavar="SECONDS",
                        help="line-deletion budget per signature (0: keep the shortest "
                             "mutant as found)")
    parser.add_argument("--checkpoint", type=int, default=5000,
                        help="rewrite the report every this many mutants")
    parser.add_argument("--no-ptxas", action="store_true", help="do not assemble the PTX")
    parser.add_argument("--show", type=int, metavar="K",
                        help="print mutant K of the campaign (its mutations and text) and exit")
    parser.add_argument("-o", "--output", type=Path, help="write the Markdown report here")
    parser.add_argument("--json", type=Path,
                        help="also write the findings (signature, class, count, reproducer, "
                             "message) as JSON here")
    args = parser.parse_args(argv)

    mutator = Mutator(load_seeds())
    if args.show is not None:
        mutant = mutator.mutant(args.seed, args.show)
        print(f"// mutant {args.show} of campaign {args.seed}: {mutant.seed_name}")
        for m in mutant.mutations:
            print(f"//   {m}")
        print(mutant.text, end="")
        return 0

    command = "python benchmarks/fuzz/run.py " + " ".join(
        a if " " not in a else repr(a) for a in (argv if argv is not None else sys.argv[1:]))
    commit = commit_of(ROOT)
    start = time.monotonic()

    def progress(n, campaign):
        if n % 500 == 0 or n == args.mutants:
            rate = n / max(time.monotonic() - start, 1e-9)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(campaign.counts.items()))
            print(f"[{n}/{args.mutants}] {rate:.1f}/s {counts}; "
                  f"{len(campaign.findings)} signature(s)", file=sys.stderr, flush=True)
        if args.output and args.checkpoint and n % args.checkpoint == 0 and n < args.mutants:
            campaign.seconds = time.monotonic() - start
            args.output.write_text(report_markdown(campaign, command + "  (in progress: "
                                                   f"{n} of {args.mutants})", commit))

    campaign = run_campaign(args.mutants, args.seed, jobs=args.jobs, timeout=args.timeout,
                            ptxas=not args.no_ptxas, minimise_budget=args.minimise,
                            progress=progress, mutator=mutator)
    report = report_markdown(campaign, command, commit)
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(report)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        print(report)
    if args.json:
        args.json.write_text(json.dumps(
            [{"signature": f.signature, "class": f.cls, "count": f.count, "mutant": f.index,
              "seed": f.seed_name, "mutations": f.mutations, "minimised": f.minimised,
              "reproducer": f.text, "message": f.message}
             for f in sorted(campaign.findings.values(), key=lambda f: f.signature)],
            indent=1) + "\n")
    for finding in sorted(campaign.findings.values(), key=lambda f: f.signature):
        print(f"{finding.count:6d}  {finding.signature}", file=sys.stderr)
    return 1 if campaign.findings else 0


if __name__ == "__main__":
    sys.exit(main())
