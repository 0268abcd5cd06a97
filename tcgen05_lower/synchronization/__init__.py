"""Synchronization planning for ``tcgen05-insert-sync`` (the pass is a thin driver over
these modules; the rules they follow are in the pass's docstring).

===================  =====================================================================
``common``           classes of asynchronous ops, ordering levels, helpers on ops and loops
``accesses``         the cells and tiles each asynchronous op touches; which buffers a
                     value may name; the pipelined pairs (9.7.16.6.2)
``state``            how far each op in flight is ordered; joins of paths; what a
                     dependence requires (9.7.16.6.4)
``planner``          the walk that finds dependences and chooses the patterns, and the
                     pruning of what no dependence needs
``phases``           the mbarrier phase parity of every wait
``insertion``        the plan turned into ops; phase-separating barriers; CTA-pair commit
                     masks
``role_turns``       (strategy=handoffs) the TMEM buffers an MMA role shares with a role
                     that loads / stores them, and each role's turns on them
``role_handoffs``    the mbarriers, waits, fences and arrivals of those turns
``thread_order``     a thread's own tcgen05.ld / st of the same cells (wait::ld / ::st)
``mma_hazards``      the MMA role's MMAs of different accumulators on the same cells (a
                     TMEM alias: S written over the P an earlier MMA read)
``emitter``          what the planners writing into roles share (every planner: the
                     ops recorded; two of them: mbarriers, index constants)
===================  =====================================================================

``tcgen05-verify-sync`` shares none of this: it checks a program with its own model.
"""
