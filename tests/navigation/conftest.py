"""Make the test helpers (nav_helpers, fake_world) importable by name."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
