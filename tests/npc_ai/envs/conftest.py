"""The research envs need the `rl` extra; without it these tests are skipped, and the core suite runs."""

from __future__ import annotations

import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")
