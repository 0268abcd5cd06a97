"""A timing model of one SM running the simulated CTA (or, for a CTA pair, two SMs):
an estimate for comparing strategies, not a prediction of absolute cycles.

How it works (two passes, so the functional simulator is untouched)
-------------------------------------------------------------------
1. Recording. The functional run (``simulate(..., timing=True)``) uses
   ``RecordingMachine`` and ``RecordingOrdering``, subclasses of the executor's Machine and
   of the ordering model that only watch: for every warp they record each warp
   instruction it issued (its PTX instruction, the threads of the warp that were active)
   and, from the ordering model, the synchronization it took part in: which mbarrier
   phase each arrival, commit and successful ``mbarrier.try_wait`` belonged to, and which
   instance of ``barrier.sync`` a warp arrived at. A ``try_wait`` that failed is not
   recorded (the spin loop is the functional schedule's, not the machine's). The values
   computed, the races found and the instruction counts are those of a run without
   ``timing``.
2. Replay. ``replay(trace)`` runs the recorded per-warp instruction streams through an
   event-driven model with the resources and latencies of ``PARAMETERS``:
   - four warp schedulers per SM (warp w on scheduler w mod 4), each issuing one warp
     instruction per cycle; a warp issues in order, when the registers it reads are ready
     (a scoreboard: each destination is ready ``latency`` cycles after issue);
   - the tensor pipe (one per SM; a cta_group::2 MMA holds both SMs' pipes): MMAs, copies
     and shifts run one after another in issue order, each for the longer of its math time
     (FLOPs over the rate of its kind) and the time to read its shared-memory operands,
     and complete ``mma_latency`` cycles after that; ``tcgen05.commit`` arrives on its
     mbarrier when every asynchronous op its thread issued before it has completed;
   - one TMEM port per lane quarter (per warp of the warpgroup) for tcgen05.ld / st;
   - the SM's port to the L2 and its share of DRAM bandwidth (MemoryContext: the SMs
     active in the wave share both; a tile several loads of the wave read costs DRAM
     once) and the shared-memory pipe for ld/st.shared;
   - TMA loads (``cp.async.bulk.tensor``): asynchronous; the issuing warp goes on at
     once, the load's bytes arrive ``l2_latency`` (a hit) to ``tma_latency`` (a miss)
     after its issue at the earliest and stream through the SM's L2 port behind its
     earlier requests; its complete_tx
     counts towards the mbarrier phase it completed in the functional run when its last
     byte lands (so a wait on that phase stalls until then, and until the phase's
     arrivals, ``mbarrier.arrive.expect_tx`` among them, have arrived);
   - an mbarrier wait stalls its warp until the phase it waited for in the functional run
     has completed in model time (all arrivals of that phase); ``barrier.sync`` until every
     warp of the CTA arrived; ``wait::ld`` / ``wait::st`` until the warp's tcgen05.ld / st
     completed.
   A CTA of a grid is replayed on its own SM; the clusters of a grid run in waves of
   ``sms`` SMs, one wave after another (Recording: every cluster recorded, or cluster
   (0, 0, 0) standing for all of them in a timing-only estimate).

What it reports: cycles and microseconds at ``clock_ghz``, the busy fraction of the tensor
pipe, of the TMEM ports and of the SM's DRAM share, each warp's stall cycles by reason
(mbarrier wait, barrier, wait::ld, wait::st, register dependency, issue slot), and a
Chrome trace-event JSON (chrome://tracing, https://ui.perfetto.dev) with one track per
warp and one per hardware unit.

Not modelled: L1, the L2 as a cache (sets, eviction; only shares of bandwidth and reuse
within a wave; a multicast reads it once), bank conflicts, instruction fetch, the register file's
ports, dual issue, other CTAs sharing the SM, clock changes, the tensor pipe's internal
pipelining beyond "one op at a time, then a fixed latency".
"""

from tcgen05_lower.sim.timing.calibration import (
    calibration, calibration_markdown, parameters_markdown, single_warp, tma_tile_cycles)
from tcgen05_lower.sim.timing.launch import (
    Recording, check_overrides, load_recording, parse_timing_params, save_recording)
from tcgen05_lower.sim.timing.memory import (
    MemoryContext, _buffer_of, memory_keys, multicast_copies)
from tcgen05_lower.sim.timing.recording import (
    RELEASED_BASE, BudgetReached, Recorder, RecordingMachine, RecordingOrdering)
from tcgen05_lower.sim.timing.replay import STALLS, ClusterTiming, replay
from tcgen05_lower.sim.timing.result import TimingResult, combine
from tcgen05_lower.sim.timing.wave import (TIMING_ONLY_MAX_CLUSTERS,
                                           TIMING_ONLY_NEIGHBOUR_INSTRUCTIONS)
from tcgen05_lower.sim.timing.trace import (
    SECTOR_BYTES, ClusterTrace, Step, classify, opcode_of, role_of, step_args)
# The parameters and the MMA cost live in timing_parameters; re-exported by name here.
from tcgen05_lower.sim.timing_parameters import (
    _DENSE_K, _LDST_BYTES, PARAMETERS, MmaCost, Parameter, mma_cycles, param)

__all__ = [
    "calibration", "calibration_markdown", "parameters_markdown", "single_warp",
    "tma_tile_cycles", "TIMING_ONLY_MAX_CLUSTERS", "TIMING_ONLY_NEIGHBOUR_INSTRUCTIONS",
    "Recording", "check_overrides", "load_recording", "parse_timing_params",
    "save_recording", "MemoryContext", "_buffer_of", "memory_keys", "multicast_copies",
    "RELEASED_BASE", "BudgetReached", "Recorder", "RecordingMachine", "RecordingOrdering",
    "STALLS", "ClusterTiming", "replay", "TimingResult", "combine", "SECTOR_BYTES",
    "ClusterTrace", "Step", "classify", "opcode_of", "role_of", "step_args", "_DENSE_K",
    "_LDST_BYTES", "PARAMETERS", "MmaCost", "Parameter", "mma_cycles", "param"]
