"""The HTML replay: one self-contained page (inline CSS and JavaScript, no server, no network, no
font files) that steps through a game record.

    rummy replay game.json --html game.html
    python -c "from rummy_env.records import GameRecord; from rummy_env.replay_html import write_page; write_page(GameRecord.load('game.json'), 'game.html')"

The page shows, at every move: each seat's hand (face up: a replay is a spectator's view), the melds on
the table with their owners, the discard pile (its last cards, the top marked) and the stock size,
the scores, and the list of moves with the current one highlighted. Buttons, a slider, a move
number box and the keyboard (← →, Home/End, PageUp/PageDown by 10) move through the game; a link to
``page.html#move=40`` opens at move 40. Every position is computed here by replaying the record
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
from rummy_env.render import describe_action, is_live, meld_in_order, outcome, seat_names

PILE_SHOWN = 12


def names_of(record: GameRecord) -> list[str]:
    """Display names per seat: the record's agents, else ``player_0 …``."""
    players = int(record.rules["num_players"])
    agents = record.agents if record.agents and len(record.agents) == players else None
    return seat_names(players, agents)


def walk(record: GameRecord, to: int | None = None) -> Iterator[tuple[int, int | None, str | None, RummyEngine]]:
    """``(move, actor, words, engine)`` at move 0 (no actor) and after each move up to ``to``:
    who made the move, what it did in words, and the one-row engine after it (the same object)."""
    end = record.last_move(to)
    names = names_of(record)
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


def page_frame(snap: dict[str, Any], names: list[str], observer: int | None = None) -> dict[str, Any]:
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
    }


def _order(card: int) -> tuple[int, int]:
    return (cards.NUM_SUITS, 0) if card == cards.JOKER else (cards.suit_of(card), cards.rank_of(card))


def page_data(record: GameRecord, observer: int | None = None) -> dict[str, Any]:
    """Everything the page needs, as JSON-able data (the hands as seat ``observer`` sees them, or every card)."""
    names = names_of(record)
    if observer is not None and not (isinstance(observer, int) and 0 <= observer < len(names)):
        raise ValueError(f"observer must be a seat 0..{len(names) - 1}, got {observer!r}")
    frames, moves = [], []
    for move, actor, words, engine in walk(record):
        frames.append(page_frame(engine.snapshot(0), names, observer))
        if move:
            moves.append({"actor": actor, "text": words.replace(cards.symbol(cards.JOKER), "JK")})
    rules = record.rules_object()
    summary = (f"{rules.ruleset}{' (Lebanese 14)' if rules.lebanese else ''}, {rules.num_players} players, "
               f"one {'game' if rules.episode == 'game' else 'hand'} · seed {record.seed} · "
               f"{len(record.actions)} moves · rummy_env {record.rummy_env_version}"
               + ("" if observer is None else f" · as player_{observer} ({names[observer]}) sees it"))
    return {"names": names, "summary": summary, "frames": frames, "moves": moves,
            "round_word": "round" if rules.ruleset == "rami51" else "hand"}


def render_page(record: GameRecord, title: str = "rummy replay", observer: int | None = None) -> str:
    """The page as one HTML string (``observer``: see ``page_data``)."""
    data = json.dumps(page_data(record, observer), ensure_ascii=False, separators=(",", ":")).replace("</", "<\\/")
    return (PAGE.replace("__TITLE__", html.escape(title)).replace("__STYLE__", STYLE).replace("__SCRIPT__", SCRIPT)
            .replace("__DATA__", data))


def write_page(record: GameRecord, path: str | Path, title: str | None = None, observer: int | None = None) -> Path:
    """Write the page for ``record`` to ``path`` (``observer``: see ``page_data``); returns the path."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(render_page(record, title or path.stem, observer), encoding="utf-8")
    return path


PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title><style>__STYLE__</style></head>
<body>
<header><h1>__TITLE__</h1><p id="summary"></p></header>
<nav id="controls" aria-label="moves">
  <button id="first" title="first move (Home)">|◀</button><button id="back" title="back (←)">◀</button>
  <button id="play" title="play / pause (space)">▶▶</button><button id="forward" title="forward (→)">▶</button>
  <button id="last" title="last move (End)">▶|</button>
  <input id="slider" type="range" min="0" value="0" aria-label="move">
  <label>move <input id="jump" type="number" min="0" value="0"> / <span id="total"></span></label>
</nav>
<main>
  <section id="board">
    <div id="status"></div>
    <div id="piles"><div class="pile"><h3>stock</h3><div id="stock" class="stock"></div></div>
      <div class="pile"><h3>discard pile <span id="pile-size"></span></h3><div id="pile" class="cards"></div></div></div>
    <div id="seats"></div>
    <h2>table</h2><div id="table"></div>
    <p id="outcome"></p>
  </section>
  <aside><h2>moves</h2><ol id="moves" start="1"></ol></aside>
</main>
<script id="replay-data" type="application/json">__DATA__</script>
<script>__SCRIPT__</script>
</body></html>
"""

