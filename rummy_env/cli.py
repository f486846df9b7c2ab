"""The ``rummy`` command (also ``python -m rummy_env``): play, replay, arena, train, bench.

    rummy play --rules basic --players 4 --opponents heuristic,ppo:basic_4p,greedy
    rummy play --rules rami51 --opponents heuristic --save game.json
    rummy replay game.json --to 40             # the moves up to 40 and the position after it, as text
    rummy replay game.json --html game.html    # a self-contained page that steps through the game
    rummy arena --rules basic --agents heuristic random --games 2000   # the arena (training/evaluate.py)
    rummy train --config basic_2p --out runs/basic_2p  # PPO self-play (training/ppo_selfplay.py)
    rummy bench --suite v1 --agent heuristic --out results/heuristic.json   # the frozen suite (training/bench.py)

``rummy COMMAND --help`` lists each command's options. Bad input (an unknown rules preset or knob, a
bad agent spec or checkpoint, a damaged record) is answered with a message and exit status 2, never
a traceback; ``arena``, ``train`` and ``bench`` need the ``train`` extra (``pip install "rummy_env[train]"``),
``bench`` the ``openspiel`` extra too (its gin case plays OpenSpiel's gin bot).
"""

from __future__ import annotations

import argparse
import os
import sys
import tomllib
from pathlib import Path
from typing import Any, Callable, Sequence

from rummy_env.inputs import seed_type

COMMANDS = {"play": "play against bots in the terminal", "replay": "replay a game record as text or as an HTML page",
            "arena": "games between agents: win rates, intervals, ratings", "train": "PPO self-play training",
            "bench": "the frozen benchmark suite: an agent's citable results, the leaderboard"}


REPLAY = """A game record (from rummy play, the arena or GameRecord.save) replayed through the engine: the moves in
words and the position after the last one (or after --to MOVE), or a self-contained HTML page that steps
through the game. With --observer SEAT, what that seat could see.

    rummy replay game.json --to 40
    rummy replay game.json --html game.html --observer 0"""


def parse_knob(text: str) -> tuple[str, Any]:
    """``"knob=value"`` with a TOML value (``true``, ``71``, ``"manual"``; a bare word is a string)."""
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise argparse.ArgumentTypeError(f"expected KNOB=VALUE, got {text!r}")
    try:
        parsed = tomllib.loads(f"value = {value.strip()}")["value"]
    except tomllib.TOMLDecodeError:
        parsed = value.strip()
    return name.strip(), parsed


def build_rules(preset: str, players: int, episode: str | None, knobs: Sequence[tuple[str, Any]]):
    """Rules from a preset name or a TOML file, the player count, the episode and ``--set`` knobs."""
    from rummy_env.rules import RummyRules, make_rules

    own_option = {"ruleset": "--rules", "num_players": "--players", "episode": "--episode"}
    for name, _ in knobs:
        if name in own_option:
            raise ValueError(f"--set {name}=... : {name} has its own option, {own_option[name]}")
    overrides = dict(knobs) | ({"episode": episode} if episode else {})
    if preset.endswith(".toml"):
        return RummyRules.from_toml(preset, num_players=players, **overrides)
    return make_rules(preset, players, **overrides)


