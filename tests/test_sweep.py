"""tcgen05_lower.sweep and tcgen05-sweep: the grid's points, failures per point, the
writers, the SVG plot, the command line's errors, a real two-point sweep of
examples/sweep_ws_gemm.py end to end, and four points of the flagship's sweep
(examples/sweep_flagship.py) checked against the tools run alone (tcgen05-lower, ptxas,
tcgen05-sim --timing-only)."""

from __future__ import annotations

import csv
import io
import json
import re
import runpy
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tcgen05_lower import sweep as S

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "sweep_ws_gemm.py"
SVG = "{http://www.w3.org/2000/svg}"


def test_grid_is_the_cartesian_product_last_parameter_fastest():
    # Written out by hand.
    assert S.expand({"a": [1, 2], "b": ["x", "y", "z"]}) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 1, "b": "z"},
        {"a": 2, "b": "x"}, {"a": 2, "b": "y"}, {"a": 2, "b": "z"}]
    assert S.expand({"only": [3]}) == [{"only": 3}]


@pytest.mark.parametrize("grid", [{}, {"a": []}, {"a": 3}])
def test_a_grid_without_values_is_refused(grid):
    with pytest.raises(S.SweepError):
        S.expand(grid)


def _fake_build(a):
    if a == 2:
        raise RuntimeError("no kernel for a = 2")
    return 42  # neither a kernel nor text


@pytest.mark.parametrize("jobs", [1, 2])
def test_each_point_fails_on_its_own(jobs):
    rows = S.sweep(_fake_build, {"a": [1, 2, 3]}, jobs=jobs, progress=None)
    assert [r["a"] for r in rows] == [1, 2, 3]
    assert all(r["status"] == "failed" and r["stage"] == "build" for r in rows)
    assert "no kernel for a = 2" in rows[1]["message"]
    # The raising line of this file is named.
    assert f"{__file__}:" in rows[1]["message"] or "test_sweep.py" in rows[1]["message"]
    assert "returned int" in rows[0]["message"] and "returned int" in rows[2]["message"]


def test_progress_line_per_point():
    out = io.StringIO()
    S.sweep(_fake_build, {"a": [1, 3]}, progress=out)
    lines = out.getvalue().splitlines()
    assert len(lines) == 2 and lines[-1].startswith("[" + "#" * 20 + "] 2/2 (2 failed")


ROWS = [
    {"N": 64, "stages": 2, "status": "ok", "stage": None, "message": None,
     "utilisation": 0.2},
    {"N": 64, "stages": 3, "status": "ok", "stage": None, "message": None,
     "utilisation": 0.4},
    {"N": 128, "stages": 2, "status": "failed", "stage": "compile",
     "message": "a | b, \"quoted\"", "utilisation": None},
    {"N": 128, "stages": 3, "status": "ok", "stage": None, "message": None,
     "utilisation": 0.3},
]


def test_csv_json_markdown_writers(tmp_path):
    parsed = list(csv.DictReader(io.StringIO(S.to_csv(ROWS))))
    assert parsed[2] == {"N": "128", "stages": "2", "status": "failed", "stage": "compile",
                         "message": "a | b, \"quoted\"", "utilisation": ""}
    assert json.loads(S.to_json(ROWS)) == ROWS
    table = S.to_markdown(ROWS).splitlines()
    assert table[0] == "| N | stages | status | stage | message | utilisation |"
    assert len(table) == 2 + len(ROWS)
    # The '|' of the message is escaped: each row keeps its 6 cells.
    assert all(line.replace("\\|", "").count("|") == 7 for line in table)
    for suffix in ("csv", "json", "md"):
        S.write_rows(ROWS, str(tmp_path / f"t.{suffix}"))
    assert (tmp_path / "t.csv").read_text() == S.to_csv(ROWS)
    assert json.loads((tmp_path / "t.json").read_text()) == ROWS


def test_svg_plot_is_well_formed_and_places_the_points():
    root = ET.fromstring(S.svg_plot(ROWS, x="stages", series="N", metric="utilisation"))
    assert root.tag == SVG + "svg"
    lines = root.findall(SVG + "polyline")
    # N = 64 has two points; N = 128 only one (its stages = 2 failed): no line, a dot.
    assert len(lines) == 1
    dots = root.findall(SVG + "circle")
    assert len(dots) == 3
    # By hand: the largest value 0.4 gives the axis top 0.5; the plot area is 400 - 40 -
    # 50 = 310 high from y = 40, so 0.4 sits at 40 + 310 * (1 - 0.4 / 0.5) = 102.0 and
    # 0.3 at 40 + 310 * 0.4 = 164.0 and 0.2 at 40 + 310 * 0.6 = 226.0.
    ys = sorted(float(c.get("cy")) for c in dots)
    assert ys == [102.0, 164.0, 226.0]
    legend = [t.text for t in root.findall(SVG + "text")]
    assert "N = 64" in legend and "N = 128" in legend and "utilisation" in legend


