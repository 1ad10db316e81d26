"""npc_ai.bench.names: the light copies of the names the command line offers stay equal to the real ones."""

from __future__ import annotations

import subprocess
import sys

from npc_ai.bench import crowd, names, nav
from npc_ai.body.coupling import MODES


def test_names_are_the_benchmarks_own() -> None:
    assert tuple(MODES) == names.COUPLING_MODES
    assert nav.MAPS is names.MAPS
    assert crowd.SCENARIOS is names.CROWD_SCENARIOS


def test_building_the_parser_loads_no_physics_numba_or_kernels() -> None:
    """`npc-ai --help` and argument errors answer without PyBullet, numba or a navigation kernel."""
    code = (
        "import sys; from npc_ai.cli.main import build_parser; build_parser()\n"
        "heavy = [m for m in ('pybullet', 'numba', 'navigation.query', 'npc_ai.body.coupling') "
        "if m in sys.modules]\n"
        "print(','.join(heavy) or 'none')"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "none"


def test_importing_navigation_loads_no_kernel_until_a_name_is_used() -> None:
    code = (
        "import sys, navigation; print('navigation.query' in sys.modules)\n"
        "navigation.NavMeshQuery; print('navigation.query' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]
