"""Who spoke: seat attribution on a simulated club table (issue 10).

Run ``python bench/ears_seats.py`` (``--minutes 3 --seed 1 --rooms 3``).
Each room (``testkit/room.py``: its size, RT60, 10-12 seats and the
array's place drawn from the seed) plays a game of ``minutes`` at a
signal-to-noise ratio of 15, 10 and 5 dB in turn (normal speech against
the room's babble and noise, at the array), heard by both set-ups:

- ``channels`` (a cardioid gooseneck per seat; ``--seat-mic omni``):
  ``companion listen --layout channels``'s path, a segment per seat
  (``ChannelSegments``);
- ``channel_seats``: the same microphones used as the array is, one
  segment on the loudest channel and one seat for it (``ChannelSeats``);
- ``array`` (the ReSpeaker 6-mic in the middle; ``--array``): calibrated by
  ``companion calibrate``'s own code on a pass where each seat speaks once
  (16-bit WAV, as a card gives it), then ``companion listen --layout
  array``'s path on the game, a separate pass where everyone has moved.

Attribution accuracy: of the segments holding one seat's speech (a
normal or loud utterance, nobody talking over it), the share given that
seat; quiet and whispered utterances, and talk over talk, are counted apart.
With a microphone per seat, coverage too: of the utterances the detector
found, the share found on their own seat's channel. CPU: seconds per second
of audio for the attribution alone (the one voice detector all layouts
share is bench/ears.py's), fed chunk by chunk and asked after each chunk,
as the live listener does.

False flags: each room also plays its room alone (``room_passes``: the
other tables' babble, ventilation, knocks, chairs and hum, nobody at the
table speaking) at 0, -10 and -20 dB against normal speech at the array,
``minutes`` a level. For each layout, per 30 minutes: the segments heard
as speech; those a seat claims (the table's end drops the others with
these layouts: ``watch.FlagWatcher(needs_seat=True)``,
``flags_for(needs_seat=True)``); and of those, the ones as loud as the
table's speakers (``watch.LevelGate`` at its default 12 dB, learned from
the room's game pass as the table learns it): the flags the live table
would raise (``companion listen`` has no gate). ``one microphone`` is the
array's segments with no seat rule, for comparison. The rule's cost: of
the game's normal and loud utterances a segment found, how many no segment
a seat claims holds (and with the gate as well).

Targets: channels >= 95 %, array after calibration >= 85 %; <= 1 false
flag per 30 minutes. It asserts nothing. ``attribution_figures`` returns
the figures for bench/ears.py.
"""

from __future__ import annotations

import argparse
import bisect
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from companion.ears.array import ArraySeats, geometry
from companion.ears.attribution import ChannelSeats, ChannelSegments, SeatTracker, loudest_track
from companion.ears.calibrate import calibrate
from companion.ears.calibration import calibration_of
from companion.ears.capture import WavListener
from companion.ears.detect import (
    CHUNK,
    DEFAULT_DETECTOR,
    DetectorName,
    Segment,
    Segmenter,
    judge,
    level_db,
)
from companion.ears.seated import SeatedSegments
from companion.ears.watch import LevelGate
from testkit.room import (
    ROOM_LEVELS,
    Pass,
    Spoken,
    calibration_pass,
    game_pass,
    make_table,
    room_passes,
    save_wav,
)

RATE = 16_000
SNRS = (15.0, 10.0, 5.0)
LAYOUTS = ("channels", "channel_seats", "array")
LOUD = ("normal", "loud")
GEOMETRY = "respeaker-6mic"


