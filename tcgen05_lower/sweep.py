"""Sweeps over kernel parameters: build a kernel per point of a grid, then compile it,
assemble it with ptxas, run it in the simulator against a reference and time it with the
timing model; one row of results per point.

    from tcgen05_lower.sweep import sweep, write_markdown, write_svg_plot

    def build(N, stages):
        return template.format(N=N), [f"tcgen05-insert-sync{{ring-stages={stages}}}"]

    rows = sweep(build, {"N": [64, 128, 256], "stages": [2, 3, 4]},
                 check="gemm_check.py", jobs=2)
    write_svg_plot(rows, "plot.svg", x="stages", series="N", metric="utilisation")

``build(**point)`` returns the kernel (a ``builder.KernelBuilder`` or MLIR text),
optionally with the pass options of that point: ``(kernel, ["pass{opt=v}", ...])``.
``check`` is what ``tcgen05-sim --check`` takes ("gemm" or a check file's path, or
``(path, {scalar: value})`` overriding the check file's SCALARS as ``--set`` does), a
function of the point returning one, or None (simulate and time, numerics unchecked).
``timing_only`` (None, or a function of the point returning ``{scalar: value}``) times
each point apart from its check: a timing-only estimate of the whole grid at those sizes
(``tcgen05-sim --check FILE --timing-only --set ...``: cluster (0, 0, 0) simulated, its
neighbours for a prefix, the grid replayed), so that the check runs at a small size and
the ranking comes from a large one.
A point that fails at any stage gives a row with that ``stage`` and ``message`` and the
sweep goes on with the next one; a point the compiler refuses as not supported yet (its
diagnostic says "not yet": a planned feature) has the status ``not supported yet``.
"""

from __future__ import annotations

import csv
import io
import itertools
import json
import math
import multiprocessing
import os
import queue
import sys
import time
import traceback
from xml.sax.saxutils import escape

#: The stages of a point, in order; a failed row names the one that failed.
STAGES = ("build", "compile", "ptxas", "simulate", "check", "timing")

#: The columns every row has after the parameters.
METRICS = ("status", "stage", "message", "cycles", "microseconds", "utilisation",
           "gpu_utilisation", "warp_instructions", "max_abs_error", "seconds")

#: The status of a point the compiler refuses with a diagnostic saying "not yet" (the
#: compiler's wording for a feature that is planned, not for input that is wrong).
UNSUPPORTED = "not supported yet"


class SweepError(ValueError):
    """Bad input to the sweep itself (an empty grid, a parameter without values)."""


def expand(grid: dict) -> list[dict]:
    """The cartesian product of ``{name: [values]}``, in the order given, the last
    parameter varying fastest: ``{"a": [1, 2], "b": [3]}`` -> ``[{a: 1, b: 3}, {a: 2,
    b: 3}]``."""
    if not grid:
        raise SweepError("the grid has no parameters")
    for name, values in grid.items():
        if not isinstance(values, (list, tuple)) or not values:
            raise SweepError(f"parameter {name!r} has no values (a non-empty list)")
    names = list(grid)
    return [dict(zip(names, combo)) for combo in itertools.product(*grid.values())]


class PointFailed(Exception):
    """A point that failed at `stage` (one of STAGES); `status` is the row's ("failed",
    or UNSUPPORTED for what the compiler does not do yet)."""

    def __init__(self, stage: str, message: str, status: str = "failed"):
        super().__init__(message)
        self.stage = stage
        self.status = status


def _kernel_of(built):
    """(MLIR text, pass options) of what build() returned."""
    from tcgen05_lower.builder import KernelBuilder

    options = []
    if isinstance(built, tuple):
        if len(built) != 2:
            raise PointFailed("build", f"build() returned a tuple of {len(built)}; expected "
                                       f"(kernel, pass options)")
        built, options = built
        options = [options] if isinstance(options, str) else list(options)
    if isinstance(built, KernelBuilder):
        return built.text(), options
    if isinstance(built, str):
        return built, options
    raise PointFailed("build", f"build() returned {type(built).__name__}; expected a "
                               f"KernelBuilder, MLIR text or (kernel, pass options)")