def test_svg_plot_one_line_per_combination_of_series():
    rows = [{"N": n, "c": c, "s": s, "status": "ok", "u": s * c}
            for n in (1, 2) for c in (1, 2) for s in (1, 2)]
    root = ET.fromstring(S.svg_plot(rows, x="s", series="N,c", metric="u"))
    assert len(root.findall(SVG + "polyline")) == 4
    assert "N = 2, c = 1" in [t.text for t in root.findall(SVG + "text")]


def test_svg_plot_panels_share_one_scale_and_a_series_that_never_ran_says_why():
    # Two panels (g = 1, g = 2); in g = 1 the series c = "b" never ran (not supported
    # yet), so it has no point and its legend says so. The largest value anywhere is 0.4
    # (g = 2, s = 2), so both panels' axes end at 0.5 (the next 1, 2, 2.5 or 5 x 10^k),
    # ticks by 0.125, though g = 1 alone (largest 0.2) would end at 0.2.
    rows = [{"g": g, "c": c, "s": s, "u": (0.1 * s * g if ok else None),
             "status": "ok" if ok else S.UNSUPPORTED}
            for g in (1, 2) for c in ("a", "b") for s in (1, 2)
            for ok in [not (g == 1 and c == "b")]]
    root = ET.fromstring(S.svg_plot(rows, x="s", series="c", metric="u", panel="g"))
    panels = root.findall(SVG + "svg")
    assert len(panels) == 2
    for panel in panels:
        ticks = [t.text for t in panel.findall(SVG + "text")][1:6]
        assert ticks == ["0", "0.125", "0.25", "0.375", "0.5"]
    # g = 1: one line (c = a); g = 2: two; the legend only in the last panel.
    assert [len(p.findall(SVG + "polyline")) for p in panels] == [1, 2]
    legend = [t.text for t in panels[1].findall(SVG + "text")]
    assert "c = a" in legend and "c = b" in legend
    assert not any("c = " in (t.text or "") for t in panels[0].findall(SVG + "text"))
    one = ET.fromstring(S.svg_plot([r for r in rows if r["g"] == 1], x="s", series="c",
                                   metric="u"))
    assert "c = b: not supported yet" in [t.text for t in one.findall(SVG + "text")]


# -- the command line -----------------------------------------------------------------------
def _script(tmp_path, text):
    path = tmp_path / "s.py"
    path.write_text(text)
    return str(path)


def test_cli_script_without_build(tool, tmp_path):
    path = _script(tmp_path, "X = 1\n")
    ran = tool("tcgen05-sweep", path, "--grid", "N=1")
    assert ran.returncode == 1
    assert f"{path}:1: a sweep script must define build(**params)" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_cli_unknown_parameter_named_at_build(tool, tmp_path):
    path = _script(tmp_path, "import os\n\ndef build(N, stages=2):\n    return ''\n")
    ran = tool("tcgen05-sweep", path, "--grid", "N=1", "--grid", "tile=3")
    assert ran.returncode == 1
    assert f"{path}:3: --grid tile: build() has no such parameter (it takes N, stages)" \
        in ran.stderr
    assert "Traceback" not in ran.stderr


def test_cli_build_that_raises_is_reported_at_its_line(tool, tmp_path):
    path = _script(tmp_path, "def build(N):\n    return 1 // (N - 2)\n")
    ran = tool("tcgen05-sweep", path, "--grid", "N=2", "--no-ptxas")
    assert ran.returncode == 1
    assert f"tcgen05-sweep: error: {path}:2: ZeroDivisionError" in ran.stderr
    assert "Traceback" not in ran.stderr


def test_cli_script_that_does_not_load(tool, tmp_path):
    path = _script(tmp_path, "def build(N):\n    return (\n")
    ran = tool("tcgen05-sweep", path, "--grid", "N=2")
    assert ran.returncode == 1 and f"{path}:2: SyntaxError" in ran.stderr
    path = _script(tmp_path, "import os\nraise KeyError('k')\n")
    ran = tool("tcgen05-sweep", path, "--grid", "N=2")
    assert ran.returncode == 1 and f"{path}:2: while it is loaded: KeyError" in ran.stderr


@pytest.mark.parametrize("argv, message", [
    (["--grid", "N"], "--grid N: expected NAME=V1,V2"),
    (["--grid", "N=1,"], "--grid N=1,: expected NAME=V1,V2"),
    (["--grid", "N=1", "--x", "M"], "--x M: not a --grid parameter (N)"),
    (["--grid", "N=1", "--series", "N,M"], "--series M: not a --grid parameter (N)"),
    ([], "no --grid"),
])
def test_cli_bad_grid(tool, tmp_path, argv, message):
    path = _script(tmp_path, "def build(N):\n    return ''\n")
    ran = tool("tcgen05-sweep", path, *argv)
    assert ran.returncode == 1 and message in ran.stderr, ran.stderr


