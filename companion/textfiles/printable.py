"""Text from data made safe for a terminal.

A backup's manifest, a file name, a release's version, a player's name or a
stop reason in a journal come from someone else's hands. Printed raw, an
escape sequence in them can clear the screen, retitle the window or write
the clipboard (OSC 52). Every command that prints such data passes it
through :func:`printable` first; the command's own words need not.
"""

from __future__ import annotations

__all__ = ["printable", "printable_json", "printable_lines"]


def printable(text: object) -> str:
    """``text`` with every unprintable character (C0 and C1 controls, ESC,
    DEL, line and paragraph separators, bidirectional overrides and other
    format characters) shown as a Python escape such as ``\\x1b``: visible,
    and inert on any terminal."""
    value = str(text)
    if value.isprintable():  # the common case costs one scan
        return value
    return "".join(ch if ch.isprintable() else _escaped(ch) for ch in value)


def printable_lines(text: object) -> str:
    """As :func:`printable`, but keeping line breaks (``\\n``) as they are:
    for a multi-line text from data (a protocol's notes)."""
    return "\n".join(printable(line) for line in str(text).split("\n"))


def _escaped(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def printable_json(text: str) -> str:
    """JSON text (``json.dumps`` with ``ensure_ascii=False``) with every
    unprintable character but its line breaks written as a ``\\uXXXX``
    escape: the same JSON to a program, inert on a terminal. (JSON escapes
    the C0 controls itself; C1 controls, bidirectional overrides and line
    separators it leaves as they are, and they can only stand in strings.)"""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() or ch == "\n" else _json_escaped(ch) for ch in text)


def _json_escaped(ch: str) -> str:
    code = ord(ch)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000  # a surrogate pair, as JSON writes characters beyond the BMP
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"
