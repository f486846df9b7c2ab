"""Game records (``rummy_env.records``): exact round trips through JSON for basic, rami51 and
lebanese14 (whole games, a game cut mid-way, UNDO/TAKE/SWAP moves, an explicit deck and dealer, whole
games over several hands), and every refusal saying what differs."""

from __future__ import annotations

import json

import numpy as np
import pytest

from rummy_env import cards
from rummy_env.records import FORMAT_VERSION, GameRecord, RecordError


# Random play rarely opens under rami51's default dead_ends="take_back" (R25: no look-ahead steers it), so its
# hands run to the turn cap; whole random rami51 games here are recorded under a lower cap.
RAMI_TURN_CAP = {"max_turns_per_round": 40}


def play_random(record: GameRecord, seed: int, moves: int | None = None) -> list[dict]:
    """Play random legal moves into ``record`` (to the end, or ``moves`` of them); the snapshot
    after every move, the first one at move 0."""
    engine = record.start()
    rng = np.random.default_rng(seed)
    snaps = [engine.snapshot(0)]
    while not engine.done[0] and (moves is None or len(record.actions) < moves):
        record.play(engine, int(rng.choice(np.flatnonzero(engine.legal_action_mask()[0]))))
        snaps.append(engine.snapshot(0))
    return snaps


def round_trip(record: GameRecord, tmp_path) -> GameRecord:
    path = record.save(tmp_path / "game.json")
    return GameRecord.load(path)


