"""The ordering model's mbarriers (PTX ISA 9.7.13.15): init and its fence at cluster
scope, arrivals and expected transactions, the phases, and what a successful
try_wait.parity acquires from the arrivals of the completed phase, by scope. A mixin of
``ordering.OrderingModel``.
"""

from __future__ import annotations

import numpy as np

from tcgen05_lower.sim.ordering_records import Mbarrier, _fit
from tcgen05_lower.sim.state import SimError


class MbarrierOrdering:
    """The mbarriers of ``OrderingModel`` (a mixin of it: the state is its
    ``__init__``'s)."""

    def _mbar(self, rank: int, address: int, line: int, thread: int | None = None) -> Mbarrier:
        bar = self.mbarriers.get((rank, address))
        if bar is None:
            raise SimError(f"mbarrier at shared address {address:#x} of CTA {rank} is used "
                           "before mbarrier.init", line)
        if thread is not None and thread != bar.init_by and \
                self.known[thread, bar.init_by] <= bar.init_epoch:
            self._race(f"thread {thread} uses the mbarrier at {address:#x} of CTA {rank} "
                       "before its mbarrier.init is ordered before the use", line, bar.init_line)
        elif thread is not None and thread // self.threads_per_cta != rank:
            self._check_init_fenced(thread, bar, address, line)
        return bar

    def _check_init_fenced(self, thread: int, bar: Mbarrier, address: int, line: int) -> None:
        """A thread (or an async op it issues) of another CTA uses the mbarrier: its
        mbarrier.init must be followed, in the initializing thread, by
        ``fence.mbarrier_init.release.cluster`` ordered before the use (9.7.13.4: the fence
        makes prior mbarrier.init visible at cluster scope; without it the init is ordered
        for the initializing CTA only; docs/memory-model.md)."""
        fences = [f for f in self.init_fences[bar.init_by] if f >= bar.init_epoch]
        if fences and self.known[thread, bar.init_by] > fences[0]:
            return
        self._race(f"thread {thread} of CTA {thread // self.threads_per_cta} uses the "
                   f"mbarrier at {address:#x} of CTA {bar.rank}, and no "
                   "fence.mbarrier_init.release.cluster after its mbarrier.init is ordered "
                   "before the use (9.7.13.4)", line, bar.init_line)

    def mbarrier_init(self, thread: int, rank: int, address: int, count: int, line: int) -> None:
        if count < 1:
            raise SimError(f"mbarrier.init with count {count}", line)
        self.mbarriers[(rank, address)] = Mbarrier(expected=count, pending=count,
                                                   init_by=thread, init_epoch=self._epoch(thread),
                                                   init_line=line, rank=rank)

    def _arrive(self, rank: int, address: int, count: int, generic, tc, line: int,
                source: tuple | None = None) -> int:
        """An arrive-on of `count` releasing (generic, tc) from `source` (rank of the
        arriving agent, scope); default: an async agent on the mbarrier's own CTA at
        cluster scope (a commit's arrive-on, 9.7.16.12.1: "the scope of the arrive-on
        operation is the cluster scope")."""
        bar = self._mbar(rank, address, line)
        token = bar.phase
        _contribute(bar, source or (rank, "cluster"), generic, tc)
        bar.pending -= count
        if bar.pending < 0:
            raise SimError(f"mbarrier at {address:#x} of CTA {rank}: more arrivals than its "
                           "expected count in one phase", line)
        self._maybe_complete(bar)
        return token

    @staticmethod
    def _maybe_complete(bar: Mbarrier) -> None:
        if bar.pending == 0 and bar.tx == 0:
            bar.completed[bar.phase] = bar.released
            bar.completed.pop(bar.phase - 2, None)
            bar.phase += 1
            bar.pending = bar.expected
            bar.released = {}

    def mbarrier_arrive(self, thread: int, rank: int, address: int, count: int,
                        line: int, scope: str = "cta") -> int:
        """mbarrier.arrive{.release}{.scope} by `thread` (scope .cta unless given:
        9.7.13.15.13's default) on the mbarrier at `address` of CTA `rank`."""
        self._mbar(rank, address, line, thread)
        self._landing(rank, address, "mbarrier.arrive" + (
            " (remote, shared::cluster)" if rank != thread // self.threads_per_cta
            else ""), line)
        self._implied([thread], "before_thread_sync", line)
        self._release(np.array([thread]))
        generic, tc = self._published([thread])
        return self._arrive(rank, address, count, generic, tc, line,
                            (thread // self.threads_per_cta, scope))

    def mbarrier_arrive_many(self, threads: np.ndarray, rank: int, address: int,
                             counts: list, line: int, scope: str = "cta",
                             expect_tx: list | None = None) -> int | None:
        """The arrivals of `threads` (in order, one CTA's) on one mbarrier, each after its
        expect_tx (``expect_tx``: bytes per thread, then each arrives once) as
        ``mbarrier_expect_tx`` and ``mbarrier_arrive`` thread by thread would make them,
        at once: the token they all get; None (nothing done) when the one-by-one calls
        could differ: a subclass's arrive, fences implied by it, something to report
        about the mbarrier's use, or a phase that would complete before the last
        arrival. Each thread's release and published clocks are its own rows, so the
        phase gets their maximum (``_published`` of the group), as the arrivals one
        by one give it."""
        if type(self).mbarrier_arrive is not MbarrierOrdering.mbarrier_arrive or \
                type(self).mbarrier_expect_tx is not MbarrierOrdering.mbarrier_expect_tx or \
                self.fences != "canonical":
            return None
        threads = np.asarray(threads, np.int64).reshape(-1)
        bar = self.mbarriers.get((rank, address))
        if bar is None or not threads.size or not self._use_ordered(threads, bar):
            return None
        sources = threads // self.threads_per_cta
        if (sources != sources[0]).any():
            return None
        arrivals = len(counts) if expect_tx is not None else sum(counts)
        if min(counts) < 1 and expect_tx is None or arrivals > bar.pending:
            return None   # an arrival of 0, or a phase completing before the last
        source = int(sources[0])
        if expect_tx is not None:
            bar.tx += sum(expect_tx)
        self._landing(rank, address, "mbarrier.arrive" + (
            " (remote, shared::cluster)" if rank != source else ""), line)
        self._release(threads)
        generic, tc = self._published(threads)
        token = bar.phase
        _contribute(bar, (source, scope), generic, tc)
        bar.pending -= arrivals
        self._maybe_complete(bar)
        return token

    def mbarrier_expect_tx(self, thread: int, rank: int, address: int, nbytes: int,
                           line: int) -> None:
        self._mbar(rank, address, line).tx += nbytes

    def mbarrier_try_wait_parity(self, thread: int, rank: int, address: int, parity: int,
                                 line: int, scope: str = "cta") -> bool:
        """mbarrier.try_wait.parity{.acquire}{.scope} (scope .cta unless given:
        9.7.13.15.16's default): acquires what the completed phase's arrivals released, from
        the sources its scope synchronizes with (``_synchronizes``)."""
        bar = self._mbar(rank, address, line, thread)
        if bar.phase % 2 == parity % 2:
            return False
        # A successful wait observes the latest completed phase (its parity is P).
        bar.observed = max(bar.observed, bar.phase - 1)
        mine = thread // self.threads_per_cta
        for source, (generic, tc) in bar.completed.get(bar.phase - 1, {}).items():
            if _synchronizes(source, mine, scope):
                self._acquire(np.array([thread]), generic, tc)
        self._implied([thread], "after_thread_sync", line)
        return True

    def mbarrier_try_wait_parity_many(self, threads: np.ndarray, ranks: np.ndarray,
                                      addresses: np.ndarray, parities: np.ndarray,
                                      line: int, scope: str = "cta") -> np.ndarray:
        """``mbarrier_try_wait_parity`` of each of `threads` in turn (the same results
        and effects: bool per thread): per group of threads that wait on the same
        mbarrier and parity at once, when the use of the mbarrier is ordered after its
        init for all of them; thread by thread otherwise (then something is reported,
        in the threads' order), and when a subclass redefines the one-thread wait.
        ``ranks``, ``addresses`` and ``parities``: one per thread, or one for all."""
        threads = np.asarray(threads, np.int64).reshape(-1)

        def one_by_one(*values) -> np.ndarray:   # ranks, addresses, parities
            return np.array([
                self.mbarrier_try_wait_parity(int(g), int(r), int(a), int(p) & 1, line,
                                              scope=scope)
                for g, r, a, p in zip(threads, *(np.broadcast_to(
                    np.asarray(v).reshape(-1), threads.shape) for v in values))], dtype=bool)
        if type(self).mbarrier_try_wait_parity is not \
                MbarrierOrdering.mbarrier_try_wait_parity or self.fences != "canonical":
            # a subclass's wait, or fences implied by each wait
            return one_by_one(ranks, addresses, parities)
        ranks, addresses, parities = (np.asarray(v, np.int64).reshape(-1)
                                      for v in (ranks, addresses, parities))
        groups = self._wait_runs(threads, ranks, addresses, parities & 1)
        if groups is None:
            return one_by_one(ranks, addresses, parities)
        ok = np.zeros(threads.size, bool)
        for selected, members, bar, parity in groups:
            if self._wait_group(members, bar, parity, scope):
                ok[selected] = True
        return ok

    def mbarrier_try_wait_parity_runs(self, runs: list, address: int, parity: int,
                                      line: int, scope: str = "cta") -> list | None:
        """``mbarrier_try_wait_parity_many`` of threads that all wait at shared::cta
        ``address`` for ``parity`` (0 or 1), given as ``runs``: (int64 ids, sorted, all
        of one CTA; that CTA's rank) in the threads' order, each waiting on its own
        CTA's mbarrier (``_wait_runs``' groups): per run, whether its threads passed,
        with the same effects; None, nothing done, where ``mbarrier_try_wait_parity_many``
        would not take them by groups (a subclass's wait, fences implied by each wait,
        an mbarrier not initialized or whose init is not ordered before a run's use: the
        caller then goes through it, which reports what it reports)."""
        if type(self).mbarrier_try_wait_parity is not \
                MbarrierOrdering.mbarrier_try_wait_parity or self.fences != "canonical":
            return None
        bars = []
        for members, rank in runs:   # every group checked before any waits (_wait_runs)
            bar = self.mbarriers.get((rank, address))
            if bar is None or not self._use_ordered(members, bar):
                return None
            bars.append(bar)
        return [self._wait_group(members, bar, parity, scope, rank)
                for (members, rank), bar in zip(runs, bars)]

    def _wait_group(self, members: np.ndarray, bar: Mbarrier, parity: int, scope: str,
                    one_rank: int | None = None) -> bool:
        """The try_wait.parity of a group of threads on one mbarrier and parity, their use
        of it ordered after its init: whether they pass (the phase of that parity
        completed), and if so what they acquire from its arrivals, by scope
        (``mbarrier_try_wait_parity``'s effects for each of them). ``one_rank``: the CTA
        of every member when the caller knows it."""
        if bar.phase % 2 == parity:
            return False
        bar.observed = max(bar.observed, bar.phase - 1)
        completed = bar.completed.get(bar.phase - 1)
        if not completed:
            return True
        waiter_ranks = None
        if one_rank is None:
            waiter_ranks = members // self.threads_per_cta
            if (waiter_ranks == waiter_ranks[0]).all():
                one_rank = int(waiter_ranks[0])
        for source, (generic, tc) in completed.items():
            if one_rank is not None:
                acquiring = members if _synchronizes(source, one_rank, scope) \
                    else members[:0]
            else:
                acquiring = members[np.isin(waiter_ranks, [
                    w for w in set(waiter_ranks.tolist())
                    if _synchronizes(source, w, scope)])]
            if acquiring.size:
                self._acquire(acquiring, generic, tc)
        return True

    def _wait_runs(self, threads, ranks, addresses, parities) -> list | None:
        """``_wait_groups``' answer, found without sorting keys when every thread waits
        at the same address and parity (the usual case: one instruction's operands):
        each run of threads that give the same rank is a group (a rank seen again after
        another makes a second group on the same mbarrier and phase: the waits' effects
        are per thread, so the same as one group). ``ranks``, ``addresses`` and
        ``parities``: one per thread, or one for all."""
        if not threads.size:
            return []
        address, parity = _one_value(addresses), _one_value(parities)
        if address is None or parity is None:
            return self._wait_groups(threads, *(np.broadcast_to(v, threads.shape) for v in (
                ranks, addresses, parities)))
        rank = _one_value(ranks)
        if rank is not None:
            bounds, firsts = [0, threads.size], [rank]
        else:
            cuts = (np.flatnonzero(ranks[1:] != ranks[:-1]) + 1).tolist()
            bounds, firsts = [0, *cuts, threads.size], ranks[[0, *cuts]].tolist()
        groups = []
        for start, stop, rank in zip(bounds, bounds[1:], firsts):
            # an mbarrier at an address out of _wait_groups' key range does not exist:
            # the same answer (one by one) as there
            bar = self.mbarriers.get((rank, address))
            members = threads if stop - start == threads.size else threads[start:stop]
            if bar is None or not self._use_ordered(members, bar):
                return None
            groups.append((slice(start, stop), members, bar, parity))
        return groups

    def _wait_groups(self, threads, ranks, addresses, parities) -> list | None:
        """The groups of threads that wait on the same mbarrier and parity: (their
        selection, the threads, the mbarrier, the parity); None when the waits must be
        tried one by one (an mbarrier not initialized or not ordered for a group)."""
        if ((addresses < 0) | (addresses >= 1 << 40) | (ranks < 0)).any():
            return None
        # one int per (rank, address, parity): a group of threads waits on the same phase
        keys = (ranks << 41) | (addresses << 1) | parities
        groups = []
        for key in np.unique(keys).tolist():
            rank, address, parity = key >> 41, (key >> 1) & ((1 << 40) - 1), key & 1
            selected = keys == key
            members = threads[selected]
            bar = self.mbarriers.get((rank, address))
            if bar is None or not self._use_ordered(members, bar):
                return None
            groups.append((selected, members, bar, parity))
        return groups

    def _use_ordered(self, threads: np.ndarray, bar: Mbarrier) -> bool:
        """Whether ``_mbar`` would report nothing for any of `threads` using `bar`: its
        init is ordered before the use, and for threads of another CTA a
        fence.mbarrier_init after it too. A yes is kept (``bar.ordered_users``): the
        clocks it compares only grow, and the first fence after the init stays the
        first."""
        key = threads.tobytes()
        if key in bar.ordered_users:
            return True
        others = threads[threads != bar.init_by]
        if (self.known[others, bar.init_by] <= bar.init_epoch).any():
            return False
        remote = others[others // self.threads_per_cta != bar.rank]
        if bar.init_by in threads and bar.init_by // self.threads_per_cta != bar.rank:
            remote = np.append(remote, bar.init_by)
        if remote.size:
            fences = [f for f in self.init_fences[bar.init_by] if f >= bar.init_epoch]
            if not fences or not (self.known[remote, bar.init_by] > fences[0]).all():
                return False
        bar.ordered_users.add(key)
        return True


def _one_value(values: np.ndarray) -> int | None:
    """The value every entry of ``values`` (one or more) has, else None."""
    first = int(values[0])
    return first if values.size == 1 or (values == first).all() else None


def _contribute(bar: Mbarrier, source: tuple, generic: np.ndarray, tc: np.ndarray) -> None:
    """Adds what one arrival (or complete_tx) releases to the current phase, by source."""
    known = bar.released.get(source)
    if known is None:
        bar.released[source] = (generic.copy(), tc.copy())
        return
    # clocks taken before and after the model's clocks got more columns (_widen)
    width = max(known[0].shape[0], generic.shape[0])
    bar.released[source] = (np.maximum(_fit(known[0], width), _fit(generic, width)),
                            np.maximum(_fit(known[1], width), _fit(tc, width)))


def _synchronizes(source: tuple, waiter_rank: int, wait_scope: str) -> bool:
    """Whether a release from `source` (rank of the arriving agent, its scope) and an
    acquire by a thread of CTA `waiter_rank` at `wait_scope` synchronize: each operation's
    scope must include the other's thread (8.7, morally strong operations; 9.7.13.15
    mbarrier). A CTA's own arrivals always do; another CTA's only when both are
    .cluster (docs/memory-model.md)."""
    rank, scope = source
    return rank == waiter_rank or (scope == "cluster" and wait_scope == "cluster")
