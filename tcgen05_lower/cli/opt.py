"""tcgen05-opt: run tcgen05 passes (and upstream ones) on MLIR, in the manner of mlir-opt.

    tcgen05-opt input.mlir -p 'tcgen05-verify,tcgen05-select-layouts'
    tcgen05-opt input.mlir -p 'builtin.module(tcgen05-plan-tmem{report=true},canonicalize)'
    tcgen05-opt bad.mlir -p tcgen05-verify --split-input-file --verify-diagnostics
"""

from __future__ import annotations

import argparse
import sys

from tcgen05_lower import dialect as d
from tcgen05_lower import segments
from tcgen05_lower.bindings import MLIRError, capture_diagnostics, error_diagnostics
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.cli import verify_diagnostics
from tcgen05_lower.cli.common import (add_instrumentation_options, add_version_option,
                                      guarded_main, instrumentation_of, print_diagnostics,
                                      read_input, write_output)
from tcgen05_lower.driver import unreachable_blocks
from tcgen05_lower.passes import REGISTRY
from tcgen05_lower.pipeline import (PipelineError, build_pass_manager, parse_pipeline,
                                    pipeline_text)

SPLIT_MARKER = "// -----"


def split_chunks(text: str, split: bool) -> list[tuple[str, int]]:
    """(chunk text, first line number) pairs; a chunk is padded with blank lines so that
    line numbers in its diagnostics are those of the whole file."""
    if not split:
        return [(text, 1)]
    chunks, current, start = [], [], 1
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip() == SPLIT_MARKER:
            chunks.append(("\n".join(current), start))
            current, start = [], number + 1
        else:
            current.append(line)
    chunks.append(("\n".join(current), start))
    return chunks


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tcgen05-opt", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("input", nargs="?", default="-", help="input .mlir file (- for stdin)")
    parser.add_argument("-p", "--pass-pipeline", default="",
                        help="textual pipeline mixing tcgen05 and upstream passes")
    parser.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    parser.add_argument("--split-input-file", action="store_true",
                        help="process each '// -----' chunk as a separate module")
    parser.add_argument("--verify-diagnostics", action="store_true",
                        help="check diagnostics against expected-* annotations")
    parser.add_argument("--verify-each", action=argparse.BooleanOptionalAction, default=True,
                        help="verify the module after every pass, as mlir-opt does "
                             "(default); --no-verify-each verifies after the tcgen05 passes "
                             "and the last pass only")
    add_instrumentation_options(parser)
    parser.add_argument("--mlir-print-op-generic", action="store_true",
                        help="print every op in generic form")
    parser.add_argument("--list-passes", action="store_true", help="list the tcgen05 passes")
    return parser


def option_text(value) -> str:
    """A default as it is written in a pipeline (booleans are true/false there)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def list_passes() -> str:
    lines = []
    for name, cls in REGISTRY.items():
        lines.append(f"  {name:28} {cls.description}")
        for option in cls.options:
            choices = f" ({'|'.join(map(str, option.choices))})" if option.choices else ""
            lines.append(f"      {option.name}={option_text(option.default)}{choices}  "
                         f"{option.help}")
    return "\n".join(lines)


def process_chunk(text: str, first_line: int, source_name: str, args) -> tuple[bool, str, list]:
    """Runs the pipeline on one chunk: (succeeded, printed IR, diagnostics). Raises
    PipelineError for a pipeline that cannot be built (upstream pass names are checked
    only when added to a pass manager), before the chunk is parsed."""
    context = d.make_context()
    padded = "\n" * (first_line - 1) + text
    with context, capture_diagnostics(context) as diagnostics:
        steps = parse_pipeline(args.pass_pipeline) if args.pass_pipeline else []
        pm = build_pass_manager(steps, instrumentation=instrumentation_of(args),
                                verify_each=args.verify_each)
        try:
            module = parse_module(padded, source_name)
            if "lift-cf-to-scf" in args.pass_pipeline:
                unreachable = unreachable_blocks(module)   # the pass would abort on them
                if unreachable:
                    return False, "", list(diagnostics) + unreachable
            pm.run(module)
            if not args.verify_each and steps and steps[-1].tcgen05_pass is None:
                module.verify()
        except MLIRError as error:
            return False, "", list(diagnostics) + error_diagnostics(error)
        if any(x.severity == "error" for x in diagnostics):
            return False, "", list(diagnostics)
        if args.mlir_print_op_generic:
            printed = module.get_asm(print_generic_op_form=True)
        else:
            printed = str(module)
        return True, segments.strip(printed), list(diagnostics)


def run(argv=None) -> int:
    args = build_parser().parse_args(argv)
    if args.list_passes:
        print(list_passes())
        return 0
    text, source_name = read_input(args.input)
    if args.dump_pass_pipeline:
        print(f"Pass Manager: {pipeline_text(args.pass_pipeline)}", file=sys.stderr)
    outputs, status, problems = [], 0, []
    try:
        for chunk, first_line in split_chunks(text, args.split_input_file):
            # A bad pipeline fails on the first chunk, before anything is printed.
            ok, printed, diagnostics = process_chunk(chunk, first_line, source_name, args)
            if args.verify_diagnostics:
                expected = verify_diagnostics.parse_expectations(chunk, first_line)
                problems += verify_diagnostics.check(expected, diagnostics, source_name)
            else:
                print_diagnostics(diagnostics, (source_name, text))
                if not ok:
                    status = 1
            if ok:
                outputs.append(printed)
    except PipelineError as exc:
        print(f"tcgen05-opt: error: {exc}", file=sys.stderr)
        return 1
    if args.verify_diagnostics and problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1
    if outputs:
        write_output(args.output, "\n// -----\n".join(outputs))
    return status


def main() -> None:
    sys.exit(guarded_main("tcgen05-opt", run))


if __name__ == "__main__":
    main()
