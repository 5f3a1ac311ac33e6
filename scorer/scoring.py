"""Score a :class:`~scorer.game.Game`: rounds, desserts, totals, winners, and the readable breakdown."""

from __future__ import annotations

from scorer.families import Line, RoundView, appetizers, desserts, nigiri, rolls, specials
from scorer.game import Game

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


def score_game(game: Game) -> dict:
    """The JSON of game-record.md, with breakdowns, winners and completeness."""
    rounds = [score_round(game, i) for i in range(len(game.rounds))]
    dessert_lines = desserts.score_game_end(game) if game.complete else {p: [] for p in game.players}
    dessert_cards = _dessert_cards(game)
    players: dict[str, dict] = {}
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


def winners(game: Game, players: dict[str, dict]) -> list[str]:
    """Highest total (sushi golf: lowest); a tie goes to the most dessert cards; still tied: all."""
    sign = -1 if game.has_variant("sushi-golf") else 1
    best = max((sign * s["total"], s["dessert_cards"]) for s in players.values())
    return [p for p, s in players.items() if (sign * s["total"], s["dessert_cards"]) == best]


def explain(game: Game, result: dict) -> str:
    """The readable text of ``sushicam score --explain``."""
    out = [f"{game.rules.name}: {len(game.rounds)} of 3 rounds" + ("" if game.complete else " (desserts count after round 3)")]
    if game.variants:
        out.append("Variants: " + ", ".join(game.variants))
    for player in game.players:
        score = result["players"][player]
        parts = " + ".join(str(p) for p in score["rounds"])
        out.append("")
        out.append(f"{player}: {score['total']} (rounds {parts or '-'}; dessert {score['dessert']})")
        for r, lines in enumerate(score["breakdown"]):
            out.append(f"  Round {r + 1}: {score['rounds'][r]}")
            out.extend(f"    {line['category']}: {line['detail']}: {line['points']}" for line in lines)
            if not lines:
                out.append("    nothing scored")
        if game.complete:
            out.append(f"  Dessert: {score['dessert']} ({score['dessert_cards']} dessert cards)")
            out.extend(f"    {line['category']}: {line['detail']}: {line['points']}"
                       for line in score["dessert_breakdown"])
    for r, rnd in enumerate(game.rounds):
        for note in rnd.notes:
            out.append(f"Round {r + 1}, {note}")
    out.append("")
    label = "Winner" if len(result["winners"]) == 1 else "Winners (tied)"
    if not game.complete:
        label = "Leading" if len(result["winners"]) == 1 else "Leading (tied)"
    rule = " (sushi golf: lowest wins)" if game.has_variant("sushi-golf") else ""
    out.append(f"{label}: {', '.join(result['winners'])}{rule}")
    return "\n".join(out)
