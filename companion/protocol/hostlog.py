"""What only the host sees, as text lines: check answers, dealt roles,
proposed offences, inputs that did nothing; in the forum game the private
notes to pass on (``forum_text``), late and second posts, parity. Until the
console exists this is how a live run shows them."""

from __future__ import annotations

import re
import sys
from typing import TextIO

from ..core.effects import Effect, Ignored, ProposeOffence, TellHost
from ..core.events import WORD_REASON
from ..core.rules import Ruleset
from ..textfiles.printable import printable
from .forum_text import WORDS, note_text
from .lines import flag_fields
from .names import clause_text, offence_text, role_name, team_name

_RU = {
    "role": "Место {seat}: роль {role}",
    "check": "Проверка: игрок {seat} → игрок {target}: {reveals}? {answer}",
    "best_move": "Лучший ход игрока {seat}: чёрных {black}",
    "speech_flagged": "Микрофон: {kind} (место {seat}); правила не называют нарушения",
    # the forum game; a private note's words: forum_text.NOTES
    "private": "Лично игроку {to}: {cue}",
    "late": "Игрок {seat}: {post} после срока — не засчитано",
    "second_vote": "Игрок {seat}: второй пост в голосовании — не засчитан, в силе первый",
    "parity": "Паритет: {team} — решите, объявлять ли победу (конец игры, двухсторонка, п. 3)",
}
_EN = {
    "role": "Seat {seat}: role {role}",
    "check": "Check: seat {seat} → seat {target}: {reveals}? {answer}",
    "best_move": "Best move of seat {seat}: {black} black",
    "speech_flagged": "Microphone: {kind} (seat {seat}); the rules name no offence",
    # the forum game; a private note's words: forum_text.NOTES
    "private": "Privately to seat {to}: {cue}",
    "late": "Seat {seat}: {post} after the deadline, not counted",
    "second_vote": "Seat {seat}: a second post in the vote, not counted; the first stands",
    "parity": "Parity: {team}; decide whether to declare the win (clause end.two.3)",
}

#: the rest of the host's lines: answers, colours, proposals and the inputs
#: that changed nothing (``Ignored``: the core says why in English)
_MORE = {
    "ru": {
        "yes": "да",
        "no": "нет",
        "color.black": "чёрный",
        "color.red": "красный",
        "proposed": "Предложено нарушение: игрок {seat}, {offence} ({reason})",
        "proposed_unknown": "Предложено нарушение: место не определено, {offence} ({reason})",
        "reason.voted for a second nominee": "голос за второго кандидата",
        "reason.voted for themself": "голос за себя",
        "reason.hand lifted before «Спасибо»": "рука поднята до «Спасибо»",
        "reason.hand lifted before «Принято»": "рука поднята до «Принято»",
        "heard": "микрофон: {kind}",
        "heard_words": "слышно: «{words}»",
        "ignored": "· {what}",
        "ignored.other": "ввод без последствий",
        "pressed_after_thanks": "игрок {seat} нажал после «Спасибо» — не засчитано",
        "may_not_vote": "игрок {seat} не голосует",
        "already_voted": "игрок {seat} уже проголосовал",
        "released_nothing_held": "игрок {seat} отпустил кнопку, ничего не держа",
        "pressed_out_of_turn": "игрок {seat} нажал не в свою очередь",
        "released_outside_vote": "игрок {seat} отпустил кнопку вне голосования",
        "pressed_in_phase": "игрок {seat} нажал кнопку ({phase})",
        "phase.setup": "до начала игры",
        "phase.night": "ночью",
        "phase.last_word": "во время последнего слова",
        "phase.speech": "во время речи",
        "phase.tie_speech": "во время речи при равенстве",
        "phase.vote": "во время голосования",
        "phase.count": "во время подсчёта",
        "phase.all_leave_vote": "во время голосования за уход всех",
        "phase.all_leave_count": "во время подсчёта голосов за уход всех",
        "phase.ended": "после конца игры",
    },
    "en": {
        "yes": "yes",
        "no": "no",
        "color.black": "black",
        "color.red": "red",
        "proposed": "Proposed offence: seat {seat}, {offence} ({reason})",
        "proposed_unknown": "Proposed offence: seat unknown, {offence} ({reason})",
        "reason.hand lifted before «Спасибо»": "hand lifted before “Thank you”",
        "reason.hand lifted before «Принято»": "hand lifted before “Accepted”",
        "heard": "microphone: {kind}",
        "heard_words": "heard: “{words}”",
        "ignored": "· {what}",
        "ignored.other": "an input that changed nothing",
        "pressed_after_thanks": "seat {seat} pressed after “Thank you”",
    },
}

