import sys
from pathlib import Path

# Test helpers (fixture_support) live beside the tests.
sys.path.insert(0, str(Path(__file__).parent))

import os  # noqa: E402
import tempfile  # noqa: E402

# The flake8 plugin and the language server keep summaries in the user's cache folder: the tests
# (and the processes they start) use one of their own, never the user's.
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="flake8-device-tests-cache-")
