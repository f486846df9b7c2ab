"""The HTML replay's page (``rummy_env.replay_html``): its markup, style sheet and script, which draw the frames
that ``replay_html.page_data`` computes. Nothing here knows the rules; the page holds no card logic beyond
drawing a card's name.
"""

PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>__TITLE__</title><style>__STYLE__</style></head>
<body>
<header><h1>__TITLE__</h1><p id="summary"></p></header>
<nav id="controls" aria-label="moves">
  <button id="first" title="first move (Home)">|◀</button><button id="back" title="back (←)">◀</button>
  <button id="play" title="play / pause (space)">▶▶</button><button id="forward" title="forward (→)">▶</button>
  <button id="last" title="last move (End)">▶|</button>
  <label>speed <select id="speed" aria-label="autoplay speed"><option value="1200">slow</option>
    <option value="600" selected>normal</option><option value="250">fast</option><option value="80">fastest</option></select></label>
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
    <h2>scores</h2><table id="scores"><thead></thead><tbody></tbody></table>
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
.card.fresh { box-shadow: 0 0 0 3px #7fd3ff, 0 0 10px #7fd3ff; }
.meld.fresh .cards { outline: 3px solid #7fd3ff; outline-offset: 2px; border-radius: 6px; }
#scores { border-collapse: collapse; font-size: 13px; color: #fff; }
#scores th, #scores td { border-bottom: 1px solid rgba(255,255,255,.25); padding: 3px 8px; text-align: left; }
#scores td.num { text-align: right; } #scores tbody tr:last-child { background: rgba(243,198,72,.18); }
#moves li.hand-start { position: relative; margin-top: 26px; }
#moves li.hand-start::before { content: attr(data-label); position: absolute; top: -22px; left: -44px; right: 0;
  padding-top: 2px; border-top: 2px solid var(--felt); color: var(--felt); font-weight: bold; }
#moves li.turn-start { border-top: 1px solid #ddd; }
#outcome { font-size: 14px; color: #fff6cf; min-height: 1em; white-space: pre-line; }
aside { position: sticky; top: 52px; width: 360px; max-height: calc(100vh - 64px); overflow-y: auto; background: #fff; border-radius: 10px; padding: 8px 12px; }
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

function cardsBox(names, topLast, fresh) {
  const box = document.createElement("div");
  box.className = "cards";
  names.forEach((name, i) => {
    const extra = [topLast && i === names.length - 1 ? "top" : "", fresh && fresh.includes(i) ? "fresh" : ""];
    box.appendChild(cardElement(name, extra.join(" ").trim()));
  });
  return box;
}

function showScores() {
  const rows = data.hands.filter((row) => row.move <= current);
  $("scores").tHead.replaceChildren();
  $("scores").tBodies[0].replaceChildren();
  if (!rows.length) return;
  const head = $("scores").tHead.insertRow();
  [data.round_word, "ended", "bonuses"].concat(data.labels.map((n) => n + " (total)")).forEach((text) => {
    const th = document.createElement("th"); th.textContent = text; head.appendChild(th);
  });
  rows.forEach((row, i) => {
    const tr = $("scores").tBodies[0].insertRow();
    [String(i + 1), row.ended, row.bonus || "—"].concat(row.scores.map((v, s) => v + " (" + row.totals[s] + ")"))
      .forEach((text, k) => { const td = tr.insertCell(); td.textContent = text; if (k > 2) td.className = "num"; });
  });
}

function show(k) {
  current = Math.max(0, Math.min(last, k));
  const f = data.frames[current];
  const toAct = f.current === null ? "—" : data.labels[f.current];
  const opening = f.opening ? " · opening " + f.opening.points + " / " + f.opening.needed + " points" +
    (f.opening.pure === null ? "" : f.opening.pure ? ", pure run laid" : ", no pure run yet") : "";
  $("status").textContent = data.round_word + " " + f.hand + " · turn " + f.turn + " · phase " + f.phase +
    " · dealer " + data.labels[f.dealer] + " · to act " + toAct + (f.taken ? " · taken from the pile: " + symbol(f.taken) : "") + opening;
  $("stock").textContent = f.stock;
  $("pile-size").textContent = "(" + f.pile_size + (f.pile_size === 1 ? " card" : " cards") + (f.pile_size > f.pile.length ? ", last " + f.pile.length + " shown" : "") + ")";
  $("pile").replaceChildren(...cardsBox(f.pile, true, f.fresh.pile ? [f.pile.length - 1] : []).childNodes);
  const seats = f.hands.map((hand, seat) => {
    const el = document.createElement("div");
    el.className = "seat" + (seat === f.current ? " to-act" : "");
    el.dataset.seat = seat;
    const opened = f.opened ? (f.opened[seat] ? " · opened" : " · not opened") : "";
    el.innerHTML = "<div class=who><b></b> · <span class=total></span> pts · <span class=count></span>" + opened + "</div>";
    el.querySelector("b").textContent = "player_" + seat + " " + data.names[seat];
    el.querySelector(".total").textContent = f.totals[seat];
    el.querySelector(".count").textContent = hand.length + (hand.length === 1 ? " card" : " cards");
    const box = cardsBox(hand, false, f.fresh.hands[seat]); box.classList.add("hand"); el.appendChild(box);
    return el;
  });
  $("seats").replaceChildren(...seats);
  const melds = f.table.map((meld) => {
    const el = document.createElement("div");
    el.className = "meld" + (meld.tentative ? " tentative" : "") + (f.fresh.slots.includes(meld.slot) ? " fresh" : "");
    el.dataset.slot = meld.slot; el.dataset.owner = meld.owner;
    const label = document.createElement("div"); label.className = "label";
    label.textContent = "slot " + meld.slot + " · " + meld.kind + " of " + data.labels[meld.owner] + (meld.tentative ? " · tentative" : "");
    el.append(label, cardsBox(meld.cards, false));
    return el;
  });
  $("table").replaceChildren(...melds);
  $("outcome").textContent = f.outcome;
  showScores();
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
  timer = setInterval(() => { if (current >= last) stop(); else show(current + 1); }, +$("speed").value);
}
$("speed").onchange = () => { if (timer) { stop(); togglePlay(); } };

$("summary").textContent = data.summary + " · " + data.names.map((n, s) => "player_" + s + " = " + n).join(", ");
$("total").textContent = last;
$("slider").max = last; $("jump").max = last;
data.moves.forEach((move, i) => {
  const li = document.createElement("li"), before = data.moves[i - 1];
  li.textContent = data.labels[move.actor] + ": " + move.text;
  li.dataset.hand = move.hand;
  if (!before || before.hand !== move.hand) {
    li.classList.add("hand-start"); li.dataset.label = data.round_word + " " + move.hand;
  } else if (before.turn !== move.turn || before.actor !== move.actor) li.classList.add("turn-start");
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
  if (e.target.tagName === "INPUT" || e.target.tagName === "SELECT") return;  // they handle their own keys
  const step = { ArrowRight: 1, ArrowLeft: -1, PageDown: 10, PageUp: -10 }[e.key];
  if (step !== undefined) { stop(); show(current + step); e.preventDefault(); }
  else if (e.key === "Home") { stop(); show(0); e.preventDefault(); }
  else if (e.key === "End") { stop(); show(last); e.preventDefault(); }
  else if (e.key === " ") { togglePlay(); e.preventDefault(); }
});
const start = /#move=(\d+)/.exec(location.hash);
show(start ? +start[1] : 0);
"""
