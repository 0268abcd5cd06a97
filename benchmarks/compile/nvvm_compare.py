"""Compile time of one kernel written twice: in the tcgen05 dialect, and by hand in
upstream MLIR 22.1's NVVM ops (issue 26).

    python benchmarks/compile/nvvm_compare.py                 # print the report
    python benchmarks/compile/nvvm_compare.py -o benchmarks/compile/NVVM.md
    python benchmarks/compile/nvvm_compare.py --tiles 4 --repeats 1   # a quick look

The kernel is the *straight* shape of ``scaling.py``: N tiles, each two smem_fills of a
128x64 bf16 tile (128-byte swizzle), an MMA (kind::f16, M = N = 128) into one of two
accumulators in turn, a tcgen05.ld (32x32b.x32) of the first 32 columns and a
store_fragment of them. It is written twice:

* **tcgen05**: ``scaling.straight_kernel(N)``, compiled the way ``tcgen05-lower`` does:
  the default pipeline (``tcgen05_lower.pipeline``), translation to LLVM IR, LLVM's NVPTX
  backend through llvmlite.
* **nvvm**: ``nvvm_kernel(N)`` below, an ``llvm.func`` in ``nvvm.tcgen05.*``,
  ``nvvm.mbarrier.*``, ``nvvm.fence.*``, ``nvvm.barrier0`` with ``arith``/``llvm`` address
  arithmetic and ``scf`` loops and conditions, written as a kernel author using upstream
  writes it (addresses and descriptors computed once, per-tile values derived from them),
  lowered by upstream passes only (``UPSTREAM``) and translated by the same LLVM.

The hand-written kernel carries the synchronization the tcgen05 pipeline inserts for this
kernel: one mbarrier for all tiles (tile i's wait names phase i, parity i mod 2), a
CTA barrier per tile after the fills, a
``tcgen05.wait::ld`` before an accumulator's second MMA and before the dealloc.
``sync_counts`` counts every tcgen05 and synchronization instruction of a PTX file; both
files must give identical counts (``check_fair``), which is what makes the comparison
fair: the two compile the same instructions. ``tests/test_nvvm_compare.py`` checks it.

Each compile runs in a process of its own (``--worker``), which reports the CPU time
(``time.process_time``) of every step from parsing the text to the PTX, and the peak
resident set of the process (``VmHWM``). The pairs (tcgen05, nvvm) are interleaved, in
alternating order, and the medians are reported.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]


def _load_scaling():
    """scaling.py of this directory as a module (benchmarks/ is not a package)."""
    spec = importlib.util.spec_from_file_location("compile_scaling", HERE / "scaling.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)
    spec.loader.exec_module(module)
    return module


scaling = _load_scaling()

# ------------------------------------------------------------------------- the NVVM kernel

#: Upstream passes that lower the hand-written kernel to the LLVM dialect.
UPSTREAM = ("convert-scf-to-cf", "convert-nvvm-to-llvm", "convert-arith-to-llvm",
            "convert-cf-to-llvm", "reconcile-unrealized-casts")

#: Bytes of one 128x64 bf16 operand tile in shared memory.
TILE_BYTES = 128 * 64 * 2
#: Shared memory descriptor of a K-major, 128-byte swizzled operand (Table 40 of
#: 9.7.16.4.1), without its start address (bits 0-13): leading dimension byte offset 16
#: (encoded 1, bits 16-29; unused for a swizzled K-major operand), stride dimension byte
#: offset 1024 (8 rows of 128 bytes, encoded 64, bits 32-45), the fixed 0b001 at bits
#: 46-48, base offset 0 (the tile starts on a 1024-byte boundary, Table 41) and swizzling
#: mode 2, 128-byte swizzling (bits 61-63).
SMEM_DESC = (1 << 16) | (64 << 32) | (1 << 46) | (2 << 61)
#: Instruction descriptor (Table 42 of 9.7.16.4.2), kind::f16: D F32 (1, bits 4-5), A and
#: B BF16 (1, bits 7-9 and 10-12), neither transposed (K-major), N >> 3 = 16 (bits 17-22),
#: M >> 4 = 8 (bits 24-28).
IDESC = (1 << 4) | (1 << 7) | (1 << 10) | (16 << 17) | (8 << 24)
#: Suspend-time hint of mbarrier.try_wait (nanoseconds), an operand of the upstream op.
TICKS = 10_000_000


def _fill(lines: list[str], t: str, base: int) -> None:
    """Copies the 128x64 bf16 tile at %A (row-major, 128 bytes a row) into shared memory
    at byte `base`, 128-byte swizzled: thread `tid` moves 16-byte chunks tid + 128 j,
    j < 8; chunk c of row r goes to r * 128 + ((c ^ (r % 8)) * 16), i.e. the linear offset
    o becomes o ^ ((o >> 3) & 0x70) (Table 53, 128B swizzle atom)."""
    lines += [
        f"    scf.for %j{t} = %c0 to %c8 step %c1 : i32 {{",
        f"      %jc{t} = arith.muli %j{t}, %c128 : i32",
        f"      %chunk{t} = arith.addi %tid, %jc{t} : i32",
        f"      %chunk64{t} = arith.extui %chunk{t} : i32 to i64",
        f"      %off{t} = arith.muli %chunk64{t}, %c16_64 : i64",
        f"      %src{t} = llvm.getelementptr %A[%off{t}] : (!llvm.ptr<1>, i64) -> "
        f"!llvm.ptr<1>, i8",
        f"      %v{t} = llvm.load %src{t} {{alignment = 16 : i64}} : !llvm.ptr<1> -> "
        f"vector<2xi64>",
        f"      %row{t} = arith.shrui %off{t}, %c3_64 : i64",
        f"      %phase{t} = arith.andi %row{t}, %c112_64 : i64",
        f"      %sw{t} = arith.xori %off{t}, %phase{t} : i64",
        f"      %dst{t} = llvm.getelementptr %smem[%sw{t}] : (!llvm.ptr<3>, i64) -> "
        f"!llvm.ptr<3>, i8" if base == 0 else
        f"      %at{t} = arith.addi %sw{t}, %c{base}_64 : i64\n"
        f"      %dst{t} = llvm.getelementptr %smem[%at{t}] : (!llvm.ptr<3>, i64) -> "
        f"!llvm.ptr<3>, i8",
        f"      llvm.store %v{t}, %dst{t} {{alignment = 16 : i64}} : vector<2xi64>, "
        f"!llvm.ptr<3>",
        "    }"]


#: How the hand-written kernel spells its loops and conditions (--control): "scf"
#: (scf.for, scf.if) or "cf" (llvm.br / llvm.cond_br between blocks).
CONTROL = ("scf", "cf")


def to_blocks(text: str) -> str:
    """The kernel text with its scf.for and scf.if (as nvvm_kernel writes them, one
    level deep) replaced by blocks and llvm.br / llvm.cond_br: what a kernel written
    directly in the LLVM dialect looks like."""
    out, stack = [], []
    for number, line in enumerate(text.splitlines()):
        loop = re.match(r"\s*scf\.for (%\w+) = (%\w+) to (%\w+) step (%\w+) : i32 \{$", line)
        cond = re.match(r"\s*scf\.if (%\w+) \{$", line)
        if loop:
            iv, lb, ub, step = loop.groups()
            k = f"L{number}"
            out += [f"    llvm.br ^h{k}({lb} : i32)", f"  ^h{k}({iv}: i32):",
                    f"    %lt{k} = arith.cmpi ult, {iv}, {ub} : i32",
                    f"    llvm.cond_br %lt{k}, ^b{k}, ^x{k}", f"  ^b{k}:"]
            stack.append(("for", k, iv, step))
        elif cond:
            k = f"L{number}"
            out += [f"    llvm.cond_br {cond.group(1)}, ^t{k}, ^e{k}", f"  ^t{k}:"]
            stack.append(("if", k, None, None))
        elif line.strip() == "}" and stack and line.startswith("    }"):
            kind, k, iv, step = stack.pop()
            if kind == "for":
                out += [f"    %n{k} = arith.addi {iv}, {step} : i32",
                        f"    llvm.br ^h{k}(%n{k} : i32)", f"  ^x{k}:"]
            else:
                out += [f"    llvm.br ^e{k}", f"  ^e{k}:"]
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def nvvm_kernel(n: int, control: str = "scf") -> str:
    """`n` tiles of scaling.straight_kernel, by hand in upstream NVVM ops; `control`
    (CONTROL) picks scf loops and conditions or blocks and branches."""
    if control == "cf":
        return to_blocks(nvvm_kernel(n))
    # One mbarrier for every tile's commit: tile i's commit completes its phase i, which
    # the wait names by parity i mod 2; the CTA barrier after each tile's fills keeps
    # every thread's wait for phase i before the commit of phase i + 1.
    bars = 1
    lines = [
        "module {",
        "  llvm.mlir.global external @smem() {addr_space = 3 : i32, alignment = 1024 : i64}"
        " : !llvm.array<0 x i8>",
        # Slot 0: the TMEM address tcgen05.alloc writes; slot 1: the mbarrier.
        f"  llvm.mlir.global internal @slots() {{addr_space = 3 : i32, alignment = 8 : i64}}"
        f" : !llvm.array<{bars + 1} x i64> {{",
        f"    %u = llvm.mlir.undef : !llvm.array<{bars + 1} x i64>",
        f"    llvm.return %u : !llvm.array<{bars + 1} x i64>",
        "  }",
        "  llvm.func @scaling(%A: !llvm.ptr<1>, %C: !llvm.ptr<1>) attributes {nvvm.kernel, "
        "nvvm.reqntid = array<i32: 128, 1, 1>, nvvm.minctasm = 1 : i32} {",
        "    %c0 = arith.constant 0 : i32",
        "    %c1 = arith.constant 1 : i32",
        "    %c5 = arith.constant 5 : i32",
        "    %c8 = arith.constant 8 : i32",
        "    %c21 = arith.constant 21 : i32",
        "    %c31 = arith.constant 31 : i32",
        "    %c128 = arith.constant 128 : i32",
        "    %c256 = arith.constant 256 : i32",
        f"    %ticks = arith.constant {TICKS} : i32",
        f"    %idesc = arith.constant {IDESC} : i32",
        "    %false = arith.constant false",
        "    %c3_64 = arith.constant 3 : i64",
        "    %c4_64 = arith.constant 4 : i64",
        "    %c9_64 = arith.constant 9 : i64",
        "    %c16_64 = arith.constant 16 : i64",
        "    %c112_64 = arith.constant 112 : i64",
        f"    %c{TILE_BYTES}_64 = arith.constant {TILE_BYTES} : i64",
        "    %c262143_64 = arith.constant 262143 : i64",
        f"    %descbits = arith.constant {SMEM_DESC} : i64",
        "    %tid = nvvm.read.ptx.sreg.tid.x : i32",
        "    %warp = arith.shrui %tid, %c5 : i32",
        "    %lane = arith.andi %tid, %c31 : i32",
        "    %is_t0 = arith.cmpi eq, %tid, %c0 : i32",
        "    %is_w0 = arith.cmpi eq, %warp, %c0 : i32",
        "    %slots = llvm.mlir.addressof @slots : !llvm.ptr<3>",
        "    %smem = llvm.mlir.addressof @smem : !llvm.ptr<3>",
        "    scf.if %is_t0 {"]
    for i in range(bars):
        lines += [f"      %ib{i} = llvm.getelementptr %slots[{i + 1}] : (!llvm.ptr<3>) -> "
                  f"!llvm.ptr<3>, i64",
                  f"      nvvm.mbarrier.init %ib{i}, %c1 : !llvm.ptr<3>, i32"]
    lines += [
        "      nvvm.fence.mbarrier.init",
        "    }",
        "    nvvm.barrier0",
        "    scf.if %is_w0 {",
        "      nvvm.tcgen05.alloc %slots, %c256 : !llvm.ptr<3>, i32",
        "    }",
        "    nvvm.tcgen05.fence <before>",
        "    nvvm.barrier0",
        "    nvvm.tcgen05.fence <after>",
        "    %tbase = llvm.load %slots : !llvm.ptr<3> -> i32",
        "    scf.if %is_w0 {",
        "      nvvm.tcgen05.relinquish_alloc_permit",
        "    }",
        # Accumulators: columns 0 and 128 of the allocation; this warp's lanes start at
        # lane 32 * warp (taddr bits 16-31 are the lane, 9.7.16.2).
        "    %acc1 = arith.addi %tbase, %c128 : i32",
        "    %d0 = llvm.inttoptr %tbase : i32 to !llvm.ptr<6>",
        "    %d1 = llvm.inttoptr %acc1 : i32 to !llvm.ptr<6>",
        "    %lanes = arith.shli %warp, %c21 : i32",
        "    %t0 = arith.addi %tbase, %lanes : i32",
        "    %t1 = arith.addi %t0, %c128 : i32",
        "    %ld0 = llvm.inttoptr %t0 : i32 to !llvm.ptr<6>",
        "    %ld1 = llvm.inttoptr %t1 : i32 to !llvm.ptr<6>",
        # Operand descriptors (Table 40): A at byte 0, B at TILE_BYTES of the buffer.
        "    %sa = llvm.ptrtoint %smem : !llvm.ptr<3> to i64",
        f"    %sb = arith.addi %sa, %c{TILE_BYTES}_64 : i64",
        "    %sa14 = arith.andi %sa, %c262143_64 : i64",
        "    %sb14 = arith.andi %sb, %c262143_64 : i64",
        "    %sa4 = arith.shrui %sa14, %c4_64 : i64",
        "    %sb4 = arith.shrui %sb14, %c4_64 : i64",
        "    %da = arith.ori %sa4, %descbits : i64",
        "    %db = arith.ori %sb4, %descbits : i64",
        # Row warp * 32 + lane of C (128 f32 a row, 512 bytes) is this thread's.
        "    %w32 = arith.shli %warp, %c5 : i32",
        "    %crow = arith.addi %w32, %lane : i32",
        "    %crow64 = arith.extui %crow : i32 to i64",
        "    %coff = arith.shli %crow64, %c9_64 : i64",
        "    %cptr = llvm.getelementptr %C[%coff] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8"]
    for i in range(n):
        t = f"_{i}"
        _fill(lines, f"a{t}", 0)
        _fill(lines, f"b{t}", TILE_BYTES)
        reuse = i >= 2 and i % 2 == 0
        if reuse:
            # The accumulator's previous tcgen05.ld must complete before the MMA
            # overwrites it (9.7.16.6.2.1.2).
            lines += ["    nvvm.tcgen05.wait <load>", "    nvvm.tcgen05.fence <before>"]
        lines += ["    nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, "
                  "space = #nvvm.shared_space<cta>}",
                  "    nvvm.barrier0"]
        if reuse:
            lines.append("    nvvm.tcgen05.fence <after>")
        lines += [
            f"    %bar{t} = llvm.getelementptr %slots[1] : (!llvm.ptr<3>) -> "
            f"!llvm.ptr<3>, i64",
            "    scf.if %is_t0 {",
            f"      nvvm.tcgen05.mma %d{i % 2}, %da, %db, %idesc, %false "
            "{ctaGroup = #nvvm.cta_group<cta_1>, kind = #nvvm.tcgen05_mma_kind<f16>} : "
            "(!llvm.ptr<6>, i64, i64, i32, i1)",
            f"      nvvm.tcgen05.commit %bar{t} : !llvm.ptr<3>",
            "    }",
            f"    nvvm.mbarrier.try_wait.parity %bar{t}, %c{i % 2}, %ticks : !llvm.ptr<3>, "
            "i32, i32",
            "    nvvm.tcgen05.fence <after>",
            f"    %frag{t} = nvvm.tcgen05.ld %ld{i % 2} "
            "{shape = #nvvm.tcgen05_ldst_shape<shape_32x32b>} : vector<32xi32>"]
        for k in range(32):
            lines += [f"    %e{t}_{k} = llvm.extractelement %frag{t}[%k{k} : i32] : "
                      f"vector<32xi32>",
                      f"    %p{t}_{k} = llvm.getelementptr %cptr[{k}] : (!llvm.ptr<1>) -> "
                      f"!llvm.ptr<1>, i32",
                      f"    llvm.store %e{t}_{k}, %p{t}_{k} {{alignment = 4 : i64}} : i32, "
                      f"!llvm.ptr<1>"]
    lines += [
        "    nvvm.tcgen05.wait <load>",
        "    nvvm.tcgen05.fence <before>",
        "    nvvm.barrier0",
        "    nvvm.tcgen05.fence <after>",
        "    scf.if %is_w0 {",
        "      nvvm.tcgen05.dealloc %d0, %c256 : !llvm.ptr<6>, i32",
        "    }",
        "    llvm.return",
        "  }",
        "}"]
    # The element indices of llvm.extractelement, defined once at the top.
    constants = [f"    %k{k} = arith.constant {k} : i32" for k in range(32)]
    body = lines.index("    %tid = nvvm.read.ptx.sreg.tid.x : i32")
    return "\n".join(lines[:body] + constants + lines[body:]) + "\n"


# ------------------------------------------------------------------------- compiling

CLOCK = time.process_time


def compile_tcgen05(text: str) -> tuple[dict[str, float], str, str]:
    """The tcgen05 kernel to PTX the way ``tcgen05-lower`` does, each pass of the default
    pipeline timed on its own (scaling.compile_steps): (seconds per step, LLVM IR, PTX)."""
    seconds, _, _, llvm_ir, ptx = scaling.compile_steps(text)
    return seconds, llvm_ir, ptx


#: The PTX ISA version the tcgen05 side picks for sm_100a (driver.ptx_version_for); the
#: NVVM side is printed with the same.
TARGET = "sm_100a"


def compile_nvvm(text: str) -> tuple[dict[str, float], str, str]:
    """The hand-written NVVM kernel to PTX: upstream passes (UPSTREAM), each timed on its
    own, then the same translation and NVPTX backend as the tcgen05 side."""
    from tcgen05_lower import backend, driver
    from tcgen05_lower.bindings import PassManager, ir

    seconds = {}
    with ir.Context():
        start = CLOCK()
        module = ir.Module.parse(text)
        seconds["parse"] = CLOCK() - start
        seconds["verifier"] = 0.0
        for name in UPSTREAM:
            manager = PassManager.parse(f"builtin.module({name})")
            manager.enable_verifier(False)
            start = CLOCK()
            manager.run(module.operation)
            seconds[name] = CLOCK() - start
            start = CLOCK()
            module.operation.verify()
            seconds["verifier"] += CLOCK() - start
        start = CLOCK()
        llvm_ir = backend.translate_to_llvm_ir(module.operation)
        seconds["translate-to-llvm-ir"] = CLOCK() - start
    ptx_version, _ = driver.ptx_version_for(TARGET, [])
    start = CLOCK()
    ptx = backend.emit_ptx(llvm_ir, target=TARGET, ptx_version=ptx_version)
    seconds["emit-ptx"] = CLOCK() - start
    return seconds, llvm_ir, ptx


#: name: (kernel generator, compile). "nvvm" writes loops and conditions in scf,
#: "nvvm-cf" as blocks and branches (to_blocks).
SIDES = {"tcgen05": (scaling.straight_kernel, compile_tcgen05),
         "nvvm": (nvvm_kernel, compile_nvvm),
         "nvvm-cf": (lambda n: nvvm_kernel(n, "cf"), compile_nvvm)}


# ------------------------------------------------------------------------- counting

#: Instruction families counted by sync_counts: tcgen05 instructions and every
#: synchronization instruction (mbarrier operations, fences, CTA barriers).
_COUNTED = re.compile(r"(tcgen05|mbarrier|fence|barrier|bar|membar)\.")


def statements(ptx: str):
    """The instruction statements of PTX text, each without its guard predicate: the
    text split at ';' outside comments, braces, labels and ``.reg`` declarations
    removed (an inline-asm block holds several statements on one line)."""
    for line in ptx.splitlines():
        line = line.split("//", 1)[0]
        for part in line.split(";"):
            part = part.strip().strip("{}").strip()
            part = re.sub(r"^[\w$]+:\s*", "", part)  # a label
            if not part or part.startswith("."):
                continue
            part = re.sub(r"^@!?%?\w+\s+", "", part)
            yield part


def opcode_key(opcode: str) -> str:
    """The opcode of a counted instruction with spellings of the same instruction made
    one. ``.shared`` is ``.shared::cta`` (the PTX ISA's state-space rule: ``.shared``
    without a sub-qualifier is the executing CTA's shared memory; the NVPTX backend prints
    upstream's mbarrier intrinsics that way). ``bar.sync`` (what ``nvvm.barrier0``
    becomes) and ``barrier.sync[.aligned]`` are all one CTA barrier of all threads here
    (every thread of the CTA reaches each of them). The default collector usage
    ``.collector::a::discard`` (9.7.16.10.9.1) is what LLVM always prints and the project
    leaves out (docs/ptx-differences.md)."""
    key = re.sub(r"\.shared(?=\.|$)", ".shared::cta", opcode)
    key = key.replace(".collector::a::discard", "")
    if key in ("bar.sync", "barrier.sync.aligned"):
        key = "barrier.sync"
    return key


def sync_counts(ptx: str) -> Counter:
    """How often each tcgen05 and synchronization instruction occurs (opcode_key)."""
    counts = Counter()
    for statement in statements(ptx):
        opcode = statement.split(None, 1)[0]
        if _COUNTED.match(opcode):
            counts[opcode_key(opcode)] += 1
    return counts


def tcgen05_instructions(ptx: str) -> int:
    """The tcgen05 instructions of PTX text."""
    return sum(n for key, n in sync_counts(ptx).items() if key.startswith("tcgen05."))


def check_fair(ptx_tcgen05: str, ptx_nvvm: str) -> None:
    """Raises AssertionError unless both PTX files hold the same number of every tcgen05
    and synchronization instruction."""
    ours, theirs = sync_counts(ptx_tcgen05), sync_counts(ptx_nvvm)
    if ours != theirs:
        keys = sorted(set(ours) | set(theirs))
        diff = ", ".join(f"{k}: {ours[k]} vs {theirs[k]}" for k in keys
                         if ours[k] != theirs[k])
        raise AssertionError(f"the two kernels differ in tcgen05/sync instructions "
                             f"(tcgen05 vs nvvm): {diff}")


# ------------------------------------------------------------------------- measuring

#: Default sizes: about this many tcgen05 instructions (tiles_for).
DEFAULT_TARGETS = "250,1000"


def tiles_for(target: int) -> int:
    """Tiles giving about `target` tcgen05 instructions: a tile has 4 (mma, commit,
    fence::after_thread_sync, ld) and every second tile from the third 3 more (wait::ld,
    fence::before_thread_sync, fence::after_thread_sync); the kernel has 8 more
    (alloc, relinquish, dealloc, wait::ld and two fences of each kind)."""
    return max(1, round((target - 8) / 5.5))


def peak_rss() -> int:
    """The peak resident set of this process in bytes (VmHWM)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def worker(side: str, tiles: int, ptx_out: str | None) -> dict:
    """One compile of `side`'s kernel of `tiles` tiles in this process: seconds per step
    (CPU time), instruction counts and the peak resident set before and after."""
    from tcgen05_lower import backend
    generate, compile_ = SIDES[side]
    text = generate(tiles)
    backend._initialize_llvmlite()  # one-time LLVM set-up, not part of either compile
    before = peak_rss()
    seconds, llvm_ir, ptx = compile_(text)
    result = {"side": side, "tiles": tiles, "seconds": seconds,
              "total": sum(seconds.values()),
              "llvm_instructions": scaling.llvm_instructions(llvm_ir),
              "ptx_instructions": scaling.ptx_instructions(ptx),
              "tcgen05_instructions": tcgen05_instructions(ptx),
              "peak_rss_before": before, "peak_rss": peak_rss()}
    if ptx_out:
        Path(ptx_out).write_text(ptx)
    return result


