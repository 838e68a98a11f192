"""The shipped rulesets against their seed texts, and the loader's errors.

The seed texts live beside the repository in ``../shared/seeds``; the tests
that compare with them are skipped when that folder is absent.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

from companion.config.rulesets import RULESET_DIR, available_rulesets, load_ruleset, ruleset_digest
from companion.core.rules import Ruleset
from companion.core.ruleset_load import DataFileError, parse_ruleset
from companion.textfiles.toml_lines import format_path, key_lines

SEEDS = Path(__file__).resolve().parents[2] / "shared" / "seeds"
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"no seed texts at {SEEDS}")


def seed_text(ruleset: Ruleset) -> str:
    return (SEEDS / ruleset.source).read_text(encoding="utf-8")


def normalise(text: str) -> str:
    """Whitespace collapsed, every kind of quote made one."""
    text = re.sub(r"[«»“”„\"']", '"', text)
    return " ".join(text.split())


@pytest.fixture(scope="module")
def tournament() -> Ruleset:
    return load_ruleset("tournament")


@pytest.fixture(scope="module")
def club() -> Ruleset:
    return load_ruleset("club")


# -- both rulesets ---------------------------------------------------------


def test_shipped_rulesets_are_listed() -> None:
    assert {"club", "tournament"} <= set(available_rulesets())


@pytest.mark.parametrize("name", ["club", "tournament"])
def test_ruleset_loads_by_name_and_by_path(name: str) -> None:
    by_name = load_ruleset(name)
    assert by_name.name == name
    assert load_ruleset(str(RULESET_DIR / f"{name}.toml")) == by_name
    ids = [offence.id for offence in by_name.offences]
    assert len(ids) == len(set(ids))
    for count, deal in by_name.deals:
        assert sum(n for _, n in deal) == count
    assert by_name.deal_for(10) is not None


@needs_seeds
@pytest.mark.parametrize("name", ["club", "tournament"])
def test_every_offence_text_is_quoted_from_the_seed(name: str) -> None:
    ruleset = load_ruleset(name)
    seed = normalise(seed_text(ruleset))
    for offence in ruleset.offences:
        assert normalise(offence.text) in seed, offence.id


def test_unknown_ruleset_name_fails_clearly() -> None:
    with pytest.raises(DataFileError) as caught:
        load_ruleset("nosuch")
    message = str(caught.value)
    assert "'nosuch'" in message
    assert "available: " in message
    assert "club" in message and "tournament" in message


def test_missing_ruleset_file_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(DataFileError, match="no such ruleset file"):
        load_ruleset(str(tmp_path / "gone.toml"))


def test_rulesets_folder_from_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "mini.toml"
    path.write_text(MINI, encoding="utf-8")
    monkeypatch.setenv("COMPANION_RULESETS", str(tmp_path))
    assert available_rulesets() == ["mini"]
    assert load_ruleset("mini").name == "mini"
    digest = ruleset_digest("mini")
    assert digest == hashlib.sha256(path.read_bytes()).hexdigest()
    path.write_text(MINI.replace('title = "Mini"', 'title = "Mini 2"'), encoding="utf-8")
    assert ruleset_digest("mini") != digest
    path.write_text(MINI.replace("at = 4", "at = 2"), encoding="utf-8")
    with pytest.raises(DataFileError) as caught:
        load_ruleset("mini")
    assert str(caught.value).startswith(f"{path.resolve()}:")
    assert caught.value.key == "ladder.steps[1].at"


# -- tournament ------------------------------------------------------------

# 3.1.x violation -> the sanction clause that covers it
VIOLATIONS = {
    "3.1.1": "4.6.8",
    "3.1.2": "4.6.8",
    "3.1.3": "4.8.2",
    "3.1.4": "4.8.3",
    "3.1.5": "4.7.4",
    "3.1.6": "4.7.3",
    "3.1.7": "4.7.6",
    "3.1.8": "4.7.2",
    "3.1.9": "4.7.1",
    "3.1.10": "4.6.3",
    "3.1.11": "4.6.2",
    "3.1.12": "4.6.1",
    "3.1.13": "4.6.4",
    "3.1.14": "4.6.5",
    "3.1.15": "4.6.6",
    "3.1.16": "4.6.7",
}
SANCTIONS = (
    [(f"4.6.{n}", "count") for n in range(1, 9)]
    + [(f"4.7.{n}", "removal") for n in range(1, 8)]
    + [(f"4.8.{n}", "team_loss") for n in range(1, 5)]
    + [("4.3", "warning")]
)


@pytest.mark.parametrize(("clause", "cost"), SANCTIONS)
def test_tournament_sanction_clause_has_an_entry(
    tournament: Ruleset, clause: str, cost: str
) -> None:
    entries = [o for o in tournament.offences if o.clause == clause]
    assert len(entries) == 1
    assert entries[0].cost == cost


@pytest.mark.parametrize(("violation", "clause"), sorted(VIOLATIONS.items()))
def test_tournament_violation_is_sanctioned(
    tournament: Ruleset, violation: str, clause: str
) -> None:
    covering = [o.clause for o in tournament.offences if violation in o.violations]
    assert covering == [clause]


@needs_seeds
def test_tournament_entries_quote_their_own_clause(tournament: Ruleset) -> None:
    clauses = {}
    for line in seed_text(tournament).splitlines():
        if match := re.match(r"(\d+(?:\.\d+)+)\.?\s+(.*)", line.strip()):
            clauses[match.group(1)] = normalise(match.group(2))
    assert {f"3.1.{n}" for n in range(1, 17)} <= clauses.keys()
    assert {c for c, _ in SANCTIONS} <= clauses.keys()
    assert set(VIOLATIONS) == {v for o in tournament.offences for v in o.violations}
    for offence in tournament.offences:
        assert normalise(offence.text) in clauses[offence.clause], offence.id
        for extra in offence.see_also:
            assert extra in clauses


def test_tournament_special_cases(tournament: Ruleset) -> None:
    peeking = tournament.offence("4.8.2")
    assert peeking.excluded and peeking.see_also == ("5.3",)
    leaving = tournament.offence("4.7.1")
    assert (leaving.team_loss_when_alive, leaving.team_loss_clause) == (4, "4.8.4")
    three, four = tournament.ladder.steps
    assert tournament.ladder.unit == "foul" and not tournament.ladder.reset_after_night
    assert (three.at, three.clause, three.loses, three.bites) == (
        3,
        "4.4",
        ("speech",),
        "this_round_or_next",
    )
    assert (four.at, four.clause, four.removal) == (4, "4.5", True)
    assert (four.team_loss_when_alive, four.team_loss_clause) == (4, "4.8.4")
    voting = tournament.voting
    assert voting.release_before_thanks == "offence"
    assert tournament.offence(voting.release_before_thanks_offence or "").clause == "4.6.4"
    assert voting.removed_nominee_stays and voting.day1_single_nominee_no_vote
    assert tournament.timings.multi_leave_last_word_s == 30  # 5.5
    assert tournament.timings.silenced_tie_speech_s == 30  # 5.4
    assert tournament.timings.last_word_s == 60
    miss = tournament.miss_rule
    assert miss is not None and (miss.alive, miss.nights, miss.winner, miss.clause) == (
        4,
        3,
        "red",
        "5.2",
    )
    assert tournament.draw_when_empty and tournament.draw_clause == "5.6"
    assert tournament.deal_for(10) == (("civilian", 6), ("sheriff", 1), ("mafia", 2), ("don", 1))
    assert [count for count, _ in tournament.deals] == [7, 8, 9, 10, 11, 12]
    assert [s.id for s in tournament.night0] == ["agreement", "free_seating"]
    assert [s.id for s in tournament.night] == ["shot", "don_check", "sheriff_check"]


# -- club --------------------------------------------------------------------

CLUB_LISTS = {
    # section -> (heading that opens the bulleted list, bullets, first bullet
    # that is an offence entry rather than the ladder)
    "remarks": ("Нарушения, за которые в игре ставятся замечания:", 9, 1),
    "removal": ("Нарушения, за которые происходит удаление участника", 9, 2),
    "team_loss": ("Автоматическое присуждение поражения команде", 7, 1),
}


def club_bullets(seed: str, heading: str) -> list[str]:
    """The bullets of the list that follows `heading`, up to the next paragraph."""
    lines = seed[seed.index(heading) :].splitlines()[1:]
    bullets = []
    for line in lines:
        if line.startswith("•"):
            bullets.append(normalise(line.lstrip("• ").rstrip(";. ")))
        elif line.strip():
            break
    return bullets


@needs_seeds
@pytest.mark.parametrize("section", sorted(CLUB_LISTS))
def test_club_every_bullet_has_an_entry(club: Ruleset, section: str) -> None:
    heading, count, first = CLUB_LISTS[section]
    bullets = club_bullets(seed_text(club), heading)
    assert len(bullets) == count
    for number, bullet in enumerate(bullets, start=1):
        clause = f"{section}.{number}"
        entries = [o for o in club.offences if o.clause == clause]
        if number < first:
            assert not entries
            assert clause in [step.clause for step in club.ladder.steps]
            continue
        assert entries, clause
        for offence in entries:
            assert normalise(offence.text) in bullet, offence.id
    clauses = {o.clause for o in club.offences if o.clause.startswith(f"{section}.")}
    assert clauses == {f"{section}.{n}" for n in range(first, count + 1)}


CLUB_COSTS = [
    ("incorrect_statements", "remarks.9", "count"),
    ("incorrect_statements_removal", "remarks.9", "removal"),
    ("deliberate_peeking", "removal.3", "removal"),
    ("unintentional_peeking", "removal.3", "removal_at_morning"),
    ("mafia_maniac_deal", "team_loss.6", "team_loss"),
    ("leaving_with_last_word", "team_loss.7", "team_loss"),
    ("self_leaving", "rating.1", "removal"),
    ("warning", "general.2", "warning"),
]


@pytest.mark.parametrize(("ident", "clause", "cost"), CLUB_COSTS)
def test_club_entry_cost(club: Ruleset, ident: str, clause: str, cost: str) -> None:
    offence = club.offence(ident)
    assert (offence.clause, offence.cost) == (clause, cost)


def test_club_special_cases(club: Ruleset) -> None:
    counted = {o.clause for o in club.offences if o.cost == "count"}
    assert counted == {f"remarks.{n}" for n in range(1, 10)}
    assert club.offence("deliberate_peeking").excluded
    assert club.offence("mafia_maniac_deal").teams_lose == ("mafia", "maniac")
    assert club.offence("outside_hint").while_out
    leaving = club.offence("leaving_with_last_word")
    assert leaving.while_out and leaving.exempt_roles == ("maniac",)
    assert leaving.exempt_cue == "maniac_left"
    rating = club.offence("self_leaving")
    assert rating.rating_penalty == 10 and rating.exempt_roles == ("maniac",)
    ladder = club.ladder
    assert ladder.unit == "remark" and ladder.reset_after_night
    assert [(s.at, s.loses, s.removal) for s in ladder.steps] == [
        (3, ("speech",), False),
        (4, ("speech", "nomination", "vote"), False),
        (5, (), True),
    ]
    assert all(s.bites == "next_day" for s in ladder.steps)
    voting = club.voting
    assert voting.release_before_thanks == "withdraw"
    assert voting.release_before_accepted_offence == "hand_release_before_accepted"
    assert voting.self_vote_offence == voting.second_vote_offence == "provoking_host_in_vote"
    assert (club.timings.last_word_s, club.timings.multi_leave_last_word_s) == (30, 30)
    assert club.miss_rule is None
    assert [t.id for t in club.teams] == ["civilians", "mafia", "maniac"]
    assert club.deal_for(10) == (
        ("civilian", 3),
        ("sheriff", 1),
        ("doctor", 1),
        ("putana", 1),
        ("mafia", 2),
        ("don", 1),
        ("maniac", 1),
    )
    assert [s.id for s in club.night] == [
        "putana",
        "shot",
        "don_check",
        "maniac",
        "doctor",
        "sheriff_check",
    ]


@needs_seeds
def test_club_reset_clause_quotes_the_seed(club: Ruleset) -> None:
    assert club.ladder.reset_clause
    assert normalise(club.ladder.reset_clause) in normalise(seed_text(club))


# -- loader errors -----------------------------------------------------------

MINI = """\
name = "mini"
title = "Mini"
source = "seed.txt"
seats = { min = 4, max = 10 }

