"""SASS counts of the kernels the examples compile to (benchmarks/codegen/report.py and
tests/test_codegen_sass.py share them).

Each example is compiled with its pass options (tests/conftest.py, EXAMPLE_PASS_OPTIONS)
to PTX, assembled by ptxas for sm_100a into a cubin (``ptxas -v`` gives registers and
spills), and disassembled by ``cuobjdump -sass``. In the SASS of each kernel:

- a *loop* is a backward branch of the kernel's body: one whose source lies before the
  kernel's last EXIT (ptxas moves the retry loops of mbarrier waits out of line, after the
  last EXIT; those are not loops of the program) and whose target lies before it; its
  instructions are those from the target to the branch, both included;
- the *issuing loop* is the smallest loop that holds an MMA (UTC*MMA*); its count per MMA
  is its instructions over its MMAs (the wait, the commit and the loop control included);
- the *load loop* is the smallest loop that holds a TMA load (UTMALDG); counted alike per
  TMA load;
- global stores are counted by width: STG.E (4 bytes), .64, .128, .U16/.S16 (2), .U8/.S8
  (1).
"""

from __future__ import annotations

import re
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from tcgen05_lower import backend, driver

ROOT = Path(__file__).resolve().parents[2]
ARCH = "sm_100a"

_INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_FUNCTION = re.compile(r"Function\s*:\s*(\S+)")
_BRANCH = re.compile(r"\bBRA(?:\.\S+)?\s+(?:!?U?P\w+,\s*)?(0x[0-9a-f]+)")
_REGISTERS = re.compile(r"Function properties for (\S+)|Compiling entry function '(\S+)'|"
                        r"(\d+) bytes spill stores, (\d+) bytes spill loads|"
                        r"Used (\d+) registers")
_STORE_WIDTH = {"": 4, ".64": 8, ".128": 16, ".U16": 2, ".S16": 2, ".U8": 1, ".S8": 1}


@dataclass
class Loop:
    """A backward branch of a kernel's body: instructions `first`..`last` (addresses)."""

    first: int
    last: int
    instructions: int
    mmas: int = 0
    tma_loads: int = 0


@dataclass
class KernelSass:
    """The counts of one kernel's SASS."""

    name: str
    instructions: int = 0
    mmas: int = 0
    tma_loads: int = 0
    stores: Counter = field(default_factory=Counter)   # bytes per STG -> count
    loops: list = field(default_factory=list)
    registers: int | None = None
    spill_stores: int = 0
    spill_loads: int = 0

    def smallest_loop(self, what: str) -> Loop | None:
        """The smallest loop holding at least one `what` ("mmas" or "tma_loads")."""
        holding = [loop for loop in self.loops if getattr(loop, what)]
        return min(holding, key=lambda loop: loop.instructions, default=None)

    def per(self, what: str) -> float | None:
        """Instructions per `what` in the smallest loop that holds one."""
        loop = self.smallest_loop(what)
        return None if loop is None else loop.instructions / getattr(loop, what)


def tool(name: str) -> str:
    """Path of a CUDA tool, or FileNotFoundError naming where it is looked for."""
    path = backend.find_cuda_tool(name)
    if path is None:
        raise FileNotFoundError(
            f"{name} not found: set {backend.TOOL_ENV[name]}, put {name} on PATH, or "
            f"install the test extra (pip install 'tcgen05-lower[test]')")
    return path


def example_pass_options(path: Path) -> tuple:
    """The pass options tests/conftest.py gives the example at `path`."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("_codegen_conftest",
                                                  ROOT / "tests" / "conftest.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.example_pass_options(path)


def compile_example(path: Path) -> str:
    """The PTX of the example at `path`, compiled with its pass options."""
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, override_options

    pipeline = override_options(DEFAULT_PIPELINE, list(example_pass_options(path)))
    result = driver.compile_source(path.read_text(), str(path), arch=ARCH, pipeline=pipeline)
    if result.ptx is None:
        raise RuntimeError(f"{path.name} did not compile: {result.diagnostics}")
    return result.ptx


def assemble(ptx: str) -> tuple[str, str]:
    """(`ptxas -v` output, `cuobjdump -sass` text) of `ptx` for sm_100a."""
    with tempfile.TemporaryDirectory(prefix="tcgen05-codegen-") as tmp:
        source, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        source.write_text(ptx)
        proc = subprocess.run([tool("ptxas"), f"-arch={ARCH}", "-v", str(source), "-o",
                               str(cubin)], capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"ptxas failed:\n{proc.stderr}")
        sass = subprocess.run([tool("cuobjdump"), "-sass", str(cubin)], capture_output=True,
                              text=True, check=True).stdout
    return proc.stdout + proc.stderr, sass


def parse_sass(sass: str) -> dict[str, KernelSass]:
    """Counts of every kernel in `cuobjdump -sass` text, by name."""
    kernels: dict[str, list] = {}
    current = None
    for line in sass.splitlines():
        header = _FUNCTION.search(line)
        if header:
            current = kernels.setdefault(header.group(1), [])
            continue
        match = _INSTRUCTION.search(line)
        if match and current is not None:
            current.append((int(match.group(1), 16), match.group(2)))
    return {name: count_kernel(name, body) for name, body in kernels.items()}


def count_kernel(name: str, body: list) -> KernelSass:
    """Counts of one kernel from its (address, instruction text) list."""
    kernel = KernelSass(name, instructions=len(body))
    exits = [addr for addr, text in body if re.search(r"\bEXIT\b", text)]
    end = max(exits, default=body[-1][0] if body else 0)
    mma_at, tma_at = [], []
    for addr, text in body:
        opcode = text.split()[1] if text.startswith("@") else text.split()[0]
        if re.fullmatch(r"UTC\w*MMA(\.\S+)?", opcode):
            mma_at.append(addr)
        elif opcode.startswith("UTMALDG"):
            tma_at.append(addr)
        elif opcode.startswith("STG"):
            kernel.stores[_STORE_WIDTH.get(opcode[len("STG.E"):], 0)] += 1
    kernel.mmas, kernel.tma_loads = len(mma_at), len(tma_at)
    addresses = [addr for addr, _ in body]
    for addr, text in body:
        branch = _BRANCH.search(text)
        if not branch or addr > end:
            continue
        target = int(branch.group(1), 16)
        if target > addr:
            continue
        inside = sum(1 for a in addresses if target <= a <= addr)
        kernel.loops.append(Loop(target, addr, inside,
                                 sum(1 for a in mma_at if target <= a <= addr),
                                 sum(1 for a in tma_at if target <= a <= addr)))
    return kernel


def parse_ptxas(verbose: str, kernels: dict[str, KernelSass]) -> None:
    """Registers and spills of each kernel from `ptxas -v` output."""
    current = None
    for line in verbose.splitlines():
        match = _REGISTERS.search(line)
        if not match:
            continue
        name = match.group(1) or match.group(2)
        if name:
            current = kernels.get(name)
        elif current is not None and match.group(3):
            current.spill_stores, current.spill_loads = int(match.group(3)), int(match.group(4))
        elif current is not None and match.group(5):
            current.registers = int(match.group(5))


def measure(path: Path) -> dict[str, KernelSass]:
    """The SASS counts of every kernel of the example at `path`."""
    verbose, sass = assemble(compile_example(path))
    kernels = parse_sass(sass)
    parse_ptxas(verbose, kernels)
    return kernels
