"""The animated replay: a GIF of a few seconds and frames, well under a few MB, with bad settings refused."""

from __future__ import annotations

import pytest
from PIL import Image

from npc_ai.sim.simulation import Simulation
from npc_ai.viz.replay_gif import write_replay_gif
from scenes import load_builtin


def test_gif_of_a_short_run(tmp_path) -> None:
    with Simulation(load_builtin("arena"), seed=0) as sim:
        sim.run(1.0)
        with pytest.raises(ValueError, match=r"fps must be an integer in 1\.\.50"):
            write_replay_gif(sim, tmp_path / "x.gif", fps=0)
        with pytest.raises(ValueError, match=r"duration_s must be in \(0, 60\]"):
            write_replay_gif(sim, tmp_path / "x.gif", duration_s=float("nan"))
        out = write_replay_gif(sim, tmp_path / "replay.gif", duration_s=1.0, fps=5, width_px=320)
    assert out == tmp_path / "replay.gif"
    assert out.stat().st_size < 3_000_000
    with Image.open(out) as im:
        assert im.format == "GIF" and im.size[0] == 320
        assert im.n_frames == 5
        assert im.info["duration"] == 200  # [ms] per frame at 5 fps
        first = im.convert("RGB").tobytes()
        im.seek(4)
        assert im.convert("RGB").tobytes() != first  # the NPCs moved