def test_example_kernel_at_its_shipped_point_is_the_example():
    # The kernel built at N = 256 on one CTA is examples/ws_persistent_gemm_bf16.mlir
    # (4-stage ring written out): the same PTX once compiled, the kernel's name aside.
    from tcgen05_lower.driver import compile_source

    kernel = runpy.run_path(str(EXAMPLE))["kernel"]
    swept = kernel(256, 1).compile().ptx
    shipped = compile_source((ROOT / "examples" / "ws_persistent_gemm_bf16.mlir")
                             .read_text()).ptx
    assert swept.replace("ws_gemm_n256_ctas1", "ws_persistent_gemm_bf16") == shipped


def test_two_point_sweep_end_to_end(tool, tmp_path):
    # N = 256 on one CTA with a 2-stage ring runs and matches NumPy (the example's check
    # file); with 6 stages its ring needs 6 x (16 + 32) KiB = 288 KiB of shared memory,
    # over the 227 KiB a CTA may use, so that point fails at compile and the other still
    # runs.
    out = tmp_path / "r.md"
    ran = tool("tcgen05-sweep", str(EXAMPLE), "--grid", "N=256", "--grid", "stages=2,6",
               "--grid", "ctas=1", "--jobs", "2", "-o", str(out), "--csv",
               str(tmp_path / "r.csv"), "--plot", str(tmp_path / "p.svg"), "--x",
               "stages", "--series", "N")
    assert ran.returncode == 0, ran.stderr
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    assert [(r["stages"], r["status"], r["stage"]) for r in rows] == [
        ("2", "ok", ""), ("6", "failed", "compile")]
    assert "294912 bytes of dynamic shared memory" in rows[1]["message"]
    assert 0 < float(rows[0]["utilisation"]) <= 1 and int(rows[0]["cycles"]) > 0
    assert "1/2" in ran.stderr and "2/2 (1 failed" in ran.stderr
    report = out.read_text()
    assert "![utilisation against stages](p.svg)" in report and "| 256 | 6 | 1 | failed | compile |" \
        in report
    ET.parse(tmp_path / "p.svg")


def _builder_gemm(N):
    """examples/gemm_from_python.py's tile with N columns, written with the builder."""
    from tcgen05_lower.builder import KernelBuilder

    k = KernelBuilder(f"gemm_128x{N}", params={"A": "!llvm.ptr<1>", "B": "!llvm.ptr<1>",
                                               "C": "!llvm.ptr<1>"})
    a = k.smem([128, 64], "bf16", swizzle="128B")
    b = k.smem([N, 64], "bf16", swizzle="128B")
    acc = k.tmem([128, N], "f32", name="acc")
    k.fill("A", a, src_layout="mn_k", src_ld=64)
    k.fill("B", b, src_layout="k_mn", src_ld=N)
    for i, k_offset in enumerate(range(0, 64, 16)):
        k.mma(acc, a, b, i > 0, kind="f16", k_offset=k_offset)
    with k.loop(0, N, 32) as column:
        k.store_fragment(k.ld(acc, column, 32), "C", column, ld=N)
    return k


def test_sweep_of_builder_kernels_checked_as_gemm():
    # A KernelBuilder per point; --check gemm reads M = 128, N, K = 64 from the fills and
    # compares with NumPy's A @ B. N = 24 is no MMA shape (Table 39: N a multiple of 16
    # for M = 128), so that point fails to compile while the others run.
    rows = S.sweep(_builder_gemm, {"N": [32, 24, 64]}, check="gemm", progress=None,
                   timing=False)
    assert [(r["N"], r["status"], r["stage"]) for r in rows] == [
        (32, "ok", None), (24, "failed", "compile"), (64, "ok", None)]
    assert rows[0]["max_abs_error"] < 1e-4 and rows[0]["cycles"] is None


def test_a_functional_only_sweep_gives_the_same_rows():
    # functional_only skips race detection and nothing else (sim/functional.py): the
    # full sweep's numbers and the timing model's cycles, computed here, are expected.
    full = S.sweep(_builder_gemm, {"N": [32]}, check="gemm", progress=None, ptxas=False)
    fast = S.sweep(_builder_gemm, {"N": [32]}, check="gemm", progress=None, ptxas=False,
                   functional_only=True)
    assert full[0]["status"] == "ok" and full[0]["cycles"]
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in fast] == \
        [{k: v for k, v in r.items() if k != "seconds"} for r in full]