[timings]
speech_s = 60

[voting]
release_before_thanks = "offence"
release_before_thanks_offence = "speech_out_of_turn"

[ladder]
unit = "foul"

[[ladder.steps]]
at = 3
clause = "4.4"
loses = ["speech"]

[[ladder.steps]]
at = 4
clause = "4.5"
removal = true

[teams.red]
name = "Красные"
color = "red"
win = "eliminate"

[teams.black]
name = "Чёрные"
color = "black"
win = "parity"

[roles.civilian]
name = "Мирный"
team = "red"

[roles.mafia]
name = "Мафия"
team = "black"

[deals]
"4" = { civilian = 3, mafia = 1 }

[[night0]]
id = "agreement"
cue = "mafia_agree"
roles = ["mafia"]
action = "none"
seconds = 60

[[night]]
id = "shot"
cue = "mafia_hunts"
roles = ["mafia"]
action = "shoot"

[[night]]
id = "check"
cue = "sheriff_wakes"
roles = ["civilian"]
action = "check"
reveals = "color:black"

[offences.speech_out_of_turn]
clause = "4.6.1"
text = "речь"
cost = "count"

[offences.leaving]
clause = "4.8.2"
text = "уход"
cost = "team_loss"
teams_lose = ["black"]
exempt_roles = ["mafia"]

