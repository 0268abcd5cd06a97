"""tcgen05-sweep: build a kernel at every point of a grid of parameters, compile it,
assemble it with ptxas, simulate it against a reference and time it; write the table and
a plot.

    tcgen05-sweep examples/sweep_ws_gemm.py --grid N=64,128,256 --grid stages=2,3,4 \\
        --jobs 2 -o results.md --csv results.csv --plot plot.svg \\
        --x stages --series N --metric utilisation

SCRIPT.py defines ``build(**params)``, returning the kernel (a
``tcgen05_lower.builder.KernelBuilder`` or MLIR text) or ``(kernel, [pass options])``
(``"tcgen05-insert-sync{ring-stages=3}"``, as tcgen05-lower --pass-option). The
reference is, first found: ``--check``; the script's ``check(**params)``, returning
what --check takes; its ``CHECK`` (a path, relative to the script); the script itself
when it is a check file (``BUFFERS`` and ``reference``, tcgen05-sim --check FILE.py);
else none (simulated and timed, numbers unchecked). ``check(**params)`` may also return
``(FILE.py, {scalar: value})``, the check file's sizes for that point (as --set). A
script's ``timing_only(**params)``, returning ``{scalar: value}``, times each point apart
from its check: a timing-only estimate at those sizes (tcgen05-sim --timing-only), so the
check runs small and the ranking comes from a larger problem.

``--grid NAME=V1,V2,...`` (repeatable) gives a parameter's values (integers, numbers or
words); the points are their cartesian product. Each point's row has its parameters,
``status`` (ok / failed / not supported yet: the compiler refuses a feature it does not
have yet), the ``stage`` that failed (build, compile, ptxas, simulate, check, timing) and
why, and the timing model's ``cycles``, ``microseconds``, ``utilisation`` (the tensor
pipe's over the SMs the grid uses, docs/timing.md) and ``gpu_utilisation`` (over the
whole GPU), the warp instructions executed and the largest error against the reference. ``-o`` writes a report (markdown; .csv or
.json by extension give the table alone), ``--csv`` / ``--json`` the table, ``--plot``
an SVG line chart of ``--metric`` against ``--x``, one line per value of ``--series``
(one chart per value of ``--panel``, side by side).

Exit status: 0 when every point was built (points that fail to compile, assemble,
simulate or match are results, in the table); 1 on bad input: a script that does not
load or defines no build, a --grid parameter build does not take, a build or check
function that raises (reported at the script's file:line); 2 on a malformed command
line or an internal error of the tool.
"""

from __future__ import annotations

import argparse
import inspect
import os
import shlex
import sys
import time

from tcgen05_lower.cli.common import add_version_option, guarded_main


class UsageError(Exception):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tcgen05-sweep", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("script", help="a Python file defining build(**params)")
    parser.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2,...",
                        help="a parameter and its values (repeatable; the points are the "
                             "cartesian product)")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--check", default=None, metavar="gemm|FILE.py",
                        help="the reference (as tcgen05-sim --check) instead of the "
                             "script's")
    parser.add_argument("--seed", type=int, default=0, help="the random inputs' seed")
    parser.add_argument("--no-ptxas", action="store_true", help="do not run ptxas")
    parser.add_argument("--no-timing", action="store_true",
                        help="do not run the timing model")
    parser.add_argument("--functional-only", action="store_true",
                        help="simulate without race detection (tcgen05-sim "
                             "--functional-only): the same numbers and cycles, faster; for "
                             "a kernel whose synchronization a full run has checked")
    parser.add_argument("-o", "--output", default=None, metavar="FILE",
                        help="the report (markdown; .csv / .json: the table alone)")
    parser.add_argument("--csv", default=None, metavar="FILE", help="the table as CSV")
    parser.add_argument("--json", default=None, metavar="FILE", help="the table as JSON")
    parser.add_argument("--plot", default=None, metavar="FILE.svg",
                        help="an SVG line chart of --metric against --x")
    parser.add_argument("--x", default=None, metavar="PARAM",
                        help="the plot's horizontal axis (default: the last --grid)")
    parser.add_argument("--series", default=None, metavar="PARAM",
                        help="one line of the plot per value of this parameter (or "
                             "of these: N,ctas)")
    parser.add_argument("--panel", default=None, metavar="PARAM",
                        help="one chart of the plot per value of this parameter, side by "
                             "side on one scale")
    parser.add_argument("--metric", default="utilisation",
                        help="the plot's vertical axis: a column of the table (default "
                             "utilisation)")
    parser.add_argument("--title", default=None, help="the plot's and report's title")
    return parser


