"""What one check of ``companion doctor`` found: a status, one line, and how
to fix it; and how results are shown (text with a mark, or JSON)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

Status = Literal["ok", "warning", "failure"]
#: the mark that starts a result's line: a club reads these at a glance
MARKS: dict[Status, str] = {"ok": "✓", "warning": "!", "failure": "✗"}
#: words that join a line and its fix, and the summary's
_JOIN = {
    "ru": {
        "fix": " — как исправить: ",
        "summary": "Итого: в порядке {ok}, предупреждений {warning}, ошибок {failure}.",
    },
    "en": {
        "fix": " — to fix: ",
        "summary": "In all: fine {ok}, warnings {warning}, failures {failure}.",
    },
}

#: a check's words: language -> key -> text with ``{placeholders}``
Words = Mapping[str, Mapping[str, str]]


@dataclass(frozen=True, slots=True)
class Result:
    """One check's finding. ``check`` names it for machines (``gpio``,
    ``speaker``); ``line`` says what was found; ``fix`` how to mend a
    warning or a failure ("" for ok)."""

    check: str
    status: Status
    line: str
    fix: str = ""

    def text(self, lang: str = "ru") -> str:
        words = _JOIN.get(lang, _JOIN["ru"])
        fix = f"{words['fix']}{self.fix}" if self.fix and self.status != "ok" else ""
        return f"{MARKS[self.status]} {self.line}{fix}"

    def as_dict(self) -> dict[str, str | None]:
        return {
            "check": self.check,
            "status": self.status,
            "line": self.line,
            "fix": self.fix or None,
        }


def say(words: Words, lang: str, key: str, /, **values: object) -> str:
    """``words[lang][key]`` with its placeholders filled (Russian when the
    language has no words of its own)."""
    table = words.get(lang, words["ru"])
    return table[key].format(**values)


def summary(results: Sequence[Result], lang: str = "ru") -> str:
    counts = {status: sum(r.status == status for r in results) for status in MARKS}
    return _JOIN.get(lang, _JOIN["ru"])["summary"].format(**counts)


def as_json(results: Sequence[Result]) -> str:
    return json.dumps([r.as_dict() for r in results], ensure_ascii=False, indent=2)


def exit_status(results: Sequence[Result]) -> int:
    """1 when a check failed (warnings do not fail the doctor), else 0."""
    return 1 if any(r.status == "failure" for r in results) else 0


def size_text(count: int, lang: str) -> str:
    """Bytes for people: ``53,1 ГБ`` / ``53.1 GB``, ``480 МБ`` / ``480 MB``,
    rounded down (49.99 MB free is not "50 MB", the limit it is below)."""
    units = ("МБ", "ГБ") if lang == "ru" else ("MB", "GB")
    mb = count // (1024 * 1024)
    text = f"{mb // 1024}.{mb % 1024 * 10 // 1024} {units[1]}" if mb >= 1024 else f"{mb} {units[0]}"
    return text.replace(".", ",") if lang == "ru" else text


def decimal(value: float, lang: str, digits: int = 1) -> str:
    text = f"{value:.{digits}f}"
    return text.replace(".", ",") if lang == "ru" else text