def _where_in(exc: BaseException, path: str | None) -> str:
    """``file:line: `` of the innermost frame of `exc` in `path` (the sweep script), else
    of the innermost frame outside this module."""
    frames = traceback.extract_tb(exc.__traceback__)
    if path is not None:
        mine = os.path.abspath(path)
        for frame in reversed(frames):
            if os.path.abspath(frame.filename) == mine:
                return f"{path}:{frame.lineno}: "
    for frame in reversed(frames):
        if os.path.abspath(frame.filename) != os.path.abspath(__file__):
            return f"{frame.filename}:{frame.lineno}: "
    return ""


def run_point(build, point: dict, *, check=None, timing=True, ptxas=True, seed=0,
              script: str | None = None, max_instructions=None, timeout=None,
              functional_only=False, timing_only=None) -> dict:
    """One row: the point's parameters and METRICS. Never raises for a failure of the
    point: the row says at which stage and why. ``functional_only``: simulate without
    race detection (simulate(functional_only=True)): the same numbers and cycles.
    ``timing_only``: see the module docstring."""
    row = {**point, **{m: None for m in METRICS}}
    start = time.perf_counter()
    try:
        row.update(_measure(build, point, check, timing, ptxas, seed, script,
                            max_instructions, timeout, functional_only, timing_only))
        row["status"] = "ok"
    except PointFailed as failure:
        row.update(status=failure.status, stage=failure.stage, message=str(failure))
    except Exception as exc:  # a bug of the tool still ends only this point
        row.update(status="failed", stage="internal",
                   message=f"{type(exc).__name__}: {exc}")
    row["seconds"] = round(time.perf_counter() - start, 3)
    return row


def _measure(build, point, check, timing, ptxas, seed, script, max_instructions, timeout,
             functional_only=False, timing_only=None):
    from tcgen05_lower.cli import sim as S
    from tcgen05_lower.cli.sim_problem import expected_outputs
    from tcgen05_lower.driver import CompileFailed, compile_source
    from tcgen05_lower.pipeline import DEFAULT_PIPELINE, PipelineError, override_options
    from tcgen05_lower.sim.api import DEFAULT_MAX_INSTRUCTIONS, DEFAULT_TIMEOUT, simulate

    try:
        text, options = _kernel_of(build(**point))
    except PointFailed:
        raise
    except Exception as exc:
        raise PointFailed("build", f"{_where_in(exc, script)}{type(exc).__name__}: "
                                   f"{exc}") from None
    try:
        pipeline = override_options(DEFAULT_PIPELINE, options)
        result = compile_source(text, _point_name(point), pipeline=pipeline)
    except PipelineError as exc:
        raise PointFailed("compile", str(exc)) from None
    except CompileFailed as failure:
        text_of = failure.diagnostics[0].format() if failure.diagnostics else str(failure)
        first = text_of.strip().splitlines()[0]
        raise PointFailed("compile", first, UNSUPPORTED if "not yet" in first
                          else "failed") from None
    if ptxas:
        from tcgen05_lower.backend import run_ptxas

        assembled = run_ptxas(result.ptx, arch=result.target)
        if not assembled.ok:
            raise PointFailed("ptxas", (assembled.stderr or assembled.stdout).strip()
                              .splitlines()[0] if (assembled.stderr or assembled.stdout)
                              else f"exit status {assembled.returncode}")
    try:
        spec = check(**point) if callable(check) else check
        sizes = timing_only(**point) if callable(timing_only) else timing_only
    except Exception as exc:
        raise PointFailed("check", f"{_where_in(exc, script)}{type(exc).__name__}: "
                                   f"{exc}") from None
    spec, overrides = spec if isinstance(spec, tuple) else (spec, None)
    try:
        from tcgen05_lower.sim.api import check_launch

        manifest = result.manifest
        entry = check_launch(result.ptx, manifest)
        if spec is None:
            problem = None
        elif spec == "gemm":
            problem = S.gemm_problem(text, manifest, entry)
        else:
            problem = S.file_problem(spec, manifest, overrides, entry)
    except Exception as exc:
        raise PointFailed("check", f"{type(exc).__name__}: {exc}") from None
    if sizes is not None and not isinstance(spec, str):
        raise PointFailed("check", "a timing-only estimate takes its buffers from a check "
                                   "file: give check")
    try:
        if problem is None:
            inputs = {}
            outputs = set()
        else:
            outputs = S.output_names(problem, manifest, seed)
            inputs = S.make_inputs(problem, manifest, outputs, seed)
        originals = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in inputs.items()}
        ran = simulate(result.ptx, manifest, inputs,
                       timing=True if timing and sizes is None else None,
                       max_instructions=max_instructions or DEFAULT_MAX_INSTRUCTIONS,
                       timeout=timeout or DEFAULT_TIMEOUT, functional_only=functional_only)
    except Exception as exc:
        raise PointFailed("simulate", f"{type(exc).__name__}: {exc}") from None
    if ran.races:
        raise PointFailed("simulate", f"race: {ran.races[0]}")
    if ran.problems:
        raise PointFailed("simulate", f"at exit: {ran.problems[0]}")
    out = {"warp_instructions": ran.warp_instructions}
    if ran.timing is not None:
        out.update(_timing_columns(ran.timing))
    if problem is not None:
        worst = 0.0
        try:
            expected = expected_outputs(problem, manifest, originals)
            for name, want in expected.items():
                ok, max_abs, _, bound = problem.tolerance(name, ran.outputs[name], want,
                                                          originals)
                worst = max(worst, max_abs)
                if not ok:
                    raise PointFailed("check", f"{name}: max abs error {max_abs:.3g} "
                                               f"outside the bound {bound}")
        except PointFailed:
            raise
        except Exception as exc:
            raise PointFailed("check", f"{type(exc).__name__}: {exc}") from None
        out["max_abs_error"] = worst
    if sizes is not None and timing:
        out.update(_timing_only(result, spec, sizes, seed, max_instructions, timeout))
    return out


