"""The cyclic garbage collector paused while a simulation runs (``paused``).

A run allocates tens of thousands of objects that live as long as the run: the decoded
instructions and their closures, the ordering model's records, the built MMAs. None of
them is garbage before the run ends, and at its end they are freed by reference counting
(``Machine.release`` breaks the only cycles; tests/test_sim_run_cycles.py checks that a
finished or stopped run leaves no cycle). The cyclic collector, left on, still scans them
at every collection the run's allocations trigger (measured on
examples/ws_persistent_gemm_bf16.mlir: about 14 young, 1.3 middle and 0.1 full
collections per run, 3.7 ms of a 58 ms run) and finds nothing. ``simulate()`` therefore
pauses it for the call and restores it on return, whatever the outcome; Python's
``timeit`` pauses it the same way while it times code.

The collector's state is the process's: a caller that had it off keeps it off, and one
that turns it on from another thread during a run is not overridden until the run
returns.
"""

from __future__ import annotations

import functools
import gc


def paused(function):
    """``function`` with the cyclic collector off while it runs, restored afterwards
    (on again only if it was on when the call began)."""

    @functools.wraps(function)
    def with_collector_paused(*args, **kwargs):
        was_on = gc.isenabled()
        gc.disable()
        try:
            return function(*args, **kwargs)
        finally:
            if was_on:
                gc.enable()

    return with_collector_paused