def attribution_figures(
    minutes: float = 3.0,
    seed: int = 1,
    rooms: int = 3,
    detector: DetectorName = DEFAULT_DETECTOR,
    geometry_name: str = GEOMETRY,
    seat_mic: str = "cardioid",
) -> dict[str, Any]:
    """The figures over ``rooms`` rooms (their seeds: ``100 * seed + n``);
    ``seat_mic``: the channels layout's microphones, "cardioid" or "omni"."""
    tally = {layout: Tally() for layout in LAYOUTS}
    room = {layout: RoomTally(needs_seat=layout != "single") for layout in (*LAYOUTS, "single")}
    cpu = dict.fromkeys(LAYOUTS, 0.0)
    played = 0.0
    calibrated = [0, 0]
    about = []
    for n in range(rooms):
        room_seed, snr = 100 * seed + n, SNRS[n % len(SNRS)]
        table = make_table(room_seed, geometry=geometry_name, seat_mic=seat_mic)
        game = game_pass(table, room_seed * 10 + 2, minutes, snr_db=snr)
        calibration = calibration_pass(table, room_seed * 10 + 1, snr_db=snr + 5)
        about.append({"seed": room_seed, "seats": table.seats, "rt60": round(table.rt60, 2), "snr_db": snr})  # fmt: skip
        played += game.seconds
        heard = _calibrate(calibration, geometry_name, table.seats, detector)
        calibrated[0] += len(heard)
        calibrated[1] += table.seats
        result = calibration_of(heard, geometry(geometry_name)) if len(heard) >= 2 else None
        # The table's own speakers in the game; then the room alone at each level.
        passes = [(None, game), *room_passes(table, room_seed * 10 + 3, minutes).items()]
        gates: dict[str, LevelGate] = {}
        for level, sound in passes:
            found = _layouts(sound, table.seats, detector, result)
            if level is None:
                for layout, (segments, loudness) in found.items():
                    if layout != "single":
                        tally[layout].add(segments, game.truth, per_seat=layout == "channels")
                    gates[layout] = _learned(segments, loudness, game.truth)
                    room[layout].speech(segments, loudness, game.truth, gates[layout])
            else:
                for layout, (segments, loudness) in found.items():
                    room[layout].count(level, sound.seconds, segments, loudness, gates[layout])
        cpu["channels"] += _channels_cpu(game)
        cpu["channel_seats"] += _tracker_cpu(game.channels, ChannelSeats(table.seats))
        if result is not None:
            cpu["array"] += _tracker_cpu(game.array, ArraySeats(result))
    figures: dict[str, Any] = {
        "seed": seed,
        "minutes": minutes,
        "detector": detector,
        "rooms": about,
    }
    for layout in LAYOUTS:
        figures[layout] = (
            tally[layout].figures()
            | {"cpu_s_per_s": round(cpu[layout] / played, 5)}
            | room[layout].figures()
        )
    figures["single"] = room["single"].figures()
    figures["array"] |= {
        "geometry": geometry_name,
        "calibrated": f"{calibrated[0]}/{calibrated[1]}",
    }
    figures["channels"]["microphones"] = seat_mic
    return figures


Loudness = list[float]  # each segment's, as the listening process tells the table


def _layouts(
    sound: Pass, seats: int, detector: DetectorName, calibration: Any
) -> dict[str, tuple[list[Segment], Loudness]]:
    """Each layout's segments of a pass (``companion listen``'s paths) and
    their loudness: ``channels`` (a segment per seat), ``channel_seats``
    (one segment on the loudest channel, ``ChannelSeats``), ``array`` (the
    calibrated array) and ``single`` (the array's segments without a seat:
    one microphone in the middle)."""
    out: dict[str, tuple[list[Segment], Loudness]] = {}
    heard = Heard(detector)
    per_seat = ChannelSegments(seats, heard)
    segments = sorted(
        per_seat.feed(sound.channels) + per_seat.flush(), key=lambda s: (s.start, s.seat or 0)
    )
    out["channels"] = segments, [heard.loudness(s) for s in segments]
    heard = Heard(detector)
    seated = SeatedSegments(ChannelSeats(seats), heard, mono=loudest_track)
    segments = seated.feed(sound.channels) + seated.flush()
    out["channel_seats"] = segments, [heard.loudness(s) for s in segments]
    if calibration is not None:
        heard = Heard(detector)
        seated = SeatedSegments(ArraySeats(calibration), heard)
        segments = seated.feed(sound.array) + seated.flush()
        loudness = [heard.loudness(s) for s in segments]
        out["array"] = segments, loudness
        out["single"] = [Segment(s.start, s.end, s.confidence) for s in segments], loudness
    return out


