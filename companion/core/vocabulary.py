"""What the engine can say, tell the host and write to the protocol, as data.

The shells are written against these words: a voice catalogue has a phrase
for every cue in :data:`CUES`, the host log has words for every kind in
:data:`TELLS`, the protocol a line for every kind in :data:`RECORDS`. The
tests replay whole games and check every ``Say``, ``TellHost`` and protocol
record against this module (through core/vocabulary_check.py), so the
vocabulary cannot drift from the engine without a test failing, and a shell
never has to read the engine's source to learn it.

The forum game adds its private notes (:data:`NOTES`): a ``private``
record or host message names a note and carries its arguments, as a
``public`` record carries a cue's. :data:`OWN_CUES` says which cues only one
procedure of play says, so a voice renders ahead what its game can need.

Each argument or field is a (name, kind) pair; :data:`KINDS` says what a
value of each kind looks like. Standard library only, like the rest of the
core; nothing here imports the engine.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "CUES",
    "KINDS",
    "NOTES",
    "OWN_CUES",
    "RECORDS",
    "RULESET_CUES",
    "SELFTEST_CUES",
    "TABLE_CUES",
    "TELLS",
    "UNSHOWN_RECORDS",
    "Args",
    "Fields",
    "Kind",
    "names",
    "procedure_cues",
    "ruleset_cues",
]

Kind = Literal[
    "seat", "maybe_seat", "seats", "seat_list", "int", "number", "bool", "word", "words", "team",
    "tally", "text",
]  # fmt: skip
Args = tuple[tuple[str, Kind], ...]

#: What a value of each kind is. Lists of seats and of teams travel as
#: comma-separated text in cues (a phrase argument is a number or a word);
#: records keep real lists.
KINDS: dict[Kind, str] = {
    "seat": "a seat number (an int from 1)",
    "maybe_seat": "a seat number, or 0 for none (not known; the all-leave vote)",
    "seats": 'seat numbers, comma-separated, at least one ("3,6")',
    "seat_list": "a list of seat numbers, maybe empty",
    "int": "a whole number",
    "number": "a whole or fractional number (seconds, a confidence)",
    "bool": "true or false",
    "word": "an id: one word without spaces or commas (a unit, a reason, a role)",
    "words": "ids, comma-separated, maybe none (teams of a result, roles dealt)",
    "team": 'team ids, comma-separated, at least one ("civilians")',
    "tally": 'seat:votes, comma-separated, most votes first ("5:4,3:2"); "-" for no votes',
    "text": "any text, maybe empty (the host's reason, timers left)",
}

_SEAT: tuple[str, Kind] = ("seat", "seat")
_SECONDS: tuple[str, Kind] = ("seconds", "int")
_VOTES: tuple[str, Kind] = ("votes", "int")

#: The forum game's cues (core/forum*.py): its public announcements, the
#: results posts' words (docs/forum-rules-catalogue.md 3.5, 4.2), and the
#: warning before a deadline.
_FORUM_CUES: dict[str, Args] = {
    # basements: yes / no (roles.mafia.10); child: plain / multi (roles.mafia_child.8)
    "forum_balance": (("basements", "word"), ("child", "word")),
    "forum_day": (("day", "int"),),
    "forum_night": (("day", "int"),),  # the night after game day `day`
    "vote_tally": (("tally", "tally"),),
    "lawyer_protected": (_SEAT,),
    "bouncer_annulled": (_SEAT,),
    "lawyer_skipped": (),
    "bouncer_skipped": (),
    "lawyer_lost_role": (),
    "bouncer_lost_role": (),
    "doctor_lost_role": (),
    "forum_voted_out": (_SEAT,),
    "nobody_voted_out": (),
    "autokill": (_SEAT,),
    "child_killed": (_SEAT,),  # the ДМ voted out (roles.mafia_child.11)
    "forum_killed": (_SEAT,),
    "night_no_deaths": (),
    "cop_missed": (),
    # shooter: sniper / maniac / kamikaze, whose target was in a basement (roles.mafia.7)
    "shooter_missed": (("shooter", "word"),),
    "sniper_joined_mm": (),
    "doctor_healed_healthy": (),
    "kamikaze_saved": (),
    "vampire_bit_child": (),
    "mm_found_child": (),
    "mourning": (),
    # name: day_choices / vote / night; at: its new first refused moment
    "deadline_moved": (("name", "word"), ("at", "text")),
    # the warning before a deadline (DeadlineNear; the ruleset's warning_minutes)
    "deadline_soon": (("name", "word"), ("minutes", "int")),
}

#: Every cue the engine says (the runtime says none of its own), with its
#: arguments in the order the engine gives them.
CUES: dict[str, Args] = {
    "night_falls": (("night", "int"),),
    "city_wakes": (("day", "int"),),
    "speech_start": (_SEAT, _SECONDS),
    "last_word_start": (_SEAT, _SECONDS),
    "tie_speech_start": (_SEAT, _SECONDS),
    "time_warning": (_SECONDS,),
    "time_up": (_SEAT,),
    "speech_lost": (_SEAT,),
    "nomination_accepted": (_SEAT,),
    "voting_begins": (("nominees", "seats"),),
    "vote_question": (_SEAT,),
    "thanks": (),
    "votes_accepted": (_VOTES,),
    "rest_votes": (_SEAT, _VOTES),
    "tie": (("seats", "seats"),),
    "revote_begins": (("nominees", "seats"),),
    "all_leave_question": (("seats", "seats"),),
    "all_leave_accepted": (_VOTES,),
    "all_leave_rejected": (_VOTES,),
    "voted_out": (_SEAT,),
    "no_nominees": (),
    "single_nominee_no_vote": (_SEAT,),
    "warning": (_SEAT,),
    "offence_counted": (_SEAT, ("count", "int"), ("unit", "word")),
    # loss: the rights taken and when, "vote_nominate_next_day"
    "loses_rights": (_SEAT, ("loss", "word")),
    # reason: offence / count / morning
    "removed": (_SEAT, ("reason", "word")),
    "leaves_at_morning": (_SEAT,),
    "miss": (),
    "team_loses": (("team", "team"),),
    "game_won": (("team", "team"),),  # the winners share the win: "civilians,maniac"
    "game_drawn": (),
    "game_stopped": (),
    "undone": (),
    # the undone input had stopped a timer: it is back, paused (engine._undo)
    "undone_paused": (),
    "offence_cancelled": (_SEAT,),
    "time_added": (_SECONDS,),  # negative when the host took time away
    "paused": (),
    "resumed": (),
    **_FORUM_CUES,
}

#: The cues only one procedure of play says (``Ruleset.procedure``). A cue
#: of :data:`CUES` named by none is every procedure's: discipline (what it
#: says follows the ruleset's offences and ladder), the result, the host's
#: controls. A voice renders ahead only what a game of its ruleset can say
#: (voice/phrases.py ``needed_cues``); tests/test_vocabulary.py holds each
#: game to its procedure's cues.
OWN_CUES: dict[str, frozenset[str]] = {
    "sports_table": frozenset(
        {
            *("night_falls", "city_wakes", "miss", "speech_start", "last_word_start"),
            *("tie_speech_start", "time_warning", "time_up", "speech_lost"),
            *("nomination_accepted", "voting_begins", "vote_question", "thanks"),
            *("votes_accepted", "rest_votes", "tie", "revote_begins", "all_leave_question"),
            *("all_leave_accepted", "all_leave_rejected", "voted_out", "no_nominees"),
            "single_nominee_no_vote",
        }
    ),
    "forum": frozenset(_FORUM_CUES),
}

#: Cues a ruleset names, by where it names them: a night step's ``cue`` and
#: ``end_cue`` take no arguments, an offence's ``exempt_cue`` takes the seat.
RULESET_CUES: dict[str, Args] = {"night": (), "exempt": (_SEAT,)}

#: Cues said outside any game, by the seat self-test (``companion
#: selftest``, seats/selftest.py) to the person under the table. Not the
#: engine's, so no game says them (tests/test_vocabulary.py does not look
#: for them); declared here so that the catalogues are held to one list
#: (tests/test_selftest_voice.py).
SELFTEST_CUES: dict[str, Args] = {
    "selftest_begins": (),
    "selftest_seat": (_SEAT,),
    "selftest_host": (("button", "word"),),  # a host button: next / pause / offence
    "selftest_buzzer": (),
    "selftest_silent": (("seats", "seats"),),  # the seats whose button did not answer
    "selftest_ok": (),
    "selftest_failed": (),
}

#: Cues the live table says of its own, not the engine (live/assembly.py,
#: runner/journal_watch.py; docs/faults.md): the journal's disk nearly full,
#: full (the journal goes on elsewhere), or taking no more (inputs refused).
#: Any game can need them, so a voice renders them ahead with the game's.
TABLE_CUES: dict[str, Args] = {
    "disk_low": (),
    "disk_full": (),
    "journal_stopped": (),
}

#: Everything only the host may see (``TellHost``), with its arguments.
TELLS: dict[str, Args] = {
    "role": (_SEAT, ("role", "word")),  # dealt at setup
    # reveals: "role:<id>" or "color:<color>"; answer: yes / no
    "check": (_SEAT, ("target", "seat"), ("reveals", "word"), ("answer", "word")),
    "best_move": (_SEAT, ("black", "int")),
    # a flag the ruleset names no offence for; seat 0: the microphones could not tell
    "speech_flagged": (("kind", "word"), ("seat", "maybe_seat")),
    # the forum game: a private note for the host to pass to seat `to`; its
    # other arguments are the note's (NOTES[cue])
    "private": (("to", "seat"), ("cue", "word")),
    # post: the action or "vote" posted after its deadline (it counts for nothing)
    "late": (_SEAT, ("post", "word")),
    "second_vote": (_SEAT,),  # vote.2: a second post; the first stands
    "parity": (("team", "team"),),  # end.two.3: the host decides whether the Mafia has won
}

#: The forum game's private notes (``private`` records and host messages),
#: each with its arguments (docs/forum-rules-catalogue.md 3.5, "Private
#: messages"). Not spoken: the host passes them on.
NOTES: dict[str, Args] = {
    "your_role": (("role", "word"),),  # the ДМ is told "civilian" (roles.mafia_child.4-5)
    "team_members": (("team", "word"), ("seats", "seats")),
    "cops": (("seats", "seats"),),  # the Cop and the Pom (roles.cop_assistant.2)
    "now_cop": (),
    "now_head": (),  # the new head Zombie (roles.zombie.8)
    "joined_team": (("team", "word"),),
    "joined_cops": (),  # the multi-functional ДМ (roles.mafia_child.7)
    "lost_role": (),  # bitten by the Vampire (roles.vampire.7)
    "found_cop": (_SEAT,),
    "found_don": (_SEAT,),
    "new_member": (_SEAT, ("team", "word")),
    # gun: its owner, a seat's number or a team id (roles.tin_woodman.5)
    "gun_taken": (("gun", "word"),),
    "block_hit": (_SEAT,),
    "block_missed": (_SEAT,),
    "tramp_is": (_SEAT,),
    "tramp_order": (_SEAT,),  # the Bomzh votes for `seat` (roles.tramp.4)
    "cop_checked": (_SEAT,),  # amb.8's option: the Cop's shot met a civilian
}


@dataclass(frozen=True, slots=True)
class Fields:
    """A record kind's fields: those it always has, and those some records
    of the kind add."""

    required: Args
    optional: Args = ()


#: Every kind of protocol record (``Step.record``) with its fields.
RECORDS: dict[str, Fields] = {
    # roles: the dealt role ids in seat order; options: the forum game's, when given
    "setup": Fields(
        (("ruleset", "text"), ("seats", "int"), ("roles", "words"), ("seed", "int")),
        (("options", "words"),),
    ),
    "night": Fields((("number", "int"),)),
    "day": Fields((("number", "int"),)),
    "night_choice": Fields((("step", "word"), _SEAT, ("target", "seat"))),
    "check": Fields((_SEAT, ("target", "seat"), ("answer", "word"))),
    "miss": Fields((("step", "word"),)),
    "counts_reset": Fields((("clause", "text"),)),
    "nomination": Fields((("by", "seat"), ("target", "seat"))),
    "passed": Fields((_SEAT,)),
    "overrun": Fields((_SEAT,)),
    "speech_lost": Fields((_SEAT, ("kind", "word"))),
    "best_move": Fields((_SEAT, ("suspects", "seat_list"), ("black", "int"))),
    # nominee 0: the vote for all the tied leaving; rest: the votes nobody gave
    "votes": Fields(
        (("nominee", "maybe_seat"), _VOTES, ("voters", "seat_list")), (("rest", "bool"),)
    ),
    "tie": Fields((("seats", "seat_list"),)),
    "all_stay": Fields((_VOTES,)),
    # nominee: the single nominee of day 1, who is not voted on
    "no_vote": Fields((("reason", "word"),), (("nominee", "seat"),)),
    "voted_already_out": Fields((_SEAT,)),
    # how: killed / voted / removed; clause: why removed; last_word_s: a vote's last word
    "out": Fields((_SEAT, ("how", "word")), (("clause", "text"), ("last_word_s", "number"))),
    "offence": Fields((_SEAT, ("offence", "word"), ("clause", "text"))),
    "offence_cancelled": Fields((_SEAT, ("offence", "word"), ("clause", "text"))),
    "exempt": Fields((_SEAT, ("role", "word"), ("offence", "word"))),
    "ladder": Fields((_SEAT, ("at", "int"), ("clause", "text"))),
    "proposal_dismissed": Fields((("seat", "maybe_seat"), ("offence", "word"))),
    # phrase and words: a forbidden phrase heard (kind "word")
    "speech_flagged": Fields(
        (("kind", "word"), ("seat", "maybe_seat"), ("confidence", "number")),
        (("phrase", "word"), ("words", "text")),
    ),
    "surrender": Fields((("team", "word"),)),
    "stopped": Fields((("reason", "text"),)),
    "result": Fields((("winners", "words"), ("losers", "words"), ("reason", "word"))),
    # records: the kinds of the records taken back, oldest first; left: the
    # timers the undo brought back paused, as "paused" keeps them
    "undone": Fields((("records", "words"),), (("left", "text"),)),
    # left: each paused timer's seconds, "turn=42.5,night=10"
    "paused": Fields((("left", "text"),)),
    "resumed": Fields(()),
    "time_added": Fields((("seconds", "number"), ("left", "number"))),
    # -- the forum game
    # a public announcement; its other fields are the cue's arguments (CUES)
    "public": Fields((("phase", "word"), ("cue", "word"))),
    # a private note to seat `to`; its other fields are the note's (NOTES)
    "private": Fields((("to", "seat"), ("cue", "word"))),
    # target 0: the choice withdrawn; gun: the Tin Man's taken gun ("" for none)
    "choice": Fields((_SEAT, ("action", "word"), ("target", "maybe_seat"), ("gun", "text"))),
    # target 0: a post naming nobody (amb.36); edit: 1 when the one post was edited
    "vote": Fields((_SEAT, ("target", "maybe_seat"), ("edit", "int"))),
    "late": Fields(
        (_SEAT, ("post", "word"), ("at", "text"), ("deadline", "text"), ("clause", "text"))
    ),
    "second_vote": Fields((_SEAT, ("target", "maybe_seat"), ("clause", "text"))),
    "skip": Fields((_SEAT, ("skips", "int"), ("clause", "text"))),
    "deadline": Fields((("name", "word"),)),
    "lost_move": Fields((_SEAT, ("clause", "text"))),
    # seat: the Tin Man; hit: 1 when the block voided a gun
    "block": Fields((_SEAT, ("target", "seat"), ("hit", "int"), ("clause", "text"))),
    "night_clauses": Fields((("clauses", "words"),)),  # what the night's outcome rests on
    "role_changed": Fields((_SEAT, ("was", "word"), ("role", "word"), ("team", "word"))),
    "win_declared": Fields((("teams", "team"),)),
}

#: Record kinds the protocol does not show, each with the reason. Every
#: other kind has a line in the protocol's templates (protocol/report.py).
UNSHOWN_RECORDS: dict[str, str] = {}


def names(args: Args) -> tuple[str, ...]:
    """The argument names alone, in order."""
    return tuple(name for name, _ in args)


def procedure_cues(procedure: str) -> dict[str, Args]:
    """The engine's cues a game of `procedure` can say, with their arguments:
    its own and every procedure's (:data:`OWN_CUES`)."""
    others = set().union(*(own for name, own in OWN_CUES.items() if name != procedure))
    return {cue: args for cue, args in CUES.items() if cue not in others}


def ruleset_cues(night: Iterable[str] = (), exempt: Iterable[str] = ()) -> dict[str, Args]:
    """The arguments of the cues a ruleset names: its night steps' cues and
    end cues (`night`) and its offences' exempt cues (`exempt`)."""
    cues = dict.fromkeys(night, RULESET_CUES["night"])
    cues.update(dict.fromkeys(exempt, RULESET_CUES["exempt"]))
    return cues
