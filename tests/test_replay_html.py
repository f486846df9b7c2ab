"""The HTML replay page (``rummy_env.replay_html``): self-contained, its positions equal to the
engine's, and, in a real headless Chromium (Debian's ``chromium``, driven by playwright), stepping
through moves shows at move k the cards the engine holds at move k; a screenshot shows the cards."""

from __future__ import annotations

import contextlib
import io
import re
import shutil

import numpy as np
import pytest

from rummy_env import cards, cli
from rummy_env.records import GameRecord
from rummy_env.render import meld_in_order
from rummy_env.replay_html import page_data, render_page, write_page

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


# Random play rarely opens under rami51's default dead_ends="take_back" (R25: no look-ahead steers it), so its
# hands run to the turn cap; a lower cap keeps these pages at hundreds of moves, not tens of thousands.
RAMI_TURN_CAP = {"max_turns_per_round": 40}


def random_game(preset: str, players: int, seed: int, moves: int | None = None) -> GameRecord:
    caps = RAMI_TURN_CAP if preset in ("rami51", "lebanese14") else {}
    record = GameRecord.new(preset, players, seed=seed, agents=[f"bot {seat}" for seat in range(players)], **caps)
    engine = record.start()
    rng = np.random.default_rng(seed)
    while not engine.done[0] and (moves is None or len(record.actions) < moves):
        record.play(engine, int(rng.choice(np.flatnonzero(engine.legal_action_mask()[0]))))
    return record


@pytest.fixture(scope="module")
def rami_record() -> GameRecord:
    for seed in range(50):  # a game whose table holds a joker, for the joker's card element
        record = random_game("rami51", 3, seed)
        if any(cards.JOKER in meld["cards"] for meld in record.replay().snapshot(0)["table"]):
            return record
    raise AssertionError("no random rami51 game with a joker on the table")


def names(card_list) -> list[str]:
    return [cards.name(card) for card in card_list]


def test_the_page_is_self_contained():
    page = render_page(random_game("basic", 2, 1), title="a <game>")
    assert page.startswith("<!DOCTYPE html>") and "<title>a &lt;game&gt;</title>" in page
    for outside in ("http://", "https://", "<link", "@import", "url(", " src=", "@font-face"):
        assert outside not in page, outside


