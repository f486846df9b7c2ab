"""Text rendering of one game for people: hands, table melds, piles and scores with card symbols."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rummy_env import cards

if TYPE_CHECKING:
    from rummy_env.engine import RummyEngine


def _symbols(card_list: list[int]) -> str:
    return " ".join(cards.symbol(card) for card in sorted(card_list, key=lambda c: (cards.suit_of(c), cards.rank_of(c)))) or "—"


def _meld_symbols(meld: dict) -> str:
    members = meld["cards"]
    if meld["kind"] == "run":  # show a run in position order, a high ace last
        order = {c: (cards.rank_of(c) - meld["lo"]) % 13 for c in members}
        members = sorted(members, key=order.get)
    return " ".join(cards.symbol(card) for card in members)


def render_text(engine: "RummyEngine", row: int = 0, show_hidden: bool = True) -> str:
    """A multi-line picture of ``row``; ``show_hidden=False`` hides hands and shows only their sizes."""
    snap = engine.snapshot(row)
    lines = [f"hand {snap['hands_played'] + (snap['phase'] in ('draw', 'play'))} · turn {snap['turn']} · "
             f"phase {snap['phase']} · dealer player_{snap['dealer']} · to act player_{snap['current']}"]
    discard = snap["discard"]
    lines.append(f"stock {len(snap['stock'])} cards · discard pile {len(discard)} cards, top "
                 f"{cards.symbol(discard[-1]) if discard else '—'}")
    for seat, hand in enumerate(snap["hands"]):
        marker = "▶" if seat == snap["current"] and snap["phase"] in ("draw", "play") else " "
        shown = _symbols(hand) if show_hidden else f"{len(hand)} cards"
        lines.append(f"{marker} player_{seat} [{snap['totals'][seat]:>4} pts] {shown}")
    if snap["table"]:
        lines.append("table:")
        for meld in snap["table"]:
            lines.append(f"  slot {meld['slot']:>2} ({meld['kind']} of player_{meld['owner']}): {_meld_symbols(meld)}")
    if snap["taken"] is not None:
        lines.append(f"taken from the discard pile this turn: {cards.symbol(snap['taken'])}")
    if snap["phase"] in ("hand_over", "game_over"):
        outcome = (f"player_{snap['winner']} went out{' (rummy!)' if snap['rummy'] else ''}"
                   if snap["winner"] is not None else f"dead hand ({snap['end_reason']})")
        lines.append(f"hand over: {outcome}; hand scores {snap['hand_scores']}; totals {snap['totals']}")
        if snap["phase"] == "game_over" and snap["game_winners"]:
            lines.append("game over: winner(s) " + ", ".join(f"player_{seat}" for seat in snap["game_winners"]))
    return "\n".join(lines)
