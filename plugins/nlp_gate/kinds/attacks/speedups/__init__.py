"""Exact speed-ups of TextAttack's searches, installed while an attack item runs: each returns
what TextAttack's own code returns (byte-identical attack logs, ``benchmarks/bench_attacks.py``),
only sooner.

``memo`` memoises pure helpers on their arguments; ``texts`` takes shortcuts through
``AttackedText``; ``lazy`` lets greedy searches filter only what they query; ``order`` runs
cheap constraints first; ``empty`` skips work on empty candidate lists.  (docs/guide/attacks.md)
"""
