"""Local stand-ins the offline attack variants use, built into the resource bundle's
``stand-ins/`` without the network (``scripts/fetch_attack_resources.py --stand-ins`` and
``--from-debian``).  Nothing here imports TextAttack: the fetch script builds them before
TextAttack can be imported."""
