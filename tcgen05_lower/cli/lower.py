"""tcgen05-lower: compile a tcgen05 kernel to planned MLIR, LLVM IR, PTX or cubin.

    tcgen05-lower examples/gemm_bf16_128x256.mlir --arch sm_100a -o gemm.ptx
    tcgen05-lower examples/gemm_bf16_128x256.mlir --emit=mlir --report
    tcgen05-lower kernel.mlir --emit=mlir --report-json plan.json --report-svg plan.svg
"""

from __future__ import annotations

import argparse
import sys

from tcgen05_lower.cli.common import (add_instrumentation_options, add_version_option,
                                      guarded_main, instrumentation_of, print_diagnostics,
                                      read_input, write_output)
from tcgen05_lower.driver import EMIT_KINDS, CompileFailed, compile_source
from tcgen05_lower.isa import targets
from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options, pipeline_text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tcgen05-lower", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    add_version_option(parser)
    parser.add_argument("input", help="input .mlir file (- for stdin)")
    parser.add_argument("--arch", default=None,
                        help="target (default: the kernel's tcgen05.kernel target, else "
                             "sm_100a); one of " + ", ".join(targets.TCGEN05_TARGETS))
    parser.add_argument("--emit", default="ptx", choices=EMIT_KINDS,
                        help="what to write: planned MLIR, LLVM IR, PTX (default) or cubin")
    parser.add_argument("-o", dest="output", default="-", help="output file (default stdout)")
    parser.add_argument("--pipeline", default=DEFAULT_PIPELINE,
                        help="override the pass pipeline (default: %(default)s)")
    parser.add_argument("--report", action="store_true",
                        help="print what each planning pass decided (to stderr)")
    parser.add_argument("--report-json", metavar="FILE", default=None,
                        help="write the TMEM plan of every kernel as JSON (the schema is "
                             "documented in tcgen05_lower.planning.report)")
    parser.add_argument("--report-svg", metavar="FILE", default=None,
                        help="write an SVG picture of each kernel's TMEM occupancy")
    parser.add_argument("--manifest", metavar="FILE", default=None,
                        help="write the launch manifest (entry, parameters, threads, cluster, "
                             "dynamic shared memory, target, PTX version) as JSON; needs "
                             "--emit=ptx or cubin")
    parser.add_argument("--line-info", action="store_true",
                        help="carry each op's MLIR location (file:line:col of the input, or "
                             "the Python line of a builder-built kernel) into the LLVM IR "
                             "and the PTX as .file/.loc directives, as nvcc -lineinfo does "
                             "for C++ (tcgen05-sim then reports races and bad accesses at "
                             "those lines); off by default: the PTX is then free of "
                             "debugging directives")
    parser.add_argument("--explain-ptx-version", action="store_true",
                        help="say which feature or target set the PTX ISA version")
    parser.add_argument("--pass-option", action="append", default=[], metavar="PASS{OPTIONS}",
                        help="replace one pass of the pipeline, options and all, keeping the "
                             "rest, e.g. 'tcgen05-plan-tmem{strategy=optimal}' (repeatable)")
    parser.add_argument("--verify-each", action=argparse.BooleanOptionalAction, default=None,
                        help="verify the module after every pass (default: after every "
                             "tcgen05 pass and after the last one, or every pass if "
                             "TCGEN05_VERIFY_EACH is set; docs/tools.md)")
    add_instrumentation_options(parser)
    return parser


def with_reports(pipeline: str) -> str:
    """Turns on the report option of every planning pass that has one."""
    from tcgen05_lower.pipeline import split_top_level, strip_module_anchor
    from tcgen05_lower.passes import REGISTRY

    parts = []
    for element in split_top_level(strip_module_anchor(pipeline)):
        cls = REGISTRY.get(element.split("{")[0])
        if cls is not None and any(o.name == "report" for o in cls.options) \
                and "report" not in element:
            element = (element[:-1] + " report=true}") if element.endswith("}") \
                else element + "{report=true}"
        parts.append(element)
    return ",".join(parts)


PLAN_TMEM = "tcgen05-plan-tmem"