@pytest.mark.parametrize("preset, players", [("basic", 3), ("rami51", 2), ("lebanese14", 2)])
def test_every_frame_is_the_engine_position_at_that_move(preset, players):
    record = random_game(preset, players, seed=players)
    data = page_data(record)
    assert len(data["frames"]) == len(record.actions) + 1 and len(data["moves"]) == len(record.actions)
    for move in (0, 1, len(record.actions) // 2, len(record.actions)):
        snap = record.replay(to=move).snapshot(0)
        frame = data["frames"][move]
        assert [sorted(hand) for hand in frame["hands"]] == [sorted(names(hand)) for hand in snap["hands"]]
        assert [meld["cards"] for meld in frame["table"]] == [names(meld_in_order(meld)) for meld in snap["table"]]
        assert frame["stock"] == len(snap["stock"]) and frame["pile_size"] == len(snap["discard"])
        assert frame["pile"] == names(snap["discard"][-12:])


def browser():
    """A headless Chromium page, or a skip saying what is missing."""
    if shutil.which(CHROMIUM) is None:
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install -y chromium; .ci/run installs it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed (dev extra)")
    return sync_api.sync_playwright()


@contextlib.contextmanager
def chromium_page(height: int = 1000):
    """A page of a headless Chromium, and the list its script errors are collected in."""
    with browser() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = chromium.new_page(viewport={"width": 1400, "height": height})
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            yield page, errors
        finally:
            chromium.close()


def seat_cards(page, seat: int) -> list[str]:
    return page.locator(f"#seats [data-seat='{seat}'] .hand .card").evaluate_all("els => els.map(e => e.dataset.card)")


def assert_page_shows(page, record: GameRecord, move: int) -> None:
    snap = record.replay(to=move).snapshot(0)
    assert page.locator("#jump").input_value() == str(move)
    for seat, hand in enumerate(snap["hands"]):
        assert sorted(seat_cards(page, seat)) == sorted(names(hand)), f"seat {seat} at move {move}"
    melds = page.locator("#table .meld")
    assert melds.count() == len(snap["table"])
    for k, meld in enumerate(snap["table"]):
        shown = melds.nth(k).locator(".card").evaluate_all("els => els.map(e => e.dataset.card)")
        assert shown == names(meld_in_order(meld))
        assert melds.nth(k).get_attribute("data-owner") == str(meld["owner"])
    assert page.locator("#stock").inner_text() == str(len(snap["stock"]))
    pile = page.locator("#pile .card")
    if snap["discard"]:
        assert pile.last.get_attribute("data-card") == cards.name(snap["discard"][-1])
        assert "top" in pile.last.get_attribute("class")
    if move:
        current = page.locator("#moves li.current")
        assert current.count() == 1 and "current" in page.locator("#moves li").nth(move - 1).get_attribute("class").split()


def test_stepping_the_page_in_chromium_shows_the_engine_cards(rami_record, tmp_path):
    path = write_page(rami_record, tmp_path / "replay.html")
    last = len(rami_record.actions)
    with chromium_page(1000) as (page, errors):
        page.goto(path.as_uri())
        assert_page_shows(page, rami_record, 0)
        for _ in range(5):
            page.keyboard.press("ArrowRight")
        assert_page_shows(page, rami_record, 5)
        page.keyboard.press("ArrowLeft")
        assert_page_shows(page, rami_record, 4)
        page.keyboard.press("PageDown")
        assert_page_shows(page, rami_record, 14)
        page.click("#forward")
        assert_page_shows(page, rami_record, 15)
        page.fill("#jump", str(last // 2))
        page.dispatch_event("#jump", "change")
        assert_page_shows(page, rami_record, last // 2)
        page.locator("#moves li").nth(last - 3).click()
        assert_page_shows(page, rami_record, last - 2)
        page.keyboard.press("End")
        assert_page_shows(page, rami_record, last)
        assert "went out" in page.locator("#outcome").inner_text() or "dead" in page.locator("#outcome").inner_text()
        page.keyboard.press("Home")
        assert_page_shows(page, rami_record, 0)
        page.goto(path.as_uri() + f"#move={last - 1}")
        page.reload()
        assert_page_shows(page, rami_record, last - 1)
        assert errors == []


def test_a_screenshot_shows_the_cards(rami_record, tmp_path):
    image_module = pytest.importorskip("PIL.Image")
    path = write_page(rami_record, tmp_path / "replay.html")
    move = next(k for k, frame in enumerate(page_data(rami_record)["frames"])
                if any("JK" in meld["cards"] for meld in frame["table"]))
    with chromium_page(1000) as (page, _errors):
        page.goto(path.as_uri() + f"#move={move}")
        (tmp_path / "replay.png").write_bytes(page.screenshot(full_page=True))
        shot = image_module.open(io.BytesIO(page.screenshot(full_page=True))).convert("RGB")
        scroll_x, scroll_y = page.evaluate("[window.scrollX, window.scrollY]")
        checked = 0
        for element in page.locator("#seats .card, #table .card").all():
            box = element.bounding_box()  # in the viewport; the full-page shot starts at the page's top
            assert box is not None and box["width"] > 20 and box["height"] > 30
            left, top = int(box["x"] + scroll_x), int(box["y"] + scroll_y)
            crop = np.asarray(shot.crop((left, top, left + int(box["width"]), top + int(box["height"]))), dtype=np.int32)
            white = (crop.min(axis=2) > 235).mean()           # the card's face
            ink = (crop.min(axis=2) < 120).mean()             # its rank and suit (black, red or purple ink)
            assert white > 0.4 and ink > 0.02, (element.get_attribute("data-card"), white, ink)
            checked += 1
        assert checked >= 10
        joker = page.locator("#table .card[data-card='JK']").first
        assert joker.is_visible() and re.search("JK", joker.inner_text())


def test_the_page_for_an_observer_hides_what_that_seat_cannot_see(tmp_path, capsys):
    record = random_game("rami51", 2, seed=5)
    data = page_data(record, observer=0)
    assert "as player_0" in data["summary"]
    hidden_seen = False
    for move in (0, 1, len(record.actions) // 2, len(record.actions)):
        snap = record.replay(to=move).snapshot(0)
        hands = data["frames"][move]["hands"]
        assert sorted(hands[0]) == sorted(names(snap["hands"][0]))                # his own hand, whole
        if snap["phase"] in ("hand_over", "game_over"):
            assert sorted(hands[1]) == sorted(names(snap["hands"][1]))            # the rules make it public
            continue
        assert len(hands[1]) == len(snap["hands"][1])
        shown = [card for card in hands[1] if card != "??"]
        assert all(card in names(snap["known"][1]) for card in shown)
        hidden_seen |= "??" in hands[1]
    assert hidden_seen
    assert not any("??" in hand for frame in page_data(record)["frames"] for hand in frame["hands"])  # no observer
    with pytest.raises(ValueError, match="observer must be a seat 0..1, got 2"):
        page_data(record, observer=2)
    record.save(tmp_path / "game.json")
    assert cli.main(["replay", str(tmp_path / "game.json"), "--html", str(tmp_path / "seen.html"), "--observer", "1"]) == 0
    assert "as player_1" in (tmp_path / "seen.html").read_text(encoding="utf-8")


def test_the_page_marks_changes_scores_hands_and_plays_at_a_chosen_speed(tmp_path):
    """Issue 30, section 2, in Chromium: the card a move drew is outlined, the score table has a row per hand
    ended so far, each hand heads the move list, autoplay follows the speed chosen, the title names the game."""
    from rummy_env.agents.registry import make_agent
    from rummy_env.replay_html import default_title

    record = GameRecord.new("gin", 2, seed=8, agents=["heuristic", "heuristic"], episode="game", target_score=60)
    engine, agent, rng = record.start(), make_agent("heuristic", record.rules_object()), np.random.default_rng(8)
    while not engine.done[0]:
        record.play(engine, int(agent.act(engine.observe(), engine.legal_action_mask(), rng)[0]))
    data = page_data(record)
    path = write_page(record, tmp_path / "gin.html")
    drew = next(k for k in range(2, len(data["frames"])) if any(data["frames"][k]["fresh"]["hands"]))
    with chromium_page(900) as (page, errors):
        page.goto(path.as_uri() + f"#move={drew}")
        assert page.title() == default_title(record) == "Gin rummy replay: heuristic vs heuristic (seed 8)"
        fresh = page.locator("#seats .hand .card.fresh")
        assert fresh.count() == sum(len(seat) for seat in data["frames"][drew]["fresh"]["hands"]) > 0
        page.keyboard.press("End")
        rows = page.locator("#scores tbody tr")
        assert rows.count() == len(data["hands"]) >= 2
        assert "heuristic (player_1) (total)" in page.locator("#scores thead").inner_text()
        assert page.locator("#moves li.hand-start").count() == len(data["hands"])
        assert page.locator("#moves li.hand-start").nth(1).get_attribute("data-label") == "hand 2"
        page.keyboard.press("Home")
        first_end = data["hands"][0]["move"]
        page.locator("#moves li").nth(first_end - 1).click()
        assert rows.count() == 1 and data["hands"][0]["ended"] in rows.first.inner_text()

        def moves_played_in_a_second(speed: str) -> int:
            page.keyboard.press("Home")
            page.select_option("#speed", speed)
            page.click("#play")
            page.wait_for_timeout(1000)
            page.click("#play")
            return int(page.locator("#jump").input_value())

        fast, slow = moves_played_in_a_second("80"), moves_played_in_a_second("1200")
        assert fast >= 5 and slow <= 1 and fast > 3 * max(slow, 1), (fast, slow)
        assert errors == []
