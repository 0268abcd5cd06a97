"""The 128 x 256 f32 epilogue under both ld/st strategies, assembled by ptxas (issue 5,
acceptance 3).

- register-budget=32: every tcgen05.ld moves at most 32 registers per thread
  (.32x32b.x32, Table 47: 32 registers), and ``ptxas -v`` reports no spill stores or
  loads;
- max-width: the widest legal messages, two .32x32b.x128 (Table 47's largest .num for
  .32x32b).

The numbers ptxas reports (registers, spills) are printed with ``pytest -s`` for the
comparison of the two strategies.
"""

import re


from conftest import requires_ptxas
from tcgen05_lower.backend import run_ptxas
from tcgen05_lower.driver import compile_source
from tcgen05_lower.pipeline import DEFAULT_PIPELINE

EPILOGUE = """
func.func @epilogue_128x256(%A: !llvm.ptr<1>, %B: !llvm.ptr<1>, %C: !llvm.ptr<1>)
    attributes {tcgen05.kernel = {target = "sm_100a", threads = 128 : i64, cta_group = 1 : i64}} {
  %c0 = arith.constant 0 : index
  %f = arith.constant false
  %a = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[128, 64], bf16, "K", "128B">
  %b = "tcgen05.smem_buffer"() : () -> !tcgen05.smem<[256, 64], bf16, "K", "128B">
  %acc = "tcgen05.tmem_buffer"() {name = "acc"} : () -> !tcgen05.tmem<[128, 256], f32>
  "tcgen05.smem_fill"(%A, %a, %c0) {src_layout = "mn_k", src_ld = 64 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[128, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.smem_fill"(%B, %b, %c0) {src_layout = "k_mn", src_ld = 256 : i64}
      : (!llvm.ptr<1>, !tcgen05.smem<[256, 64], bf16, "K", "128B">, index) -> ()
  "tcgen05.mma"(%acc, %a, %b, %f) {kind = "f16", k_offset = 0 : i64}
      : (!tcgen05.tmem<[128, 256], f32>, !tcgen05.smem<[128, 64], bf16, "K", "128B">,
         !tcgen05.smem<[256, 64], bf16, "K", "128B">, i1) -> ()
  %frag = "tcgen05.ld"(%acc, %c0) : (!tcgen05.tmem<[128, 256], f32>, index) -> !tcgen05.frag<[128, 256], f32>
  "tcgen05.store_fragment"(%frag, %C, %c0) {ld = 256 : i64}
      : (!tcgen05.frag<[128, 256], f32>, !llvm.ptr<1>, index) -> ()
  return
}
"""

LD = re.compile(r"tcgen05\.ld\.sync\.aligned\.(\w+)\.x(\d+)\.b32 \{([^}]*)\}")


def compile_with(strategy: str) -> str:
    pipeline = DEFAULT_PIPELINE.replace("tcgen05-select-layouts",
                                        f"tcgen05-select-layouts{{strategy={strategy}}}")
    return compile_source(EPILOGUE, "epilogue.mlir", pipeline=pipeline).ptx


def ptxas_usage(ptx: str) -> dict:
    """Registers and spill bytes from ``ptxas -v``."""
    result = run_ptxas(ptx, arch="sm_100a", extra_args=("-v",))
    assert result.ok, result.stderr
    text = result.stdout + result.stderr
    registers = re.search(r"Used (\d+) registers", text)
    spills = re.search(r"(\d+) bytes spill stores, (\d+) bytes spill loads", text)
    assert registers and spills, text
    return {"registers": int(registers.group(1)), "spill_stores": int(spills.group(1)),
            "spill_loads": int(spills.group(2)),
            "instructions": sum(1 for line in ptx.splitlines()
                                if line.strip() and line.strip().endswith(";")
                                and not line.strip().startswith((".", "//")))}


def loads(ptx: str) -> list[tuple[str, int, int]]:
    """(shape, .num, destination registers) of every tcgen05.ld."""
    return [(m.group(1), int(m.group(2)), len(m.group(3).split(",")))
            for m in LD.finditer(ptx)]


@requires_ptxas
def test_register_budget_32_loads_in_chunks_of_32_without_spills():
    ptx = compile_with("register-budget=32")
    messages = loads(ptx)
    assert messages == [("32x32b", 32, 32)] * 8  # 256 columns, 32 at a time
    usage = ptxas_usage(ptx)
    print(f"\nregister-budget=32: {len(messages)} tcgen05.ld, {usage}")
    assert usage["spill_stores"] == 0 and usage["spill_loads"] == 0


@requires_ptxas
def test_max_width_uses_the_widest_messages():
    ptx = compile_with("max-width")
    messages = loads(ptx)
    assert messages == [("32x32b", 128, 128)] * 2
    usage = ptxas_usage(ptx)
    print(f"\nmax-width: {len(messages)} tcgen05.ld, {usage}")
