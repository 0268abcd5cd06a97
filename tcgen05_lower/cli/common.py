"""What both command-line tools share: reading input, writing output, printing
diagnostics, and turning internal errors into one line instead of a traceback."""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from pathlib import Path
from typing import Callable

DEBUG_ENV = "TCGEN05_DEBUG"


def read_input(path: str) -> tuple[str, str]:
    """(text, name for diagnostics) of a file, or of stdin for '-'."""
    if path == "-":
        return sys.stdin.read(), "<stdin>"
    return Path(path).read_text(), path


def write_output(path: str | None, data: str | bytes) -> None:
    if path in (None, "-"):
        if isinstance(data, bytes):
            sys.stdout.buffer.write(data)
        else:
            sys.stdout.write(data if data.endswith("\n") else data + "\n")
        return
    Path(path).write_bytes(data) if isinstance(data, bytes) else Path(path).write_text(data)


class _PrintVersions(argparse.Action):
    """``--version``: the package version and the MLIR, LLVM and ptxas it found (looked
    up when asked, not when the parser is built), then exit 0."""

    def __call__(self, parser, namespace, values, option_string=None):
        from tcgen05_lower.backend import versions

        found = versions()
        print(f"{parser.prog} {found.pop('tcgen05-lower')}")
        for name, value in found.items():
            print(f"  {name}: {value}")
        parser.exit(0)


def add_version_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--version", action=_PrintVersions, nargs=0,
                        help="print the version and the MLIR, LLVM and ptxas in use, and exit")


def add_instrumentation_options(parser: argparse.ArgumentParser) -> None:
    """mlir-opt's pass-manager flags (pipeline.Instrumentation) and --dump-pass-pipeline."""
    parser.add_argument("--mlir-print-ir-after-all", action="store_true",
                        help="print the IR after every pass (to stderr)")
    parser.add_argument("--mlir-print-ir-before-all", action="store_true",
                        help="print the IR before every pass (to stderr)")
    parser.add_argument("--mlir-print-ir-after-change", action="store_true",
                        help="with --mlir-print-ir-after-all: only after passes that "
                             "changed it")
    parser.add_argument("--mlir-timing", action="store_true",
                        help="print the time of every pass (to stderr)")
    parser.add_argument("--mlir-pass-statistics", action="store_true",
                        help="print the passes' statistics (to stderr)")
    parser.add_argument("--dump-pass-pipeline", action="store_true",
                        help="print the pipeline that runs, as pipeline text (to stderr)")


def instrumentation_of(args):
    from tcgen05_lower.pipeline import Instrumentation

    return Instrumentation(print_ir_before_all=args.mlir_print_ir_before_all,
                           print_ir_after_all=args.mlir_print_ir_after_all,
                           print_ir_after_change=args.mlir_print_ir_after_change,
                           timing=args.mlir_timing, statistics=args.mlir_pass_statistics)


def print_diagnostics(diagnostics, source: tuple[str, str] | None = None) -> None:
    """Each diagnostic on stderr; with `source` (name, text), followed as MLIR prints them
    by the line it points at and a caret under its column."""
    lines = source[1].splitlines() if source else []
    for diagnostic in diagnostics:
        print(diagnostic.format(), file=sys.stderr)
        if (source and diagnostic.filename == source[0] and diagnostic.line
                and 0 < diagnostic.line <= len(lines)):
            line = lines[diagnostic.line - 1]
            column = max(1, min(diagnostic.col or 1, len(line) + 1))
            print(line, file=sys.stderr)
            print(" " * (column - 1) + "^", file=sys.stderr)


def guarded_main(tool: str, main: Callable[[], int]) -> int:
    """Runs `main`; an unexpected exception becomes one error line and exit status 2
    (set TCGEN05_DEBUG=1 for the traceback)."""
    try:
        return main()
    except KeyboardInterrupt:
        return 130
    except FileNotFoundError as exc:
        print(f"{tool}: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # an internal error, not bad input
        if os.environ.get(DEBUG_ENV):
            traceback.print_exc()
        print(f"{tool}: internal error: {type(exc).__name__}: {exc} "
              f"(set {DEBUG_ENV}=1 for a traceback)", file=sys.stderr)
        return 2