def parse_grid(items: list[str]) -> dict:
    """``["N=64,128", "mode=a,b"]`` -> {"N": [64, 128], "mode": ["a", "b"]}."""
    grid = {}
    for item in items:
        name, sep, values = item.partition("=")
        name = name.strip()
        parts = [v.strip() for v in values.split(",")]
        if not sep or not name.isidentifier() or not all(parts):
            raise UsageError(f"--grid {item}: expected NAME=V1,V2,... (a Python name and "
                             f"non-empty values)")
        if name in grid:
            raise UsageError(f"--grid {name} is given twice")
        grid[name] = [_value(v) for v in parts]
    if not grid:
        raise UsageError("no --grid NAME=V1,V2,...: nothing to sweep")
    return grid


def _value(text: str):
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def load_script(path: str, grid: dict):
    """(build, check) of the sweep script; CheckFileError at its file:line for what is
    wrong in it (it does not load, no build, a --grid parameter build does not take)."""
    from tcgen05_lower.cli.sim_check_file import CheckFile
    from tcgen05_lower.cli.sim_problem import CheckFileError

    if not os.path.isfile(path):
        raise UsageError(f"{path}: no such file")
    script = CheckFile(path)
    build = script.get("build")
    if not callable(build):
        raise CheckFileError(f"{path}:{script.definition_line('build')}: a sweep script "
                             f"must define build(**params)")
    _check_parameters(script, build, grid)
    timing_only = script.get("timing_only")
    if timing_only is not None and not callable(timing_only):
        raise CheckFileError(f"{path}:{script.definition_line('timing_only')}: "
                             f"timing_only must be a function of the parameters returning "
                             f"{{scalar: value}}")
    return build, _check_of(script, path), timing_only


