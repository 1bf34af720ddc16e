"""Shared analysis, computed once per file and read by many rules.

- :mod:`.symbols`: import table, qualified names, which classes are modules;
- :mod:`.classes`: what ``self.<attr>`` holds in each class;
- :mod:`.flow`: where each value lives (host, accelerator, an input's device).
"""