def with_plan_files(pipeline: str, json_file: str | None, svg_file: str | None) -> str:
    """Adds ``json=FILE`` / ``svg=FILE`` to the tcgen05-plan-tmem element of a pipeline.
    Raises ValueError if there is none, or if a path cannot be a pass option value."""
    from tcgen05_lower.pipeline import split_top_level, strip_module_anchor

    extra = [f"{key}={path}" for key, path in (("json", json_file), ("svg", svg_file))
             if path]
    if not extra:
        return pipeline
    for path in (json_file, svg_file):
        if path and any(c.isspace() or c in "{}," for c in path):
            raise ValueError(f"report path '{path}' must not contain spaces, braces or "
                             f"commas (it becomes a pass option value)")
    parts, found = [], False
    for element in split_top_level(strip_module_anchor(pipeline)):
        if element.split("{")[0].strip() == PLAN_TMEM:
            found = True
            options = " ".join(extra)
            element = (element[:-1] + " " + options + "}") if element.endswith("}") \
                else element + "{" + options + "}"
        parts.append(element)
    if not found:
        raise ValueError(f"--report-json and --report-svg need {PLAN_TMEM} in the pipeline")
    return ",".join(parts)


def run(argv=None) -> int:
    """Runs the tool; returns the exit status."""
    args = build_parser().parse_args(argv)
    text, source_name = read_input(args.input)
    if args.manifest and args.emit not in ("ptx", "cubin"):
        print("tcgen05-lower: error: --manifest needs --emit=ptx or --emit=cubin "
              "(the manifest describes the emitted PTX entry)", file=sys.stderr)
        return 1
    try:
        pipeline = override_options(args.pipeline, args.pass_option)
        pipeline = with_reports(pipeline) if args.report else pipeline
        pipeline = with_plan_files(pipeline, args.report_json, args.report_svg)
    except ValueError as exc:
        print(f"tcgen05-lower: error: {exc}", file=sys.stderr)
        return 1
    if args.dump_pass_pipeline:
        print(f"Pass Manager: {pipeline_text(pipeline)}", file=sys.stderr)
    try:
        result = compile_source(text, source_name, arch=args.arch, emit=args.emit,
                                pipeline=pipeline,
                                instrumentation=instrumentation_of(args),
                                report_stream=sys.stderr, verify_each=args.verify_each,
                                line_info=args.line_info)
    except CompileFailed as failure:
        print_diagnostics(failure.diagnostics, (source_name, text))
        return 1
    print_diagnostics(result.diagnostics, (source_name, text))
    if args.explain_ptx_version and args.emit != "mlir":
        version = targets.ptx_version_string(result.ptx_version)
        print(f"tcgen05-lower: PTX ISA {version} for {result.target}: "
              f"{result.ptx_version_reason}", file=sys.stderr)
    if result.manifests:
        if args.report:
            for name, manifest in result.manifests.items():
                print(f"tcgen05-lower: kernel @{name} dynamic shared memory: "
                      f"{manifest['dynamic_smem_bytes']} bytes (the launch size, also in "
                      f"the manifest)", file=sys.stderr)
        if args.report_json:
            add_smem_to_json(args.report_json, result.manifests)
    output = {"mlir": result.mlir, "llvm": result.llvm_ir, "ptx": result.ptx,
              "cubin": result.cubin}[args.emit]
    write_output(args.output, output)
    if args.manifest:
        write_manifest(args.manifest, result)
    return 0


def add_smem_to_json(path: str, manifests: dict) -> None:
    """Adds each kernel's dynamic shared-memory bytes (known after lowering) to the plan
    report tcgen05-plan-tmem wrote."""
    import json

    with open(path) as f:
        report = json.load(f)
    for kernel in report.get("kernels", []):
        if kernel.get("name") in manifests:
            kernel["dynamic_smem_bytes"] = manifests[kernel["name"]]["dynamic_smem_bytes"]
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")


def write_manifest(path: str, result) -> None:
    """The manifest of the module's kernel (a JSON object), or of each kernel (an object
    keyed by entry name) when the module has several."""
    import json

    body = result.manifest if len(result.manifests) == 1 else result.manifests
    with open(path, "w") as f:
        json.dump(body, f, indent=2)
        f.write("\n")


def main() -> None:
    """The console-script entry point."""
    sys.exit(guarded_main("tcgen05-lower", run))


if __name__ == "__main__":
    main()
