"""What only the host sees, as text lines: check answers, dealt roles,
proposed offences, inputs that did nothing; in the forum game the private
notes to pass on (``forum_text``), late and second posts, parity. Until the
console exists this is how a live run shows them."""

from __future__ import annotations

import sys
from typing import TextIO

from ..core.effects import Effect, Ignored, ProposeOffence, TellHost
from .forum_text import WORDS, note_text
from .report import flag_fields

_RU = {
    "role": "Место {seat}: роль {role}",
    "check": "Проверка: игрок {seat} → игрок {target}: {answer}",
    "best_move": "Лучший ход игрока {seat}: чёрных {black}",
    "speech_flagged": "Микрофон: {kind} (место {seat}); правила не называют нарушения",
    # the forum game; a private note's words: forum_text.NOTES
    "private": "Лично игроку {to}: {cue}",
    "late": "Игрок {seat}: {post} после срока — не засчитано",
    "second_vote": "Игрок {seat}: второй пост в голосовании — не засчитан, в силе первый",
    "parity": "Паритет: {team} — решите, объявлять ли победу (end.two.3)",
}
_EN = {
    "role": "Seat {seat}: role {role}",
    "check": "Check: seat {seat} → seat {target}: {answer}",
    "best_move": "Best move of seat {seat}: {black} black",
    "speech_flagged": "Microphone: {kind} (seat {seat}); the rules name no offence",
    # the forum game; a private note's words: forum_text.NOTES
    "private": "Privately to seat {to}: {cue}",
    "late": "Seat {seat}: {post} after the deadline, not counted",
    "second_vote": "Seat {seat}: a second post in the vote, not counted; the first stands",
    "parity": "Parity: {team}; decide whether to declare the win (end.two.3)",
}


class HostLog:
    """Writes the host-only effects to a text stream."""

    def __init__(self, stream: TextIO | None = None, lang: str = "ru") -> None:
        self.stream = stream or sys.stdout
        self.words = _RU if lang == "ru" else _EN
        self.lang = lang

    def __call__(self, now: float, effects: tuple[Effect, ...]) -> None:
        for effect in effects:
            line = self.line(effect)
            if line:
                print(f"{_clock(now)}  {line}", file=self.stream, flush=True)

    def line(self, effect: Effect) -> str | None:
        if isinstance(effect, TellHost):
            template = self.words.get(effect.what)
            args = dict(effect.args)
            if effect.what == "speech_flagged":
                args["kind"], args["seat"] = flag_fields(args["kind"], args["seat"], self.lang)
            elif effect.what == "private":
                cue = str(args.pop("cue"))
                to = args.pop("to")
                args = {"to": to, "cue": note_text(cue, args, self.lang)}
            elif effect.what == "late":
                args["post"] = WORDS[self.lang].get(str(args["post"]), args["post"])
            return template.format(**args) if template else f"{effect.what} {args}"
        if isinstance(effect, ProposeOffence):
            if self.lang == "ru":
                return (
                    f"Предложено нарушение: игрок {effect.seat}, {effect.offence} ({effect.reason})"
                )
            return f"Proposed offence: seat {effect.seat}, {effect.offence} ({effect.reason})"
        if isinstance(effect, Ignored):
            return f"· {effect.reason}"
        return None


def _clock(seconds: float) -> str:
    minutes, rest = divmod(max(0.0, seconds), 60)
    return f"{int(minutes):02d}:{rest:05.2f}"
