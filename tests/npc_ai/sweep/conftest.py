"""A tiny spec the sweep tests share: the `run` task on the arena, a few simulated seconds per trial, one
combination that fails (an unknown scene) so error rows are compared too."""

from __future__ import annotations

TINY_SPEC = """
[sweep]
task = "run"
seeds = [0, 3]

[params]
seconds = 3.0
player = "wander"

[grid]
scene = ["arena", "no_such_scene"]
npcs = [1, 3]

[report]
metrics = ["shots", "share_aim"]
"""
