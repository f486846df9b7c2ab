"""The HTML replay: one self-contained page (inline CSS and JavaScript, no server, no network, no
font files) that steps through a game record.

    rummy replay game.json --html game.html
    python -c "from rummy_env.records import GameRecord; from rummy_env.replay_html import write_page; write_page(GameRecord.load('game.json'), 'game.html')"

The page shows, at every move: each seat's hand (face up: a replay is a spectator's view), the melds on
the table with their owners, the discard pile (its last cards, the top marked) and the stock size,
the scores, and the list of moves with the current one highlighted, each hand (round) headed and each turn
set apart. What the last move changed is outlined: the card drawn or taken into a hand, the meld laid or
extended, the discard. Under the board, a score table gains a row as each hand ends (how it ended, its bonuses:
going rummy, gin, big gin, the undercut, rami 51's all-at-once and joker finish; each seat's score and total);
in rami 51 the status line counts a player's points toward the opening and says whether a pure run is laid.
Buttons, a slider, a move number box and the keyboard (← →, Home/End, PageUp/PageDown by 10) move through the
game, and autoplay has a speed; a link to ``page.html#move=40`` opens at move 40. Every position is computed here by replaying the record
through the engine (``walk``); the page only draws them, so what it shows at move ``k`` is the
engine's position after ``k`` moves. Card elements carry ``data-card`` (``"7H"``, ``"JK"``) and
seats ``data-seat``, for tests and for anyone scripting the page.
"""

from __future__ import annotations

import html
import json
from collections import Counter
from pathlib import Path
from typing import Any, Iterator

from rummy_env import cards
from rummy_env.engine import RummyEngine
from rummy_env.records import GameRecord
from rummy_env.render import describe_action, hand_end, is_live, meld_in_order, opening_count, outcome, seat_names
from rummy_env.replay_page import PAGE, SCRIPT, STYLE

PILE_SHOWN = 12


def labels_of(record: GameRecord) -> list[str]:
    """The names the page's texts use per seat: a name two seats share carries the seat (``heuristic
    (player_1)``)."""
    names = names_of(record)
    return [name if names.count(name) == 1 else f"{name} (player_{seat})" for seat, name in enumerate(names)]


def names_of(record: GameRecord) -> list[str]:
    """Display names per seat: the record's agents, else ``player_0 …``."""
    players = int(record.rules["num_players"])
    agents = record.agents if record.agents and len(record.agents) == players else None
    return seat_names(players, agents)


def walk(record: GameRecord, to: int | None = None) -> Iterator[tuple[int, int | None, str | None, RummyEngine]]:
    """``(move, actor, words, engine)`` at move 0 (no actor) and after each move up to ``to``:
    who made the move, what it did in words, and the one-row engine after it (the same object)."""
    end = record.last_move(to)
    names = labels_of(record)
    engine = record.start()
    yield 0, None, None, engine
    for move in range(end):
        snap = engine.snapshot(0)
        words = describe_action(snap, engine.layout, record.actions[move], names)
        record.replay_move(engine, move)
        yield move + 1, int(snap["current"]), words, engine


def seen_hand(snap: dict[str, Any], seat: int, observer: int | None) -> list[str]:
    """``seat``'s hand as ``observer`` sees it while the hand is live: the cards known to be in it, then one
    ``"??"`` (a card back) per card it cannot see; every card for his own seat, for no observer, and once the
    hand is over (its scores count the cards left, which the rules make public)."""
    hand = sorted(snap["hands"][seat], key=_order)
    if observer is None or seat == observer or not is_live(snap["phase"]):
        return [cards.name(card) for card in hand]
    shown = Counter(hand) & Counter(snap["known"][seat])
    return [cards.name(card) for card in sorted(shown.elements(), key=_order)] + ["??"] * (len(hand) - sum(shown.values()))


def page_frame(snap: dict[str, Any], names: list[str], rules, observer: int | None = None) -> dict[str, Any]:
    """What the page draws of one position (as ``observer`` sees it, or every card): card names, meld order,
    counts and texts."""
    live = is_live(snap["phase"])
    return {
        "hands": [seen_hand(snap, seat, observer) for seat in range(len(snap["hands"]))],
        "table": [{"slot": meld["slot"], "owner": meld["owner"], "kind": meld["kind"],
                   "tentative": bool(meld.get("tentative", False)),
                   "cards": [cards.name(card) for card in meld_in_order(meld)]} for meld in snap["table"]],
        "pile": [cards.name(card) for card in snap["discard"][-PILE_SHOWN:]],
        "pile_size": len(snap["discard"]), "stock": len(snap["stock"]),
        "totals": snap["totals"], "current": snap["current"] if live else None, "dealer": snap["dealer"],
        "phase": snap["phase"], "hand": snap["hands_played"] + live, "turn": snap["turn"],
        "opened": snap.get("opened"), "taken": None if snap["taken"] is None or not live else cards.name(snap["taken"]),
        "outcome": outcome(snap, names).replace(cards.symbol(cards.JOKER), "JK"),
        "opening": opening_count(snap, rules),
    }