def assert_replays_exactly(record: GameRecord, snaps: list[dict], tmp_path) -> None:
    loaded = round_trip(record, tmp_path)
    assert loaded == record
    last = len(record.actions)
    for move in sorted({0, 1, last // 3, last // 2, last - 1, last}):
        assert loaded.replay(to=move).snapshot(0) == snaps[move], f"move {move}"
    for move, engine in enumerate(loaded.positions()):
        assert engine.snapshot(0) == snaps[move]


@pytest.mark.parametrize("preset, players", [("basic", 2), ("basic", 4), ("rami51", 2), ("rami51", 3), ("lebanese14", 2)])
def test_whole_games_replay_exactly_to_every_move(preset, players, tmp_path):
    caps = RAMI_TURN_CAP if preset != "basic" else {}
    record = GameRecord.new(preset, players, seed=100 + players, agents=[f"bot{s}" for s in range(players)], **caps)
    snaps = play_random(record, seed=players)
    assert snaps[-1]["phase"] in ("hand_over", "game_over")
    assert_replays_exactly(record, snaps, tmp_path)
    if preset == "lebanese14":
        assert round_trip(record, tmp_path).rules_object().lebanese


@pytest.mark.parametrize("preset", ["basic", "rami51", "lebanese14"])
def test_a_game_cut_mid_way_replays_and_continues(preset, tmp_path):
    record = GameRecord.new(preset, 2, seed=9)
    snaps = play_random(record, seed=1, moves=40)
    assert snaps[-1]["phase"] in ("draw", "play")
    assert_replays_exactly(record, snaps, tmp_path)
    loaded = round_trip(record, tmp_path)
    engine = loaded.replay()
    loaded.play(engine, int(engine.legal_action_mask()[0].argmax()))
    assert len(loaded.actions) == 41


def test_rami51_records_with_undo_take_and_swap_replay_exactly(tmp_path):
    wanted = {"undo", "take", "swap", "commit"}
    for seed in range(200):
        record = GameRecord.new("rami51", 3, seed=seed, **RAMI_TURN_CAP)
        snaps = play_random(record, seed=seed)
        layout = record.start().layout
        kinds = {layout.decode(action)[0] for action in record.actions}
        if wanted <= kinds:
            break
    assert wanted <= kinds, f"no random game with {wanted - kinds} in 200 seeds"
    assert_replays_exactly(record, snaps, tmp_path)


def test_whole_game_episodes_replay_across_hands(tmp_path):
    record = GameRecord.new("basic", 2, seed=4, episode="game", target_score=60)
    snaps = play_random(record, seed=4)
    assert snaps[-1]["phase"] == "game_over" and snaps[-1]["hands_played"] >= 2
    assert_replays_exactly(record, snaps, tmp_path)


def test_an_explicit_deck_and_dealer_fix_the_deal(tmp_path):
    deck = list(range(52))[::-1]
    record = GameRecord.new("basic", 2, seed=0, deck=[cards.name(card) for card in deck], dealer=1)
    engine = record.start()
    snap = engine.snapshot(0)
    assert snap["dealer"] == 1
    assert sorted(snap["hands"][0]) == sorted(deck[0:20:2])  # dealt one at a time from the dealer's left
    assert snap["discard"] == [deck[20]]
    snaps = play_random(record, seed=3)
    assert_replays_exactly(record, snaps, tmp_path)
    assert json.loads(record.to_json())["deck"][:3] == ["KS", "QS", "JS"]


def test_the_json_is_small_and_plain(tmp_path):
    record = GameRecord.new("basic", 2, seed=1)
    play_random(record, seed=1)
    values = json.loads(record.save(tmp_path / "g.json").read_text())
    assert values["format"] == "rummy-record" and values["format_version"] == FORMAT_VERSION
    assert values["rules"]["ruleset"] == "basic" and values["seed"] == 1
    assert values["actions"] == record.actions
    assert len(record.to_json()) < 200 + 6 * len(record.actions) + 1000


# ------------------------------------------------------------------------------------------ refusals
@pytest.fixture()
def saved(tmp_path):
    record = GameRecord.new("basic", 2, seed=5)
    play_random(record, seed=5, moves=30)
    return record.to_dict(), tmp_path


def write(values: dict, tmp_path) -> str:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(values))
    return str(path)


@pytest.mark.parametrize("change, message", [
    ({"format": "something-else"}, "not a game record"),
    ({"format_version": FORMAT_VERSION + 1}, f"reads format version {FORMAT_VERSION}"),
    ({"rummy_env_version": "9.4.0"}, "written by rummy_env 9.4.0"),
    ({"colour": "blue"}, "unknown record keys ['colour']"),
    ({"seed": -3}, "seed must be an integer"),
    ({"actions": [0, "x"]}, "actions must be a list of action ids"),
    ({"deck": ["7H", "ZZ"]}, "deck is not a list of cards"),
])
def test_a_damaged_or_foreign_record_is_refused_saying_what_differs(saved, change, message):
    values, tmp_path = saved
    with pytest.raises(RecordError, match=message.replace("[", r"\[").replace("]", r"\]")):
        GameRecord.load(write(values | change, tmp_path))


def test_rules_this_version_does_not_know_are_refused_naming_the_knob(saved):
    values, tmp_path = saved
    values["rules"]["wild_twos"] = True
    with pytest.raises(RecordError, match="wild_twos"):
        GameRecord.load(write(values, tmp_path))


def test_another_release_series_can_be_read_on_request(saved):
    values, tmp_path = saved
    record = GameRecord.load(write(values | {"rummy_env_version": "0.9.0"}, tmp_path), check_version=False)
    assert record.replay().snapshot(0)["turn"] >= 1


def test_a_record_played_under_other_rules_is_refused_with_the_knobs_that_differ(saved):
    values, _tmp_path = saved
    record = GameRecord.from_dict(values)
    from rummy_env.rules import make_rules

    with pytest.raises(RecordError, match="num_players: record 2, asked 3"):
        record.replay(rules=make_rules("basic", 3))
    with pytest.raises(RecordError, match="ruleset: record 'basic', asked 'rami51'"):
        record.replay(rules=make_rules("rami51", 2))
    record.replay(rules=make_rules("basic", 2))  # the same rules: fine


def test_an_illegal_move_names_its_number_and_the_reason(saved):
    values, _tmp_path = saved
    values["actions"][10] = 1033  # a discard of K♠, whoever holds it
    record = GameRecord.from_dict(values)
    with pytest.raises(RecordError, match=r"move 11 of the record \(action 1033\) cannot be replayed: .*K♠"):
        record.replay()
    record.replay(to=10)  # the moves before it are fine


def test_moves_after_the_end_and_out_of_range_targets_are_refused(tmp_path):
    record = GameRecord.new("basic", 2, seed=2)
    play_random(record, seed=2)
    with pytest.raises(RecordError, match="outside this record"):
        record.replay(to=len(record.actions) + 1)
    record.actions.append(0)
    with pytest.raises(RecordError, match="the game ended after move"):
        record.replay()


def test_unreadable_files_are_refused_with_the_reason(tmp_path):
    with pytest.raises(RecordError, match="cannot read the record"):
        GameRecord.load(tmp_path / "missing.json")
    (tmp_path / "junk.json").write_text("{not json")
    with pytest.raises(RecordError, match="is not valid JSON"):
        GameRecord.load(tmp_path / "junk.json")
