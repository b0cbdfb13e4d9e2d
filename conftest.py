"""Root conftest: the behavioral gate is a pytest plugin living in ``plugins/``."""

pytest_plugins = ["plugins.plugin", "plugins.accuracy", "plugins.comparison", "plugins.attacks.plugin"]
