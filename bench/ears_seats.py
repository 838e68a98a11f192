"""Who spoke: seat attribution on a simulated club table (issue 10).

Run ``python bench/ears_seats.py`` (``--minutes 3 --seed 1 --rooms 3``).
Each room (``bench/ears_room.py``: its size, RT60, 10-12 seats and the
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
Targets: channels >= 95 %, array after calibration >= 85 %. It asserts
nothing. ``attribution_figures`` returns the figures for bench/ears.py.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.ears_room import Pass, Spoken, calibration_pass, game_pass, make_table, save_wav
from companion.ears.array import ArraySeats, geometry
from companion.ears.attribution import ChannelSeats, ChannelSegments, SeatTracker, loudest_track
from companion.ears.calibrate import calibrate
from companion.ears.calibration import calibration_of
from companion.ears.capture import WavListener
from companion.ears.detect import CHUNK, DEFAULT_DETECTOR, DetectorName, Segment, judge
from companion.ears.review import by_channels, one_seat_each

RATE = 16_000
SNRS = (15.0, 10.0, 5.0)
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
    layouts = ("channels", "channel_seats", "array")
    tally = {layout: Tally() for layout in layouts}
    cpu = dict.fromkeys(layouts, 0.0)
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
        tally["channels"].add(by_channels(game.channels, detector), game.truth, per_seat=True)
        seats = ChannelSeats(table.seats)
        mono = loudest_track(game.channels)
        tally["channel_seats"].add(one_seat_each(mono, game.channels, detector, seats), game.truth)
        cpu["channels"] += _channels_cpu(game)
        cpu["channel_seats"] += _tracker_cpu(game.channels, seats)
        heard = _calibrate(calibration, geometry_name, table.seats, detector)
        calibrated[0] += len(heard)
        calibrated[1] += table.seats
        if len(heard) >= 2:
            result = calibration_of(heard, geometry(geometry_name))
            mics = game.array
            tally["array"].add(one_seat_each(mics.mean(axis=1), mics, detector, ArraySeats(result)), game.truth)  # fmt: skip
            cpu["array"] += _tracker_cpu(mics, ArraySeats(result))
    figures: dict[str, Any] = {
        "seed": seed,
        "minutes": minutes,
        "detector": detector,
        "rooms": about,
    }
    for layout in layouts:
        figures[layout] = tally[layout].figures() | {"cpu_s_per_s": round(cpu[layout] / played, 5)}
    figures["array"] |= {
        "geometry": geometry_name,
        "calibrated": f"{calibrated[0]}/{calibrated[1]}",
    }
    figures["channels"]["microphones"] = seat_mic
    return figures


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


if __name__ == "__main__":
    main()