def hand_row(snap: dict[str, Any], rules, names: list[str], move: int) -> dict[str, Any]:
    """The score table's row of the hand that has just ended (``snap``: the position after its last move, where
    a game may have dealt the next hand already): how it ended, the bonuses in words, the scores and totals."""
    ended = hand_end(snap, names).replace(cards.symbol(cards.JOKER), "JK")
    return {"move": move, "ended": ended, "bonus": bonus_words(snap, rules), "scores": snap["hand_scores"],
            "totals": snap["totals"]}


def bonus_words(snap: dict[str, Any], rules) -> str:
    """The multipliers and bonuses in a hand's scores (B13, G9, G12, R16, R19, R21.5)."""
    return "; ".join(rules.traits.bonuses(snap, rules))


def freshness(frame: dict[str, Any], before: dict[str, Any] | None) -> dict[str, Any]:
    """What the move into ``frame`` changed, for the page to outline: per seat the positions of the cards new in
    its hand, the slots of melds laid or changed, and whether the discard pile's top is new. Nothing across a
    new deal (its cards are all new)."""
    if before is None or before["hand"] != frame["hand"]:
        return {"hands": [[] for _ in frame["hands"]], "slots": [], "pile": False}
    hands = []
    for hand, old in zip(frame["hands"], before["hands"]):
        left, fresh = Counter(old), []
        for k, card in enumerate(hand):
            if left[card]:
                left[card] -= 1
            elif len(hand) > len(old):  # drawn or taken; a card shown where a back was is not new
                fresh.append(k)
        hands.append(fresh)
    melds = {meld["slot"]: meld["cards"] for meld in before["table"]}
    slots = [meld["slot"] for meld in frame["table"] if melds.get(meld["slot"]) != meld["cards"]]
    pile = frame["pile_size"] > before["pile_size"]
    return {"hands": hands, "slots": slots, "pile": pile}


def _order(card: int) -> tuple[int, int]:
    return (cards.NUM_SUITS, 0) if card == cards.JOKER else (cards.suit_of(card), cards.rank_of(card))


def page_data(record: GameRecord, observer: int | None = None) -> dict[str, Any]:
    """Everything the page needs, as JSON-able data (the hands as seat ``observer`` sees them, or every card)."""
    names = names_of(record)
    if observer is not None and not (isinstance(observer, int) and 0 <= observer < len(names)):
        raise ValueError(f"observer must be a seat 0..{len(names) - 1}, got {observer!r}")
    rules = record.rules_object()
    frames, moves, hands, labels = [], [], [], labels_of(record)
    for move, actor, words, engine in walk(record):
        snap = engine.snapshot(0)
        frame = page_frame(snap, labels, rules, observer)
        frame["fresh"] = freshness(frame, frames[-1] if frames else None)
        if move:
            moves.append({"actor": actor, "text": words.replace(cards.symbol(cards.JOKER), "JK"),
                          "hand": frames[-1]["hand"], "turn": frames[-1]["turn"]})
            if snap["hands_played"] > frames[-1]["hands_played"]:
                hands.append(hand_row(snap, rules, labels, move))
        frame["hands_played"] = snap["hands_played"]
        frames.append(frame)
    summary = (f"{rules.ruleset}{' (Lebanese 14)' if rules.lebanese else ''}, {rules.num_players} players, "
               f"one {'game' if rules.episode == 'game' else 'hand'} · seed {record.seed} · "
               f"{len(record.actions)} moves · rummy_env {record.rummy_env_version}"
               + ("" if observer is None else f" · as player_{observer} ({names[observer]}) sees it"))
    return {"names": names, "labels": labels, "summary": summary, "frames": frames, "moves": moves, "hands": hands,
            "round_word": rules.traits.round_word}


def default_title(record: GameRecord) -> str:
    """The page's title when none is given: the rules, the players and the seed."""
    rules = record.rules_object()
    label = "Lebanese 14" if rules.lebanese else {"basic": "Rummy", "rami51": "Rami 51", "gin": "Gin rummy"}[rules.ruleset]
    return f"{label} replay: {' vs '.join(names_of(record))} (seed {record.seed})"


def render_page(record: GameRecord, title: str | None = None, observer: int | None = None) -> str:
    """The page as one HTML string (``observer``: see ``page_data``; ``title``: default ``default_title``)."""
    title = title or default_title(record)
    data = json.dumps(page_data(record, observer), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return (PAGE.replace("__TITLE__", html.escape(title)).replace("__STYLE__", STYLE).replace("__SCRIPT__", SCRIPT)
            .replace("__DATA__", data))


def write_page(record: GameRecord, path: str | Path, title: str | None = None, observer: int | None = None) -> Path:
    """Write the page for ``record`` to ``path`` (``observer``: see ``page_data``; ``title``: default
    ``default_title``); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(record, title, observer), encoding="utf-8")
    return path
