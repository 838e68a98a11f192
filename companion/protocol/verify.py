"""Reading a protocol's JSON back and checking its deal: ``companion
verify-deal`` (docs/protocol.md). What it says, and a file it cannot read,
is one line in the user's language (Russian, English with ``--lang en``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from ..core.rules import Ruleset
from ..textfiles.printable import printable
from ..textfiles.regular_file import FileRefused, read_regular
from . import deal as fair
from . import played
from .formats import FORMAT
from .templates import TEMPLATES

#: the largest protocol read (a long forum game's is a few hundred KB)
MAX_PROTOCOL = 16 * 2**20

#: what is wrong with a file, in words; keys of the file stay as they are
_ERRORS: dict[str, dict[str, str]] = {
    "en": {
        "missing": "missing",
        "not_type": "not {kind}: {value}",
        "no_file": "No such file",
        "denied": "permission denied",
        "folder": "a folder, not a file",
        "unreadable": "cannot be read",
        "too_big": "{size} bytes: not a protocol (at most 16 MiB)",
        "not_utf8": "not UTF-8 text (byte {byte})",
        "not_json": "not JSON ({msg}, column {column})",
        "too_deep": "not a protocol (nested too deep)",
        "not_protocol": "not a companion protocol (want {want!r})",
        "not_seed": "not a seed (0 to 2**64-1): {value}",
        "not_role_ids": "not a list of role ids",
        "not_text": "missing or not text",
        "text": "not text",
        "shown": "--shown {value}: give at least 16 hex digits of the hash",
        "dict": "an object",
        "list": "a list",
        "str": "text",
        "int": "a whole number",
        "bool": "true or false",
        "fair": "{path}: the deal is fair: {why}",
        "unfair": "{path}: the deal is NOT fair: {why}",
        "unchecked": "{path}: no deal to check: {why}",
        "cannot": "{path}: the deal cannot be checked here: {why}",
        "not_name": "not a ruleset's name: {value}",
        "not_lang": "not a protocol's language (ru, en): {value}",
    },
    "ru": {
        "missing": "нет такого поля",
        "not_type": "не {kind}: {value}",
        "no_file": "нет такого файла",
        "denied": "нет доступа",
        "folder": "это папка, а не файл",
        "unreadable": "не читается",
        "too_big": "{size} байт: это не протокол (протокол — не больше 16 МиБ)",
        "not_utf8": "не текст UTF-8 (байт {byte})",
        "not_json": "не JSON (столбец {column})",
        "too_deep": "не протокол (слишком глубокая вложенность)",
        "not_protocol": "не протокол игры (нужен формат «{want}»)",
        "not_seed": "не зерно (от 0 до 2**64-1): {value}",
        "not_role_ids": "не список ролей",
        "not_text": "нет поля или не текст",
        "text": "не текст",
        "shown": "--shown {value}: нужно не меньше 16 шестнадцатеричных цифр хеша",
        "dict": "объект",
        "list": "список",
        "str": "текст",
        "int": "целое число",
        "bool": "да или нет (true, false)",
        "fair": "{path}: раздача честная: {why}",
        "unfair": "{path}: раздача НЕ честная: {why}",
        "unchecked": "{path}: проверять нечего: {why}",
        "cannot": "{path}: раздачу здесь не проверить: {why}",
        "not_name": "не название правил: {value}",
        "not_lang": "не язык протокола (ru, en): {value}",
    },
}


class ProtocolFileError(ValueError):
    """A protocol file that cannot be read: one line naming the file and key."""


def words(lang: str) -> dict[str, str]:
    return _ERRORS.get(lang, _ERRORS["en"])


def read_json(path: Path, lang: str = "en") -> dict[str, Any]:
    """A protocol JSON file, checked enough to verify its deal: a regular
    file (not a FIFO, a device, a link to one) of at most 16 MiB."""
    w = words(lang)
    where = printable(path)
    if path.is_dir():
        raise ProtocolFileError(f"{where}: {w['folder']}")
    try:
        raw = read_regular(path, MAX_PROTOCOL)
    except FileRefused as error:
        why = w["too_big"].format(size=error.size) if error.reason == "too_big" else error.why(lang)
        raise ProtocolFileError(f"{where}: {why}") from None
    except FileNotFoundError:
        raise ProtocolFileError(f"{where}: {w['no_file']}") from None
    except PermissionError:
        raise ProtocolFileError(f"{where}: {w['denied']}") from None
    except IsADirectoryError:
        raise ProtocolFileError(f"{where}: {w['folder']}") from None
    except OSError:
        raise ProtocolFileError(f"{where}: {w['unreadable']}") from None
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ProtocolFileError(f"{where}: {w['not_utf8'].format(byte=error.start)}") from None
    except json.JSONDecodeError as error:
        why = w["not_json"].format(msg=error.msg, column=error.colno)
        raise ProtocolFileError(f"{where}:{error.lineno}: {why}") from None
    except RecursionError:
        raise ProtocolFileError(f"{where}: {w['too_deep']}") from None
    except ValueError:  # an integer of more than 4300 digits
        raise ProtocolFileError(f"{where}: {w['not_json'].format(msg='', column='?')}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProtocolFileError(f"{where}: 'format': {w['not_protocol'].format(want=FORMAT)}")
    return data


def verify_file(
    path: Path,
    rules_for: Callable[[str], Ruleset | None],
    noted: str | None = None,
    lang: str = "en",
) -> fair.Verdict:
    """The deal check of a protocol JSON file (``companion verify-deal``).

    ``rules_for(name)``: the ruleset the protocol names, or None when it is
    not found here; then nothing can be vouched for (the protocol's own
    ``deal.order`` could be made to deal any roles from any seed), and the
    verdict says the deal cannot be checked. ``noted``: the hash the
    players wrote down when it was shown (at least its first 16 hex
    digits): the protocol's commitment must begin with it. Once the seed
    deals the roles, every other field that carries a role is held against
    that deal and the game's records (``played``).
    """
    w = words(lang)
    if noted is not None and not _is_hex_prefix(noted):
        raise ProtocolFileError(w["shown"].format(value=repr(printable(noted[:70]))))
    data = read_json(path, lang)
    game = _key(path, data, "game", dict, lang)
    ruleset = _key(path, game, "ruleset", str, lang, "game.")
    deal = _key(path, data, "deal", dict, lang)
    seats = _key(path, data, "seats", list, lang)
    roles = []
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict) or not isinstance(seat.get("role"), str):
            raise _error(path, f"seats[{index}].role", w["not_text"])
        dealt = seat.get("dealt_role", seat["role"])  # a forum role changed since the deal
        if not isinstance(dealt, str):
            raise _error(path, f"seats[{index}].dealt_role", w["text"])
        roles.append(dealt)
    if _key(path, deal, "dealt", bool, lang, "deal.") is not True:
        return fair.verdict(False, "given", checked=False)
    seed = _key(path, deal, "seed", int, lang, "deal.")
    if isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise _error(path, "deal.seed", w["not_seed"].format(value=repr(seed)))
    shown = _key(path, deal, "commitment", str, lang, "deal.")
    order = _key(path, deal, "order", list, lang, "deal.")
    if not all(isinstance(role, str) for role in order):
        raise _error(path, "deal.order", w["not_role_ids"])
    players = deal.get("players")
    if players is not None and not isinstance(players, str):
        raise _error(path, "deal.players", w["text"])
    if not _is_name(ruleset):
        raise _error(path, "game.ruleset", w["not_name"].format(value=repr(ruleset[:70])))
    events = _events(path, data, lang)
    if not isinstance(game.get("lang"), str) or game["lang"] not in TEMPLATES:
        raise _error(path, "game.lang", w["not_lang"].format(value=repr(str(game.get("lang")))))
    if len(order) != len(roles):
        return fair.verdict(False, "count", order=len(order), seats=len(roles))
    rules = rules_for(ruleset)
    if rules is None or rules.name != ruleset:
        return fair.verdict(False, "no_ruleset", checked=False, ruleset=ruleset)
    setup = events[0]["data"] if events and events[0]["kind"] == "setup" else {}
    options = tuple(str(setup.get("options") or "").split(",")) if setup.get("options") else ()
    want = fair.laid_out(rules, len(roles), options)
    if want != order:
        return fair.verdict(
            False, "not_ruleset", ruleset=ruleset, seats=len(roles), want=" ".join(want or ())
        )
    if noted is not None and not shown.lower().startswith(noted.lower()):
        return fair.verdict(False, "not_shown", shown=shown[:16], noted=noted[:16])
    verdict = fair.verify(seed=seed, shown=shown, order=order, roles=roles, players=players)
    if verdict.fair:
        used = fair.mixed_seed(seed, players) if players is not None else seed
        verdict = played.check(data, rules, fair.deal(order, used), used) or verdict
    return replace(verdict, args=(*verdict.args, ("ruleset", ruleset)))


def verdict_line(path: Path, verdict: fair.Verdict, lang: str) -> str:
    """What ``verify-deal`` prints: one line."""
    w = words(lang)
    if not verdict.checked:
        key = "unchecked" if verdict.reason == "given" else "cannot"
    else:
        key = "fair" if verdict.fair else "unfair"
    return w[key].format(path=printable(path), why=verdict.text(lang))


def _events(path: Path, data: dict[str, Any], lang: str) -> list[dict[str, Any]]:
    """The events, each with the keys the check reads, of their types."""
    events: list[dict[str, Any]] = _key(path, data, "events", list, lang)
    for index, event in enumerate(events):
        if not isinstance(event, dict):
            raise _error(path, f"events[{index}]", words(lang)["not_type"].format(
                kind=words(lang)["dict"], value=repr(str(event)[:40])))  # fmt: skip
        for key, kind in (("day", int), ("kind", str), ("data", dict), ("text", str)):
            _key(path, event, key, kind, lang, f"events[{index}].")
    return events


def _is_name(name: str) -> bool:
    """A ruleset's name (``club``), not a path: a protocol names no file to read."""
    return 0 < len(name) <= 100 and all(c.isalnum() or c in "-_" for c in name)


def _error(path: Path, key: str, why: str) -> ProtocolFileError:
    return ProtocolFileError(f"{printable(path)}: '{printable(key)}': {why}")


def _is_hex_prefix(text: str) -> bool:
    return 16 <= len(text) <= 64 and all(c in "0123456789abcdefABCDEF" for c in text)


def _key(
    path: Path, data: dict[str, Any], key: str, kind: type, lang: str, prefix: str = ""
) -> Any:
    value = data.get(key)
    if not isinstance(value, kind):
        w = words(lang)
        shown = (
            w["missing"]
            if key not in data
            else w["not_type"].format(kind=w[kind.__name__], value=repr(str(value)[:40]))
        )
        raise _error(path, f"{prefix}{key}", shown)
    return value
