"""Whether a run asked for nlp-gate: until it does, the plugin is inert.

pytest loads an installed plugin into every run in that environment, a team's own unit tests
included.  Such a run must be exactly the run without nlp-gate: the same items, output lines
and exit status, nothing validated, registered or written.  A run *asks* when

* its configuration sets an ini key of ours (``options.INI_KEYS``: ``nlp_gate_paths``, the
  packaged suites' keys, ...; ``-o`` counts too),
* it gives an ``--nlp-*`` option a value other than its default (on the command line, in
  ``PYTEST_ADDOPTS`` or the ini file's ``addopts``), or
* its paths or ``--pyargs`` name a packaged suite (``nlp_gate.released``,
  ``nlp_gate.native_tests``).

Decided once per process, at the plugin's ``pytest_configure`` (``ASKED_KEY``).  An xdist
worker takes its controller's answer (handed over in ``workerinput`` by the controller's
plugin, which an inert run does not register): its own arguments are the controller's after
the plugin appended the packaged suites to them, which would not always give the same answer.
"""

from __future__ import annotations

from typing import Any

import pytest

from nlp_gate.pytest_plugin.options import INI_KEYS
from nlp_gate.pytest_plugin.selection import PACKAGED_SUITES

ASKED_KEY = pytest.StashKey[bool]()
# The workerinput key under which the controller of an asked run tells its workers.
WORKERINPUT_KEY = "nlp_gate_asked"

# The default of each of our options (dest -> value), read from pytest's parser once they
# are declared: the same in every run of this process, as the declarations are.
_OPTION_DEFAULTS: dict[str, Any] = {}


def remember_option_defaults(parser: pytest.Parser) -> None:
    """At ``pytest_addoption``, after our options are declared (every dest is ``nlp_*``)."""
    defaults = vars(parser.parse_known_args([]))
    _OPTION_DEFAULTS.update({k: v for k, v in defaults.items() if k.startswith("nlp_")})


def decide(config: pytest.Config) -> bool:
    """Whether this run asked for nlp-gate (see the module's docstring); remembered."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is not None:
        asked = bool(workerinput.get(WORKERINPUT_KEY, False))
    else:
        asked = reason(config) is not None
    config.stash[ASKED_KEY] = asked
    return asked


def reason(config: pytest.Config) -> str | None:
    """What in this run asks for nlp-gate (the first thing found), else None."""
    for name in INI_KEYS:
        if config.getini(name) is not None:
            return f"ini {name}"
    for dest, default in _OPTION_DEFAULTS.items():
        if getattr(config.option, dest, default) != default:
            return f"--{dest.replace('_', '-')}"
    for suite in PACKAGED_SUITES:
        if suite.named(config):
            return suite.module
    return None


def asked(config: pytest.Config) -> bool:
    return config.stash.get(ASKED_KEY, False)
