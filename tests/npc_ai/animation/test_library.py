import json

import pytest

from npc_ai.animation import AnimationError, clip_info, load_clip, plot_clip
from npc_ai.animation.deepmimic import builtin_motion_path


def test_clip_info_is_json(walk):
    info = clip_info(walk)
    json.dumps(info)
    assert info["frames"] == 39 and info["fps"] == pytest.approx(30, rel=1e-3)
    assert info["duration_s"] == pytest.approx(1.2666, abs=1e-3)
    assert info["root_speed_mps"] == pytest.approx(0.98, rel=0.02)
    assert info["contacts"]["left"]["count"] == 1 and info["contacts"]["right"]["count"] == 1


def test_cmu_info(cmu):
    info = clip_info(cmu)
    assert info["frames"] == 995 and info["contacts"]["left"]["count"] >= 5


def test_load_by_path_and_unknown():
    assert load_clip(str(builtin_motion_path("run"))).n_frames == 25
    with pytest.raises(AnimationError, match="unknown clip"):
        load_clip("moonwalk")


def test_cleaned_builtins_are_at_the_playback_rate():
    for name in ("walk", "run"):
        raw, clean = load_clip(name), load_clip(name, clean=True)
        assert clean.fps == pytest.approx(60.0, rel=0.01) and clean.n_frames == 2 * raw.n_frames - 1
        assert clean.duration == pytest.approx(raw.duration, abs=1e-12)
        assert clean.root_speed() == pytest.approx(raw.root_speed(), rel=1e-9)
        assert "resampled" in clean.source and "feet locked" in clean.source
        assert clip_info(clean)["contacts"]["left"]["count"] == 1  # one step per foot per cycle, as raw


def test_idle_is_a_standing_pose():
    idle = load_clip("idle")
    feet = idle.local_positions()[0, list(idle.foot_indices), 2]
    assert idle.root_offsets[0, 2] == pytest.approx(0.873, abs=0.005)
    assert abs(feet[0] - feet[1]) < 0.02 and feet.max() < 0.06  # both feet on the floor


def test_plot_clip(tmp_path, run):
    out = plot_clip(run, tmp_path / "run.png")
    assert out.exists() and out.stat().st_size > 5000