def _check_parameters(script, build, grid: dict) -> None:
    from tcgen05_lower.cli.sim_problem import CheckFileError

    try:
        parameters = inspect.signature(build).parameters
    except (TypeError, ValueError):
        return
    if any(p.kind is p.VAR_KEYWORD for p in parameters.values()):
        return
    takes = [n for n, p in parameters.items()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    unknown = [name for name in grid if name not in takes]
    if unknown:
        raise CheckFileError(f"{script.path}:{script.definition_line('build')}: --grid "
                             f"{', '.join(unknown)}: build() has no such parameter (it "
                             f"takes {', '.join(takes) or 'none'})")
    missing = [n for n, p in parameters.items()
               if p.default is p.empty and p.kind is not p.VAR_POSITIONAL and n not in grid]
    if missing:
        raise CheckFileError(f"{script.path}:{script.definition_line('build')}: build() "
                             f"needs {', '.join(missing)}, which no --grid gives")


def _check_of(script, path: str):
    """The script's reference: check(), CHECK (relative to the script), itself, or None."""
    from tcgen05_lower.cli.sim_problem import CheckFileError

    if callable(script.get("check")):
        return script.get("check")
    given = script.get("CHECK")
    if given is not None:
        if not isinstance(given, str):
            raise CheckFileError(f"{path}:{script.definition_line('CHECK')}: CHECK must be "
                                 f"a path or \"gemm\", not {type(given).__name__}")
        if given == "gemm" or os.path.isabs(given):
            return given
        return os.path.join(os.path.dirname(os.path.abspath(path)), given)
    if "BUFFERS" in script and "reference" in script:
        return path
    return None


def run(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    args.argv = argv
    from tcgen05_lower.cli.sim_problem import UsageError as SimUsageError

    try:
        return _run(args)
    except (UsageError, SimUsageError, OSError) as exc:
        print(f"tcgen05-sweep: error: {exc}", file=sys.stderr)
        return 1


def _run(args) -> int:
    from tcgen05_lower import sweep as S

    grid = parse_grid(args.grid)
    x = args.x or list(grid)[-1]
    for option, name in (("--x", x), *(("--series", n) for n in S.series_names(args.series)),
                         *((("--panel", args.panel),) if args.panel else ())):
        if name not in grid:
            raise UsageError(f"{option} {name}: not a --grid parameter "
                             f"({', '.join(grid)})")
    if args.jobs < 1:
        raise UsageError(f"--jobs {args.jobs}: at least 1")
    build, check, timing_only = load_script(args.script, grid)
    if args.check is not None:
        check = args.check
    start = time.perf_counter()
    rows = S.sweep(build, grid, check=check, jobs=args.jobs, timing=not args.no_timing,
                   ptxas=not args.no_ptxas, seed=args.seed, script=args.script,
                   functional_only=args.functional_only, timing_only=timing_only)
    elapsed = time.perf_counter() - start
    if args.metric not in S.METRICS and args.plot:
        raise UsageError(f"--metric {args.metric}: not a column ({', '.join(S.METRICS)})")
    if args.csv:
        S.write_rows(rows, _csv_path(args.csv))
    if args.json:
        S.write_rows(rows, _json_path(args.json))
    if args.plot:
        S.write_svg_plot(rows, args.plot, x=x, series=args.series, metric=args.metric,
                         title=args.title, panel=args.panel)
    failed = [r for r in rows if r["status"] == "failed"]
    unsupported = [r for r in rows if r["status"] == S.UNSUPPORTED]
    ok = len(rows) - len(failed) - len(unsupported)
    summary = (f"{len(rows)} points, {ok} ok, {len(failed)} failed"
               + (f", {len(unsupported)} {S.UNSUPPORTED}" if unsupported else "")
               + f", in {elapsed:.0f} s with {args.jobs} job(s)")
    if args.output:
        if args.output.endswith((".csv", ".json")):
            S.write_rows(rows, args.output)
        else:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(report(rows, args, summary))
    else:
        print(S.to_markdown(rows), end="")
    print(f"tcgen05-sweep: {summary}", file=sys.stderr)
    broken = [r for r in rows if r["stage"] == "build" or
              (r["stage"] == "check" and r["message"].startswith(args.script))]
    for row in broken:
        print(f"tcgen05-sweep: error: {row['message']}", file=sys.stderr)
    return 1 if broken else 0


def _csv_path(path: str) -> str:
    return path if path.endswith(".csv") else path + ".csv"


def _json_path(path: str) -> str:
    return path if path.endswith(".json") else path + ".json"


def report(rows: list[dict], args, summary: str) -> str:
    """The markdown report: the command, a summary, the plot and the table."""
    from tcgen05_lower import sweep as S

    command = "tcgen05-sweep " + " ".join(shlex.quote(str(a)) for a in args.argv)
    lines = [f"# {args.title or 'Sweep of ' + os.path.basename(args.script)}", "",
             "Generated by:", "", "```sh", command, "```", "", summary + ".", ""]
    if args.plot:
        where = os.path.relpath(args.plot, os.path.dirname(os.path.abspath(args.output)))
        lines += [f"![{args.metric} against {args.x or list(parse_grid(args.grid))[-1]}]"
                  f"({where})", ""]
    lines += ["The columns: the parameters; `status` (ok, failed, or not supported yet: "
              "the compiler refuses a feature it does not have yet) and, for a point that "
              "did not run, the `stage` (build, compile, ptxas, simulate, check, timing) "
              "and `message`; the timing model's `cycles`, `microseconds`, `utilisation` "
              "(the tensor pipe's share of the time on the SMs the grid uses) and "
              "`gpu_utilisation` (on every SM of the GPU) (docs/timing.md; a model for "
              "comparing variants, not a measurement); the warp instructions simulated; "
              "the largest absolute error against the reference; the seconds the point "
              "took here.", ""]
    return "\n".join(lines) + "\n" + S.to_markdown(rows)


def main() -> None:
    """The console-script entry point. The workers already run in parallel: NumPy's
    BLAS gets one thread each (unless the environment says otherwise), as threaded BLAS
    on busy cores made the simulator's small matrix products about ten times slower
    (docs/timing.md, "The whole grid")."""
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    sys.exit(guarded_main("tcgen05-sweep", run))


if __name__ == "__main__":
    main()
