"""Configuration: the models file (profiles), ``thresholds.yaml``, and where a run's files live.

Everything here is plain data parsed once per process; nothing imports torch.
"""


class ConfigurationError(ValueError):
    """A configuration the run cannot use (models file, thresholds, missing suite): a usage
    error before any item runs.  The message says how to fix it."""
