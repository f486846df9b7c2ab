"""``rummy play``: a person plays against bots in the terminal.

    rummy play --rules basic --players 3 --opponents heuristic,ppo:basic_2p
    rummy play --rules rami51 --opponents heuristic --save my_game.json
    rummy play --resume my_game.json

At each of the person's decisions the screen shows what that player can see (``rummy_env.render``,
player's view): the hand sorted and grouped by suit, the table's melds with their owners, the
discard pile and its top, the stock size, every hand's size and publicly known cards, the scores;
then the legal moves, numbered, in words (rami51: COMMIT, UNDO, TAKE, SWAP, lay-offs of a joker at
either end of a run, TAKE BACK). Type a move's number, or a command: ``d 7H`` (discard a card), ``u`` (UNDO,
where the rules have it), ``t`` (TAKE_BACK, rami51 under ``dead_ends="take_back"``, R25), ``v`` (show the table again), ``s [FILE]`` (save the game record now),
``q`` (save and quit), ``h`` (help).

On a real terminal hearts and diamonds are red and the player to act is bold (no colour when the output is
piped, or with ``NO_COLOR`` set). The whole table is shown at the first decision of each turn; later decisions
of the turn show only what changed (``v`` shows everything). rami51, before opening: the points laid toward
the opening, the pure run, and why COMMIT is not offered. ``--auto-forced`` plays a decision that has a single
legal move (a forced discard, a forced pass) without asking.

Nothing is lost: a word that is not a move, a number out of range, an illegal move, the end of the
input or Ctrl-C each get a message; on quitting, end of input or Ctrl-C the game record is saved
(``--save FILE``, else a new ``rummy-game-*.json``) and ``rummy play --resume FILE`` continues it.
A finished game can be saved too; ``rummy replay FILE --html FILE.html`` then shows it.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence, TextIO

import numpy as np

from rummy_env import cards
from rummy_env.actions import COMMIT, TAKE_BACK, UNDO
from rummy_env.records import GameRecord
from rummy_env.render import describe, describe_action, opening_count, outcome

HELP = """commands: a move's number · d CARD (discard, e.g. d 7H or d 10♠) · u (undo, rami51) · t (take the turn back,
          rami51, R25) · v (show the table) · s [FILE] (save the game record) · q (save and quit) · h (this help)"""
KIND_ORDER = ("draw_stock", "draw_discard", "knock", "commit", "undo", "meld", "lay_off", "take", "swap", "discard",
              "take_back", "pass")


class QuitGame(Exception):
    """The person asked to stop (q, end of input or Ctrl-C); the game is saved first."""

    def __init__(self, reason: str, exit_code: int):
        super().__init__(reason)
        self.reason, self.exit_code = reason, exit_code


@dataclasses.dataclass
class Bot:
    """An opponent: its spec (for resuming), display name and policy."""

    spec: str
    name: str
    policy: Any


class TerminalGame:
    """One game between a person (seat ``human``) and ``bots`` (one per other seat, in seat order),
    recorded in ``record``; ``ask(prompt)`` reads a line (``EOFError`` at the end of the input) and
    ``out`` is where the game writes."""

    def __init__(self, record: GameRecord, human: int, bots: dict[int, Bot], ask: Callable[[str], str], out: TextIO,
                 save_path: Path | None = None, seed: int = 0, resumed_from: Path | None = None,
                 auto_forced: bool = False, colour: bool | None = None):
        self.record, self.human, self.bots, self.ask, self.out = record, human, bots, ask, out
        self.auto_forced = auto_forced
        self.colour = wants_colour(out) if colour is None else colour
        self.last_view: tuple[tuple[int, int], list[str]] | None = None  # (hand, turn) and the lines last shown
        # the files this game may write over: the record it resumes, its save path (claimed here, before the game
        # starts, so that quitting never meets a refusal) and every file it saved
        self.own_files = {Path(resumed_from).resolve()} if resumed_from is not None else set()
        if save_path is not None:
            refuse_existing(Path(save_path), self.own_files, "the game is saved there")
            self.own_files.add(Path(save_path).resolve())
        self.save_path = save_path
        self.engine = record.replay()
        self.layout = self.engine.layout
        players = self.engine.rules.num_players
        self.names = ["you" if seat == human else bots[seat].name for seat in range(players)]
        self.rng = np.random.default_rng(seed)

    # ------------------------------------------------------------------ the game loop
    def run(self) -> int:
        """Play to the end (or until the person quits); returns the exit code."""
        try:
            if self.record.actions:
                self.say(f"resuming after move {len(self.record.actions)}")
            while not self.engine.done[0]:
                seat = int(self.engine.current_player[0])
                action = self.person_move() if seat == self.human else self.bot_move(seat)
                hands_before = int(self.engine.state["hands_played"][0])
                self.record.play(self.engine, action)
                if int(self.engine.state["hands_played"][0]) > hands_before and not self.engine.done[0]:
                    self.say(outcome(self.engine.snapshot(0), self.names))
            self.say("\n" + describe(self.engine.snapshot(0), observer=self.human, names=self.names))
            self.offer_save()
            return 0
        except QuitGame as stop:
            path = self.save()
            self.say(f"{stop.reason}: the game is saved to {path} (move {len(self.record.actions)}); "
                     f"continue it with: rummy play --resume {path}")
            return stop.exit_code
        except BrokenPipeError:  # the output went away (a closed pipe): keep the game all the same
            path = self.save()
            print(f"the output was closed: the game is saved to {path}", file=sys.stderr)
            return 1

    def bot_move(self, seat: int) -> int:
        from rummy_env.agents.base import act_on  # a search agent also reads the game record

        bot = self.bots[seat]
        try:
            observation, mask = self.engine.observe(), self.engine.legal_action_mask()
            action = int(act_on(bot.policy, observation, mask, self.rng, self.engine.state, self.engine.undo_copies)[0])
        except KeyboardInterrupt:
            raise QuitGame("interrupted", 130) from None
        self.say(f"  {bot.name} (player_{seat}): {describe_action(self.engine.snapshot(0), self.layout, action, self.names)}")
        return action

    def person_move(self) -> int:
        snap = self.engine.snapshot(0)
        moves = self.legal_moves(snap)
        if self.auto_forced and len(moves) == 1:
            self.say(f"  you: {moves[0][1]} (your only move, played for you: --auto-forced)")
            return moves[0][0]
        self.show(snap, moves)
        while True:
            try:
                line = self.ask(f"your move [1-{len(moves)}, h for help]: ").strip()
            except EOFError:
                raise QuitGame("input ended", 1) from None
            except KeyboardInterrupt:
                raise QuitGame("interrupted", 130) from None
            action = self.parse(line, moves, snap)
            if action is not None:
                return action

    # ------------------------------------------------------------------ what the person sees and types
    def legal_moves(self, snap: dict[str, Any]) -> list[tuple[int, str]]:
        """The legal actions of the player to act, ordered by kind (draws, KNOCK, COMMIT, UNDO, melds,
        lay-offs, TAKE, SWAP, discards, PASS), each with its words."""
        legal = np.flatnonzero(self.engine.legal_action_mask()[0])
        ordered = sorted(legal, key=lambda action: (KIND_ORDER.index(self.layout.decode(action)[0]), action))
        return [(int(action), describe_action(snap, self.layout, action, self.names)) for action in ordered]

    def show(self, snap: dict[str, Any], moves: list[tuple[int, str]], whole: bool = False) -> None:
        """The position as the person sees it, then the moves. The whole picture at the first decision of a turn
        (or with ``whole``, the ``v`` command); later in the same turn only the lines that changed."""
        lines = describe(snap, observer=self.human, names=self.names).splitlines() + self.opening_lines(snap)
        turn = (snap["hands_played"], snap["turn"])
        if whole or self.last_view is None or self.last_view[0] != turn:
            self.say("\n" + "\n".join(lines))
        else:
            changed = [line for line in lines if line not in self.last_view[1]]
            self.say("\n" + "\n".join(changed or ["(nothing changed)"]) + "\n(v: the whole table)")
        self.last_view = (turn, lines)
        self.say("your moves:")
        entries = [f"{number:>3}. {text}" for number, (_action, text) in enumerate(moves, start=1)]
        width = max(len(entry) for entry in entries) + 2
        columns = max(1, min(3, 118 // width))
        rows = -(-len(entries) // columns)
        for row in range(rows):
            self.say("".join(entries[k].ljust(width) for k in range(row, len(entries), rows)).rstrip())

    def opening_lines(self, snap: dict[str, Any]) -> list[str]:
        """rami51, while the person has not opened and is playing: the points laid toward the opening, the pure
        run, and why COMMIT is not offered when plays are on the table (R11.1, R11.2, R11.5)."""
        count = opening_count(snap, self.engine.rules)
        if count is None or snap["current"] != self.human:
            return []
        run = "" if count["pure"] is None else f" · pure run: {'yes' if count['pure'] else 'no'}"
        lines = [f"opening: {count['points']} of {count['needed']} points laid this turn{run}"]
        if count["tentative"] and not self.engine.is_legal(0, COMMIT):
            lines.append("COMMIT is not offered: " + self.engine.explain_illegal(0, COMMIT).split(": ", 1)[-1])
        return lines

    def parse(self, line: str, moves: list[tuple[int, str]], snap: dict[str, Any]) -> int | None:
        """The action a line names, or None after saying why it names none (or doing a command)."""
        word, _, rest = line.partition(" ")
        word, rest = word.lower(), rest.strip()
        if not line:
            self.say(f"type a move number from 1 to {len(moves)}, or h for help")
        elif word.lstrip("-").isdigit():
            number = int(word)
            if 1 <= number <= len(moves):
                return moves[number - 1][0]
            self.say(f"there is no move {number}: the moves are numbered 1 to {len(moves)}")
        elif word in ("h", "help", "?"):
            self.say(HELP)
        elif word in ("v", "view"):
            self.show(snap, moves, whole=True)
        elif word in ("s", "save"):
            try:  # a snapshot: where the game is saved at the end does not change
                path = self.save(Path(rest) if rest else None)
            except FileExistsError as error:
                self.say(str(error))
            else:
                self.say(f"saved the game record to {path}")
        elif word in ("q", "quit", "exit"):
            raise QuitGame("you quit", 0)
        elif word in ("u", "undo"):
            return self.checked(UNDO if self.layout.tentative else None, "UNDO")
        elif word in ("t", "take", "takeback"):
            return self.checked(TAKE_BACK if self.layout.tentative else None, "take the turn back")
        elif word in ("d", "discard"):
            try:
                card = cards.parse(rest)
            except ValueError as error:
                self.say(f"which card? {error}")
                return None
            return self.checked(self.layout.discard(card), f"discard {cards.symbol(card)}")
        else:
            self.say(f"{line!r} is not a move: type a number from 1 to {len(moves)}, or h for help")
        return None

    def checked(self, action: int | None, name: str) -> int | None:
        """``action`` if it is legal now; else None after saying why not."""
        if action is None:
            self.say(f"{name} is not part of these rules: every play of ruleset {self.engine.rules.ruleset!r} is final")
            return None
        if self.engine.is_legal(0, action):
            return action
        reason = self.engine.explain_illegal(0, action).split(": ", 1)[-1]
        self.say(f"you cannot {name} now: {reason}")
        return None

    # ------------------------------------------------------------------ saving
    def save(self, path: Path | None = None) -> Path:
        """Write the record to ``path`` (default: where the game is saved; without one, a new
        ``rummy-game-*.json`` becomes that place). A file this game did not write and did not resume is never
        written over (``FileExistsError``)."""
        if path is None:
            if self.save_path is None:
                self.save_path = new_record_path(self.record.seed)
            path = self.save_path
        refuse_existing(path, self.own_files, "a saved game is never overwritten")
        self.record.save(path)
        self.own_files.add(path.resolve())
        return path

    def offer_save(self) -> None:
        if self.save_path is not None:
            path = self.save()
        else:
            while True:
                try:
                    answer = self.ask("save the game record? a file name (empty: don't save): ").strip()
                except (EOFError, KeyboardInterrupt):
                    answer = ""
                if not answer:
                    self.say("not saved")
                    return
                try:
                    path = self.save(Path(answer))
                    break
                except FileExistsError as error:
                    self.say(str(error))
        self.say(f"saved the game record to {path}; see it with: rummy replay {path} --html {path.with_suffix('.html')}")

    def say(self, text: str) -> None:
        print(paint(text) if self.colour else text, file=self.out, flush=True)


RED, DEFAULT_COLOUR, BOLD, RESET = "\x1b[31m", "\x1b[39m", "\x1b[1m", "\x1b[0m"
RED_CARD = re.compile(r"(?:10|[2-9AJQK])[♥♦]")


def wants_colour(out: TextIO) -> bool:
    """Colour on a real terminal only: not when the output is piped or a file, nor with ``NO_COLOR`` set
    (no-color.org: any non-empty value) or ``TERM=dumb``."""
    isatty = getattr(out, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"


def paint(text: str) -> str:
    """Red hearts and diamonds; the line of the player to act (``▶``) and the moves' header in bold."""
    lines = []
    for line in text.split("\n"):
        line = RED_CARD.sub(lambda match: f"{RED}{match.group(0)}{DEFAULT_COLOUR}", line)  # keeps a bold line bold
        if line.startswith("▶") or line == "your moves:":
            line = f"{BOLD}{line}{RESET}"
        lines.append(line)
    return "\n".join(lines)