def _timing_columns(estimate) -> dict:
    """cycles, microseconds, utilisation (the tensor pipe's, over the SMs the grid's
    waves use) and gpu_utilisation (over every SM of the GPU for the launch's time)."""
    busy = getattr(estimate, "clusters", None)
    sms = getattr(estimate, "sms", None)
    whole = None
    if busy is not None and sms:
        whole = round(sum(c.tensor_busy for c in busy) / max(estimate.cycles * sms, 1.0), 4)
    return dict(cycles=round(estimate.cycles), microseconds=round(estimate.microseconds, 3),
                utilisation=round(estimate.utilisation.get("tensor pipe", 0.0), 4),
                gpu_utilisation=whole)


def _timing_only(result, spec: str, sizes: dict, seed: int, max_instructions,
                 timeout) -> dict:
    """The timing columns of a timing-only estimate of the compiled point at `sizes`
    (overrides of the check file's scalars), made by the estimate ``tcgen05-sim
    --timing-only`` makes (``cli.sim_timing.estimate_grid``), without race detection (the
    point's check run has looked for races). The outputs are not checked."""
    from tcgen05_lower.cli import sim as S
    from tcgen05_lower.cli.sim_timing import estimate_grid
    from tcgen05_lower.sim.api import DEFAULT_MAX_INSTRUCTIONS, DEFAULT_TIMEOUT, check_launch

    try:
        manifest = result.manifest
        entry = check_launch(result.ptx, manifest)
        problem = S.file_problem(spec, manifest, sizes, entry)
        inputs = S.make_inputs(problem, manifest, set(), seed)  # outputs: not compared
        ran = estimate_grid(result.ptx, manifest, inputs,
                            max_instructions=max_instructions or DEFAULT_MAX_INSTRUCTIONS,
                            timeout=timeout or DEFAULT_TIMEOUT, functional_only=True)[0]
    except Exception as exc:
        shown = " ".join(f"{k}={v}" for k, v in sizes.items())
        raise PointFailed("timing", f"timing-only at {shown}: {type(exc).__name__}: "
                                    f"{exc}") from None
    if ran.problems:
        raise PointFailed("timing", f"at exit: {ran.problems[0]}")
    return _timing_columns(ran.timing)