# -- the flagship's sweep (examples/sweep_flagship.py), four points -------------------------
FLAGSHIP_SWEEP = ROOT / "examples" / "sweep_flagship.py"
FLAGSHIP_CHECK = ROOT / "examples" / "ws_gemm_bf16_grid_2cta.check.py"
#: The timing estimate's size here: small, so that the test is cheap.
TINY = {"M": 512, "N": 512, "K": 128}


def test_a_four_point_flagship_sweep_agrees_with_the_tools_run_alone(tool, tmp_path):
    # The flagship's own sweep script with its timing estimate at TINY: N = 256, a
    # 2-stage ring, clusters of one tile and of two along M, on 1 CTA and on a pair.
    script = tmp_path / "tiny_flagship.py"
    script.write_text(f"import runpy\n_flagship = runpy.run_path({str(FLAGSHIP_SWEEP)!r})\n"
                      f"build, check = _flagship['build'], _flagship['check']\n\n\n"
                      f"def timing_only(N, stages, cluster, cta_group):\n"
                      f"    return _flagship['timing_sizes']({TINY!r}, N, cluster, "
                      f"cta_group)\n")
    ran = tool("tcgen05-sweep", script, "--grid", "N=256", "--grid", "stages=2", "--grid",
               "cluster=1x1,2x1", "--grid", "cta_group=1,2", "--jobs", "2", "--csv",
               tmp_path / "r.csv", "-o", tmp_path / "r.md", "--plot", tmp_path / "p.svg",
               "--x", "cluster", "--series", "cta_group", "--metric", "gpu_utilisation")
    assert ran.returncode == 0, ran.stderr
    rows = list(csv.DictReader((tmp_path / "r.csv").open()))
    # 1 x 1 x 2 x 2 points, the last parameter varying fastest.
    assert [(r["cluster"], r["cta_group"]) for r in rows] == [
        ("1x1", "1"), ("1x1", "2"), ("2x1", "1"), ("2x1", "2")]
    flagship = runpy.run_path(str(FLAGSHIP_SWEEP))
    for row in rows:
        point = {"N": 256, "stages": 2, "cluster": row["cluster"],
                 "cta_group": int(row["cta_group"])}
        kernel = tmp_path / f"k_{row['cluster']}_{row['cta_group']}.mlir"
        kernel.write_text(flagship["build"](**point).text())
        if row["status"] == S.UNSUPPORTED:
            # A 1-CTA kernel multicasting B along x (docs/tma.md: TMA multicast in
            # cta_group::1 kernels is not in the compiler yet): the row carries the
            # diagnostic tcgen05-lower prints for the same kernel's MLIR text.
            assert (row["cluster"], row["cta_group"]) == ("2x1", "1")
            lowered = tool("tcgen05-lower", kernel, "-o", tmp_path / "x.ptx")
            assert lowered.returncode == 1
            said = lowered.stderr.split(": error: ", 1)[1].splitlines()[0]
            assert row["stage"] == "compile" and row["message"].endswith(": error: " + said)
            assert "not yet" in said
            continue
        assert row["status"] == "ok", row
        # Correct at the check's size, and a modelled time: a share of a tensor pipe's
        # time no larger over the whole GPU than over the SMs the grid uses.
        assert float(row["max_abs_error"]) < 1e-4
        assert 0 < float(row["gpu_utilisation"]) <= float(row["utilisation"]) <= 1
        if (row["cluster"], row["cta_group"]) != ("2x1", "2"):
            continue
        # The pair kernel in a 4 x 1 cluster (B multicast): its PTX, from the command
        # line, assembles with ptxas, and tcgen05-sim --timing-only at the same sizes
        # gives the row's cycles.
        ptx = tmp_path / "pair.ptx"
        assert tool("tcgen05-lower", kernel, "--arch", "sm_100a", "-o", ptx).returncode == 0
        assembled = subprocess.run(["ptxas", "-arch=sm_100a", str(ptx), "-o",
                                    str(tmp_path / "pair.cubin")], capture_output=True,
                                   text=True)
        assert assembled.returncode == 0, assembled.stderr
        sizes = flagship["timing_sizes"](TINY, **{k: point[k] for k in
                                                  ("N", "cluster", "cta_group")})
        timed = tool("tcgen05-sim", kernel, "--check", FLAGSHIP_CHECK, "--timing-only",
                     *(f"--set={k}={v}" for k, v in sizes.items()))
        assert timed.returncode == 0, timed.stderr
        cycles = re.search(r"([\d,]+) cycles", timed.stdout).group(1).replace(",", "")
        assert int(cycles) == int(row["cycles"])
    report = (tmp_path / "r.md").read_text()
    assert report.count("\n| 256 | 2 |") == 4
    ET.parse(tmp_path / "p.svg")
