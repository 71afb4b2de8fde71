"""The ``learned`` Kuhhandel bot: shipped weights, numpy-only inference, registered by name; the
training command runs where the ``train`` extra is installed (skipped elsewhere, as in CI)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cardtable.core import game_spec, load_bot, run_match
from cardtable.core.registry import bot_refusal
from cardtable.rl.learned import available, load_policy

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("rules", ["classic", "competition"])
def test_learned_plays_whole_games_without_a_fault(rules: str) -> None:
    spec = game_spec("kuhhandel")
    for seed in range(2):
        bots = [load_bot("kuhhandel", "learned", seed=seed)]
        bots += [load_bot("kuhhandel", "heuristic", seed=seed + s) for s in (1, 2, 3)]
        game = spec.new_game(spec.resolve_rules(rules), 4, seed)
        result = run_match(game, bots)  # no fallback: an illegal answer raises
        assert len(result.places) == 4
        assert bots[0].steps > 20 and bots[0].illegal == 0


def test_weights_are_small_and_in_the_package_data() -> None:
    assert 4 in available()
    policy = load_policy(4)
    assert policy.n_obs == 254 and policy.n_actions == 63
    size = sum(p.stat().st_size for p in (ROOT / "src/cardtable/rl/weights").glob("*.npz"))
    assert size < 3_000_000
    assert '"rl/weights/*.npz"' in (ROOT / "pyproject.toml").read_text()
    x = np.zeros(254, dtype=np.float32)
    mask = np.zeros(63, dtype=np.int8)
    mask[[1, 20]] = 1
    assert policy({"observation": x, "action_mask": mask}) in (1, 20)


def test_other_tables_get_a_clear_error() -> None:
    spec = game_spec("kuhhandel")
    bots = [load_bot("kuhhandel", "learned")] + [load_bot("kuhhandel", "random")] * 3
    with pytest.raises(ValueError, match="learned Kuhhandel bot"):
        run_match(spec.new_game(spec.resolve_rules("master"), 4, 1), bots)
    bots = [load_bot("kuhhandel", "learned")] + [load_bot("kuhhandel", "random")] * 2
    with pytest.raises(ValueError, match="learned Kuhhandel bot"):
        run_match(spec.new_game(spec.resolve_rules("classic"), 3, 1), bots)


def test_the_engine_and_the_bot_need_no_gymnasium() -> None:
    """The learned bot imports numpy and the codec only (a plain install plus numpy)."""
    code = (
        "import sys; sys.modules['gymnasium'] = None; sys.modules['pettingzoo'] = None\n"
        "from cardtable.core import load_bot; b = load_bot('kuhhandel', 'learned')\n"
        "print(type(b).__name__)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert out.stdout.strip() == "LearnedBot"


def test_where_the_weights_fit_and_without_numpy() -> None:
    """``bot_refusal`` (what the server asks) says where the weights fit; without numpy the bot
    is still named (the registry, not the engine, knows it) and refuses in words."""
    spec = game_spec("kuhhandel")
    rules = spec.resolve_rules
    assert bot_refusal(spec, "learned", rules("classic"), 4) is None
    assert bot_refusal(spec, "learned", rules("competition"), 4) is None
    assert "layout" in (bot_refusal(spec, "learned", rules("master"), 4) or "")
    assert "not 5" in (bot_refusal(spec, "learned", rules("classic"), 5) or "")
    assert bot_refusal(spec, "heuristic", rules("master"), 6) is None
    code = (
        "import sys; sys.modules['numpy'] = None\n"
        "from cardtable.core import game_spec, load_bot\n"
        "from cardtable.core.registry import bot_refusal\n"
        "spec = game_spec('kuhhandel')\n"
        "print(bot_refusal(spec, 'learned', spec.resolve_rules('classic'), 4))\n"
        "load_bot('kuhhandel', 'learned')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode != 0
    assert "the learned bot needs numpy: pip install numpy (or cardtable[rl])" in out.stdout
    assert "ValueError: the learned bot needs numpy" in out.stderr


def test_training_runs_one_chunk_with_a_checkpoint(tmp_path: Path) -> None:
    pytest.importorskip("torch", reason="the train extra (torch, sb3-contrib) is not installed")
    pytest.importorskip("sb3_contrib", reason="the train extra is not installed")
    from cardtable.rl.train import main

    main(["--out", str(tmp_path), "--minutes", "0.001", "--chunk", "64", "--rules", "classic"])
    assert (tmp_path / "model.zip").is_file() and (tmp_path / "chunk-0001.npz").is_file()
    # the weights a run wrote play by path (``--bots learned:weights=runs/.../latest.npz``)
    bot = load_bot("kuhhandel", f"learned:weights={tmp_path / 'latest.npz'}")
    spec = game_spec("kuhhandel")
    bots = [bot] + [load_bot("kuhhandel", "random", seed=s) for s in (1, 2, 3)]
    run_match(spec.new_game(spec.resolve_rules("classic"), 4, 3), bots)
    assert bot.steps > 0


def test_a_policy_loaded_against_another_layout_is_refused_with_the_layout_named(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Issue #41 item 6: weights carry the layout they were trained on. One value added to the
    observation used to make ``learned`` refuse vaguely and the expert's guide silently become
    ``None`` (the heuristic instead). Now: weights of another layout are refused with both
    layouts named, and shipped weights that no longer fit their own rule set raise wherever
    they load, the expert's guide included."""
    from cardtable.core.contract import GameInfo
    from cardtable.games.kuhhandel.bots.expert import ExpertBot
    from cardtable.rl.kuhhandel import KuhhandelCodec
    from cardtable.rl.learned import LearnedBot

    spec = game_spec("kuhhandel")
    classic = spec.resolve_rules("classic")
    info = GameInfo("kuhhandel", classic.to_json(), 4, 0)
    ours = KuhhandelCodec(classic, 4).layout
    assert load_policy(4).layout == ours and load_policy(4).trained_for == "classic,competition"
    weights = dict(np.load(ROOT / "src/cardtable/rl/weights/kuhhandel-4.npz"))
    other = {**weights, "layout": np.array("0123456789abcdef")}
    with pytest.raises(ValueError, match=f"layout 0123456789abcdef .* not classic .*{ours}"):
        LearnedBot(weights=other).start(0, info)
    del weights["layout"]
    with pytest.raises(ValueError, match="carry no observation layout"):
        LearnedBot(weights=weights).start(0, info)
    master = bot_refusal(spec, "learned", spec.resolve_rules("master"), 4) or ""
    assert (
        f"layout {ours}" in master
        and KuhhandelCodec(spec.resolve_rules("master"), 4).layout in master
    )

    # One value added to the observation ("table" one longer), the shipped weights not retrained.
    layout = KuhhandelCodec._layout

    def one_more(self: KuhhandelCodec) -> None:
        layout(self)
        self.parts = {**self.parts, "table": self.parts["table"] + 1}

    monkeypatch.setattr(KuhhandelCodec, "_layout", one_more)
    load_policy.cache_clear()
    try:
        assert KuhhandelCodec(classic, 4).layout != ours
        with pytest.raises(ValueError, match=f"trained for layout {ours} .* retrain"):
            load_policy(4)
        with pytest.raises(ValueError, match=f"trained for layout {ours}"):
            bot_refusal(spec, "learned", classic, 4)
        with pytest.raises(ValueError, match=f"trained for layout {ours}"):
            ExpertBot(seed=1, iterations=4, time_cap=None).start(0, info)  # its guide: loud
    finally:
        monkeypatch.undo()
        load_policy.cache_clear()
    assert load_policy(4).layout == ours
