"""The tournament hall under a round's troubles (issue 27, docs/hall.md).

Run ``python bench/hall.py`` (40 tables; ``--tables 8 --speed 40`` for a
quick look; ``--load N``: N CPU-bound neighbour processes beside it). It
makes a hall (``companion hall init``'s own folder) on free ports of this
machine, starts its Mosquitto, and runs every table as a **real table
process** of its own: ``python bench/hall.py --table N``, a ``LiveTable``
(captions only, no seats) with the table's ``[hall]``, journaling into its
own journal and playing a tournament example game on its clock ``--speed``
times as fast, fed the way ``replay --realtime`` feeds it. A board (a
paho subscriber with the board's user feeding the board's own ``HallModel``,
which drops what arrives twice by ``Dedup``'s rules)
runs in this process. During the round:

- the broker is stopped (SIGTERM) at half the round and started again two
  seconds later, on the same configuration (its persistence kept);
- one table reaches the broker through a small TCP proxy that, for five
  simulated minutes (300 game seconds / speed), forwards nothing (both ways:
  bytes dropped, connections kept), then drops its connections and lets new
  ones through;
- one table's process is killed (SIGKILL) at 40 % of its game and started
  again on its journal (``resume_journal``), going on with the script.

Printed: protocols received / games finished (distinct, deduplicated),
protocols received more than once (dropped by the model) and tables with two
different protocols (must be 0), protocols byte for byte the table's own
(``companion protocol --format json`` made here from each journal after
the round), the state-to-board lag (p50/p99 of every state the board took,
from the table's ``at`` to its arrival; with and without the outages), the
timer firing error of the cut table while its link was down and of all
tables while theirs was up, payload bytes per table per game minute, and
the CPU time of the broker and of this process (board and proxy).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import resource
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.hall_parts import EVENT, Board, Proxy, start_board, table_main  # noqa: E402
from companion.hall.broker import Hall, init_hall, start_broker, stop_broker  # noqa: E402

SCRIPT = ROOT / "examples" / "tournament-red-win.jsonl"


# --- the round ------------------------------------------------------------------------------------
def cpu_of(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def spawn(args: argparse.Namespace, folder: Path, n: int, port: int, start_at: float, resume: bool) -> subprocess.Popen[str]:  # fmt: skip
    command = [
        sys.executable, str(Path(__file__).resolve()), "--table", str(n), "--folder", str(folder),
        "--port", str(port), "--speed", str(args.speed), "--script", str(args.script),
        "--start-at", str(start_at), "--wait", str(args.wait),
    ]  # fmt: skip
    if args.without_hall:
        command.append("--without-hall")
    if resume:
        command.append("--resume")
    log = (folder / f"table-{n}{'-resumed' if resume else ''}.log").open("w")
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True)


def round_main(args: argparse.Namespace) -> int:
    from companion.config.rulesets import load_ruleset
    from companion.protocol.archive import from_journal
    from companion.protocol.formats import render
    from companion.runner.script import parse_lines

    script = Path(args.script)
    lines = parse_lines(script.read_text(encoding="utf-8").splitlines(), str(script), load_ruleset)
    game_s = max(line.at for line in lines)
    round_s = game_s / args.speed
    tables = tuple(range(1, args.tables + 1))
    cut_table, kill_table = tables[-1], tables[-2]
    folder = Path(tempfile.mkdtemp(prefix="hall-bench-"))
    hall = init_hall(
        Hall(folder=folder / "hall", event=EVENT, tables=tables, host="127.0.0.1",
             bind="127.0.0.1", port=free_port(), spectator_port=free_port())
    )  # fmt: skip
    load = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(args.load)]
    broker = start_broker(hall)
    broker_cpu = 0.0
    proxy = Proxy(hall.port)
    board = Board()
    client = start_board(hall, board)
    own_cpu = resource.getrusage(resource.RUSAGE_SELF)
    start_at = time.time() + 4.0 + 0.25 * len(tables)  # every process imported by then
    children = {
        n: spawn(args, folder, n, proxy.port if n == cut_table else hall.port, start_at + 0.05 * n, False)
        for n in tables
    }  # fmt: skip
    events: dict[str, tuple[float, float]] = {}
    cut_s = 300 / args.speed

    def troubles() -> None:
        time.sleep(max(0.0, start_at + 0.3 * round_s - time.time()))
        proxy.cut()
        children[cut_table].send_signal(signal.SIGUSR1)
        began = time.time()
        time.sleep(cut_s)
        proxy.mend()
        children[cut_table].send_signal(signal.SIGUSR2)
        events["cut"] = (began, time.time())
        time.sleep(max(0.0, start_at + 0.4 * round_s - time.time()))
        os.kill(children[kill_table].pid, signal.SIGKILL)
        children[kill_table].wait()
        killed = time.time()
        children[kill_table] = spawn(args, folder, kill_table, hall.port, 0.0, True)
        events["kill"] = (killed, time.time())
        time.sleep(max(0.0, start_at + 0.5 * round_s - time.time()))
        nonlocal broker, broker_cpu
        began = time.time()
        broker_cpu += cpu_of(broker.pid)
        stop_broker(broker)
        time.sleep(2.0)
        broker = start_broker(hall)
        events["broker"] = (began, time.time())

    trouble = threading.Thread(target=troubles, daemon=True)
    trouble.start()
    reports: dict[int, dict[str, Any]] = {}
    limit = start_at + round_s + args.wait + 120
    while len(reports) < len(tables) and time.time() < limit:
        board.take()
        for n, child in list(children.items()):
            if (
                n not in reports
                and child.poll() is not None
                and (n != kill_table or "kill" in events)
            ):
                out = child.stdout.read() if child.stdout else ""
                last = out.strip().splitlines()[-1:] or ["{}"]
                with contextlib.suppress(ValueError):
                    reports[n] = json.loads(last[0])
                reports.setdefault(n, {"table": n, "phase": None})
        time.sleep(0.2)
    trouble.join(5)
    # the board takes what is still on its way
    settle = time.time() + 15
    while time.time() < settle and len(board.protocols) < len(tables):
        board.take()
        time.sleep(0.2)
    board.take()
    broker_cpu += cpu_of(broker.pid)
    mine = resource.getrusage(resource.RUSAGE_SELF)
    own = (mine.ru_utime - own_cpu.ru_utime) + (mine.ru_stime - own_cpu.ru_stime)
    client.disconnect()
    client.loop_stop()
    stop_broker(broker)
    for child in children.values():
        if child.poll() is None:
            child.kill()
    for busy in load:
        busy.kill()

    finished = [n for n, r in reports.items() if r.get("phase") == "ended"]
    identical = 0
    for n in tables:
        if not (folder / "journals" / f"table-{n}.jsonl").exists():
            continue
        made, _ = from_journal(folder / "journals" / f"table-{n}.jsonl", load_ruleset, "ru")
        own_protocol = render(made, "json").encode("utf-8")
        got = board.protocols.get(n, [])
        identical += int(len(got) == 1 and got[0] == own_protocol)
    different = sum(1 for got in board.protocols.values() if len(got) > 1)

    def outside(table: int, at: float) -> bool:
        b0, b1 = events.get("broker", (0, 0))
        if b0 - 1 <= at <= b1 + 5:
            return False
        if table == cut_table:
            c0, c1 = events.get("cut", (0, 0))
            return not c0 - 1 <= at <= c1 + 30
        if table == kill_table:
            k0, k1 = events.get("kill", (0, 0))
            return not k0 - 1 <= at <= k1 + 5
        return True

    lag_all = [lag * 1000 for _, _, lag in board.lags]
    lag_calm = [lag * 1000 for t, at, lag in board.lags if outside(t, at)]
    down = reports.get(cut_table, {}).get("down_ms", [])
    down_all = [x for r in reports.values() if not r.get("resumed") for x in r.get("down_ms", [])]
    # a resumed table's first timers were due while it was dead: not the loop's error
    up = [x for r in reports.values() if not r.get("resumed") for x in r.get("up_ms", [])]
    resumed = reports.get(kill_table, {})
    again = resumed.get("up_ms", []) + resumed.get("down_ms", [])
    minutes = game_s / 60
    per_table = [board.bytes_by_table.get(n, 0) / minutes for n in tables]
    round_real = time.time() - start_at
    print(f"hall bench: {len(tables)} tables, {script.name} at x{args.speed:g} "
          f"({game_s / 60:.1f} game min, {round_s:.0f} s a game), load {args.load}")  # fmt: skip
    print(f"  troubles: broker restarted at 50 % (down {events.get('broker', (0, 0))[1] - events.get('broker', (0, 0))[0]:.1f} s); "
          f"table {cut_table} cut off for 300 game s ({cut_s:.1f} s); table {kill_table} SIGKILLed at 40 % and resumed")  # fmt: skip
    print(
        f"  protocols received / games finished: {len(board.protocols)}/{len(finished)} "
        f"(tables {len(tables)}); byte-identical to the table's own: {identical}/{len(tables)}"
    )
    print(f"  protocol copies received: {board.protocol_copies}; dropped as duplicates by the board's model: "
          f"{board.protocol_copies - sum(len(g) for g in board.protocols.values())}; "
          f"tables with two different protocols: {different}")  # fmt: skip
    print(f"  messages dropped as duplicates (all topics): {board.model.duplicates}; "
          f"refused: {len(board.model.refused)}")  # fmt: skip
    print(f"  state-to-board lag, ms: p50 {pct(lag_calm, 50):.1f}, p99 {pct(lag_calm, 99):.1f}, "
          f"max {max(lag_calm, default=float('nan')):.1f} ({len(lag_calm)} states, outside the outages); "
          f"with the outages p99 {pct(lag_all, 99):.0f}, max {max(lag_all, default=float('nan')):.0f} "
          f"({len(lag_all)})")  # fmt: skip
    if args.without_hall:
        every = down_all + up
        print(f"  WITHOUT A HALL: timer firing error, ms, every table: p50 {pct(every, 50):.2f}, "
              f"p99 {pct(every, 99):.2f}, max {max(every, default=float('nan')):.2f} ({len(every)})")  # fmt: skip
    print(f"  timer firing error, ms: table {cut_table} while its link was down: p50 {pct(down, 50):.2f}, "
          f"p99 {pct(down, 99):.2f}, max {max(down, default=float('nan')):.2f} ({len(down)} timers); "
          f"every table while its link was down (the cut, the broker's restart): p99 {pct(down_all, 99):.2f}, "
          f"max {max(down_all, default=float('nan')):.2f} ({len(down_all)}); "
          f"while up: p99 {pct(up, 99):.2f}, max {max(up, default=float('nan')):.2f} ({len(up)}); "
          f"table {kill_table} after its resume: max {max(again, default=float('nan')):.1f} ({len(again)})")  # fmt: skip
    print(
        f"  payload bytes per table per game minute: median {statistics.median(per_table):.0f}, "
        f"max {max(per_table):.0f}"
    )
    print(f"  CPU: broker {broker_cpu:.2f} s, this process (board + proxy) {own:.2f} s, "
          f"over {round_real:.0f} s")  # fmt: skip
    priorities = sorted({str(r.get("priority")) for r in reports.values()})
    print(f"  the tables' loop priority: {', '.join(priorities)}")
    unfinished = sorted(set(tables) - set(finished))
    if unfinished:
        print(f"  unfinished tables: {unfinished} (folder kept: {folder})")
    return 0 if len(board.protocols) == len(finished) == len(tables) == identical else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=40)
    parser.add_argument("--speed", type=float, default=20.0)
    parser.add_argument("--script", default=str(SCRIPT))
    parser.add_argument("--load", type=int, default=0, help="CPU-bound neighbour processes")
    parser.add_argument("--wait", type=float, default=60.0, help="a table's wait for the hall")
    parser.add_argument(
        "--without-hall",
        action="store_true",
        help="the same tables and troubles with no [hall]: the timers' reference",
    )
    # a table's own process
    parser.add_argument("--table", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--start-at", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--resume", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.table is not None:
        return table_main(args)
    return round_main(args)


if __name__ == "__main__":
    sys.exit(main())
