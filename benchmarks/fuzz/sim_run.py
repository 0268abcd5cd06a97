"""The simulator's fuzzing run (issue 34): N inputs of tcgen05-sim (mutated check files,
manifests, --set and --grid values, compiled MLIR mutants of shipped examples; tests/fuzz/
sim_fuzz.py), each run in a worker process with a time limit and classified; the report
gives the counts per class, per mutation operator and per example, and, per distinct
failure signature, the smallest reproducer found and its message.

    python benchmarks/fuzz/sim_run.py --inputs N --seed S [--jobs J] [--timeout T]
                                      [-o benchmarks/fuzz/SIM_REPORT.md]
    python benchmarks/fuzz/sim_run.py --seed S --show K     # print input K of campaign S

The exit status is 1 if any failure signature was found.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from fuzz.run import commit_of  # noqa: E402
from fuzz.sim_fuzz import SIM_TIMEOUT, SimFuzzer, report_markdown, run_sim_campaign  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--inputs", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--timeout", type=float, default=SIM_TIMEOUT,
                        help=f"seconds per input before it is a hang ({SIM_TIMEOUT:g})")
    parser.add_argument("--show", type=int, metavar="K",
                        help="print input K of the campaign (its mutations, arguments and "
                             "files but the PTX) and exit")
    parser.add_argument("-o", "--output", type=Path, help="write the Markdown report here")
    args = parser.parse_args(argv)

    fuzzer = SimFuzzer()
    if args.show is not None:
        case = fuzzer.case(args.seed, args.show)
        print(f"# input {args.show} of campaign {args.seed}: {case.base}")
        for m in case.mutations:
            print(f"#   {m}")
        print("# tcgen05-sim " + " ".join(case.argv))
        for name, text in case.files.items():
            if name != "kernel.ptx":
                print(f"# --- {name}\n{text}")
        return 0

    command = "python benchmarks/fuzz/sim_run.py " + " ".join(
        a if " " not in a else repr(a) for a in (argv if argv is not None else sys.argv[1:]))
    start = time.monotonic()

    def progress(n, campaign):
        if n % 100 == 0 or n == args.inputs:
            rate = n / max(time.monotonic() - start, 1e-9)
            counts = ", ".join(f"{k} {v}" for k, v in sorted(campaign.counts.items()))
            print(f"[{n}/{args.inputs}] {rate:.1f}/s {counts}; "
                  f"{len(campaign.findings)} signature(s)", file=sys.stderr, flush=True)

    campaign = run_sim_campaign(args.inputs, args.seed, jobs=args.jobs, timeout=args.timeout,
                                fuzzer=fuzzer, progress=progress)
    report = report_markdown(campaign, command, commit_of(ROOT))
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text(report)
        print(f"wrote {args.output}", file=sys.stderr)
    else:
        print(report)
    for finding in sorted(campaign.findings.values(), key=lambda f: f.signature):
        print(f"{finding.count:6d}  {finding.signature}", file=sys.stderr)
    return 1 if campaign.findings else 0


if __name__ == "__main__":
    sys.exit(main())
