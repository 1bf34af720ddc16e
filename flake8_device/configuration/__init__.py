"""The tool's configuration: where it is written and what it says, one precedence for every front end.

- :mod:`.discovery`: finding a run's configuration files (upward from where the run starts);
- :mod:`.pyproject` and :mod:`.flake8_ini`: reading ``[tool.flake8-device]`` in ``pyproject.toml``
  and the ``[flake8]`` section of ``setup.cfg``, ``tox.ini`` or ``.flake8``;
- :mod:`.settings`: what one place says, and the precedence that merges the places;
- :mod:`.analysis`: the settings that change what the analysis knows (``move-functions``, the
  pinned versions), not which codes are on.
"""