[miss_rule]
alive = 4
nights = 3
winner = "red"
clause = "5.2"
"""
SOURCE = "rulesets/mini.toml"

# (case id, text replaced, replacement, expected key, text whose first line is
# the expected line or None for no line, words the message must contain)
# fmt: off
ERRORS = [
    ("syntax", 'unit = "foul"', 'unit = "foul', None, 'unit = "foul', "invalid TOML"),
    ("syntax-dup-key", 'cost = "count"', 'cost = "count"\ncost = "count"', None, 'cost = "count"\n\n[offences.leaving]', "invalid TOML"),
    ("unknown-top", 'title = "Mini"', 'title = "Mini"\ntitel = "x"', "titel", 'titel = "x"', "did you mean 'title'"),
    ("unknown-inline", "max = 10 }", "max = 10, maxi = 3 }", "seats.maxi", "seats =", "unknown key"),
    ("unknown-team-key", 'color = "red"', 'color = "red"\ncolour = "red"', "teams.red.colour", "colour", "did you mean 'color'"),
    ("unknown-step-key", "removal = true", "removal = true\nremoved = 1", "ladder.steps[1].removed", "removed =", "unknown key"),
    ("unknown-offence-key", 'text = "уход"', 'text = "уход"\nwhile = true', "offences.leaving.while", "while =", "unknown key"),
    ("missing-top", 'title = "Mini"\n', "", "title", None, "required key is missing"),
    ("missing-team-win", 'win = "parity"\n', "", "teams.black.win", "[teams.black]", "missing"),
    ("missing-step-clause", 'clause = "4.5"\n', "", "ladder.steps[1].clause", "[[ladder.steps]]\nat = 4", "missing"),
    ("missing-roles", 'roles = ["civilian"]\n', "", "night[1].roles", '[[night]]\nid = "check"', "missing"),
    ("missing-seats", "seats = { min = 4, max = 10 }\n", "", "seats", None, "missing"),
    ("missing-ladder-unit", '[ladder]\nunit = "foul"\n', "", "ladder.unit", "[[ladder.steps]]", "missing"),
    ("type-str-for-int", "at = 3", 'at = "3"', "ladder.steps[0].at", 'at = "3"', "expected an integer, got '3'"),
    ("type-bool-for-int", "alive = 4", "alive = true", "miss_rule.alive", "alive = true", "expected an integer, got true"),
    ("type-float-for-int", "nights = 3", "nights = 3.0", "miss_rule.nights", "nights = 3.0", "expected an integer"),
    ("type-bool-for-float", "speech_s = 60", "speech_s = true", "timings.speech_s", "speech_s", "expected a number, got true"),
    ("type-str-for-float", "speech_s = 60", 'speech_s = "60"', "timings.speech_s", "speech_s", "expected a number"),
    ("type-int-for-bool", "removal = true", "removal = 1", "ladder.steps[1].removal", "removal = 1", "expected true or false"),
    ("type-list-item", 'loses = ["speech"]', 'loses = ["speech", 3]', "ladder.steps[0].loses[1]", "loses =", "expected a string, got 3"),
    ("type-table", "[timings]\nspeech_s = 60", "timings = 60", "timings", "timings = 60", "expected a table, got 60"),
    ("negative-seconds", "seconds = 60", "seconds = -1", "night0[0].seconds", "seconds = -1", "must be from 0.1 to 86400 seconds, got -1"),
    ("enum-cost", 'cost = "count"', 'cost = "fowl"', "offences.speech_out_of_turn.cost", 'cost = "fowl"', "'fowl' is not one of warning, count, removal, removal_at_morning, team_loss"),
    ("enum-win", 'win = "parity"', 'win = "most"', "teams.black.win", 'win = "most"', "is not one of eliminate, parity"),
    ("enum-action", 'action = "shoot"', 'action = "stab"', "night[0].action", 'action = "stab"', "is not one of none, shoot, kill, check, heal, block"),
    ("enum-right", 'loses = ["speech"]', 'loses = ["voice"]', "ladder.steps[0].loses[0]", "loses =", "unknown right 'voice'"),
    ("enum-bites", 'loses = ["speech"]', 'loses = ["speech"]\nbites = "later"', "ladder.steps[0].bites", "bites =", "is not one of this_round_or_next, next_day"),
    ("enum-release", 'release_before_thanks = "offence"', 'release_before_thanks = "foul"', "voting.release_before_thanks", "release_before_thanks =", "is not one of offence, withdraw"),
    ("ref-role-team", 'team = "black"', 'team = "blue"', "roles.mafia.team", 'team = "blue"', "unknown team 'blue'"),
    ("ref-night-role", 'roles = ["mafia"]\naction = "shoot"', 'roles = ["mafai"]\naction = "shoot"', "night[0].roles[0]", 'roles = ["mafai"]', "unknown role 'mafai'"),
    ("ref-deal-role", "civilian = 3, mafia = 1", "civilian = 3, mafiaa = 1", "deals.4.mafiaa", '"4" =', "unknown role 'mafiaa'"),
    ("ref-voting-offence", '= "speech_out_of_turn"', '= "speech"', "voting.release_before_thanks_offence", 'release_before_thanks_offence', "unknown offence 'speech'"),
    ("ref-miss-winner", 'winner = "red"', 'winner = "green"', "miss_rule.winner", "winner =", "unknown team 'green'"),
    ("ref-teams-lose", 'teams_lose = ["black"]', 'teams_lose = ["red", "blue"]', "offences.leaving.teams_lose[1]", "teams_lose", "unknown team 'blue'"),
    ("ref-exempt-roles", 'exempt_roles = ["mafia"]', 'exempt_roles = ["don"]', "offences.leaving.exempt_roles[0]", "exempt_roles", "unknown role 'don'"),
    ("dup-step-id", 'id = "check"', 'id = "shot"', "night[1].id", 'id = "shot"\ncue = "sheriff', "used twice"),
    ("dup-step-id-night0", 'id = "agreement"', 'id = "shot"', "night[0].id", 'id = "shot"\ncue = "mafia_hunts"', "used twice"),
    ("dup-list-item", 'roles = ["mafia"]\naction = "shoot"', 'roles = ["mafia", "mafia"]\naction = "shoot"', "night[0].roles[1]", 'roles = ["mafia", "mafia"]', "listed twice"),
    ("dup-offence-id", '[offences.leaving]', '[offences.speech_out_of_turn]', None, '[offences.speech_out_of_turn]\nclause = "4.8.2"', "invalid TOML"),
    ("deal-sum", "civilian = 3, mafia = 1", "civilian = 2, mafia = 1", "deals.4", '"4" =', "hands out 3 roles for 4 seats"),
    ("deal-seats", '"4" = { civilian = 3, mafia = 1 }', '"40" = { civilian = 39, mafia = 1 }', "deals.40", '"40" =', "outside seats 4..10"),
    ("deal-key", '"4" = {', '"four" = {', "deals.four", '"four"', "keyed by its seat count"),
    ("check-no-reveals", 'reveals = "color:black"\n', "", "night[1].reveals", '[[night]]\nid = "check"', "must say what it reveals"),
    ("check-unknown-role", 'reveals = "color:black"', 'reveals = "role:sheriff"', "night[1].reveals", "reveals =", "unknown role 'sheriff'"),
    ("check-unknown-color", 'reveals = "color:black"', 'reveals = "color:green"', "night[1].reveals", "reveals =", "unknown color 'green'"),
    ("check-bad-kind", 'reveals = "color:black"', 'reveals = "team:black"', "night[1].reveals", "reveals =", "role:<id> or color:<color>"),
    ("reveals-not-check", 'action = "shoot"', 'action = "shoot"\nreveals = "color:black"', "night[0].reveals", 'reveals = "color:black"\n\n', "only a check"),
    ("shoot-no-roles", 'roles = ["mafia"]\naction = "shoot"', 'roles = []\naction = "shoot"', "night[0].roles", "roles = []", "at least one role"),
    ("night0-from-night", "seconds = 60\n", "seconds = 60\nfrom_night = 1\n", "night0[0].from_night", "from_night", "night 0"),
    ("ladder-order", "at = 4", "at = 3", "ladder.steps[1].at", "at = 3\nclause = \"4.5\"", "must increase: 3 comes after 3"),
    ("ladder-at-zero", "at = 3", "at = 0", "ladder.steps[0].at", "at = 0", "at least 1"),
    ("name-stem", 'name = "mini"', 'name = "other"', "name", 'name = "other"', "must equal the file name 'mini'"),
    ("seats-order", "seats = { min = 4, max = 10 }", "seats = { min = 4, max = 3 }", "seats.max", "seats =", "at least 4"),
    ("release-needs-offence", 'release_before_thanks_offence = "speech_out_of_turn"\n', "", "voting.release_before_thanks", "release_before_thanks =", "needs release_before_thanks_offence"),
    ("teams-lose-not-team-loss", 'cost = "team_loss"', 'cost = "removal"', "offences.leaving.teams_lose", "teams_lose", "only an offence with cost 'team_loss'"),
    ("bad-id", "[offences.leaving]", "[offences.Leaving]", "offences.Leaving", "[offences.Leaving]", "snake_case"),
    ("long-id", "[offences.leaving]", f"[offences.{'l' * 65}]", f'offences."{"l" * 37}..."', "[offences.lll", "at most 64 characters"),
    # limits (docs/rulesets.md, "Limits")
    ("timer-zero", "speech_s = 60", "speech_s = 0", "timings.speech_s", "speech_s = 0", "must be from 0.1 to 86400 seconds, got 0"),
    ("timer-negative", "speech_s = 60", "speech_s = -0.5", "timings.speech_s", "speech_s", "got -0.5"),
    ("timer-tiny", "speech_s = 60", "speech_s = 5e-324", "timings.speech_s", "speech_s", "got 5e-324"),
    ("timer-nan", "speech_s = 60", "speech_s = nan", "timings.speech_s", "speech_s", "got nan"),
    ("timer-inf", "speech_s = 60", "speech_s = inf", "timings.speech_s", "speech_s", "got inf"),
    ("timer-overflow", "speech_s = 60", "speech_s = 1e400", "timings.speech_s", "speech_s", "got inf"),
    ("timer-day", "speech_s = 60", "speech_s = 86_401", "timings.speech_s", "speech_s", "got 86401"),
    ("timer-400-digits", "speech_s = 60", f"speech_s = {'9' * 400}", "timings.speech_s", "speech_s", "got an integer of 400 digits"),
    ("warning-negative", "speech_s = 60", "speech_s = 60\nwarning_s = -1", "timings.warning_s", "warning_s", "from 0.1 to 86400 seconds or 0 (off), got -1"),
    ("night-step-zero", "seconds = 60", "seconds = 0", "night0[0].seconds", "seconds = 0", "got 0"),
    ("seats-one", "seats = { min = 4, max = 10 }", "seats = { min = 1, max = 10 }", "seats.min", "seats =", "must be at least 2, got 1"),
    ("seats-table", "seats = { min = 4, max = 10 }", "seats = { min = 4, max = 41 }", "seats.max", "seats =", "must be at most 40, got 41"),
    ("seats-huge", "seats = { min = 4, max = 10 }", f"seats = {{ min = 4, max = {10**30} }}", "seats.max", "seats =", "must be at most 40, got an integer of 31 digits"),
    ("deal-count", "civilian = 3, mafia = 1", "civilian = 3, mafia = -1", "deals.4.mafia", '"4" =', "at least 1, got -1"),
    ("deal-count-huge", "civilian = 3, mafia = 1", f"civilian = 3, mafia = {10**30}", "deals.4.mafia", '"4" =', "at most 4, got an integer of 31 digits"),
    ("deal-key-zeros", '"4" = {', '"04" = {', "deals.04", '"04"', "keyed by its seat count"),
    ("deal-key-long", '"4" = {', f'"{"4" * 5000}" = {{', f'deals."{"4" * 37}..."', '"444', "keyed by its seat count"),
    ("from-night", 'action = "shoot"', 'action = "shoot"\nfrom_night = 101', "night[0].from_night", "from_night", "at most 100, got 101"),
    ("ladder-at", "at = 4", "at = 21", "ladder.steps[1].at", "at = 21", "at most 20, got 21"),
    ("rating-penalty", 'text = "уход"', 'text = "уход"\nrating_penalty = 1001', "offences.leaving.rating_penalty", "rating_penalty", "at most 1000"),
    ("team-loss-alive", 'text = "уход"', 'text = "уход"\nteam_loss_when_alive = 11', "offences.leaving.team_loss_when_alive", "team_loss_when_alive", "at most 10, got 11"),
    ("miss-alive", "alive = 4", "alive = 11", "miss_rule.alive", "alive = 11", "at most 10, got 11"),
    ("miss-nights", "nights = 3", "nights = 101", "miss_rule.nights", "nights = 101", "at most 100, got 101"),
    ("list-long", 'loses = ["speech"]', f"loses = [{', '.join(['1'] * 101)}]", "ladder.steps[0].loses", "loses =", "at most 100 items, got 101"),
    ("digits-5000", "nights = 3", f"nights = {'1' * 5000}", None, "nights =", "invalid TOML: an integer of more than 4300 digits"),
    ("deep-arrays", 'unit = "foul"', f'unit = "foul"\nx = {"[" * 17}{"]" * 17}', "ladder.x" + "[0]" * 15, "x = [", "nested more than 16 deep"),
    ("deep-recursion", 'unit = "foul"', f'unit = "foul"\nx = {"[" * 2000}{"]" * 2000}', None, "x = [", "nested more than 16 deep"),
    ("deep-inline", 'unit = "foul"', f'unit = "foul"\nx = {"{a = " * 2000}1{" }" * 2000}', None, "x = {", "nested more than 16 deep"),
    ("deep-dotted", 'unit = "foul"', f'unit = "foul"\n{"a." * 50000}b = 1', None, "a.a.", "nested more than 16 deep"),
    ("deep-header", "[ladder]", f"[{'ladder.' * 30}x]", None, "[ladder.ladder", "nested more than 16 deep"),
]
# fmt: on


def line_of(text: str, needle: str) -> int:
    assert text.count(needle) >= 1, needle
    return text[: text.index(needle)].count("\n") + 1


def test_the_base_of_the_error_cases_is_valid() -> None:
    ruleset = parse_ruleset(MINI, SOURCE)
    assert ruleset.name == "mini" and ruleset.night[0].seconds == ruleset.timings.night_step_s
    assert ruleset.night0[0].from_night == 0 and ruleset.night[0].from_night == 1


@pytest.mark.parametrize(
    ("old", "new", "key", "at", "words"),
    [case[1:] for case in ERRORS],
    ids=[case[0] for case in ERRORS],
)
def test_broken_ruleset_names_source_key_and_line(
    old: str, new: str, key: str | None, at: str | None, words: str
) -> None:
    assert MINI.count(old) == 1, old
    text = MINI.replace(old, new)
    with pytest.raises(DataFileError) as caught:
        parse_ruleset(text, SOURCE)
    error = caught.value
    line = None if at is None else line_of(text, at)
    assert (error.source, error.key, error.line) == (SOURCE, key, line)
    where = SOURCE if line is None else f"{SOURCE}:{line}"
    message = str(error)
    assert message.startswith(f"{where}: {key}: " if key else f"{where}: ")
    assert words in message
    assert "\n" not in message


@pytest.mark.parametrize(
    ("old", "new", "shown"),
    [
        ('cost = "count"', f'cost = "{"x" * 500_000}"', "'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' is not one of"),
        ('title = "Mini"', 'title = "Mini"\n"a\\nb\\u2028c" = 1', 'rulesets/mini.toml:3: "a\\nb\\u2028c": unknown key'),
        ('title = "Mini"', f'title = "Mini"\n{"k" * 500_000} = 1', f'rulesets/mini.toml:3: "{"k" * 37}...": unknown key'),
    ],
    ids=["long-value", "newline-key", "long-key"],
)  # fmt: skip
def test_an_error_is_one_short_line_whatever_the_file_holds(old: str, new: str, shown: str) -> None:
    with pytest.raises(DataFileError) as caught:
        parse_ruleset(MINI.replace(old, new), SOURCE)
    message = str(caught.value)
    assert shown in message
    assert len(message.splitlines()) == 1 and len(message) < 200


def test_a_ruleset_file_is_utf8_and_at_most_a_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "mini.toml"
    path.write_bytes(MINI.encode().replace("Мафия".encode(), b"\xd0\xd0\xd0"))
    line = line_of(MINI, "Мафия")
    with pytest.raises(
        DataFileError, match=rf"mini\.toml:{line}: not UTF-8 text: byte 0xd0 at byte 9 "
    ):
        load_ruleset(path)
    path.write_bytes(MINI.encode() + b"#" * (1 << 20))
    with pytest.raises(DataFileError, match=r"mini\.toml: the file is larger than 1048576 bytes"):
        load_ruleset(path)
    path.write_bytes(b"\xef\xbb\xbf" + MINI.encode())  # a byte order mark is fine
    assert load_ruleset(path).name == "mini"


def test_at_most_eight_teams() -> None:
    teams = "".join(
        f'[teams.t{n}]\nname = "T"\ncolor = "c"\nwin = "eliminate"\n\n' for n in range(7)
    )
    text = MINI.replace("[teams.red]", teams + "[teams.red]")
    with pytest.raises(DataFileError, match=r"mini\.toml:\d+: teams: at most 8 entries, got 9$"):
        parse_ruleset(text, SOURCE)


def test_a_timer_that_may_be_off() -> None:
    text = MINI.replace("speech_s = 60", "speech_s = 60\nwarning_s = 0\nsilenced_tie_speech_s = 0")
    timings = parse_ruleset(text, SOURCE).timings
    assert timings.warning_s == 0 and timings.silenced_tie_speech_s == 0
    text = MINI.replace("speech_s = 60", "speech_s = 86_400\nvote_window_s = 0.1")
    timings = parse_ruleset(text, SOURCE).timings
    assert timings.speech_s == 86_400 and timings.vote_window_s == 0.1


def test_error_message_format() -> None:
    text = MINI.replace('cost = "count"', 'cost = "fowl"')
    with pytest.raises(DataFileError) as caught:
        parse_ruleset(text, "rulesets/mini.toml")
    assert str(caught.value) == (
        f"rulesets/mini.toml:{line_of(text, 'fowl')}: offences.speech_out_of_turn.cost: "
        "'fowl' is not one of warning, count, removal, removal_at_morning, team_loss,"
        " demotion, lost_move"
    )
    assert isinstance(caught.value, ValueError)


# -- the line scanner ----------------------------------------------------------

SCANNED = '''\
a = 1  # comment
seats = { min = 4, max = 12 }
"quoted.key" = 'x'
dotted.key = """one
two"""
list = [
  1,  # a comment with a ] bracket
  { x = "]", y.z = 2 },
]
[t.u]
v = "#not a comment"
[[arr]]
w = 1
[[arr]]
w = 2
[arr.sub]
k = true
[[arr.items]]
i = 0
'''
SCANNED_LINES = [
    ("a", 1),
    ("seats.min", 2),
    ("seats.max", 2),
    ('"quoted.key"', 3),
    ("dotted.key", 4),
    ("list", 6),
    ("list[0]", 7),
    ("list[1]", 8),
    ("list[1].x", 8),
    ("list[1].y.z", 8),
    ("t", 10),
    ("t.u", 10),
    ("t.u.v", 11),
    ("arr[0]", 12),
    ("arr[0].w", 13),
    ("arr[1]", 14),
    ("arr[1].w", 15),
    ("arr[1].sub", 16),
    ("arr[1].sub.k", 17),
    ("arr[1].items[0]", 18),
    ("arr[1].items[0].i", 19),
]


@pytest.mark.parametrize(("path", "line"), SCANNED_LINES)
def test_key_lines(path: str, line: int) -> None:
    lines = {format_path(p): n for p, n in key_lines(SCANNED).items()}
    assert lines[path] == line


@pytest.mark.parametrize(
    "text", ['a = 1\nb = "open\n', "a = 1\n= 2\n", "a = 1\nb = [1, {c = 'x", "a = 1\n[b\n"]
)
def test_key_lines_survives_text_that_is_not_toml(text: str) -> None:
    assert key_lines(text)[("a",)] == 1
