"""How the run loop of ``executor.Machine`` chooses and takes its steps (a mixin of it):
the scheduler (lowest PC first, or the random schedule's choice), the fused stretches of
straight-line instructions (integer ALU, setp, mov, mad, mul, ld and st), and the threads
of a step as a slice when they are consecutive.

The scheduler keeps the PCs it chose the last step from: after a straight step that woke
no waiter only that step's threads moved (to the next PC), and after a local one
(``run.local``: a branch, a wait, a tcgen05 or TMA op) only their PCs and statuses
changed, so the next choice starts from those PCs, looking up only the step's threads,
instead of recomputing which threads can run. A fused stretch runs the steps
the step-by-step loop would run (the same threads, the same bookkeeping per step) and
advances their PCs once; from its second run on the same slice of threads (each warp's
own) a stretch follows its plan, its steps as ufunc calls on views of their registers
where the instruction has such a form (sim/fused_plans.py, the lean ld and st).
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim import fused_plans
from tcgen05_lower.sim.state import SimError
from tcgen05_lower.sim.words import ALL, EXIT, MBAR, RUN

#: The PC the scheduler gives a thread that cannot run (above any real PC).
NOT_RUNNABLE = np.int64(1 << 62)
#: MBAR as a byte of a status array's bytes (int8).
_MBAR_BYTE = bytes([MBAR])


def fusible_runs(handlers: list) -> list:
    """Per PC, how many instructions from it on have a fused ``body`` (``_fused``)."""
    runs = [0] * (len(handlers) + 1)
    for pc in range(len(handlers) - 1, -1, -1):
        runs[pc] = runs[pc + 1] + 1 if hasattr(handlers[pc], "body") else 0
    return runs


def lowest_first(pcs: np.ndarray) -> tuple:
    """The lowest-PC-first choice among ``pcs`` (per thread, NOT_RUNNABLE for a thread
    that cannot run; some can): (the lowest PC, its threads: ALL or their ids, the
    lowest PC of the other threads: the chain limit, NOT_RUNNABLE if none). The
    arrays' own methods (argmin, nonzero) rather than NumPy's reduction wrappers: a
    scheduler step's arrays are small, so the calls are what costs."""
    m = int(pcs[pcs.argmin()])
    sel = pcs == m
    idx = sel.nonzero()[0]
    if idx.size == pcs.size:
        return m, ALL, int(NOT_RUNNABLE)
    others = pcs[~sel]
    return m, idx, int(others[others.argmin()])


