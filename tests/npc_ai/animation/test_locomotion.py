import pytest

from npc_ai.animation import AnimationSettingsError, Gait, GaitSettings, default_locomotion_set, select_gait


@pytest.fixture(scope="module")
def loco():
    return default_locomotion_set()


def test_locomotion_set_speeds(loco):
    assert [round(s.speed, 2) for s in loco.samples] == [0.0, 0.98, 3.56, 6.0]
    assert not loco.idle.cycle and loco.walk.cycle and loco.sprint.cycle
    assert loco.sprint.clip.duration == pytest.approx(0.8 * 3.557 / 6.0, rel=1e-3)


def test_all_cycles_start_with_left_foot_down(loco):
    from npc_ai.animation import detect_contacts

    for s in (loco.walk, loco.run, loco.sprint):
        contacts = detect_contacts(s.clip)
        left = (contacts.down_phases(0) - s.phase_offset) % 1.0
        right = (contacts.down_phases(1) - s.phase_offset) % 1.0
        assert min(left.min(), 1 - left.max()) < 1e-9
        assert right[0] == pytest.approx(0.5, abs=0.05)


def test_gait_hysteresis():
    g = Gait.WALK
    g = select_gait(3.2, g)
    assert g is Gait.WALK
    g = select_gait(3.4, g)
    assert g is Gait.RUN
    assert select_gait(3.1, g) is Gait.RUN  # inside the 3.0..3.3 band: stays
    assert select_gait(2.9, g) is Gait.WALK
    assert select_gait(5.6, Gait.RUN) is Gait.SPRINT
    assert select_gait(5.3, Gait.SPRINT) is Gait.SPRINT
    assert select_gait(5.1, Gait.SPRINT) is Gait.RUN
    assert select_gait(6.0, Gait.IDLE) is Gait.SPRINT
    assert select_gait(0.0, Gait.SPRINT) is Gait.IDLE


def test_gait_settings_validated():
    with pytest.raises(AnimationSettingsError, match="run_down"):
        GaitSettings(run_up=3.0, run_down=3.2)
    with pytest.raises(AnimationSettingsError):
        GaitSettings(walk_up=float("nan"))


def test_default_locomotion_set_is_built_once_per_arguments():
    assert default_locomotion_set() is default_locomotion_set(6.0, True)
    other = default_locomotion_set(7.0)
    assert other is not default_locomotion_set() and other.sprint.speed == pytest.approx(7.0, rel=1e-6)
    assert default_locomotion_set(clean=False) is not default_locomotion_set()
    for bad in (float("nan"), 1.0, "fast", True):
        with pytest.raises(AnimationSettingsError):
            default_locomotion_set(bad)