#: the core's reasons for an ``Ignored`` (core/sports/voting.py, core/sports/procedure.py)
_IGNORED = (
    (re.compile(r"seat (\d+) pressed after «Спасибо»"), "pressed_after_thanks"),
    (re.compile(r"seat (\d+) may not vote"), "may_not_vote"),
    (re.compile(r"seat (\d+) has already voted"), "already_voted"),
    (re.compile(r"seat (\d+) released with nothing held"), "released_nothing_held"),
    (re.compile(r"seat (\d+) pressed out of turn"), "pressed_out_of_turn"),
    (re.compile(r"seat (\d+) released outside a vote, nothing held"), "released_outside_vote"),
    (re.compile(r"seat (\d+) pressed in phase (\w+)"), "pressed_in_phase"),
)


class HostLog:
    """Writes the host-only effects to a text stream. ``rules``: the game's
    ruleset, for its role, team and offence names (without it, those of the
    bundled rulesets; ``line`` may be given the game's)."""

    def __init__(
        self, stream: TextIO | None = None, lang: str = "ru", rules: Ruleset | None = None
    ) -> None:
        self.stream = stream or sys.stdout
        self.words = _RU if lang == "ru" else _EN
        self.more = _MORE["ru" if lang == "ru" else "en"]
        self.lang = lang
        self.rules = rules

    def __call__(self, now: float, effects: tuple[Effect, ...]) -> None:
        for effect in effects:
            line = self.line(effect)
            if line:
                print(f"{_clock(now)}  {printable(line)}", file=self.stream, flush=True)

    def line(self, effect: Effect, rules: Ruleset | None = None) -> str | None:
        rules = rules or self.rules
        if isinstance(effect, TellHost):
            template = self.words.get(effect.what)
            args: dict[str, object] = dict(effect.args)
            if effect.what == "role":
                args["role"] = role_name(str(args["role"]), self.lang, rules)
            elif effect.what == "check":
                args["answer"] = self.more.get(str(args["answer"]), args["answer"])
                args["reveals"] = self._reveals(str(args.get("reveals", "")), rules)
            elif effect.what == "parity":
                args["team"] = team_name(str(args["team"]), self.lang, rules)
            elif effect.what == "speech_flagged":
                args["kind"], args["seat"] = flag_fields(args["kind"], args["seat"], self.lang)
            elif effect.what == "private":
                cue = str(args.pop("cue"))
                to = args.pop("to")
                args = {"to": to, "cue": note_text(cue, args, self.lang, rules)}
            elif effect.what == "late":
                args["post"] = WORDS[self.lang].get(str(args["post"]), args["post"])
            if template is None:
                return effect.what if self.lang != "ru" else self.more["ignored.other"]
            return template.format(**args)
        if isinstance(effect, ProposeOffence):
            return self.more["proposed" if effect.seat else "proposed_unknown"].format(
                seat=effect.seat,
                offence=offence_text(effect.offence, self.lang, rules),
                reason=self.reason(effect.reason, rules),
            )
        if isinstance(effect, Ignored):
            return self.more["ignored"].format(what=self.ignored(effect.reason))
        return None

    def reason(self, reason: str, rules: Ruleset | None = None) -> str:
        """A proposal's reason as the core gives it (English words, a
        microphone's ``heard_<kind>``, the forum's clause) in the host's words."""
        if reason.startswith(WORD_REASON):  # a forbidden phrase: the words heard
            return self.more["heard_words"].format(words=reason[len(WORD_REASON) :])
        if reason.startswith("heard_"):
            kind, _ = flag_fields(reason[6:], 0, self.lang)
            return self.more["heard"].format(kind=kind)
        if "reason." + reason in self.more:
            return self.more["reason." + reason]
        if re.fullmatch(r"[a-z_]+(\.[a-z_0-9]+)+", reason):  # a clause id
            return clause_text(reason, self.lang, rules)
        return reason

    def ignored(self, reason: str) -> str:
        """Why an input changed nothing, in the host's words."""
        for pattern, key in _IGNORED:
            found = pattern.fullmatch(reason)
            if found and key in self.more:
                phase = found.group(2) if found.lastindex == 2 else ""
                shown = self.more.get("phase." + phase, phase)
                return self.more[key].format(seat=found.group(1), phase=shown)
        return reason if self.lang != "ru" else self.more["ignored.other"]

    def _reveals(self, reveals: str, rules: Ruleset | None) -> str:
        kind, _, value = reveals.partition(":")
        if kind == "role":
            return role_name(value, self.lang, rules)
        return self.more.get("color." + value, value)


def _clock(seconds: float) -> str:
    minutes, rest = divmod(max(0.0, seconds), 60)
    return f"{int(minutes):02d}:{rest:05.2f}"