def _point_name(point: dict) -> str:
    return "<sweep " + " ".join(f"{k}={v}" for k, v in point.items()) + ">"


# -- running many points --------------------------------------------------------------------
def _worker(build, points, options, tasks, results) -> None:
    """A forked worker: runs the points whose indices come from `tasks` until None, each
    row onto `results`. (Forked, it is given `build` without pickling it: a function of a
    script run by runpy cannot be pickled by reference.)"""
    for index in iter(tasks.get, None):
        results.put((index, run_point(build, points[index], **options)))


def sweep(build, grid: dict, *, check=None, jobs: int = 1, timing: bool = True,
          ptxas: bool = True, seed: int = 0, script: str | None = None,
          progress=True, max_instructions=None, timeout=None,
          functional_only=False, timing_only=None) -> list[dict]:
    """The rows of every point of `grid` (see the module docstring), in the grid's order;
    `jobs` worker processes (forked, so `build` may be any function); a progress line
    per finished point on `progress` (a stream; True: sys.stderr; None: silent). `script` names the file `build`
    comes from, so that an exception in it is reported at its line."""
    points = expand(grid)
    progress = sys.stderr if progress is True else progress or None
    options = dict(check=check, timing=timing, ptxas=ptxas, seed=seed, script=script,
                   max_instructions=max_instructions, timeout=timeout,
                   functional_only=functional_only, timing_only=timing_only)
    rows: list = [None] * len(points)
    start = time.perf_counter()
    done = failed = 0

    def finished(index, row):
        nonlocal done, failed
        rows[index] = row
        done += 1
        failed += row["status"] == "failed"
        if progress is not None:
            bar = "#" * (20 * done // len(points))
            what = f"{row['stage']}: {row['message']}" if row["status"] != "ok" else \
                f"utilisation {row['utilisation']}" if row["utilisation"] is not None \
                else "ok"
            print(f"[{bar:<20}] {done}/{len(points)} ({failed} failed, "
                  f"{time.perf_counter() - start:.0f} s) {_point_name(points[index])}: "
                  f"{what}", file=progress, flush=True)

    if jobs <= 1 or len(points) == 1:
        for i, point in enumerate(points):
            finished(i, run_point(build, point, **options))
        return rows
    context = multiprocessing.get_context("fork")
    tasks, results = context.SimpleQueue(), context.Queue()
    workers = [context.Process(target=_worker, args=(build, points, options, tasks, results),
                               daemon=True) for _ in range(min(jobs, len(points)))]
    for worker in workers:
        worker.start()
    try:
        for i in range(len(points)):
            tasks.put(i)
        for worker in workers:
            tasks.put(None)
        pending = set(range(len(points)))
        while pending:
            try:
                index, row = results.get(timeout=1.0)
            except queue.Empty:
                if any(worker.is_alive() for worker in workers):
                    continue
                for index in sorted(pending):  # a worker died (a crash of the process)
                    finished(index, {**points[index], **{m: None for m in METRICS},
                                     "status": "failed", "stage": "internal",
                                     "message": "the worker process died"})
                break
            pending.discard(index)
            finished(index, row)
    finally:
        for worker in workers:
            worker.join(timeout=5)
            if worker.is_alive():
                worker.terminate()
    return rows


# -- writers --------------------------------------------------------------------------------
def _columns(rows: list[dict]) -> list[str]:
    columns = []
    for row in rows:
        columns += [k for k in row if k not in columns]
    return columns


def to_csv(rows: list[dict]) -> str:
    """The rows as CSV, a header line of the columns first (empty cells for None)."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=_columns(rows), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: "" if v is None else v for k, v in row.items()})
    return out.getvalue()


def to_json(rows: list[dict]) -> str:
    """The rows as a JSON list of objects."""
    return json.dumps(rows, indent=1) + "\n"


def to_markdown(rows: list[dict]) -> str:
    """The rows as a markdown table ('|' in a message escaped)."""
    columns = _columns(rows)

    def cell(value):
        if value is None:
            return ""
        if isinstance(value, float):
            return f"{value:.4g}"
        return str(value).replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(row.get(c)) for c in columns) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def write_rows(rows: list[dict], path: str) -> None:
    """Writes the rows to `path` as CSV, JSON or markdown, by its extension (.csv,
    .json, anything else markdown)."""
    text = to_csv(rows) if path.endswith(".csv") else to_json(rows) \
        if path.endswith(".json") else to_markdown(rows)
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)


#: Line colours of the plot (distinct at a glance, and in grey scale by dash pattern).
_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2",
            "#17becf")
_DASHES = ("", "6,3", "2,3", "8,3,2,3")


def svg_plot(rows: list[dict], *, x: str, metric: str, series: str | None = None,
             title: str | None = None, width: int = 640, height: int = 400,
             panel: str | None = None, top: float | None = None,
             legend: bool = True) -> str:
    """A line chart as SVG text: `x` (a parameter) on the horizontal axis, its values
    evenly spaced in the order they first appear, `metric` on the vertical one, one line
    per value of `series` (a parameter, or several: "N,ctas" or a list, one line per
    combination; None: one line). Points that failed or have no value of the metric are left out (a gap);
    rows that differ in a parameter other than `x`, `series` and `panel` are averaged.
    A series none of whose points ran says why in the legend (its rows' common status,
    e.g. "not supported yet"). `panel` (a parameter): one chart per value of it, side by
    side on one vertical scale. `top`: the vertical axis' top (default: a round number
    above the largest value)."""
    if panel is not None:
        return _panels(rows, x=x, metric=metric, series=series, title=title, width=width,
                       height=height, panel=panel, top=top)
    names = series_names(series)
    xs = list(dict.fromkeys(r[x] for r in rows))
    keys = list(dict.fromkeys(tuple(r[n] for n in names) for r in rows))
    values = _cells(rows, x, metric, names)
    if top is None:
        top = max(values.values(), default=1.0)
        top = _nice_ceiling(top if top > 0 else 1.0)
    labels = {key: _series_label(rows, names, key, metric) for key in keys}
    left, upper, lower = 70, 40, 50
    right = max(170, 48 + 7 * max((len(t) for t in labels.values()), default=0)) \
        if legend else 20
    pw, ph = width - left - 170, height - upper - lower
    width = left + pw + right

    def px(i):
        return left + (pw * (i + 0.5) / len(xs))

    def py(v):
        return upper + ph * (1 - v / top)

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'viewBox="0 0 {width} {height}" font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left + pw / 2}" y="20" text-anchor="middle" font-size="14">'
           f'{escape(title or f"{metric} against {x}")}</text>']
    for i in range(5):  # horizontal grid lines and their labels
        v = top * i / 4
        out.append(f'<line x1="{left}" y1="{py(v):.1f}" x2="{left + pw}" y2="{py(v):.1f}" '
                   f'stroke="#ddd"/>')
        out.append(f'<text x="{left - 6}" y="{py(v) + 4:.1f}" text-anchor="end">'
                   f'{_tick(v)}</text>')
    out.append(f'<line x1="{left}" y1="{upper + ph}" x2="{left + pw}" y2="{upper + ph}" '
               f'stroke="black"/>')
    out.append(f'<line x1="{left}" y1="{upper}" x2="{left}" y2="{upper + ph}" '
               f'stroke="black"/>')
    for i, xv in enumerate(xs):
        out.append(f'<text x="{px(i):.1f}" y="{upper + ph + 18}" text-anchor="middle">'
                   f'{escape(str(xv))}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 10}" text-anchor="middle">'
               f'{escape(x)}</text>')
    out.append(f'<text x="16" y="{upper + ph / 2}" text-anchor="middle" '
               f'transform="rotate(-90 16 {upper + ph / 2})">{escape(metric)}</text>')
    for n, key in enumerate(keys):
        colour, dash = _COLOURS[n % len(_COLOURS)], _DASHES[n // len(_COLOURS) % 4]
        style = f' stroke-dasharray="{dash}"' if dash else ""
        run: list = []
        for i, xv in enumerate(xs):
            if (key, xv) in values:
                run.append(f"{px(i):.1f},{py(values[key, xv]):.1f}")
                out.append(f'<circle cx="{px(i):.1f}" cy="{py(values[key, xv]):.1f}" r="3" '
                           f'fill="{colour}"/>')
            if (key, xv) not in values or i == len(xs) - 1:
                if len(run) > 1:
                    out.append(f'<polyline points="{" ".join(run)}" fill="none" '
                               f'stroke="{colour}" stroke-width="2"{style}/>')
                run = []
        if not legend:
            continue
        ly = upper + 10 + 20 * n
        out.append(f'<line x1="{left + pw + 12}" y1="{ly}" x2="{left + pw + 36}" y2="{ly}" '
                   f'stroke="{colour}" stroke-width="2"{style}/>')
        out.append(f'<text x="{left + pw + 42}" y="{ly + 4}">{escape(labels[key])}</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _cells(rows: list[dict], x: str, metric: str, names: list) -> dict:
    """{(series key, x value): the mean of the metric over the rows that ran}."""
    cells: dict = {}
    for r in rows:
        value = r.get(metric)
        if r.get("status") == "ok" and isinstance(value, (int, float)):
            cells.setdefault((tuple(r[n] for n in names), r[x]), []).append(value)
    return {k: sum(v) / len(v) for k, v in cells.items()}


def _series_label(rows: list[dict], names: list, key: tuple, metric: str) -> str:
    """"N = 64, ctas = 2", with ": <status>" when none of its rows ran and they share a
    status (e.g. every point of it is not supported yet)."""
    label = ", ".join(f"{n} = {v}" for n, v in zip(names, key)) if names else metric
    statuses = {r.get("status") for r in rows if tuple(r[n] for n in names) == key}
    if "ok" not in statuses and len(statuses) == 1:
        label += f": {statuses.pop()}"
    return label


def _panels(rows: list[dict], *, x, metric, series, title, width, height, panel,
            top) -> str:
    """One chart per value of `panel`, side by side, on one vertical scale; the last
    one carries the legend. Each chart's plot area is at most 260 wide, so that three
    panels and a legend fit a screen."""
    values = list(dict.fromkeys(r[panel] for r in rows))
    if top is None:
        top = max(_cells(rows, x, metric, series_names(series)).values(), default=1.0)
        top = _nice_ceiling(top if top > 0 else 1.0)
    charts, offset = [], 0
    for i, value in enumerate(values):
        chart = svg_plot([r for r in rows if r[panel] == value], x=x, metric=metric,
                         series=series, title=f"{panel} = {value}", width=min(width, 500),
                         height=height, top=top, legend=i == len(values) - 1)
        chart_width = int(chart.split('width="', 1)[1].split('"', 1)[0])
        charts.append(chart.replace("<svg ", f'<svg x="{offset}" y="30" ', 1))
        offset += chart_width
    total = offset
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{total}" '
            f'height="{height + 30}" viewBox="0 0 {total} {height + 30}" '
            f'font-family="sans-serif" font-size="12">\n'
            f'<rect width="{total}" height="{height + 30}" fill="white"/>\n'
            f'<text x="{total / 2}" y="22" text-anchor="middle" font-size="16">'
            f'{escape(title or f"{metric} against {x}, by {panel}")}</text>\n')
    return head + "".join(charts) + "</svg>\n"


def series_names(series) -> list[str]:
    """``"N,ctas"`` or ``["N", "ctas"]`` -> ["N", "ctas"]; None -> []."""
    if series is None:
        return []
    return [n.strip() for n in series.split(",")] if isinstance(series, str) \
        else list(series)


def _nice_ceiling(v: float) -> float:
    """The smallest 1, 2, 2.5 or 5 times a power of ten at least `v`."""
    power = 10 ** math.floor(math.log10(v))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= v)


def _tick(v: float) -> str:
    return f"{v:.3g}" if v < 1000 else f"{v:,.0f}"


def write_svg_plot(rows: list[dict], path: str, **options) -> None:
    """Writes svg_plot(rows, **options) to `path`."""
    with open(path, "w", encoding="utf-8") as f:
        f.write(svg_plot(rows, **options))