def run_worker(side: str, tiles: int, ptx_out: str | None = None) -> dict:
    """worker() in a new process."""
    command = [sys.executable, str(Path(__file__).resolve()), "--worker", side, str(tiles)]
    if ptx_out:
        command += ["--ptx-out", ptx_out]
    done = subprocess.run(command, capture_output=True, text=True, cwd=ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"{side} worker ({tiles} tiles) failed:\n{done.stderr}")
    return json.loads(done.stdout.splitlines()[-1])


def measure(tiles: list[int], repeats: int, workdir: Path, scf_max_tiles: int) -> dict:
    """For every size, `repeats` interleaved rounds of one compile per side (the order
    of the sides reversed every other round), each in its own process; the "nvvm" side
    only up to `scf_max_tiles` tiles. The first round of each size also writes the PTX,
    which must pass check_fair for every NVVM side. Returns {tiles: {side: [results]}}."""
    runs = {n: {side: [] for side in SIDES if side != "nvvm" or n <= scf_max_tiles}
            for n in tiles}
    for repeat in range(repeats):
        for n in tiles:
            order = list(runs[n]) if repeat % 2 == 0 else list(reversed(runs[n]))
            for side in order:
                out = str(workdir / f"{side}-{n}.ptx") if repeat == 0 else None
                print(f"  {n} tiles, round {repeat + 1}/{repeats}: {side}", file=sys.stderr,
                      flush=True)
                runs[n][side].append(run_worker(side, n, out))
            if repeat == 0:
                for side in runs[n]:
                    if side != "tcgen05":
                        check_fair((workdir / f"tcgen05-{n}.ptx").read_text(),
                                   (workdir / f"{side}-{n}.ptx").read_text())
    return runs