def refuse_existing(path: Path, own_files: set[Path], why: str) -> None:
    """``FileExistsError`` naming ``path`` if it exists and is not one of ``own_files``."""
    if path.exists() and path.resolve() not in own_files:
        raise FileExistsError(f"{path} exists and is not this game's record ({why}): it is left as it is; "
                              f"name another file, or continue that game with: rummy play --resume {path}")


def new_record_path(seed: int, folder: Path = Path(".")) -> Path:
    """A file name for a game record that does not exist yet."""
    stem = f"rummy-game-{time.strftime('%Y%m%d-%H%M%S')}-{seed % 100000:05d}"
    path, number = folder / f"{stem}.json", 2
    while path.exists():
        path, number = folder / f"{stem}-{number}.json", number + 1
    return path


def opponent_specs(text: str, players: int, human: int) -> dict[int, str]:
    """Seat -> agent spec: one spec for every other seat, or one per other seat in seat order."""
    specs = [spec.strip() for spec in text.split(",")]
    if not all(specs):
        raise ValueError(f"--opponents {text!r} has an empty spec: name an agent between every two commas")
    others = [seat for seat in range(players) if seat != human]
    if len(specs) == 1:
        specs = specs * len(others)
    if len(specs) != len(others):
        raise ValueError(f"--opponents names {len(specs)} agents for {len(others)} opponent seats ({players} players): "
                         f"give one spec for all of them or one per seat, comma-separated")
    return dict(zip(others, specs))


