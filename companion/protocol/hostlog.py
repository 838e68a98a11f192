"""What only the host sees, as text lines: check answers, dealt roles,
proposed offences, inputs that did nothing. Until the console exists this is
how a live run shows them."""

from __future__ import annotations

import sys
from typing import TextIO

from ..core.effects import Effect, Ignored, ProposeOffence, TellHost
from .report import flag_fields

_RU = {
    "role": "Место {seat}: роль {role}",
    "check": "Проверка: игрок {seat} → игрок {target}: {answer}",
    "best_move": "Лучший ход игрока {seat}: чёрных {black}",
    "speech_flagged": "Микрофон: {kind} (место {seat}); правила не называют нарушения",
}
_EN = {
    "role": "Seat {seat}: role {role}",
    "check": "Check: seat {seat} → seat {target}: {answer}",
    "best_move": "Best move of seat {seat}: {black} black",
    "speech_flagged": "Microphone: {kind} (seat {seat}); the rules name no offence",
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