# ------------------------------------------------------------------------- report

MIB = 2 ** 20


def median(results: list[dict], key) -> float:
    return statistics.median(key(r) for r in results)


def size_section(n: int, sides: dict) -> list[str]:
    """The Markdown section of one size: every side, and tcgen05 / each NVVM side."""
    names = list(sides)
    others = [x for x in names if x != "tcgen05"]
    first = {x: sides[x][0] for x in names}
    total = {x: median(sides[x], lambda r: r["total"]) for x in names}
    per = {x: first[x]["llvm_instructions"] / max(1, first[x]["ptx_instructions"])
           for x in names}
    rss = {x: median(sides[x], lambda r: r["peak_rss"]) for x in names}

    def row(label, values, ratios, bold=False):
        cells = [values[x] for x in names]
        cells += [(f"**{r:.2f}**" if bold else f"{r:.2f}") for r in ratios]
        return f"| {label} | " + " | ".join(cells) + " |"

    lines = [f"## {first['tcgen05']['tcgen05_instructions']} tcgen05 instructions "
             f"({n} tiles)", "",
             "| | " + " | ".join(names) + " | " +
             " | ".join(f"tcgen05 / {x}" for x in others) + " |",
             "|---|" + "---|" * (len(names) + len(others)),
             row("parse to PTX, median s", {x: f"{total[x]:.2f}" for x in names},
                 [total["tcgen05"] / total[x] for x in others], True),
             row("median of the pairs' ratios", {x: "" for x in names},
                 [statistics.median(a["total"] / b["total"]
                                    for a, b in zip(sides["tcgen05"], sides[x]))
                  for x in others]),
             row("LLVM IR instructions",
                 {x: str(first[x]["llvm_instructions"]) for x in names},
                 [first["tcgen05"]["llvm_instructions"] / first[x]["llvm_instructions"]
                  for x in others]),
             row("PTX instructions", {x: str(first[x]["ptx_instructions"]) for x in names},
                 [first["tcgen05"]["ptx_instructions"] / first[x]["ptx_instructions"]
                  for x in others]),
             row("LLVM IR per PTX instruction", {x: f"{per[x]:.2f}" for x in names},
                 [per["tcgen05"] / per[x] for x in others], True),
             row("peak RSS, median MiB", {x: f"{rss[x] / MIB:.0f}" for x in names},
                 [rss["tcgen05"] / rss[x] for x in others]),
             row("peak RSS before the compile, MiB",
                 {x: f"{median(sides[x], lambda r: r['peak_rss_before']) / MIB:.0f}"
                  for x in names}, []) + " |" * len(others),
             "", "Median CPU milliseconds per step (a step a side does not run is -):", "",
             "| step | " + " | ".join(names) + " |", "|---|" + "---|" * len(names)]
    steps = list(dict.fromkeys(k for x in names for k in sides[x][0]["seconds"]))
    steps.remove("verifier")
    steps.insert(len(steps) - 2, "verifier")
    for step in steps:
        cells = [f"{median(sides[x], lambda r: r['seconds'][step]) * 1e3:.1f}"
                 if step in sides[x][0]["seconds"] else "-" for x in names]
        lines.append(f"| {step} | " + " | ".join(cells) + " |")
    lines.append("| **parse to PTX** | " + " | ".join(f"{total[x] * 1e3:.1f}"
                                                     for x in names) + " |")
    return lines + [""]