class Heard:
    """A voice detector that keeps what it heard, chunk by chunk: the
    probability it gave and the chunk's level (``detect.level_db``); from
    them a segment's loudness as the listening process tells it to the
    table (``hearing.Hearing``: the loudest median of the last ``window``
    voiced chunks, from the chunk that opened the utterance to its end)."""

    def __init__(self, detector: DetectorName) -> None:
        self._judge = judge(detector)
        self.probability: list[float] = []
        self.level: list[float] = []
        self._medians: tuple[int, list[int], list[float]] | None = None

    def __call__(self, chunk: np.ndarray[Any, Any]) -> float:
        probability = self._judge(chunk)
        self.probability.append(probability)
        self.level.append(level_db(chunk))
        return probability

    def loudness(self, segment: Segment) -> float:
        rules = Segmenter()
        voiced, medians = self._rolling(rules)
        first, last = round(segment.start * RATE / CHUNK), round(segment.end * RATE / CHUNK)
        at = bisect.bisect_left(voiced, first)
        # The segment starts at its first voiced chunk; it opened at its third.
        opened = at + rules.start_chunks - 1
        within = medians[opened : bisect.bisect_left(voiced, last)]
        return max(within, default=-120.0)

    def _rolling(self, rules: Segmenter) -> tuple[list[int], list[float]]:
        """The voiced chunks, and at each the median of the last ``window``
        voiced chunks' levels (the listening process keeps that list across
        utterances)."""
        if self._medians is None or self._medians[0] != len(self.level):
            voiced = [k for k, p in enumerate(self.probability) if p >= rules.threshold]
            levels = [self.level[k] for k in voiced]
            medians = [
                round(float(np.median(levels[max(0, n - rules.window + 1) : n + 1])), 1)
                for n in range(len(levels))
            ]
            self._medians = (len(self.level), voiced, medians)
        return self._medians[1], self._medians[2]


def _learned(segments: Sequence[Segment], loudness: Loudness, truth: Sequence[Spoken]) -> LevelGate:
    """The level gate as the game teaches it (bench/ears.py's ``learned_gate``):
    the loudness of the segments over the table's normal speech, at least
    ``learn_from_s`` long."""
    gate = LevelGate(keep=100_000)
    for segment, level in zip(segments, loudness, strict=True):
        if segment.end - segment.start >= gate.learn_from_s and any(
            u.kind == "normal" and _overlap(segment, u) > 0 for u in truth
        ):
            gate.learn(level)
    return gate


class RoomTally:
    """False flags on the room alone, and what the rule costs the table's
    speech: a segment is flagged when a seat claims it (its seat is not
    None: the table's end drops the others, ``watch.FlagWatcher``'s
    ``needs_seat``; one microphone, ``single``, cannot tell and flags all),
    and, live, only when it is also as loud as the table's speakers
    (``watch.LevelGate``, learned from the game)."""

    def __init__(self, needs_seat: bool = True) -> None:
        self.needs_seat = needs_seat
        self.seconds: dict[float, float] = {}
        self.heard: dict[float, int] = {}  # segments: what the detector heard as speech
        self.claimed: dict[float, int] = {}  # of them, those a seat claims
        self.flagged: dict[float, int] = {}  # of those, as loud as the table's speakers
        self.found = 0  # normal and loud utterances of the game a segment found
        self.dropped = 0  # of them, those no segment a seat claims holds
        self.dropped_gated = 0  # the same, the gate as well
        self.reference: list[float] = []

    def count(
        self,
        level: float,
        seconds: float,
        segments: Sequence[Segment],
        loudness: Loudness,
        gate: LevelGate,
    ) -> None:
        claimed = [(s, db) for s, db in zip(segments, loudness, strict=True) if self.claims(s)]
        self.seconds[level] = self.seconds.get(level, 0.0) + seconds
        self.heard[level] = self.heard.get(level, 0) + len(segments)
        self.claimed[level] = self.claimed.get(level, 0) + len(claimed)
        flagged = sum(gate.passes(db) for _, db in claimed)
        self.flagged[level] = self.flagged.get(level, 0) + flagged

    def speech(
        self,
        segments: Sequence[Segment],
        loudness: Loudness,
        truth: Sequence[Spoken],
        gate: LevelGate,
    ) -> None:
        if gate.reference is not None:
            self.reference.append(gate.reference)
        for u in truth:
            if u.kind not in LOUD:
                continue
            held = [
                (s, db)
                for s, db in zip(segments, loudness, strict=True)
                if _overlap(s, u) >= min(0.25, 0.5 * (u.end_s - u.start_s))
            ]
            if held:
                self.found += 1
                self.dropped += not any(self.claims(s) for s, _ in held)
                self.dropped_gated += not any(self.claims(s) and gate.passes(db) for s, db in held)

    def claims(self, segment: Segment) -> bool:
        """The table's end takes it up (``needs_seat``: only if a seat claims it)."""
        return not self.needs_seat or segment.seat is not None

    def figures(self) -> dict[str, Any]:
        def per_30_min(counts: dict[float, int]) -> dict[str, float]:
            return {
                f"{level:g}": round(counts[level] / self.seconds[level] * 1800, 1)
                for level in sorted(counts, reverse=True)
            }

        return {
            "room_minutes": round(self.seconds.get(ROOM_LEVELS[0], 0.0) / 60, 2),
            "room_heard_per_30_min": per_30_min(self.heard),
            "room_claimed_per_30_min": per_30_min(self.claimed),
            "room_flags_per_30_min": per_30_min(self.flagged),
            "speech_found": self.found,
            "speech_dropped_no_seat": self.dropped,
            "speech_dropped_with_gate": self.dropped_gated,
            "gate_reference_db": [round(r, 1) for r in self.reference],
        }