STYLE = """
:root { --felt: #1f6b45; --ink: #1d1d1f; --red: #c0182b; --gold: #f3c648; }
* { box-sizing: border-box; }
body { margin: 0; font-family: "DejaVu Sans", "Segoe UI", Helvetica, Arial, sans-serif; color: var(--ink); background: #f4f1ea; }
header { padding: 10px 18px 0; } h1 { font-size: 20px; margin: 0; } #summary { margin: 4px 0 8px; color: #555; font-size: 13px; }
nav { display: flex; gap: 6px; align-items: center; padding: 6px 18px; background: #e6e1d6; position: sticky; top: 0; z-index: 2; }
nav button { font-size: 16px; min-width: 38px; padding: 4px 8px; cursor: pointer; }
#slider { flex: 1; } #jump { width: 70px; }
main { display: flex; gap: 14px; padding: 12px 18px; align-items: flex-start; }
#board { flex: 1; background: var(--felt); color: #fff; border-radius: 10px; padding: 12px 14px; min-width: 0; }
#board h2 { font-size: 14px; margin: 12px 0 6px; color: #d6efe0; text-transform: uppercase; letter-spacing: .05em; }
#board h3 { font-size: 12px; margin: 0 0 4px; color: #d6efe0; font-weight: normal; }
#status { font-size: 14px; margin-bottom: 8px; }
#piles { display: flex; gap: 24px; margin-bottom: 8px; }
.stock { width: 44px; height: 62px; border-radius: 6px; border: 2px solid #fff; display: flex; align-items: center;
  justify-content: center; font-weight: bold; background: repeating-linear-gradient(45deg, #254a8f, #254a8f 5px, #2f5cab 5px, #2f5cab 10px); }
.card.back { background: repeating-linear-gradient(45deg, #254a8f, #254a8f 5px, #2f5cab 5px, #2f5cab 10px); border-color: #fff; }
.seat { background: rgba(255,255,255,.08); border: 2px solid transparent; border-radius: 8px; padding: 6px 8px; margin: 6px 0; }
.seat.to-act { border-color: var(--gold); background: rgba(243,198,72,.14); }
.seat .who { font-size: 13px; margin-bottom: 4px; } .seat .who b { font-size: 14px; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; min-height: 62px; align-items: center; }
.card { display: inline-flex; flex-direction: column; justify-content: space-between; width: 44px; height: 62px;
  padding: 3px 4px; background: #fff; color: var(--ink); border: 1px solid #999; border-radius: 6px;
  font-size: 15px; font-weight: bold; line-height: 1; box-shadow: 0 1px 2px rgba(0,0,0,.35); }
.card .pip { font-size: 22px; align-self: flex-end; } .card.red { color: var(--red); }
.card.joker { color: #6a2c91; } .card.top { outline: 3px solid var(--gold); }
.meld { display: inline-flex; flex-direction: column; margin: 0 12px 8px 0; vertical-align: top; }
.meld .label { font-size: 12px; color: #d6efe0; margin-bottom: 3px; }
.meld.tentative .cards { outline: 2px dashed var(--gold); outline-offset: 2px; border-radius: 6px; }
#outcome { font-size: 14px; color: #fff6cf; min-height: 1em; white-space: pre-line; }
aside { position: relative; width: 360px; max-height: calc(100vh - 120px); overflow-y: auto; background: #fff; border-radius: 10px; padding: 8px 12px; }
aside h2 { font-size: 14px; margin: 4px 0; } #moves { font-size: 13px; padding-left: 44px; margin: 0; }
#moves li { padding: 1px 4px; cursor: pointer; border-radius: 4px; } #moves li.current { background: var(--gold); font-weight: bold; }
@media print { nav, aside { display: none; } body { background: #fff; } }
"""