def before_section(path: str) -> list[str]:
    """The summary table (and per-size totals) of an earlier report of this script, e.g.
    one generated before a change, quoted as it is."""
    text = Path(path).read_text().splitlines()
    start = next(i for i, line in enumerate(text) if line.startswith("| tcgen05 instructions |"))
    end = next((i for i in range(start, len(text)) if not text[i].startswith("|")), len(text))
    generated = next((line for line in text if line.startswith("Generated by")), "")
    table = ["| size | parse to PTX s, tcgen05 | nvvm | ratio | LLVM IR per PTX, tcgen05 "
             "| nvvm | peak RSS MiB, tcgen05 | nvvm |", "|---|---|---|---|---|---|---|---|"]
    cells = {}
    for line in text:
        if line.startswith("## ") and "tcgen05 instructions" in line:
            cells = {"size": line[3:]}
            table.append(cells)
        for key in ("| parse to PTX, median s", "| LLVM IR per PTX instruction",
                    "| peak RSS, median MiB"):
            if line.startswith(key) and cells:
                cells[key] = [c.strip().strip("*") for c in line.split("|")[2:5]]
    rows = [r if isinstance(r, str) else
            f"| {r['size']} | " + " | ".join(
                r["| parse to PTX, median s"] + r["| LLVM IR per PTX instruction"][:2]
                + r["| peak RSS, median MiB"][:2]) + " |" for r in table]
    return [f"## Before: `{path}`", "", f"{generated}", "", *rows, ""]