class Tally:
    """Segments against the truth (see the module's docstring)."""

    def __init__(self) -> None:
        self.right = {"loud": 0, "soft": 0, "over": 0}
        self.wrong = {"loud": 0, "soft": 0, "over": 0}
        self.noise = 0  # segments over no utterance (the detector's, not the layout's)
        self.found = {False: [0, 0], True: [0, 0]}  # overlapped: [on own seat, found at all]

    def add(self, segments: Sequence[Segment], truth: Sequence[Spoken], per_seat: bool = False) -> None:  # fmt: skip
        for segment in segments:
            held = [
                u for u in truth if _overlap(segment, u) >= min(0.25, 0.5 * (u.end_s - u.start_s))
            ]
            if not held:
                self.noise += 1
                continue
            main = max(held, key=lambda u: _overlap(segment, u))
            group = "over" if any(u.overlapped for u in held) else "loud" if main.kind in LOUD else "soft"  # fmt: skip
            book = self.right if segment.seat in {u.seat for u in held} else self.wrong
            book[group] += 1
        if per_seat:
            for u in truth:
                if u.end_s - u.start_s < 0.5:
                    continue
                near = [s for s in segments if _overlap(s, u) >= 0.5 * (u.end_s - u.start_s)]
                if near:
                    count = self.found[u.overlapped]
                    count[0] += any(s.seat == u.seat for s in near)
                    count[1] += 1

    def figures(self) -> dict[str, Any]:
        def share(group: str) -> float | None:
            total = self.right[group] + self.wrong[group]
            return round(self.right[group] / total, 3) if total else None

        out: dict[str, Any] = {
            "accuracy": share("loud"),
            "segments": self.right["loud"] + self.wrong["loud"],
            "quiet_accuracy": share("soft"),
            "overlapped_accuracy": share("over"),
            "noise_segments": self.noise,
        }
        if self.found[False][1]:
            out["coverage"] = round(self.found[False][0] / self.found[False][1], 3)
        if self.found[True][1]:
            out["overlapped_coverage"] = round(self.found[True][0] / self.found[True][1], 3)
        return out


def _overlap(segment: Segment, u: Spoken) -> float:
    return min(segment.end, u.end_s) - max(segment.start, u.start_s)


def _calibrate(calibration: Pass, name: str, seats: int, detector: DetectorName) -> dict[int, Any]:
    """``companion calibrate --from-wav``'s own code on the pass."""
    with tempfile.TemporaryDirectory(prefix="ears-seats-") as folder:
        wav = save_wav(Path(folder) / "calibration.wav", calibration.array)
        return calibrate(
            WavListener(wav),
            geometry(name),
            seats,
            judge(detector),
            wait_s=15.0,
            ask=lambda seat: None,
            told=lambda line: None,
            live=False,
        )


def _chunks(samples: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any]]:
    return [samples[i : i + CHUNK] for i in range(0, len(samples) - CHUNK + 1, CHUNK)]


def _channels_cpu(game: Pass) -> float:
    """``ChannelSegments``' own work over the whole game (the detector's
    answers given, not measured: bench/ears.py measures that)."""
    seats = ChannelSegments(game.channels.shape[1], lambda chunk: 0.9)
    started = time.process_time()
    for block in _chunks(game.channels):
        seats.feed(block)
    return time.process_time() - started


def _tracker_cpu(samples: np.ndarray[Any, Any], tracker: SeatTracker) -> float:
    """A tracker fed every chunk of the game and asked for its verdict after
    each, as the live listener does (as if all of it were speech: the worst
    case), reset every ~2 s as segments end."""
    started = time.process_time()
    for k, block in enumerate(_chunks(samples)):
        tracker.feed(block)
        tracker.verdict()
        if k % 60 == 59:
            tracker.reset()
    return time.process_time() - started