def play(args: argparse.Namespace) -> int:
    from rummy_env import terminal_game as tg
    from rummy_env.records import GameRecord

    if args.resume:
        record = GameRecord.load(args.resume)
        if args.rules or args.players is not None or args.knob or args.episode:
            players = record.rules["num_players"] if args.players is None else args.players
            record.check_rules(build_rules(args.rules or record.rules["ruleset"], players,
                                           args.episode or record.rules.get("episode", "hand"), args.knob or []))
        human, specs = tg.resume_specs(record, args.opponents)
        for option, given, kept in (("--seat", args.seat, human), ("--seed", args.seed, record.seed)):
            if given is not None and given != kept:
                raise ValueError(f"{option} {given}: the saved game has {kept} ({option} cannot change when resuming)")
        rules = record.rules_object()
        save_path = Path(args.save) if args.save else Path(args.resume)
    else:
        rules = build_rules(args.rules or "basic", 2 if args.players is None else args.players, args.episode or "game",
                            args.knob or [])
        human = 0 if args.seat is None else args.seat
        if not 0 <= human < rules.num_players:
            raise ValueError(f"--seat must be a seat 0..{rules.num_players - 1}, got {human}")
        specs = tg.opponent_specs(args.opponents or "heuristic", rules.num_players, human)
        record = None
        save_path = Path(args.save) if args.save else None
    bots = tg.make_bots(specs, rules)
    if record is None:
        names = {seat: bot.name for seat, bot in bots.items()}
        record = GameRecord.new(rules, seed=args.seed, agents=tg.agent_list(human, names, rules.num_players))
        record.meta = tg.record_meta(human, specs)
    game = tg.TerminalGame(record, human, bots, input, sys.stdout, save_path, seed=record.seed,
                           resumed_from=Path(args.resume) if args.resume else None, auto_forced=args.auto_forced)
    print(f"rummy {rules.ruleset}{' (Lebanese 14)' if rules.lebanese else ''}, {rules.num_players} players, "
          f"one {'game' if rules.episode == 'game' else 'hand'}; you are player_{human}; "
          + ", ".join(f"player_{seat} = {bot.name}" for seat, bot in bots.items()) + f"; seed {record.seed}")
    return game.run()


def replay(args: argparse.Namespace) -> int:
    from rummy_env import replay_html
    from rummy_env.records import GameRecord
    from rummy_env.render import describe

    record = GameRecord.load(args.file)
    names = replay_html.names_of(record)
    if args.observer is not None and not 0 <= args.observer < len(names):
        raise ValueError(f"--observer must be a seat 0..{len(names) - 1}, got {args.observer}")
    if args.html:
        path = replay_html.write_page(record, Path(args.html), title=args.title,
                                      observer=args.observer)
        print(f"wrote {path}: open it in a browser (arrow keys step through the moves)")
        if args.to is None:
            return 0
    rules = record.rules_object()
    print(f"{Path(args.file).name}: {rules.ruleset}, {rules.num_players} players, seed {record.seed}, "
          f"{len(record.actions)} moves; " + ", ".join(f"player_{seat} = {name}" for seat, name in enumerate(names)))
    for move, actor, words, engine in replay_html.walk(record, to=args.to):
        if move and not args.quiet:
            print(f"{move:>5}. {names[actor]}: {words}")
    print(f"\nafter move {move}:")
    print(describe(engine.snapshot(0), observer=args.observer, names=names))
    return 0


def delegate(command: str, argv: Sequence[str]) -> int:
    """``arena``, ``train`` and ``bench``: the training modules' own command lines."""
    import importlib

    module = {"arena": "evaluate", "train": "ppo_selfplay", "bench": "bench"}[command]
    importlib.import_module(f"rummy_env.training.{module}").main(list(argv))
    return 0


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="rummy", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = top.add_subparsers(dest="command", metavar="COMMAND")
    game = commands.add_parser("play", help=COMMANDS["play"], **short_doc("rummy_env.terminal_game"))
    game.add_argument("--rules", help="preset (basic, rami51, lebanese14, gin, gin_openspiel, gin_rlcard) or a rules "
                                      "TOML file (default basic)")
    game.add_argument("--players", type=int, help="number of players, you included (default 2)")
    game.add_argument("--opponents", help="agent specs: one for every opponent, or one per opponent seat, comma-separated: "
                                          "random, greedy, heuristic, ppo:PATH (or the shipped ppo:basic_2p, ppo:basic_4p, "
                                          "ppo:rami51_2p), sb3:PATH, pimc, ismcts; gin: lookahead; gin_openspiel: openspiel_bot "
                                          "(default heuristic)")
    game.add_argument("--seat", type=int, help="your seat (default 0)")
    game.add_argument("--seed", type=seed_type(), help="the game's seed (default: a fresh one, shown at the start)")
    game.add_argument("--episode", choices=("hand", "game"), help="play one hand or a whole game (default game)")
    game.add_argument("--set", dest="knob", action="append", type=parse_knob, metavar="KNOB=VALUE",
                      help="a rules knob, e.g. --set ace_high_or_low=true (repeatable)")
    game.add_argument("--save", help="where the game record goes (at the end, on q, end of input or Ctrl-C)")
    game.add_argument("--resume", help="continue a game record saved by rummy play")
    game.add_argument("--auto-forced", action="store_true", help="play your decisions that have a single legal move "
                                                                 "without asking")
    again = commands.add_parser("replay", help=COMMANDS["replay"], **short_doc("rummy_env.records", REPLAY))
    again.add_argument("file", help="a game record (JSON)")
    again.add_argument("--to", type=int, metavar="MOVE", help="stop after this many moves (default: the end)")
    again.add_argument("--html", metavar="OUT.html", help="write the self-contained replay page")
    again.add_argument("--title", help="the page's title (default: the rules, the players and the seed)")
    again.add_argument("--observer", type=int, metavar="SEAT", help="show the position as this seat sees it")
    again.add_argument("--quiet", action="store_true", help="only the position, not the list of moves")
    for name in ("arena", "train", "bench"):
        commands.add_parser(name, help=COMMANDS[name] + f" (rummy {name} --help)", add_help=False)
    return top


