"""The `npc-ai` command line, run as a real process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO


def npc_ai(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "npc_ai", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=120,
    )


def test_scenes_lists_every_builtin() -> None:
    out = npc_ai("scenes")
    assert out.returncode == 0, out.stderr
    for name in ("arena", "warehouse", "compound", "monastery"):
        assert name in out.stdout


def test_run_simulates_and_summarises_every_npc() -> None:
    out = npc_ai("run", "warehouse", "--seconds", "2", "--seed", "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("scene warehouse: 4 NPCs")
    assert "2.0 s simulated" in out.stdout and "timeline:" in out.stdout
    for name in ("guard_a", "guard_b", "guard_c", "guard_d"):
        assert f"  {name} " in out.stdout.split("summary:")[1]


@pytest.mark.slow  # a CLI process that bakes or benchmarks (the default suite stays under 5 minutes)
def test_run_loads_a_movingai_map(movingai_dir: Path) -> None:
    out = npc_ai("run", str(movingai_dir / "den312d.map"), "--seconds", "1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("scene den312d")


@pytest.mark.slow  # a CLI process that bakes or benchmarks (the default suite stays under 5 minutes)
def test_same_seed_same_output_across_processes() -> None:
    def body(text: str) -> str:  # everything but the wall-clock timings on the first line
        return text.split("\n", 1)[1]

    a = npc_ai("run", "compound", "--seconds", "3", "--seed", "5").stdout
    b = npc_ai("run", "compound", "--seconds", "3", "--seed", "5").stdout
    c = npc_ai("run", "compound", "--seconds", "3", "--seed", "6").stdout
    assert body(a) == body(b)
    assert body(a) != body(c)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["run", "atlantis"], "not a built-in scene"),
        (["run", "/no/such/file.toml"], "no such scene file"),
        (["run", "arena", "--seconds", "nan"], "seconds must be a number"),
        (["run", "arena", "--seconds", "0"], "seconds must be in"),
        (["run", "arena", "--seed", "-4"], "seed must be a non-negative integer"),
        (["teleport"], "invalid choice"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(args: list[str], message: str) -> None:
    out = npc_ai(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    assert "Traceback" not in out.stderr


def test_malformed_scene_file_is_named(tmp_path: Path) -> None:
    f = tmp_path / "broken.toml"
    f.write_text('[scene]\nname = "b"\n[[box]]\ncenter = [0, 0, 0]\nsize = [1, -2, 1]\n')
    out = npc_ai("run", str(f))
    assert out.returncode == 2
    assert out.stderr.strip() == f"npc-ai: error: {f}: box[0].size[1]: must be greater than 0, got -2"


def test_gui_without_display_says_so_and_runs_headless() -> None:
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    out = npc_ai("run", "arena", "--seconds", "0.5", "--gui", env=env)
    assert out.returncode == 0
    assert "--gui needs a display" in out.stderr
    assert "0.5 s simulated" in out.stdout


@pytest.mark.slow  # the default suite stays under 5 minutes; CI runs the slow set too
def test_demo_runs_in_the_warehouse_and_draws_the_replay(tmp_path: Path) -> None:
    out = npc_ai("demo", "--seconds", "5", "--out", str(tmp_path / "demo.png"))
    assert out.returncode == 0, out.stderr
    assert "scene warehouse: 4 NPCs" in out.stdout
    assert (tmp_path / "demo.png").read_bytes()[:4] == b"\x89PNG"


def test_clip_info_json_has_the_documented_keys() -> None:
    import json

    out = npc_ai("clip", "info", "walk", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    for key in ("frames", "fps", "duration_s", "root_speed_mps", "contacts"):
        assert key in info
    assert info["frames"] == 39
    assert info["root_speed_mps"] == pytest.approx(0.98, rel=0.02)


def test_clip_info_reads_the_cmu_bvh(movingai_dir: Path) -> None:
    import json

    bvh = movingai_dir.parent / "mocap" / "cmu_131_01_start_walk_stop.bvh"
    info = json.loads(npc_ai("clip", "info", str(bvh), "--json").stdout)
    assert info["frames"] == 995 and info["fps"] == pytest.approx(120.0, abs=0.01)
    assert info["contacts"]["left"]["count"] > 0 and info["contacts"]["right"]["count"] > 0


@pytest.mark.slow  # the default suite stays under 5 minutes; CI runs the slow set too
def test_clip_plot_writes_a_png(tmp_path: Path) -> None:
    out = npc_ai("clip", "plot", "run", "--out", str(tmp_path / "run.png"))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "run.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_truncated_bvh_is_one_line_naming_the_line(tmp_path: Path) -> None:
    f = tmp_path / "cut.bvh"
    f.write_text("HIERARCHY\nROOT Hips\n{\n")
    out = npc_ai("clip", "info", str(f))
    assert out.returncode == 2
    assert "cut.bvh" in out.stderr and "line" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_nav_scen_writes_the_documented_csv(tmp_path: Path, movingai_dir: Path) -> None:
    import csv

    out_csv = tmp_path / "arena.csv"
    out = npc_ai(
        "nav",
        "scen",
        str(movingai_dir / "arena.map"),
        str(movingai_dir / "arena.map.scen"),
        "--out",
        str(out_csv),
    )
    assert out.returncode == 0, out.stderr
    assert (
        "polygons" in out.stdout and "median" in out.stdout and "p95" in out.stdout and "bake" in out.stdout
    )
    assert (
        out_csv.read_text().splitlines()[0]
        == "index,start_x,start_y,goal_x,goal_y,octile_length,length,status,micros"
    )
    rows = list(csv.reader(out_csv.open()))
    body = rows[1:]
    assert len(body) == 160 and [int(r[0]) for r in body] == list(range(160))
    for r in body:
        assert r[7] == "success"  # navigation.QueryStatus.SUCCESS.value
        assert float(r[6]) <= float(r[5]) + 1e-3  # any-angle never longer than octile (file rounds to 1e-5)
        assert float(r[8]) > 0


@pytest.mark.slow  # a CLI process that bakes or benchmarks (the default suite stays under 5 minutes)
def test_nav_bake_prints_time_and_polygons_and_plots(tmp_path: Path) -> None:
    env = {**os.environ, "NPC_AI_CACHE": str(tmp_path / "cache")}
    first = npc_ai("nav", "bake", "arena", "--plot", str(tmp_path / "nav.png"), env=env)
    assert first.returncode == 0, first.stderr
    assert "baked in" in first.stdout and "polygons" in first.stdout
    assert (tmp_path / "nav.png").read_bytes()[:4] == b"\x89PNG"
    second = npc_ai("nav", "bake", "arena", env=env)
    assert "loaded from the cache" in second.stdout
    assert second.stderr == ""  # nothing baked, no progress
    assert list((tmp_path / "cache").glob("*.npz"))


def test_nav_scen_bad_map_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "x.map"
    bad.write_text("type octile\nheight 2\nwidth 2\nmap\n..\n")
    out = npc_ai("nav", "scen", str(bad), str(bad))
    assert out.returncode == 2
    assert "x.map" in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.slow  # a CLI process that bakes or benchmarks (the default suite stays under 5 minutes)
def test_bench_sync_writes_the_documented_json(tmp_path: Path) -> None:
    import json

    env = {**os.environ, "NPC_AI_CACHE": str(tmp_path / "cache")}
    args = ["bench", "sync", "--scene", "arena", "--routes", "2", "--tau", "0.15"]
    args += ["--modes", "agent_drives", "root_motion", "root_motion_no_limit"]
    args += ["--json", str(tmp_path / "s.json"), "--out", str(tmp_path / "out"), "--quiet"]
    out = npc_ai(*args, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # --quiet: no progress
    data = json.loads((tmp_path / "s.json").read_text())
    assert set(data["modes"]) == {"agent_drives", "root_motion", "root_motion_no_limit"}
    keys = {"foot_skate_ratio", "contact_foot_speed_mps", "drift_mean_m", "drift_max_m"}
    keys |= {"drift_over_radius_frac", "path_ratio", "success_rate", "wall_contacts"}
    keys |= {"planted_slide_cm_per_m", "planted_slide_cmps", "planted_slip_share", "coupling_excess_cmps"}
    keys |= {"gmd20_skate_ratio", "gait_changes", "ik_max_stretch_m"}
    for metrics in data["modes"].values():
        assert keys <= set(metrics)
        assert metrics["success_rate"] == 1.0
        assert metrics["ik_max_stretch_m"] == 0.0  # foot locking never stretches a leg
    pair = data["paired"]["planted_slide_cm_per_m"]
    assert pair["routes"] == 2 and pair["ci_low"] <= pair["mean"] <= pair["ci_high"]
    assert set(data["scenes"]) == {"arena"}
    for name in ("tau_sweep.png", "sync_modes.csv", "sliding_by_phase.png", "foot_trails.png"):
        assert (tmp_path / "out" / name).is_file()
    assert "agent_drives" in out.stdout and "tau sweep" in out.stdout


# Every output option of every command, refused before any work: (args, option, message). In the args,
# {tmp} is a fresh folder, {file} an existing regular file in it, {fifo} a named pipe ending in .jsonl,
# {map}/{scen} a MovingAI pair. Where a command has a second, valid output (ok.*), that file must not
# appear either: the command stopped before doing the work that would write it.
REFUSED = [
    (
        ["run", "arena", "--events", "{tmp}/ok.jsonl", "--plot", "{tmp}/r.txt"],
        "--plot",
        "end in .png, .svg or .pdf",
    ),
    (["run", "arena", "--plot", "{tmp}/ok.png", "--events", "{tmp}/e.json"], "--events", "end in .jsonl"),
    (["run", "arena", "--plot", "/proc/npc-ai-replay.png"], "--plot", "the folder '/proc' is not writable"),
    (["run", "arena", "--events", "{file}/e.jsonl"], "--events", "is a file, not a folder"),
    (["run", "arena", "--events", "{fifo}"], "--events", "is not a regular file"),
    (["run", "arena", "--events", "/nonexistent-npc-ai/e.jsonl"], "--events", "does not exist"),
    (["run", "arena", "--plot", ""], "--plot", "needs a file name"),
    (["demo", "--events", "{tmp}/ok.jsonl", "--out", "{tmp}/demo.jpg"], "--out", "end in .png, .svg or .pdf"),
    (["demo", "--out", "{tmp}/ok.png", "--events", "{file}/e.jsonl"], "--events", "is a file, not a folder"),
    (["demo", "--out", "/proc/npc-ai-demo.png"], "--out", "the folder '/proc' is not writable"),
    (
        ["nav", "bake", "arena", "--no-cache", "--save", "{tmp}/ok.npz", "--plot", "{tmp}/n.txt"],
        "--plot",
        "end in",
    ),
    (
        ["nav", "bake", "arena", "--no-cache", "--plot", "{tmp}/ok.png", "--save", "{tmp}/m.np"],
        "--save",
        ".npz",
    ),
    (["nav", "bake", "arena", "--no-cache", "--plot", "{tmp}"], "--plot", "is a folder; give a file name"),
    (["nav", "bake", "arena", "--no-cache", "--save", "/proc/npc-ai.npz"], "--save", "is not writable"),
    (["nav", "scen", "{map}", "{scen}", "--out", "{tmp}/rows.txt"], "--out", "must end in .csv"),
    (["nav", "scen", "{map}", "{scen}", "--out", "{file}/rows.csv"], "--out", "is a file, not a folder"),
    (["clip", "plot", "walk", "--out", "{tmp}/clip.jpg"], "--out", "end in .png, .svg or .pdf"),
    (["clip", "plot", "walk", "--out", "/nonexistent-npc-ai/x.png"], "--out", "does not exist"),
    (["clip", "render", "walk", "--out", "{tmp}/strip.svg"], "--out", "must end in .png"),
    (["clip", "render", "walk", "--out", "/proc/strip.png"], "--out", "is not writable"),
    (["bench", "sync", "--json", "{tmp}/ok.json", "--out", "/proc/npc-ai-sync"], "--out", "is not writable"),
    (["bench", "sync", "--json", "{tmp}/ok.json", "--out", "{file}"], "--out", "is a file; give a folder"),
    (
        ["bench", "sync", "--json", "{tmp}/ok.json", "--out", "{file}/sync"],
        "--out",
        "is a file, not a folder",
    ),
    (["bench", "sync", "--out", "{tmp}/ok", "--json", "{tmp}/s.jsonl"], "--json", "must end in .json"),
    (["bench", "sim", "--json", "{tmp}/b.csv"], "--json", "must end in .json"),
    (["bench", "sim", "--json", "/proc/npc-ai-bench.json"], "--json", "is not writable"),
]


@pytest.mark.parametrize(
    ("args", "option", "message"),
    REFUSED,
    ids=[f"{args[0]}-{args[1]}-{option}-{message}" for args, option, message in REFUSED],
)
def test_unusable_outputs_are_refused_before_any_work(
    args: list[str], option: str, message: str, tmp_path: Path, movingai_dir: Path
) -> None:
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    os.mkfifo(tmp_path / "pipe.jsonl")
    names = {
        "tmp": str(tmp_path),
        "file": str(tmp_path / "notes.txt"),
        "fifo": str(tmp_path / "pipe.jsonl"),
        "map": str(movingai_dir / "arena.map"),
        "scen": str(movingai_dir / "arena.map.scen"),
    }
    argv = [a.format(**names) for a in args]
    before = set(tmp_path.iterdir())
    out = npc_ai(*argv)
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) == 1, out.stderr
    assert out.stderr.startswith(f"npc-ai: error: {option} "), out.stderr
    assert message in out.stderr
    assert out.stdout == ""  # nothing was simulated, baked or solved
    assert set(tmp_path.iterdir()) == before  # no output (valid or not) and no probe file left behind
    refused = argv[argv.index(option) + 1]
    if refused and not refused.startswith(str(tmp_path)):
        assert not Path(refused).exists()


def test_a_writable_output_folder_is_created_and_probed_without_leftovers(tmp_path: Path) -> None:
    env = {**os.environ, "NPC_AI_CACHE": str(tmp_path / "cache")}
    out = npc_ai("nav", "bake", "arena", "--quiet", "--save", str(tmp_path / "mesh.npz"), env=env)
    assert out.returncode == 0, out.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "mesh.npz"]


@pytest.mark.slow  # a CLI process that bakes or benchmarks (the default suite stays under 5 minutes)
def test_bake_progress_goes_to_stderr_and_quiet_silences_it(tmp_path: Path) -> None:
    env = {**os.environ, "NPC_AI_CACHE": str(tmp_path / "cache")}
    baked = npc_ai("nav", "bake", "arena", "--no-cache", env=env)
    assert baked.returncode == 0, baked.stderr
    # stderr is a pipe here: one plain line per stage, no carriage returns
    assert baked.stderr.splitlines() == [
        f"npc-ai: baking the navmesh of arena: {stage}"
        for stage in ("casting rays", "finding regions", "building polygons", "linking polygons")
    ]
    assert baked.stdout.startswith("scene arena: navmesh baked in") and "npc-ai:" not in baked.stdout
    quiet = npc_ai("nav", "bake", "arena", "--no-cache", "--quiet", env=env)
    assert quiet.returncode == 0 and quiet.stderr == ""
    assert quiet.stdout.splitlines()[1:] == baked.stdout.splitlines()[1:]


def test_bake_progress_on_a_terminal_is_a_bar_that_clears(tmp_path: Path) -> None:
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = {**os.environ, "NPC_AI_CACHE": str(tmp_path / "cache")}
    proc = subprocess.Popen(
        [sys.executable, "-m", "npc_ai", "nav", "bake", "arena", "--no-cache"],
        stdout=subprocess.PIPE,
        stderr=slave,
        cwd=REPO,
        env=env,
    )
    os.close(slave)
    seen = b""
    while True:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not chunk:
            break
        seen += chunk
    os.close(master)
    stdout = proc.stdout.read().decode() if proc.stdout else ""
    assert proc.wait(timeout=120) == 0
    text = seen.decode()
    assert "baking the navmesh of arena: casting rays" in text and "building polygons" in text
    assert "\r" in text and "npc-ai: baking" not in text  # a redrawn bar, not the plain lines
    assert text.endswith("\r")  # the last bar was cleared when the bake ended
    assert stdout.startswith("scene arena: navmesh baked in") and "casting rays" not in stdout


@pytest.mark.slow  # the default suite stays under 5 minutes; CI runs the slow set too
def test_bench_sim_shows_progress_per_size_on_stderr() -> None:
    args = ["bench", "sim", "--scene", "arena", "--sizes", "1", "2", "--seconds", "0.5"]
    out = npc_ai(*args)
    assert out.returncode == 0, out.stderr
    lines = out.stderr.splitlines()
    assert "npc-ai: simulation benchmark on arena: 1 NPCs" in lines
    assert "npc-ai: simulation benchmark on arena: 2 NPCs" in lines
    assert out.stdout.startswith("simulation benchmark on arena") and "npc-ai:" not in out.stdout
    quiet = npc_ai(*args, "--quiet")
    assert quiet.returncode == 0 and quiet.stderr == ""


def test_clip_render_writes_a_filmstrip_quietly(tmp_path: Path) -> None:
    out = npc_ai("clip", "render", "walk", "--frames", "3", "--out", str(tmp_path / "strip.png"))
    assert out.returncode == 0, out.stderr
    assert out.stderr == ""  # PyBullet's URDF importer warnings are kept off the terminal
    assert (tmp_path / "strip.png").read_bytes()[:4] == b"\x89PNG"


@pytest.mark.slow  # the default suite stays under 5 minutes; CI runs the slow set too
@pytest.mark.parametrize("where", ["{file}", "{file}/cache"], ids=["a file", "under a file"])
def test_nav_bake_with_an_unusable_cache_bakes_and_warns_on_one_line(tmp_path: Path, where: str) -> None:
    """Issue 10: NPC_AI_CACHE naming a file (or a folder that cannot be created) gave a traceback."""
    (tmp_path / "notes.txt").write_text("a file, not a folder\n")
    cache = where.format(file=tmp_path / "notes.txt")
    out = npc_ai("nav", "bake", "arena", "--quiet", env={**os.environ, "NPC_AI_CACHE": cache})
    assert out.returncode == 0, out.stderr
    assert "navmesh baked in" in out.stdout and "polygons" in out.stdout
    assert "Traceback" not in out.stderr
    lines = out.stderr.splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("npc-ai: warning: navmesh cache") and "without the cache" in lines[0]
    assert str(tmp_path / "notes.txt") in lines[0]


@pytest.mark.slow  # a CLI process that bakes or benchmarks (the default suite stays under 5 minutes)
def test_nav_bake_save_writes_exactly_the_file_it_reports(tmp_path: Path) -> None:
    """Issue 10: `--save mesh.bin` wrote mesh.bin.npz but reported mesh.bin. Names other than .npz are
    refused before any work; the file written is the one reported."""
    env = {**os.environ, "NPC_AI_CACHE": str(tmp_path / "cache")}
    refused = npc_ai("nav", "bake", "arena", "--quiet", "--save", str(tmp_path / "mesh.bin"), env=env)
    assert refused.returncode == 2 and refused.stdout == ""
    assert refused.stderr.startswith("npc-ai: error: --save ") and "must end in .npz" in refused.stderr
    assert not list(tmp_path.glob("mesh*"))
    target = tmp_path / "mesh.npz"
    out = npc_ai("nav", "bake", "arena", "--quiet", "--save", str(target), env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[-1] == f"wrote {target}"
    assert [p.name for p in tmp_path.glob("mesh*")] == ["mesh.npz"]

    from navigation import NavMesh

    polygons = next(line for line in out.stdout.splitlines() if line.endswith("islands"))
    assert polygons.startswith(f"{NavMesh.load(target).polygon_count} polygons")