def _line(name: str, f: dict[str, Any]) -> str:
    parts = [f"{name}: accuracy {_pc(f['accuracy'])} of {f['segments']} segments"]
    if "coverage" in f:
        parts.append(f"on their own seat {_pc(f['coverage'])} of the utterances found")
    parts.append(f"quiet and whispered {_pc(f['quiet_accuracy'])}")
    parts.append(f"talk over talk {_pc(f['overlapped_accuracy'])}")
    if "overlapped_coverage" in f:
        parts.append(f"(both seats heard {_pc(f['overlapped_coverage'])})")
    parts.append(f"CPU {f['cpu_s_per_s']:.4f} s/s")
    return "; ".join(parts)


def _pc(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f} %"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--minutes", type=float, default=3.0, help="minutes of play per room (3)")
    parser.add_argument("--seed", type=int, default=1, help="rooms 100*seed, 100*seed+1 ... (1)")
    parser.add_argument("--rooms", type=int, default=3)
    parser.add_argument("--array", default=GEOMETRY, help="respeaker-6mic or respeaker-4mic")
    parser.add_argument("--seat-mic", choices=("cardioid", "omni"), default="cardioid",
                        help="the channels layout's microphones (omni: the worst case)")  # fmt: skip
    args = parser.parse_args()
    started = time.perf_counter()
    f = attribution_figures(
        args.minutes, args.seed, args.rooms, geometry_name=args.array, seat_mic=args.seat_mic
    )
    print_figures(f, args.seat_mic)
    print(f"{time.perf_counter() - started:.0f} s to run")


def print_figures(f: dict[str, Any], seat_mic: str = "cardioid") -> None:
    """``attribution_figures``' result as lines (bench/ears.py prints them too)."""
    for room in f["rooms"]:
        print(f"room {room['seed']}: {room['seats']} seats, RT60 {room['rt60']} s, SNR {room['snr_db']:g} dB")  # fmt: skip
    mics = "a cardioid" if seat_mic == "cardioid" else "an omnidirectional"
    print(_line(f"channels ({mics} gooseneck per seat)", f["channels"]))
    print(_line("  the same, one seat a segment (ChannelSeats)", f["channel_seats"]))
    print(_line(f"array ({f['array']['geometry']}, {f['array']['calibrated']} seats calibrated)", f["array"]))  # fmt: skip
    print(f"detector {f['detector']}; {f['minutes']:g} min a room")
    print("targets: channels >= 95 %, array after calibration >= 85 %")
    levels = " / ".join(f"{level:g}" for level in ROOM_LEVELS)
    print(
        f"false flags per 30 min of the room alone (other tables' babble, ventilation, knocks,"
        f" chairs, hum; {f['channels']['room_minutes']:g} min a level) at {levels} dB"
        " against normal speech at the array: heard as speech; of it claimed by a seat;"
        " of that as loud as the table's speakers (the 12 dB gate: the flags)"
    )
    print(_room_line("channels", f["channels"]))
    print(_room_line("channel_seats", f["channel_seats"]))
    if f["array"]["room_heard_per_30_min"]:  # the array was calibrated
        print(_room_line("array", f["array"]))
        print(_room_line("one microphone (the array's, no seat rule)", f["single"], seats=False))
    print("target: <= 1 false flag per 30 min")


def _room_line(name: str, f: dict[str, Any], seats: bool = True) -> str:
    def levels(key: str) -> str:
        return " / ".join(f"{v:g}" for v in f[key].values())

    parts = [f"  {name}: heard {levels('room_heard_per_30_min')}"]
    if seats:
        parts.append(f"claimed {levels('room_claimed_per_30_min')}")
    parts.append(f"flags {levels('room_flags_per_30_min')}")
    lost = f"of {f['speech_found']} normal and loud utterances found, lost"
    if seats:
        lost += f" to the seat rule {f['speech_dropped_no_seat']}, to it and the gate"
    else:
        lost += " to the gate"
    refs = ", ".join(f"{r:g}" for r in f["gate_reference_db"])
    parts.append(f"{lost} {f['speech_dropped_with_gate']} (gate reference {refs} dBFS)")
    return "; ".join(parts)


if __name__ == "__main__":
    main()