def commit() -> str:
    """The checked-out commit (with "+changes" when the work tree differs from it)."""
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"],
                               cwd=ROOT, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"
    return (head or "unknown") + ("+changes" if dirty else "")


def build_report(runs: dict, repeats: int, command: str, note: str,
                 before: str | None = None) -> str:
    import platform
    lines = [
        "# Compile time against the same kernel hand-written in upstream NVVM ops", "",
        f"Generated by `{command}` (do not edit by hand) at commit {commit()}, on "
        f"{platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}.", "",
        "The kernel is `scaling.py`'s *straight* shape (N tiles: two smem_fills, an MMA "
        "into one of two accumulators in turn, a tcgen05.ld, a store_fragment), once in the "
        "tcgen05 dialect through the default pipeline (*tcgen05*) and hand-written in "
        "upstream MLIR 22.1 NVVM ops with arith/llvm address arithmetic, lowered by "
        f"upstream passes ({', '.join(UPSTREAM)}): *nvvm* writes its loops and conditions "
        "as scf.for / scf.if, *nvvm-cf* as blocks and llvm.br / llvm.cond_br (the same "
        "kernel otherwise). All are translated to LLVM IR and compiled to PTX by the same "
        "LLVM NVPTX backend (llvmlite). Every PTX file holds the same count of every "
        "tcgen05 and synchronization instruction (checked at every size, `check_fair`). "
        "Each compile runs in a process of its own; times are the CPU time of that process "
        "(`time.process_time`) from parsing the text to the PTX, medians of "
        f"{repeats} interleaved rounds (one compile per side each); *ratio* is tcgen05 / "
        "the NVVM side. *verifier* is MLIR's verification of the module: on the tcgen05 "
        "side where `tcgen05-lower` does it by default (after every tcgen05 pass and after "
        "the last pass, `pipeline.verified_after`; after every pass if the environment sets "
        "TCGEN05_VERIFY_EACH), on the NVVM sides after every upstream pass, as mlir-opt "
        "does. Peak RSS is the process's VmHWM after the compile (Python, MLIR "
        "and LLVM included; the row below it is the same before the compile). The "
        "scf-written kernel is not compiled above `--scf-max-tiles`: upstream's lowering of "
        "it grew past 12 GB at 1,817 tiles (10,000 tcgen05 instructions) before it was "
        "stopped.", ""]
    if note:
        lines += [note, ""]
    others = [x for x in SIDES if x != "tcgen05"]
    lines += ["| tcgen05 instructions | tiles | " + " | ".join(
                  f"ratio to {x} (parse to PTX)" for x in others) + " | " + " | ".join(
                  f"LLVM IR per PTX, tcgen05 / {x}" for x in others) + " |",
              "|---|---|" + "---|" * (2 * len(others))]
    for n, sides in runs.items():
        ours = sides["tcgen05"]
        t = median(ours, lambda r: r["total"])
        per = ours[0]["llvm_instructions"] / ours[0]["ptx_instructions"]
        ratios = [f"{t / median(sides[x], lambda r: r['total']):.2f}" if x in sides
                  else "not measured" for x in others]
        pers = [f"{per / (sides[x][0]['llvm_instructions'] / sides[x][0]['ptx_instructions']):.2f}"
                if x in sides else "-" for x in others]
        lines.append(f"| {ours[0]['tcgen05_instructions']} | {n} | " +
                     " | ".join(ratios + pers) + " |")
    lines.append("")
    for n, sides in runs.items():
        lines += size_section(n, sides)
    if before:
        lines += before_section(before)
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=DEFAULT_TARGETS,
                        help="about this many tcgen05 instructions per kernel, "
                             "comma-separated (default: %(default)s)")
    parser.add_argument("--tiles", help="tile counts instead of --sizes")
    parser.add_argument("--repeats", type=int, default=5,
                        help="interleaved pairs per size (default: %(default)s)")
    parser.add_argument("--note", default="", help="a sentence the report prints")
    parser.add_argument("--scf-max-tiles", type=int, default=400,
                        help="largest size the scf-written NVVM kernel is compiled at "
                             "(default: %(default)s; its upstream lowering needs more than "
                             "12 GB at 1,817 tiles)")
    parser.add_argument("--before", help="an earlier report of this script whose "
                        "summary the report quotes (a before/after comparison)")
    parser.add_argument("-o", dest="output", help="write the report here")
    parser.add_argument("--worker", nargs=2, metavar=("SIDE", "TILES"),
                        help=argparse.SUPPRESS)
    parser.add_argument("--ptx-out", help=argparse.SUPPRESS)
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    if args.worker:
        print(json.dumps(worker(args.worker[0], int(args.worker[1]), args.ptx_out)))
        return 0
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    try:
        tiles = ([int(x) for x in args.tiles.split(",")] if args.tiles else
                 [tiles_for(int(x)) for x in args.sizes.split(",")])
    except ValueError:
        parser.error("sizes must be comma-separated integers")
    import tempfile
    with tempfile.TemporaryDirectory() as workdir:
        runs = measure(tiles, args.repeats, Path(workdir), args.scf_max_tiles)
    command = "python " + shlex.join(["benchmarks/compile/nvvm_compare.py"] + argv)
    text = build_report(runs, args.repeats, command, args.note, args.before)
    if args.output:
        Path(args.output).write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