class MachineStepping:
    """The scheduler and the fused stretches of ``executor.Machine`` (its state is the
    Machine's: ``pc``, ``status``, ``wait_epoch``, ``epoch``, ``random``, ``ordering``)."""

    #: After a straight step that woke no waiter: (its threads, their new PC, None);
    #: after a local one (``run.local``: it changed the PCs and statuses of its own
    #: threads only) that woke none, (its threads, None, the PC all of them are at and
    #: can run from if ``together_after_local`` found one, else None); with ``_pcs``
    #: the PCs the step was chosen from (NOT_RUNNABLE: cannot run). Else None.
    _moved = None
    _pcs = None
    _contiguous_of = _contiguous = None   # contiguous()'s last question and answer

    def _fused(self, m: int, idx, run: int, chain_limit: int, width):
        """Runs the stretch of unguarded straight-line instructions from PC ``m`` (at
        most ``run`` of them, each with a ``body``: the integer ALU of
        sim/ops_fastint.py, setp, mov, mad and mul of sim/ops_arith.py, ld and st of
        sim/ops_memory.py) on the threads ``idx`` as the steps one by one would: the
        same bookkeeping per step, the PCs advanced once at the end. It runs on through
        a ``bra`` that every thread of the step takes the same way (unguarded, or a
        guard predicate the same in all of them: ``_branch_through``) into the next
        stretch, so that a loop whose body is such a stretch runs as one call; a
        stretch run again on the same threads follows its plan (``_plan``). Stops
        where the step-by-step loop would look again (another thread's PC:
        ``chain_limit``), before a step at which it checks the instruction or time
        budget or prints progress, and at anything else (the step loop then runs it).
        Returns the PC the threads are at after it, None when the first stretch would be
        shorter than two steps (nothing run: the caller runs the step itself)."""
        stats = self.stats
        if width is None:
            width = self._warps_in(idx)
        left = self._STEPS_PER_CALL
        if self.max_instructions is not None:
            left = min(left, (self.max_instructions - stats.warp_instructions) // width)
        if self.deadline is not None:
            left = min(left, 255 - stats.steps % 256)
        if self.progress_stream is not None:
            left = min(left, 4095 - stats.steps % 4096)
        k = min(run, chain_limit - m, left)
        if k < 2:
            return None
        at = self.rows_of(self.contiguous(idx))   # (ids of a CTA pair: kept, as rows)
        runs = self.__dict__.get("_runs")
        if runs is None:
            runs = self._runs = fusible_runs(self.handlers)
        # what ran, for the bookkeeping at the end: (PC, length) of each stretch, (PC, 0)
        # of each branch, with how many times, in the order they first ran (so the
        # counts per opcode are added in the order the step loop adds them)
        tally: dict = {}
        plans = self.__dict__.setdefault("_plans", {})
        sliced = type(at) is slice
        at_key = None if sliced else at   # (a slice's plans are kept by its threads)
        steps = done = 0
        pc = m
        try:
            while True:
                if k:
                    key = (pc, k)
                    # a slice's plan is kept by its threads (an equal slice makes the
                    # same views: each warp's plan lives on), other threads' by identity
                    where = (pc, k, at.start, at.stop) if sliced else key
                    plan = plans.get(where)
                    done = 0
                    if plan is not None and plan[0] is at_key:
                        steps_of = plan[1]
                        if steps_of is None:
                            # the plan from the second run on, made before it runs: the
                            # first run found the registers and made the bodies' kept
                            # forms (``views``, ``plan_for``); a stretch run once makes none
                            steps_of = self._plan(self._stretch(pc, k)[0], at)
                            plans[where] = (at_key, steps_of)
                        for call, args in steps_of:
                            call(*args)
                            done += 1
                    else:
                        for body in self._stretch(pc, k)[0]:
                            body(at)
                            done += 1
                        plans[where] = (at_key, None)
                    done = 0
                    pc += k
                else:
                    after = self._branch_through(pc, at)
                    if after is None:
                        break
                    key, k, pc = (pc, 0), 1, after
                tally[key] = tally.get(key, 0) + 1
                steps += k
                left -= k
                if left <= 0 or pc >= chain_limit:
                    break
                k = min(runs[pc], chain_limit - pc, left)
        except BaseException as err:
            # the bookkeeping of the steps run, the failing one included (the step loop
            # counts a step before running it); the threads stay at the failing one
            self._count_ran(tally, steps, width)
            self._count_stretch(pc, done + 1, width, None)
            self.pc[at] = pc + done
            ins = self.entry.instructions[pc + done]
            if isinstance(err, SimError) and err.ptx_line is None:
                err.ptx_line, err.ptx_text = ins.line, ins.text
            raise
        self._count_ran(tally, steps, width)
        self.pc[at] = pc
        self._moved = (idx, pc, None)
        return pc

    #: At most this many steps per ``_fused`` call (a bound on its loop; the run loop
    #: calls it again for the next ones).
    _STEPS_PER_CALL = 1 << 16

    @staticmethod
    def _plan(bodies: tuple, at) -> tuple:
        """How a stretch whose ``bodies`` ran on the threads ``at`` before (its registers
        made; made at the start of its second run) runs on them again: (function,
        arguments) per step, the body's own ufunc call on the views of
        its registers where it keeps them for ``at`` (``views``: ops_fastint's direct
        form, ops_arith's setp with an immediate; what the body would call), the step
        its ``plan_for(at)`` gives ((function, arguments): the same values through
        ufuncs on views; None: it cannot), else the body on ``at``: one step per body
        (an error's PC is the stretch's PC plus the steps done). Valid for ``at`` and any slice equal to it
        (views of the same threads) while the register arrays are the machine's (they
        are made once and written in place)."""
        steps = []
        for body in bodies:
            views = getattr(body, "views", None)
            if views is not None and views[0] is at:
                ufunc, x, y, out = views[1]
                steps.append((ufunc, (x, y, out)))
                continue
            plan_for = getattr(body, "plan_for", None)
            planned = plan_for(at) if plan_for is not None else None   # (None: no views)
            steps.append((body, (at,)) if planned is None else planned)
        return fused_plans.grouped(steps)   # (runs of global stores as one step)

    def _count_of(self, at) -> int:
        """How many threads ``at`` (ALL, a slice of consecutive threads, or ids) holds."""
        if type(at) is slice:
            return self.nthreads if at.start is None else at.stop - at.start
        return len(at)

    def _count_ran(self, tally: dict, steps: int, width: int) -> None:
        """The step loop's bookkeeping of ``steps`` steps of ``width`` warps: the
        stretches and branches of ``tally`` ((PC, length), length 0 for a branch -> how
        many times), in the order they first ran."""
        stats = self.stats
        stats.steps += steps
        stats.warp_instructions += steps * width
        counts, stretches, instructions = stats.counts, self._stretches, \
            self.entry.instructions
        for (pc, k), times in tally.items():
            opcodes = stretches[(pc, k)][1] if k else ((instructions[pc].opcode, 1),)
            for opcode, n in opcodes:
                counts[opcode] = counts.get(opcode, 0) + n * times * width

    def _branch_through(self, pc: int, at):
        """The PC the ``bra`` at ``pc`` takes the threads ``at`` to when they all go
        the same way (sim/ops_control.py's ``bra``: to its label where the guard holds,
        else to the next instruction). None, nothing done, for anything else: another
        instruction, a guard that differs between the threads, or a guard register that
        is not (yet) a predicate array (the step loop then runs it, and reports what it
        reports)."""
        branch = self._branches().get(pc)
        if branch is None:
            return None
        dest, guard, negated = branch
        if guard is None:
            return dest
        pred = self.regs.get(guard)
        if pred is None or pred.dtype != bool:
            return None
        held = int(np.count_nonzero(pred[at]))
        if held == 0:
            taken = negated
        elif held == self._count_of(at):
            taken = not negated
        else:
            return None   # the threads diverge: the step loop splits them
        return dest if taken else pc + 1

    def _branches(self) -> dict:
        """PC -> (label's PC, guard register or None, negated) of every ``bra``
        (made once per machine; its handler checked the form and the label)."""
        found = self.__dict__.get("_bra_at")
        if found is None:
            found = self._bra_at = {}
            labels = self.entry.labels
            for pc, ins in enumerate(self.entry.instructions):
                if ins.parts[0] != "bra" or ins.parts[1:] not in ([], ["uni"]) or \
                        len(ins.operands) != 1 or \
                        getattr(ins.operands[0], "name", None) not in labels:
                    continue
                found[pc] = (labels[ins.operands[0].name], ins.guard, ins.guard_negated)
        return found

    def _stretch(self, m: int, k: int) -> tuple:
        """The bodies of the stretch of ``k`` instructions from PC ``m`` and its
        opcodes with their multiplicities in the order of their first occurrence (what
        the step loop's counts per opcode add, in the order it adds them), made once."""
        made = self.__dict__.setdefault("_stretches", {})
        found = made.get((m, k))
        if found is None:
            opcodes: dict = {}
            for ins in self.entry.instructions[m:m + k]:
                opcodes[ins.opcode] = opcodes.get(ins.opcode, 0) + 1
            found = made[(m, k)] = (tuple(h.body for h in self.handlers[m:m + k]),
                                    tuple(opcodes.items()))
        return found

    def _count_stretch(self, m: int, k: int, width: int, opcodes) -> None:
        """The step loop's bookkeeping of ``k`` steps from PC ``m`` of ``width`` warps:
        steps, warp instructions, counts per opcode (``opcodes``: ``_stretch``'s, or
        None to take them from the instructions)."""
        stats = self.stats
        stats.steps += k
        stats.warp_instructions += k * width
        counts = stats.counts
        if opcodes is None:
            opcodes = [(ins.opcode, 1) for ins in self.entry.instructions[m:m + k]]
        for opcode, n in opcodes:
            counts[opcode] = counts.get(opcode, 0) + n * width

    def _schedule(self, count: int) -> tuple:
        """The next step's (PC, threads, warps or None, chain limit): the lowest-PC-first
        choice, or the random schedule's; PC -1 when every thread has exited. Completes
        pending asynchronous work when no thread can run (SimError: a deadlock)."""
        status, moved, self._moved = self.status, self._moved, None
        while True:
            if self.random is not None and self.random.complete_now() and \
                    self.ordering.progress():
                self.epoch += 1   # a random early completion (sim/schedule.py)
                moved = None
            if moved is not None and moved[1] is not None:
                # the threads of the last step moved on to the next PC and nothing else
                # changed: the same threads are runnable (some are), at the same PCs
                pcs = self._pcs
                pcs[moved[0]] = moved[1]
                break
            if moved is not None:
                # a local step: only its threads' PCs and statuses changed, and no waiter
                # woke (the epoch is the same), so only their entries are looked up again
                pcs = self._pcs
                if self._note_local(pcs, moved[0], moved[2]):
                    break
                moved = None   # nothing can run: the full look below decides what next
            pcs = self._runnable_pcs(status)
            if pcs is not None:
                self._pcs = pcs
                break
            if np.count_nonzero(status == EXIT) == status.size:
                return -1, ALL, None, -1
            if self.ordering.progress():
                self.epoch += 1
                continue
            raise self._deadlock()
        if self.random is None:
            m, idx, chain_limit = lowest_first(pcs)
            width = None
        else:
            m, idx, width = self.random.pick_threads(
                pcs, self.warp_of, moved is not None and (moved[1] is not None or "local"))
            chain_limit = -1
        if m >= count:
            raise SimError("a thread ran past the end of the kernel without ret",
                           self.entry.end_line, "}")
        status[self.contiguous(idx)] = RUN   # (a slice: no fancy index; the handler
        return m, idx, width, chain_limit     # then finds the same slice kept)

    def _runnable_pcs(self, status: np.ndarray):
        """Each thread's PC where it can run (RUN, or MBAR with its wait begun in an
        earlier epoch: a phase may have completed since), NOT_RUNNABLE where it cannot;
        None when no thread can run. The statuses' bytes (int8) tell the common cases
        apart without NumPy calls: every thread RUN (each at its PC), no thread waiting
        at an mbarrier (the RUN ones)."""
        raw = status.tobytes()
        n = len(raw)
        if raw.count(0) == n:
            return self.pc.copy()
        if _MBAR_BYTE in raw:
            runnable = self._can_run(status, self.wait_epoch)
        else:
            runnable = status == RUN
        if runnable.tobytes().count(0) == n:   # (bools: one byte each, 0 or 1)
            return None
        return np.where(runnable, self.pc, NOT_RUNNABLE)

    def _can_run(self, status: np.ndarray, wait_epoch: np.ndarray) -> np.ndarray:
        """Per thread of `status` (and its `wait_epoch`): whether it can run, RUN or
        waiting at an mbarrier since an earlier epoch (a phase may have completed)."""
        return (status == RUN) | ((status == MBAR) & (wait_epoch < self.epoch))

    def _note_local(self, pcs: np.ndarray, idx, together=None) -> bool:
        """After a local step of the threads ``idx`` that woke no waiter: their entries
        of ``pcs`` (the PC of a thread that can run, else NOT_RUNNABLE) made again;
        whether any thread can run now. ``together``: the PC all of them are at and can
        run from, when ``together_after_local`` found one."""
        at = self.contiguous(idx)
        if together is not None:
            pcs[at] = together
            return True
        here = self.status[at]
        raw = here.tobytes()
        n = len(raw)
        if raw.count(0) == n:
            # every one of them is RUN (status 0: after a branch, a successful wait, a
            # tcgen05 op), so each can run at its PC
            pcs[at] = self.pc[at]
            return True
        if raw == _MBAR_BYTE * n and \
                self.wait_epoch[at].tobytes() == np.int64(self.epoch).tobytes() * n:
            # every one of them began to wait at an mbarrier in this epoch (a try_wait
            # that failed): none can run until a phase completes
            pcs[at] = NOT_RUNNABLE
        else:
            pcs[at] = np.where(self._can_run(here, self.wait_epoch[at]), self.pc[at],
                               NOT_RUNNABLE)
        return bool(pcs[pcs.argmin()] < NOT_RUNNABLE)

    def together_after_local(self, idx):
        """After a local step that woke no waiter: the PC every thread of ``idx`` is at
        when all of them can run and are at the same one (a uniform branch, a
        successful wait), else None. The lowest-PC-first choice then takes these threads
        again if that PC is below the other runnable threads' (the run loop's chain)."""
        at = self.contiguous(idx)
        pcs = self.pc[at]
        n = len(pcs)
        if not n:
            return None
        # (RUN is status 0: all RUN when every byte of the int8 statuses is zero; all
        # at one PC when the PCs' bytes are the first one's n times: comparisons of
        # bytes cost less than NumPy calls on arrays this small)
        if self.status[at].tobytes().count(0) != n:
            return None
        raw = pcs.tobytes()
        if raw != raw[:8] * n:   # (int64 PCs: 8 bytes each)
            return None
        return int(pcs[0])

    def _warps_in(self, idx) -> int:
        """How many warps the threads ``idx`` (ALL, or sorted thread ids) fall in."""
        if idx is ALL:
            return self.nwarps
        at = self.contiguous(idx)
        if type(at) is slice and self.launch.threads % 32 == 0:
            # warp w is then threads 32 w .. 32 w + 31 of the cluster: consecutive
            # threads fall in the warps from the first's to the last's
            return (at.stop - 1) // 32 - at.start // 32 + 1
        warps = self.warp_of[idx]
        return 1 if warps[0] == warps[-1] else \
            1 + int(np.count_nonzero(warps[1:] != warps[:-1]))

    def advance(self, idx) -> None:
        self.pc[self.contiguous(idx)] += 1

    def contiguous(self, idx):
        """``idx`` (ALL, or sorted unique thread ids) as a slice when its threads are
        consecutive (a warp: indexing then makes views, not copies), else itself. The
        last answer is kept: the steps of a straight-line stretch share their ``idx``."""
        if idx is self._contiguous_of:
            return self._contiguous
        found = idx
        if idx is not ALL and len(idx):
            first = int(idx[0])
            if int(idx[-1]) - first + 1 == len(idx):
                found = slice(first, first + len(idx))
        self._contiguous_of, self._contiguous = idx, found
        return found