def short_doc(module: str, lead: str | None = None) -> dict[str, Any]:
    """A command's ``--help`` text from its module's docstring (or ``lead``): the first paragraph and the example
    lines indented under it, without reST markup, and where the whole guide is (``python -m pydoc MODULE``)."""
    import importlib
    import re

    paragraphs = (lead or importlib.import_module(module).__doc__ or "").strip().split("\n\n")
    kept = paragraphs[:1] + [text for text in paragraphs[1:3] if all(line.startswith("    ") for line in text.splitlines())]
    text = re.sub(r"\*\*(.+?)\*\*|``(.+?)``", lambda m: m.group(1) or m.group(2), "\n\n".join(kept))
    return dict(description=text, epilog=f"the whole guide: python -m pydoc {module}",
                formatter_class=argparse.RawDescriptionHelpFormatter)


def guarded(name: str, body: Callable[[], int | None]) -> int:
    """Run a command's ``body`` as every command line of the package does (``rummy`` and the ``python -m``
    modules): bad input (``ValueError``, ``OSError``) and a missing optional package are one line on stderr and
    status 2, Ctrl-C is status 130, and a reader that stops (``| head``) ends it quietly. ``body`` returns an exit
    status or anything else (a trained model, summaries), which counts as success. Imports a module makes before
    ``body`` runs are outside it."""
    try:
        status = body()
        return status if isinstance(status, int) and not isinstance(status, bool) else 0
    except KeyboardInterrupt:
        print(f"\n{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader stopped (rummy replay FILE | head): nothing more to say
        sys.stdout = open(os.devnull, "w")  # the interpreter's final flush must not fail again
        return 0
    except ModuleNotFoundError as error:  # ``extras.needs_extra`` names the extra; a bare one is the train extra's
        hint = str(error) if "pip install" in str(error) else (f"this needs the optional package {error.name!r}: "
                                                               f"pip install \"rummy_env[train]\"")
        print(f"{name}: error: {hint}", file=sys.stderr)
        return 2
    except (ValueError, OSError) as error:
        print(f"{name}: error: {error}", file=sys.stderr)
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``rummy`` command; returns its exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    command = argv[0] if argv else None

    def body() -> int:
        try:
            if command in ("arena", "train", "bench"):
                return delegate(command, argv[1:])
            args = parser().parse_args(argv)
        except SystemExit as stop:  # argparse's errors (printed), --help, a command's own exit: its status returned
            if stop.code is None or isinstance(stop.code, int):
                return int(stop.code or 0)
            print(stop.code, file=sys.stderr)  # sys.exit("message"), as Python itself reports it
            return 1
        if args.command is None:
            parser().print_help()
            return 2
        return play(args) if args.command == "play" else replay(args)

    return guarded(f"rummy {command}", body)


if __name__ == "__main__":
    sys.exit(main())
