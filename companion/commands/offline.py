"""The commands over a past game: ``protocol`` and ``verify-deal``
(docs/protocol.md) and ``listen`` (docs/listening.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from ..config.load import DETECTORS, MIC_LAYOUTS
from ..config.rulesets import DataFileError, load_ruleset
from ..core.rules import Ruleset
from ..textfiles.printable import printable

#: ``verify-deal`` with no verdict: the roles were given, not dealt, or the
#: protocol's ruleset is not here (0 fair, 1 not fair, 2 error)
NO_DEAL_EXIT = 3


def protocol_parsers(sub: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:  # type: ignore[type-arg]
    made = sub.add_parser(
        "protocol", parents=[common], help="the protocol of a past game, from its journal"
    )
    made.add_argument("journal")
    made.add_argument(
        "--format",
        choices=("text", "json", "csv", "html"),
        default="text",
        help="text (the default, as a terminal shows it), json (for programs), csv, html",
    )
    made.add_argument(
        "-o", "--output", metavar="FILE", help="write here (default: standard output)"
    )
    verify = sub.add_parser(
        "verify-deal", parents=[common], help="check a protocol's deal against its seed's hash"
    )
    verify.add_argument("protocol", help="a protocol in JSON (companion protocol --format json)")
    verify.add_argument(
        "--shown", metavar="HEX", help="the hash as shown before the deal (16 or more hex digits)"
    )


def protocol_command(args: argparse.Namespace) -> int:
    from ..protocol import archive, formats, verify

    if args.command == "verify-deal":
        path = Path(args.protocol)
        try:
            verdict = verify.verify_file(path, _ruleset_or_none, args.shown, args.lang)
        except verify.ProtocolFileError as error:
            raise ValueError(str(error)) from None  # one line, as every error
        print(verify.verdict_line(path, verdict, args.lang))
        if not verdict.checked:  # neither fair nor unfair: nothing dealt, or no ruleset
            return NO_DEAL_EXIT
        return 0 if verdict.fair else 1
    try:
        protocol, warnings = archive.from_journal(Path(args.journal), load_ruleset, args.lang)
    except archive.NoGame as error:
        raise ValueError(str(error)) from None  # one line, as every error
    for warning in warnings:
        print(f"companion: {printable(warning)}", file=sys.stderr)
    text = formats.render(protocol, args.format)
    if args.output in (None, "-"):
        sys.stdout.write(text)
    else:
        Path(args.output).write_text(text, encoding="utf-8", newline="")
    return 0


def _ruleset_or_none(name: str) -> Ruleset | None:
    try:
        return load_ruleset(name)
    except (DataFileError, OSError):
        return None


def listen_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    common: argparse.ArgumentParser | None = None,
) -> None:
    listen = sub.add_parser(
        "listen",
        parents=[common] if common is not None else [],
        help="the speech in a recording, and with its journal the flags (docs/listening.md)",
    )
    listen.add_argument("audio", help="a 16 kHz WAV recording of the table")
    listen.add_argument("--layout", choices=MIC_LAYOUTS, default="single",
                        help="one microphone, one per seat (channel n is seat n + 1), or an array")  # fmt: skip
    listen.add_argument("--calibration", metavar="FILE",
                        help="with --layout array: companion calibrate's file (default: the club's)")  # fmt: skip
    listen.add_argument("--journal", help="the game's journal: flags from its phases")
    # the config's names and the live table's default (detect.DETECTORS and
    # DEFAULT_DETECTOR, not imported: they bring numpy; tests/test_ears_strict.py
    # and tests/test_ears_detect.py hold them equal)
    listen.add_argument("--detector", choices=DETECTORS,
                        default="silero-whisper",
                        help="the voice-activity detector (silero-whisper, as at the live table)")  # fmt: skip
    listen.add_argument("--above-room", type=float, metavar="DB", default=11.0,
                        help="how far a voice must stand above the room's floor (11; [microphone] above_room_db)")  # fmt: skip
    listen.add_argument(
        "--json", action="store_true", help="print JSON (for programs; default: lines in words)"
    )


def listen_command(args: argparse.Namespace) -> None:
    from ..ears.review import review

    result = review(
        Path(args.audio),
        layout=args.layout,
        journal=Path(args.journal) if args.journal else None,
        load_ruleset=load_ruleset,
        detector=args.detector,
        calibration=_calibration(args),
        above_room_db=args.above_room,
    )
    if args.json:
        print(json.dumps(result, ensure_ascii=False))
    else:
        print("\n".join(listen_lines(result, args.lang)))


LISTEN_WORDS = {
    "ru": {
        "segments": "Речь: отрезков {count}",
        "segment": "  {start}–{end}  {seat} (уверенность {confidence})",
        "flags": "Флаги: {count}",
        "flag": "  {at}  {kind}: {seat} (уверенность {confidence})",
        "seat": "место {seat}",
        "no_seat": "место не определено",
    },
    "en": {
        "segments": "Speech: {count} segments",
        "segment": "  {start}–{end}  {seat} (confidence {confidence})",
        "flags": "Flags: {count}",
        "flag": "  {at}  {kind}: {seat} (confidence {confidence})",
        "seat": "seat {seat}",
        "no_seat": "seat not known",
    },
}


def listen_lines(result: dict[str, Any], lang: str) -> list[str]:
    """``companion listen``'s result in words: each stretch of speech with
    its seat, and with a journal each flag (``--json`` prints the data)."""
    from ..protocol.lines import flag_fields, seconds_text

    words = LISTEN_WORDS.get(lang, LISTEN_WORDS["en"])

    def at(seconds: float) -> str:
        minutes, rest = divmod(float(seconds), 60)
        return f"{int(minutes)}:{'0' if rest < 10 else ''}{seconds_text(rest, lang)}"

    def seat(number: object) -> str:
        return words["seat"].format(seat=number) if number else words["no_seat"]

    def sure(confidence: object) -> str:
        return f"{round(float(str(confidence)) * 100)} %"

    segments = result.get("segments", [])
    lines = [words["segments"].format(count=len(segments))]
    for s in segments:
        lines.append(
            words["segment"].format(
                start=at(s["start"]), end=at(s["end"]), seat=seat(s["seat"]),
                confidence=sure(s["confidence"]),
            )
        )  # fmt: skip
    if "flags" in result:
        lines.append(words["flags"].format(count=len(result["flags"])))
        for f in result["flags"]:
            kind, _ = flag_fields(f["kind"], f["seat"], lang)
            line = words["flag"].format(
                at=at(f["at"]), kind=kind, seat=seat(f["seat"]), confidence=sure(f["confidence"])
            )
            lines.append(line)
    return lines


def _calibration(args: argparse.Namespace) -> Path | None:
    """--calibration, else the config's ``[microphone] calibration`` (None:
    the club's data folder's, ``ears.calibration.default_path``)."""
    if args.calibration:
        return Path(args.calibration)
    if args.layout != "array":
        return None
    from ..config.load import load_config

    return load_config().microphone.calibration


def calibrate_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    calibrate = sub.add_parser(
        "calibrate",
        parents=[common],
        help="hear each seat once through the array and save where it is (docs/listening.md)",
    )
    calibrate.add_argument("--device", help="the array's input device, by name or index (default: the config's microphone)")  # fmt: skip
    calibrate.add_argument("--seats", type=int, help="how many seats (default: the config's table)")
    calibrate.add_argument("--out", metavar="FILE", help="where to save it (default: the club's data folder)")  # fmt: skip
    calibrate.add_argument("--from-wav", metavar="FILE", help="a recording in which each seat speaks in turn, instead of the device")  # fmt: skip
    calibrate.add_argument("--array", default="respeaker-6mic", help="the array: respeaker-6mic (default) or respeaker-4mic")  # fmt: skip
    calibrate.add_argument("--wait", type=float, default=15.0, help="seconds of sound to wait for each seat (15)")  # fmt: skip
    calibrate.add_argument("--silent", action="store_true", help="print the prompts, do not speak them")  # fmt: skip


def calibrate_command(args: argparse.Namespace) -> int:
    from ..config.load import load_config
    from ..ears.calibrate import run_command

    config = load_config()
    return run_command(
        seats=args.seats if args.seats is not None else config.table.seats,
        array=args.array,
        out=Path(args.out) if args.out else config.microphone.calibration,
        from_wav=Path(args.from_wav) if args.from_wav else None,
        device=args.device if args.device is not None else config.microphone.device,
        wait_s=args.wait,
        speak=not args.silent and not config.voice.captions_only,
        lang=args.lang,
        voice_device=config.voice.device,
        detector=config.microphone.detector,  # type: ignore[arg-type]  # checked by the config's reader
    )