SCRIPT = r"""
const data = JSON.parse(document.getElementById("replay-data").textContent);
const SUITS = { C: "♣", D: "♦", H: "♥", S: "♠" };
const last = data.frames.length - 1;
let current = 0, timer = null;
const $ = (id) => document.getElementById(id);

function symbol(name) { return name === "JK" ? "JK" : name.slice(0, -1) + SUITS[name.slice(-1)]; }

function cardElement(name, extra) {
  const el = document.createElement("span");
  el.className = "card" + (extra ? " " + extra : "");
  el.dataset.card = name;
  if (name === "??") {
    el.classList.add("back"); el.title = "a card this seat cannot see";
  } else if (name === "JK") {
    el.classList.add("joker"); el.title = "joker";
    el.innerHTML = "<span>JK</span><span class=pip>★</span>";
  } else {
    const suit = name.slice(-1), rank = name.slice(0, -1);
    if (suit === "D" || suit === "H") el.classList.add("red");
    el.title = rank + SUITS[suit];
    el.innerHTML = "<span>" + rank + "</span><span class=pip>" + SUITS[suit] + "</span>";
  }
  return el;
}

function cardsBox(names, topLast) {
  const box = document.createElement("div");
  box.className = "cards";
  names.forEach((name, i) => box.appendChild(cardElement(name, topLast && i === names.length - 1 ? "top" : "")));
  return box;
}

function show(k) {
  current = Math.max(0, Math.min(last, k));
  const f = data.frames[current];
  const toAct = f.current === null ? "—" : data.names[f.current];
  $("status").textContent = data.round_word + " " + f.hand + " · turn " + f.turn + " · phase " + f.phase +
    " · dealer " + data.names[f.dealer] + " · to act " + toAct + (f.taken ? " · taken from the pile: " + symbol(f.taken) : "");
  $("stock").textContent = f.stock;
  $("pile-size").textContent = "(" + f.pile_size + (f.pile_size === 1 ? " card" : " cards") + (f.pile_size > f.pile.length ? ", last " + f.pile.length + " shown" : "") + ")";
  $("pile").replaceChildren(...cardsBox(f.pile, true).childNodes);
  const seats = f.hands.map((hand, seat) => {
    const el = document.createElement("div");
    el.className = "seat" + (seat === f.current ? " to-act" : "");
    el.dataset.seat = seat;
    const opened = f.opened ? (f.opened[seat] ? " · opened" : " · not opened") : "";
    el.innerHTML = "<div class=who><b></b> · <span class=total></span> pts · <span class=count></span>" + opened + "</div>";
    el.querySelector("b").textContent = "player_" + seat + " " + data.names[seat];
    el.querySelector(".total").textContent = f.totals[seat];
    el.querySelector(".count").textContent = hand.length + (hand.length === 1 ? " card" : " cards");
    const box = cardsBox(hand, false); box.classList.add("hand"); el.appendChild(box);
    return el;
  });
  $("seats").replaceChildren(...seats);
  const melds = f.table.map((meld) => {
    const el = document.createElement("div");
    el.className = "meld" + (meld.tentative ? " tentative" : "");
    el.dataset.slot = meld.slot; el.dataset.owner = meld.owner;
    const label = document.createElement("div"); label.className = "label";
    label.textContent = "slot " + meld.slot + " · " + meld.kind + " of " + data.names[meld.owner] + (meld.tentative ? " · tentative" : "");
    el.append(label, cardsBox(meld.cards, false));
    return el;
  });
  $("table").replaceChildren(...melds);
  $("outcome").textContent = f.outcome;
  $("slider").value = current; $("jump").value = current;
  document.querySelectorAll("#moves li.current").forEach((li) => li.classList.remove("current"));
  if (current > 0) {
    const li = $("moves").children[current - 1];
    li.classList.add("current");
    const list = document.querySelector("aside"), top = li.offsetTop, bottom = top + li.offsetHeight;
    if (top < list.scrollTop) list.scrollTop = top - 30;  // scroll the move list only, never the page
    else if (bottom > list.scrollTop + list.clientHeight) list.scrollTop = bottom - list.clientHeight + 30;
  }
  history.replaceState(null, "", "#move=" + current);
}

function stop() { if (timer) { clearInterval(timer); timer = null; $("play").textContent = "▶▶"; } }
function togglePlay() {
  if (timer) return stop();
  if (current === last) show(0);
  $("play").textContent = "||";
  timer = setInterval(() => { if (current >= last) stop(); else show(current + 1); }, 600);
}

$("summary").textContent = data.summary + " · " + data.names.map((n, s) => "player_" + s + " = " + n).join(", ");
$("total").textContent = last;
$("slider").max = last; $("jump").max = last;
data.moves.forEach((move, i) => {
  const li = document.createElement("li");
  li.textContent = data.names[move.actor] + ": " + move.text;
  li.addEventListener("click", () => { stop(); show(i + 1); });
  $("moves").appendChild(li);
});
$("first").onclick = () => { stop(); show(0); };
$("back").onclick = () => { stop(); show(current - 1); };
$("forward").onclick = () => { stop(); show(current + 1); };
$("last").onclick = () => { stop(); show(last); };
$("play").onclick = togglePlay;
$("slider").oninput = (e) => { stop(); show(+e.target.value); };
$("jump").onchange = (e) => { if (+e.target.value !== current) { stop(); show(+e.target.value); } };
document.addEventListener("keydown", (e) => {
  if (e.target.tagName === "INPUT") return;  // the slider and the move box handle their own keys
  const step = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 }[e.key];
  if (step !== undefined) { stop(); show(current + step); e.preventDefault(); }
  else if (e.key === "Home") { stop(); show(0); e.preventDefault(); }
  else if (e.key === "End") { stop(); show(last); e.preventDefault(); }
  else if (e.key === " ") { togglePlay(); e.preventDefault(); }
});
const start = /#move=(\d+)/.exec(location.hash);
show(start ? +start[1] : 0);
"""