def display_names(specs: dict[int, str]) -> dict[int, str]:
    """Short names of the bots, numbered where two would read the same."""
    from rummy_env.agents.registry import agent_name

    names = {seat: agent_name(spec) for seat, spec in specs.items()}
    counts: dict[str, int] = {}
    for seat, name in names.items():
        counts[name] = counts.get(name, 0) + 1
        if list(names.values()).count(name) > 1:
            names[seat] = f"{name} #{counts[name]}"
    return names


def make_bots(specs: dict[int, str], rules) -> dict[int, Bot]:
    """The opponents; a bad spec or checkpoint raises ``ValueError``/``FileNotFoundError`` naming it."""
    from rummy_env.agents.registry import make_agent

    names = display_names(specs)
    return {seat: Bot(spec, names[seat], make_agent(spec, rules)) for seat, spec in specs.items()}


def record_meta(human: int, specs: dict[int, str]) -> dict[str, Any]:
    return {"human_seat": human, "opponents": {str(seat): spec for seat, spec in specs.items()}}


def resume_specs(record: GameRecord, override: str | None) -> tuple[int, dict[int, str]]:
    """The person's seat and the opponents of a saved game (``override``: other opponents)."""
    meta = record.meta
    if "human_seat" not in meta or "opponents" not in meta:
        raise ValueError("this record was not saved by `rummy play` (it names no human seat and opponents); "
                         "watch it with `rummy replay` instead")
    human, players = int(meta["human_seat"]), int(record.rules_object().num_players)
    if override:
        return human, opponent_specs(override, players, human)
    return human, {int(seat): spec for seat, spec in meta["opponents"].items()}


def agent_list(human: int, names: dict[int, str], players: int) -> Sequence[str]:
    return ["you" if seat == human else names[seat] for seat in range(players)]
