"""Score a :class:`~scorer.game.Game`: rounds, desserts, totals, winners, and the readable breakdown."""

from __future__ import annotations

from scorer.families import Line, RoundView, appetizers, desserts, nigiri, rolls, specials
from scorer.game import Game
from scorer.i18n import ENGLISH, N_, NP_, joined, render
from scorer.results import PlayerScoreJSON, ScoreJSON

ROUND_FAMILIES = (rolls, nigiri, appetizers, specials, desserts)


def score_round(game: Game, index: int) -> dict[str, list[Line]]:
    """Each player's lines for round ``index`` (desserts wait for the end of the game)."""
    rnd = game.rounds[index]
    view = RoundView(
        rules=game.rules,
        players=game.players,
        cards={p: tuple(c for c in t.cards if c.card.family != "desserts") for p, t in rnd.tableaux},
        during=rnd.scored_during_round,
        variants=game.variants,
    )
    # soy sauce and tea look at every card of the round, this round's desserts included
    colour_view = RoundView(view.rules, view.players, {p: t.cards for p, t in rnd.tableaux},
                            view.during, view.variants)
    lines: dict[str, list[Line]] = {p: [] for p in game.players}
    for family in ROUND_FAMILIES:
        result = family.score_round(colour_view if family is specials else view)
        for player, found in result.items():
            lines[player].extend(found)
    return lines


def score_lines(game: Game) -> tuple[list[dict[str, list[Line]]], dict[str, list[Line]]]:
    """Every player's lines: per round, and for desserts at the end of the game."""
    rounds = [score_round(game, i) for i in range(len(game.rounds))]
    dessert_lines = desserts.score_game_end(game) if game.complete else {p: [] for p in game.players}
    return rounds, dessert_lines


def score_game(game: Game) -> ScoreJSON:
    """The JSON of game-record.md, with breakdowns, winners and completeness."""
    rounds, dessert_lines = score_lines(game)
    dessert_cards = _dessert_cards(game)
    players: dict[str, PlayerScoreJSON] = {}
    for player in game.players:
        round_points = [sum(line.points for line in r[player]) for r in rounds]
        dessert = sum(line.points for line in dessert_lines[player])
        players[player] = {
            "rounds": round_points,
            "dessert": dessert,
            "total": sum(round_points) + dessert,
            "breakdown": [[line.to_json() for line in r[player]] for r in rounds],
            "dessert_breakdown": [line.to_json() for line in dessert_lines[player]],
            "dessert_cards": dessert_cards[player],
        }
    return {
        "edition": game.edition,
        "players": players,
        "winners": winners(game, players),
        "complete": game.complete,
    }


def _dessert_cards(game: Game) -> dict[str, int]:
    count = {p: 0 for p in game.players}
    for rnd in game.rounds:
        for player, tableau in rnd.tableaux:
            count[player] += sum(1 for c in tableau.cards if c.card.family == "desserts")
    return count


def winners(game: Game, players: dict[str, PlayerScoreJSON]) -> list[str]:
    """Highest total (sushi golf: lowest); a tie goes to the most dessert cards; still tied: all."""
    sign = -1 if game.has_variant("sushi-golf") else 1
    best = max((sign * s["total"], s["dessert_cards"]) for s in players.values())
    return [p for p, s in players.items() if (sign * s["total"], s["dessert_cards"]) == best]


EDITION_NAMES = {
    "original": N_("Sushi Go!"),
    "anniversary": N_("Sushi Go! 10th Anniversary Edition"),
    "party": N_("Sushi Go Party!"),
}

VARIANT_NAMES = {
    "left-right-left": N_("Pass left, right, left"),
    "dummy-player": N_("2-player variant with a dummy third player"),
    "two-way": N_("Two-way street (pass left, right, left)"),
    "sushi-golf": N_("Sushi golf: the lowest score wins"),
    "personal-draw-piles": N_("2 players: personal draw piles"),
    "sushi-battle": N_("2 players: sushi battle"),
    "puppet-player": N_("2 players: puppet player"),
    "must-have-futomaki": N_("2 players: you must have futomaki"),
}


def explain(game: Game, result: ScoreJSON, lang: str = ENGLISH) -> str:
    """The readable text of ``sushicam score --explain``, in ``lang`` (:mod:`scorer.i18n`).

    ``result`` is :func:`score_game`'s JSON; the lines are scored again to be read in ``lang``.
    """
    def t(text: object) -> str:
        return render(text, lang)

    rounds, dessert_lines = score_lines(game)
    head = N_("{edition}: {played} of 3 rounds", edition=EDITION_NAMES[game.edition],
              played=len(game.rounds))
    if not game.complete:
        head = N_("{summary} (desserts count after round 3)", summary=head)
    out = [t(head)]
    if game.variants:
        out.append(t(N_("Variants: {variants}", variants=joined(
            VARIANT_NAMES.get(v, v) for v in game.variants))))
    for player in game.players:
        score = result["players"][player]
        parts = " + ".join(str(p) for p in score["rounds"])
        out.append("")
        out.append(t(N_("{player}: {total} (rounds {rounds}; dessert {dessert})", player=player,
                        total=score["total"], rounds=parts or "-", dessert=score["dessert"])))
        for r, lines in enumerate(rounds):
            out.append("  " + t(N_("Round {round}: {points}", round=r + 1, points=score["rounds"][r])))
            out.extend(f"    {line.render(lang)}" for line in lines[player])
            if not lines[player]:
                out.append("    " + t(N_("nothing scored")))
        if game.complete:
            out.append("  " + t(NP_("Dessert: {points} ({n} dessert card)", "Dessert: {points} ({n} dessert cards)",
                                    score["dessert_cards"], points=score["dessert"])))
            out.extend(f"    {line.render(lang)}" for line in dessert_lines[player])
    for r, rnd in enumerate(game.rounds):
        for note in rnd.notes:
            out.append(t(N_("Round {round}, {note}", round=r + 1, note=note)))
    out.append("")
    names = ", ".join(result["winners"])
    tied = len(result["winners"]) > 1
    if game.complete:
        label = N_("Winners (tied): {names}", names=names) if tied else N_("Winner: {names}", names=names)
    else:
        label = N_("Leading (tied): {names}", names=names) if tied else N_("Leading: {names}", names=names)
    if game.has_variant("sushi-golf"):
        label = N_("{winners} (sushi golf: lowest wins)", winners=label)
    out.append(t(label))
    return "\n".join(out)
