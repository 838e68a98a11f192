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
from . import deal as fair
from .formats import FORMAT

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
    },
}


class ProtocolFileError(ValueError):
    """A protocol file that cannot be read: one line naming the file and key."""


def words(lang: str) -> dict[str, str]:
    return _ERRORS.get(lang, _ERRORS["en"])


def read_json(path: Path, lang: str = "en") -> dict[str, Any]:
    """A protocol JSON file, checked enough to verify its deal."""
    w = words(lang)
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ProtocolFileError(f"{path}: {w['no_file']}") from None
    except PermissionError:
        raise ProtocolFileError(f"{path}: {w['denied']}") from None
    except IsADirectoryError:
        raise ProtocolFileError(f"{path}: {w['folder']}") from None
    except OSError:
        raise ProtocolFileError(f"{path}: {w['unreadable']}") from None
    if len(raw) > 16 * 2**20:
        raise ProtocolFileError(f"{path}: {w['too_big'].format(size=len(raw))}")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as error:
        raise ProtocolFileError(f"{path}: {w['not_utf8'].format(byte=error.start)}") from None
    except json.JSONDecodeError as error:
        why = w["not_json"].format(msg=error.msg, column=error.colno)
        raise ProtocolFileError(f"{path}:{error.lineno}: {why}") from None
    except RecursionError:
        raise ProtocolFileError(f"{path}: {w['too_deep']}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ProtocolFileError(f"{path}: 'format': {w['not_protocol'].format(want=FORMAT)}")
    return data


def verify_file(
    path: Path,
    rules_for: Callable[[str], Ruleset | None],
    noted: str | None = None,
    lang: str = "en",
) -> fair.Verdict:
    """The deal check of a protocol JSON file (``companion verify-deal``).

    ``rules_for(name)``: the ruleset the protocol names, or None when it is
    not found here; then the deal is checked against the protocol's own
    ``deal.order``, and the verdict says so. ``noted``: the hash the players
    wrote down when it was shown (at least its first 16 hex digits): the
    protocol's commitment must begin with it.
    """
    w = words(lang)
    if noted is not None and not _is_hex_prefix(noted):
        raise ProtocolFileError(w["shown"].format(value=repr(noted[:70])))
    data = read_json(path, lang)
    game = _key(path, data, "game", dict, lang)
    ruleset = _key(path, game, "ruleset", str, lang, "game.")
    deal = _key(path, data, "deal", dict, lang)
    seats = _key(path, data, "seats", list, lang)
    roles = []
    for index, seat in enumerate(seats):
        if not isinstance(seat, dict) or not isinstance(seat.get("role"), str):
            raise ProtocolFileError(f"{path}: 'seats[{index}].role': {w['not_text']}")
        dealt = seat.get("dealt_role", seat["role"])  # a forum role changed since the deal
        if not isinstance(dealt, str):
            raise ProtocolFileError(f"{path}: 'seats[{index}].dealt_role': {w['text']}")
        roles.append(dealt)
    if _key(path, deal, "dealt", bool, lang, "deal.") is not True:
        return fair.verdict(False, "given", checked=False)
    seed = _key(path, deal, "seed", int, lang, "deal.")
    if isinstance(seed, bool) or not 0 <= seed < 2**64:
        raise ProtocolFileError(f"{path}: 'deal.seed': {w['not_seed'].format(value=repr(seed))}")
    shown = _key(path, deal, "commitment", str, lang, "deal.")
    order = _key(path, deal, "order", list, lang, "deal.")
    if not all(isinstance(role, str) for role in order):
        raise ProtocolFileError(f"{path}: 'deal.order': {w['not_role_ids']}")
    players = deal.get("players")
    if players is not None and not isinstance(players, str):
        raise ProtocolFileError(f"{path}: 'deal.players': {w['text']}")
    if len(order) != len(roles):
        return fair.verdict(False, "count", order=len(order), seats=len(roles))
    rules = rules_for(ruleset)
    note = ""
    if rules is None:
        note = "not_here"
    else:
        want = fair.laid_out(rules, len(roles))
        # the forum game's two-sided deal is the other deal a table may use
        other = fair.laid_out(rules, len(roles), ("two_sided",))
        if want != order and (other is None or other != order):
            return fair.verdict(
                False, "not_ruleset", ruleset=ruleset, seats=len(roles), want=" ".join(want or ())
            )
    if noted is not None and not shown.lower().startswith(noted.lower()):
        return fair.verdict(False, "not_shown", shown=shown[:16], noted=noted[:16])
    verdict = fair.verify(seed=seed, shown=shown, order=order, roles=roles, players=players)
    return replace(verdict, args=(*verdict.args, ("ruleset", ruleset)), note=note)


def verdict_line(path: Path, verdict: fair.Verdict, lang: str) -> str:
    """What ``verify-deal`` prints: one line."""
    w = words(lang)
    key = "unchecked" if not verdict.checked else "fair" if verdict.fair else "unfair"
    return w[key].format(path=path, why=verdict.text(lang))


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
        raise ProtocolFileError(f"{path}: '{prefix}{key}': {shown}")
    return value
