"""The compile stages as functions: parse, run a pipeline, translate, emit PTX, assemble.

Every stage boundary is text (MLIR, LLVM IR, PTX), so each can be dumped and re-entered.
Failures carry MLIR diagnostics; callers decide how to print them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import MappingProxyType

from tcgen05_lower import backend, segments
from tcgen05_lower import dialect as d
from tcgen05_lower.bindings import (Diagnostic, MLIRError, capture_diagnostics, ir,
                                    error_diagnostics, file_location)
from tcgen05_lower.parsing import parse_module
from tcgen05_lower.dialect.ops import CpOp, LdOp, LdRedOp, MmaOp, ShiftOp, StOp
from tcgen05_lower.isa import shapes, targets
from tcgen05_lower.isa.errors import IsaRuleError
from tcgen05_lower.kernel_ir import (effective_scale_vec, misaligned_arguments,
                                     recorded_parameter_names, source_parameter_names)
from tcgen05_lower.pipeline import (DEFAULT_PIPELINE, build_pass_manager, parse_pipeline,
                                    split_top_level, strip_module_anchor,
                                    verify_each_default)

EMIT_KINDS = ("mlir", "llvm", "ptx", "cubin")


class CompileFailed(Exception):
    """Compilation stopped at bad input; `diagnostics` say where and why."""

    def __init__(self, diagnostics: list[Diagnostic], message: str = ""):
        super().__init__(message or "\n".join(x.format() for x in diagnostics))
        self.diagnostics = diagnostics


@dataclass
class CompileResult:
    mlir: str | None = None
    llvm_ir: str | None = None
    ptx: str | None = None
    cubin: bytes | None = None
    target: str = "sm_100a"
    ptx_version: tuple[int, int] = (8, 6)
    ptx_version_reason: str = ""
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: Warnings of the driver itself (a renamed target), also in ``diagnostics``.
    warnings: list[Diagnostic] = field(default_factory=list)
    #: The launch manifest of the first kernel (see launch_manifest), once PTX is emitted.
    manifest: dict | None = None
    #: The manifests of every kernel, by entry name.
    manifests: dict[str, dict] = field(default_factory=dict)
    #: What each tcgen05 pass of the pipeline decided (pass_infra.PassResult, in run
    #: order: layouts, TMEM plans, sync ops added); plain data, no IR.
    pass_results: list = field(default_factory=list)


#: Features every kernel uses once planned: allocation, fences, commits and waits.
BASE_FEATURES = ("alloc", "ld", "wait", "fence", "commit")
#: tcgen05 ops whose use is a gated feature of its own (targets.FEATURES keys).
OP_FEATURES = MappingProxyType({CpOp.NAME: "cp", ShiftOp.NAME: "shift", StOp.NAME: "st",
                                LdRedOp.NAME: "ld.red", LdOp.NAME: "ld"})


def mma_feature_keys(op, target: str) -> list[str]:
    """The gated features of one tcgen05.mma (targets.mma_features, and the
    .scale_vectorsize spelling the lowering prints on `target`). Attributes that
    tcgen05-verify would reject contribute nothing: the verifier reports them."""
    try:
        mma = MmaOp(op)
        kind = mma.kind
        sparse, k96 = bool(mma.sparse), mma.k == 96
        keys = [f.key for f in targets.mma_features(
            kind, sparse=sparse, ws=bool(mma.ws), k96=k96,
            scale_input_d=mma.has(MmaOp.scale_input_d))]
        vec = effective_scale_vec(op)
        if vec is not None:
            spellings = shapes.scale_vectorsize_aliases(
                kind, shapes.SCALE_VEC_QUALIFIERS.get(vec, vec), k96=k96)
            if mma.scale_vec is not None:
                chosen = targets.choose_scale_vectorsize(spellings, target)
            else:
                # What the lowering prints for the default (lowering.mma); printed as
                # none, ptxas gates it like a written .block32 ("Feature '.block32'
                # requires PTX ISA .version 8.8 or later").
                chosen = targets.default_scale_vectorsize_spelling(spellings, target) \
                    or "block32"
            keys.append(targets.scale_vectorsize_feature(chosen).key)
    except (IsaRuleError, KeyError, ValueError, TypeError):
        return []
    return keys


def feature_uses(module_op, target: str = "sm_100a",
                 source_name: str | None = None) -> dict[str, str]:
    """Each gated ISA feature a module uses (targets.FEATURES keys), with the first op
    that uses it ("tcgen05.mma at gemm.mlir:12:3"), in first-use order."""
    uses = {key: "the kernel's allocation and synchronization" for key in BASE_FEATURES}
    for kernel in d.kernels(module_op):
        for op in d.walk_ops(kernel):
            name = d.op_name(op)
            if name == MmaOp.NAME:
                keys = mma_feature_keys(op, target)
            elif name in OP_FEATURES:
                keys = [OP_FEATURES[name]]
            else:
                continue
            for key in keys:
                uses.setdefault(key, describe_op(op, source_name))
    return uses


def describe_op(op, source_name: str | None = None) -> str:
    """``tcgen05.mma at file.mlir:12:3`` (the op's name and source position; a module
    parsed from an anonymous buffer is named `source_name`)."""
    filename, line, col = file_location(op.location)
    if filename == "-" and source_name is not None:
        filename = source_name
    where = f" at {filename}:{line}:{col}" if filename is not None else ""
    return f"{op.name}{where}"


def ptx_version_for(target: str, uses: dict[str, str]) -> tuple[tuple[int, int], str]:
    """The lowest PTX ISA version that has `target` and every feature in `uses`, and why:
    the target itself, or the feature that forced a later version and the op using it."""
    version, reason = targets.min_ptx_version(target, uses)
    if version > targets.get_target(target).min_ptx:
        for key, where in uses.items():
            if targets.get_feature(key).required_ptx(target) == version:
                return version, f"{reason}; used by {where}"
    return version, reason


def normalize_target(name: str) -> str:
    """A target name as LLVM and PTX spell it: ``SM_100A`` and `` sm_100a `` are
    ``sm_100a`` (PTX's `.target` names are lower case)."""
    return name.strip().lower()


def module_target(module_op, arch: str | None) -> str:
    """The target, normalised: `arch` if given (it overrides the kernels'), else the
    kernels' own (they must agree), else sm_100a."""
    found = {normalize_target(d.kernel_info(k).target) for k in d.kernels(module_op)}
    if arch is not None:
        return normalize_target(arch)
    if len(found) > 1:
        raise ValueError(f"kernels target different architectures: {', '.join(sorted(found))}")
    return found.pop() if found else "sm_100a"


def target_diagnostic(module_op, arch: str | None, message: str,
                      source_name: str) -> Diagnostic:
    """A target error, located where the target was named: with --arch, on the command
    line (no source location); else at the kernel whose target is refused (for kernels
    that disagree, the first kernel that differs from the first one)."""
    if arch is not None:
        return Diagnostic("error", source_name, None, None, f"--arch {arch}: {message}")
    kernels = d.kernels(module_op)
    if not kernels:
        return Diagnostic("error", source_name, None, None, message)
    first = normalize_target(d.kernel_info(kernels[0]).target)
    culprit = next((k for k in kernels
                    if normalize_target(d.kernel_info(k).target) != first), kernels[0])
    filename, line, col = file_location(culprit.location)
    return Diagnostic("error", filename, line, col, message)


#: PTX identifiers (PTX ISA 4.4, Identifiers): a letter followed by letters, digits, `_`
#: and `$`, or `_`, `$` or `%` followed by at least one of those.
PTX_IDENTIFIER = re.compile(r"[a-zA-Z][a-zA-Z0-9_$]*|[_$%][a-zA-Z0-9_$]+")


def unspellable_kernel_names(module_op) -> list[Diagnostic]:
    """Located errors for functions whose MLIR symbol PTX cannot spell as an `.entry` or
    `.func` name (MLIR allows `@b.ranch`; ptxas rejects `.entry b.ranch(`). Every
    function of the module is emitted, kernels as entries, the others as functions."""
    found = []
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name not in ("func.func", "llvm.func") or "sym_name" not in op.attributes:
            continue
        name = ir.StringAttr(op.attributes["sym_name"]).value
        if PTX_IDENTIFIER.fullmatch(name) is None:
            what = "kernel" if d.is_kernel(op) else "function"
            filename, line, col = file_location(op.location)
            found.append(Diagnostic(
                "error", filename, line, col,
                f"{what} name @{name} is not a PTX identifier (letters, digits, _ and $, "
                "starting with a letter, or with _, $ or % and one more character; PTX ISA "
                f"4.4): rename the {what}"))
    return found


def misaligned_function_arguments(module_op) -> list[Diagnostic]:
    """Located errors for arguments of any function of the module (kernel or not) whose
    ``llvm.align`` is not a power of two: LLVM's translation asserts on them and aborts
    the process, whatever pipeline ran before (tcgen05-verify reports the same)."""
    found = []
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name not in ("func.func", "llvm.func"):
            continue
        for _number, message in misaligned_arguments(op):
            filename, line, col = file_location(op.location)
            found.append(Diagnostic("error", filename, line, col, message))
    return found


def unreachable_blocks(module_op) -> list[Diagnostic]:
    """Located errors for blocks of a function that no branch from its entry reaches:
    upstream's lift-cf-to-scf aborts the process on them ("Cannot destroy a value that
    still has uses")."""
    found = []
    for op in module_op.regions[0].blocks[0].operations:
        op = op.operation
        if op.name != "func.func" or not len(op.regions[0].blocks):
            continue
        blocks = list(op.regions[0].blocks)
        reached, pending = {0}, [blocks[0]]
        while pending:
            block = pending.pop()
            operations = list(block.operations)
            if not operations:
                continue
            for successor in operations[-1].operation.successors:
                index = next(i for i, b in enumerate(blocks) if b == successor)
                if index not in reached:
                    reached.add(index)
                    pending.append(successor)
        for index, block in enumerate(blocks):
            if index not in reached and len(block.operations):
                first = block.operations[0].operation
                filename, line, col = file_location(first.location)
                found.append(Diagnostic(
                    "error", filename, line, col,
                    f"this block of @{ir.StringAttr(op.attributes['sym_name']).value} is "
                    "unreachable from its entry: delete it (lift-cf-to-scf, which structures "
                    "cf branches, cannot handle unreachable blocks)"))
    return found


def tcgen05_type_in(types) -> bool:
    """Whether any of `types` is a tcgen05 type (or holds one, as a function type does)."""
    return any("!tcgen05." in str(t) for t in types)


def stray_tcgen05(module_op, *, inside_kernels_too: bool) -> list[Diagnostic]:
    """Located errors for tcgen05 ops and values that no kernel will lower: those outside
    a ``tcgen05.kernel`` function (at module level, or in a function without the
    attribute), and, with `inside_kernels_too`, any left after the pipeline (a pipeline
    that stops before tcgen05-lower-to-llvm). LLVM translation cannot take them."""
    hint = ('mark the function as a kernel: attributes {tcgen05.kernel = {target = '
            '"sm_100a", threads = 128 : i64, cta_group = 1 : i64}}')
    found: list[Diagnostic] = []

    def report(op, what: str) -> None:
        filename, line, col = file_location(op.location)
        found.append(Diagnostic("error", filename, line, col, what))

    for top in module_op.regions[0].blocks[0].operations:
        top = top.operation
        if top.name == "func.func" and "function_type" in top.attributes:
            signature = ir.TypeAttr(top.attributes["function_type"]).value
            if tcgen05_type_in([signature]):
                report(top, f"function type {signature} has a tcgen05 type, which no "
                            "argument or result may have (tcgen05 buffers are made inside "
                            "the kernel)")
                continue
        in_kernel = d.is_kernel(top)
        if in_kernel and not inside_kernels_too:
            continue
        where = "left after the pipeline (run tcgen05-lower-to-llvm before translation)" \
            if in_kernel else "outside a kernel; " + hint
        if top.name.startswith("tcgen05."):
            report(top, f"{top.name} is {where}")
            continue
        for op in d.walk_ops(top):
            if op.name.startswith("tcgen05.") or tcgen05_type_in(
                    [r.type for r in op.results]):
                report(op, f"{op.name} is {where}")
                break
    return found


#: Dialects whose ops LLVM's translation takes.
_TRANSLATED = ("llvm.", "nvvm.", "builtin.")


def unlowered_ops(module_op) -> list[Diagnostic]:
    """A located error for the first op of each name that the pipeline left in a dialect
    LLVM's translation does not take (e.g. a ``gpu.thread_id``, which no pass here
    lowers): the translation reports it from a thread that does not hold the GIL, which
    aborts the process."""
    found, seen = [], set()
    for op in d.walk_ops(module_op):
        if op.name.startswith(_TRANSLATED) or op.name in seen:
            continue
        seen.add(op.name)
        filename, line, col = file_location(op.location)
        found.append(Diagnostic("error", filename, line, col,
                                f"{op.name} is not lowered by this pipeline, so LLVM IR "
                                f"cannot be made from it"))
    return found


def planning_prefix(pipeline: str) -> str:
    """The part of a pipeline before tcgen05-lower-to-llvm: what --emit=mlir runs."""
    elements = split_top_level(strip_module_anchor(pipeline))
    names = [e.split("{")[0].strip() for e in elements]
    cut = names.index("tcgen05-lower-to-llvm") if "tcgen05-lower-to-llvm" in names \
        else len(elements)
    return ",".join(elements[:cut])


def run_pipeline(module_op, pipeline: str, *, print_ir_after_all: bool = False,
                 report_stream=None, results: list | None = None,
                 instrumentation=None, verify_each: bool | None = None) -> None:
    """Runs a textual pipeline on a parsed module (inside its context); the tcgen05
    passes' results are appended to `results`, if given. `verify_each` (default:
    pipeline.verify_each_default()) verifies the module after every pass; without it
    the module is verified after every tcgen05 pass and after the last pass. Invalid IR
    raises MLIRError with the verifier's diagnostics."""
    if verify_each is None:
        verify_each = verify_each_default()
    steps = parse_pipeline(pipeline)
    pm = build_pass_manager(steps, print_ir_after_all=print_ir_after_all,
                            report_stream=report_stream, results=results,
                            instrumentation=instrumentation, verify_each=verify_each)
    pm.run(module_op)
    if not verify_each and steps and steps[-1].tcgen05_pass is None:
        module_op.verify()


def compile_source(text: str, source_name: str = "<input>", *, arch: str | None = None,
                   emit: str = "ptx", pipeline: str = DEFAULT_PIPELINE,
                   print_ir_after_all: bool = False, report_stream=None,
                   instrumentation=None, verify_each: bool | None = None,
                   line_info: bool = False) -> CompileResult:
    """Compiles tcgen05 MLIR text to `emit` ("mlir" stops after planning);
    `instrumentation` (pipeline.Instrumentation) turns on mlir-opt's IR printing, timing
    and statistics; `verify_each` verifies the module after every pass (run_pipeline).
    With `line_info` the LLVM IR and PTX carry each op's MLIR location (``.loc`` /
    ``.file`` in the PTX, backend.add_line_info); without it (the default) the PTX has
    no debugging directives at all."""
    if emit not in EMIT_KINDS:
        raise ValueError(f"--emit must be one of {', '.join(EMIT_KINDS)}")
    context = d.make_context()
    result = CompileResult()
    with context, capture_diagnostics(context) as diagnostics:
        try:
            module = parse_module(text, source_name)
            stray = stray_tcgen05(module, inside_kernels_too=False) \
                + unspellable_kernel_names(module) + unreachable_blocks(module) \
                + misaligned_function_arguments(module)
            if stray:
                raise CompileFailed(list(diagnostics) + stray)
            try:
                target = module_target(module, arch)
            except d.InvalidAttribute:
                raise  # an entry of a kernel's tcgen05.kernel: located at the kernel below
            except ValueError as exc:  # the kernels disagree: located at a kernel
                raise CompileFailed(list(diagnostics) + [
                    target_diagnostic(module, None, str(exc), source_name)]) from None
            try:
                renamed = targets.check_target(target).renamed_to
            except (ValueError, IsaRuleError) as exc:  # named by --arch or by a kernel
                raise CompileFailed(list(diagnostics) + [
                    target_diagnostic(module, arch, str(exc), source_name)]) from None
            if renamed:
                # sm_101a / sm_101f are sm_110a / sm_110f from PTX ISA 9.0, and the
                # ptxas this project uses (CUDA 13) knows only the new names.
                note = target_diagnostic(
                    module, arch, f"target {target} is called {renamed} from PTX ISA 9.0 "
                    f"(9.7.16 Target ISA Notes) and ptxas from CUDA 13 knows only that "
                    f"name: compiling for {renamed}", source_name)
                result.warnings.append(Diagnostic("warning", note.filename, note.line,
                                                  note.col, note.message))
                target = renamed
            for kernel in d.kernels(module):
                d.set_kernel_target(kernel, target)
            result.target = target
            if emit == "mlir":
                pipeline = planning_prefix(pipeline)
            uses = feature_uses(module, target, source_name)
            signatures = kernel_signatures(module, text)
            misnamed = grid_problems(module, signatures) + \
                tensor_map_problems(module, signatures)
            if misnamed:
                raise CompileFailed(list(diagnostics) + misnamed)
            run_pipeline(module, pipeline, print_ir_after_all=print_ir_after_all,
                         report_stream=report_stream, results=result.pass_results,
                         instrumentation=instrumentation, verify_each=verify_each)
        except MLIRError as error:
            raise CompileFailed(list(diagnostics) + error_diagnostics(error)) from None
        except d.InvalidAttribute as exc:  # read before the pipeline's tcgen05-verify
            filename, line, col = file_location(exc.op.location)
            raise CompileFailed(list(diagnostics) + [
                Diagnostic("error", filename or source_name, line, col, exc.message)]) from None
        except ValueError as exc:  # bad target or pipeline: no location to point at
            raise CompileFailed([Diagnostic("error", source_name, None, None, str(exc))]) \
                from None
        if any(x.severity == "error" for x in diagnostics):
            raise CompileFailed(list(diagnostics))
        result.diagnostics = result.warnings + list(diagnostics)
        if emit == "mlir":
            result.mlir = segments.strip(str(module))
            return result
        try:
            result.ptx_version, result.ptx_version_reason = ptx_version_for(target, uses)
        except IsaRuleError as exc:  # a pipeline without tcgen05-verify let it through
            raise CompileFailed([Diagnostic("error", source_name, None, None, str(exc))]) \
                from None
        stray = stray_tcgen05(module, inside_kernels_too=True) or unlowered_ops(module)
        if stray:  # the C++ translation would crash on them
            raise CompileFailed(stray)
        smem_bytes = dynamic_smem_bytes(module)
        if line_info:
            try:
                backend.add_line_info(module)
            except MLIRError as error:
                raise CompileFailed(list(diagnostics) + error_diagnostics(error)) from None
        result.llvm_ir = backend.translate_to_llvm_ir(module)
    if emit == "llvm":
        return result
    result.ptx = backend.emit_ptx(result.llvm_ir, target=result.target,
                                  ptx_version=result.ptx_version)
    result.manifests = {name: launch_manifest(sig, smem_bytes.get(name, 0), result)
                        for name, sig in signatures.items()}
    result.manifest = next(iter(result.manifests.values()), None)
    if emit == "cubin":
        assembled = backend.run_ptxas(result.ptx, arch=result.target, want_cubin=True)
        if not assembled.ok:
            raise CompileFailed([Diagnostic("error", source_name, None, None,
                                            "ptxas rejected the PTX:\n" + assembled.stderr)])
        result.cubin = assembled.cubin
    return result


# -- the launch manifest -----------------------------------------------------------------------
MANIFEST_VERSION = 1


def kernel_signatures(module_op, text: str) -> dict[str, dict]:
    """Per kernel (before lowering): its parameters' source names and MLIR types, threads
    per CTA and cta_group. Block arguments carry no names once parsed, so the names are
    the ones parsing recorded on the arguments (kernel_ir.record_parameter_names), else
    those the arguments' locations give (kernel_ir.source_parameter_names: ``%A`` in
    the source text, or the builder's name locations)."""
    out = {}
    for kernel in d.kernels(module_op):
        info = d.kernel_info(kernel)
        types = [str(a.type) for a in kernel.regions[0].blocks[0].arguments]
        names = recorded_parameter_names(kernel) or source_parameter_names(kernel, text)
        from tcgen05_lower.tma import kernel_tensor_maps

        out[info.name] = {"entry": info.name, "threads": info.threads, "cta_group": info.cta_group,
                          "params": list(zip(names, types)), "grid": list(info.grid),
                          "tensor_maps": kernel_tensor_maps(kernel),
                          "cluster": list(info.cluster_dims)}
    return out


def grid_problems(module_op, signatures: dict) -> list[Diagnostic]:
    """Located errors for a kernel whose ``grid`` names something other than one of its
    integer arguments (by the source's parameter names, which only the driver knows;
    tcgen05-verify checks the entries' form)."""
    from tcgen05_lower.launch import GridError, grid_arguments

    found = []
    for kernel in d.kernels(module_op):
        signature = signatures[d.kernel_info(kernel).name]
        integers = [name for name, mlir_type in signature["params"]
                    if re.fullmatch(r"i\d+|index", mlir_type)]
        try:
            grid_arguments(signature["grid"], integers)
        except GridError as exc:
            filename, line, col = file_location(kernel.location)
            found.append(Diagnostic("error", filename, line, col,
                                    f"{d.KERNEL_ATTR}.grid: {exc}"))
    return found


def tensor_map_problems(module_op, signatures: dict) -> list[Diagnostic]:
    """Located errors for a tensor-map parameter whose ``tensor`` is not the name of one of
    the kernel's pointer parameters (names are the source's, which only the driver knows;
    tcgen05-verify checks the rest of the attribute against the tiles)."""
    found = []
    for kernel in d.kernels(module_op):
        signature = signatures[d.kernel_info(kernel).name]
        maps = signature.get("tensor_maps", {})
        pointers = [name for i, (name, mlir_type) in enumerate(signature["params"])
                    if mlir_type.startswith("!llvm.ptr") and i not in maps]
        for index, spec in maps.items():
            if spec.tensor is None or spec.tensor in pointers:
                continue
            own = signature["params"][index][0]
            filename, line, col = file_location(kernel.location)
            found.append(Diagnostic(
                "error", filename, line, col,
                f"tcgen05.tensor_map of parameter {own}: tensor = \"{spec.tensor}\" is not "
                f"an array (pointer) parameter of the kernel "
                f"({', '.join(pointers) or 'none'}); it names the array the map was encoded "
                f"for (docs/tma.md)"))
    return found


def dynamic_smem_bytes(module_op) -> dict[str, int]:
    """The dynamic shared memory of each lowered kernel (the lowering's
    ``tcgen05.dynamic_smem_bytes`` attribute)."""
    from tcgen05_lower.bindings import int_value, ir

    out = {}
    for op in module_op.regions[0].blocks[0].operations:
        if "tcgen05.dynamic_smem_bytes" in op.attributes and "sym_name" in op.attributes:
            name = ir.StringAttr(op.attributes["sym_name"]).value
            out[name] = int_value(op.attributes["tcgen05.dynamic_smem_bytes"])
    return out


def ptx_entry_params(ptx: str, entry: str) -> list[tuple[str, str]]:
    """(name, type) of each parameter of a PTX .entry, in order."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\(([^)]*)\)", ptx)
    if not m:
        return []
    params = []
    for item in m.group(1).split(","):
        words = item.split()
        if words:
            ptype = next((w for w in words if re.fullmatch(r"\.[bsuf]\d+|\.pred", w)), "")
            params.append((words[-1], ptype))
    return params


def _one_cluster(signature: dict) -> list[str]:
    """The grid of a kernel that gives none: one cluster (its x, and y when not 1)."""
    x, y, _ = signature.get("cluster") or [signature["cta_group"], 1, 1]
    return [str(x)] + ([str(y)] if y > 1 else [])


def launch_manifest(signature: dict, smem_bytes: int, result: CompileResult) -> dict:
    """What a launch needs beyond the PTX: entry, parameters in order (source name, MLIR
    type, PTX name and type; ``pointer`` false for an integer argument, passed by value),
    threads per CTA, cluster shape, the grid in CTAs (one string per dimension, an
    integer or an expression of integer arguments, ``tcgen05_lower.launch``; one cluster
    when the kernel gives none), dynamic shared memory, target and PTX version. A
    tensor-map parameter's entry also has ``tensor_map``: {tensor, box, swizzle}.
    JSON-serializable."""
    from tcgen05_lower.isa import targets as t

    entry = signature["entry"]
    ptx_params = ptx_entry_params(result.ptx or "", entry)
    params = []
    for i, (pname, mlir_type) in enumerate(signature["params"]):
        ptx_name, ptx_type = ptx_params[i] if i < len(ptx_params) else ("", "")
        params.append({"name": pname, "mlir_type": mlir_type, "ptx_name": ptx_name,
                       "ptx_type": ptx_type, "pointer": mlir_type.startswith("!llvm.ptr")})
        spec = signature.get("tensor_maps", {}).get(i)
        if spec is not None:
            # The array it describes, its box (innermost first) and swizzle (docs/tma.md).
            params[-1]["tensor_map"] = spec.as_manifest()
    return {
        "manifest_version": MANIFEST_VERSION,
        "entry": entry,
        "params": params,
        "threads": signature["threads"],
        "cluster": signature.get("cluster") or [signature["cta_group"], 1, 1],
        "grid": signature["grid"] or _one_cluster(signature),
        "dynamic_smem_bytes": smem_bytes,
        "target": result.target,
        "ptx_version": t.ptx_version_string(result.ptx_version),
    }
