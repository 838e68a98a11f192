"""The journal under faults (issue 8): checksums that find a changed,
deleted, duplicated or moved line; one writer per journal (a lock held
across processes); short writes completed; a full disk refusing the input
and leaving a journal that resumes cleanly; private files; the realtime
path journaling every input."""

from __future__ import annotations

import errno
import json
import os
import stat
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT
from journal_files import SHORT, write_crash_state, write_head

from companion import cli
from companion.config.rulesets import load_ruleset
from companion.core.events import HostAdvanced, SeatPressed
from companion.core.sports.state import table as table_state
from companion.runner import journal_check
from companion.runner.journal import (
    Journal,
    JournalDamaged,
    JournalError,
    JournalLocked,
    JournalWriteError,
    read,
)
from companion.runner.replay import ScriptReplay
from companion.runner.script import ScriptError, parse_lines


def companion(
    *args: str | Path, cwd: Path | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``python -m companion.cli`` as its own process, as a user runs it."""
    environ = {k: v for k, v in os.environ.items() if k != "COMPANION_CRASH_AT"}
    environ["PYTHONPATH"] = os.pathsep.join([str(ROOT), environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *map(str, args)],
        capture_output=True,
        text=True,
        env=environ,
        cwd=cwd,
        timeout=timeout,
    )


@pytest.fixture
def short(tmp_path: Path) -> Path:
    path = tmp_path / "short.jsonl"
    path.write_text(SHORT, encoding="utf-8")
    return path


def journaled(tmp_path: Path, short: Path) -> Path:
    path = tmp_path / "game.jsonl"
    assert cli.main(["replay", str(short), "--journal", str(path)]) == 0
    return path


def expected_json(script: Path, capsys: pytest.CaptureFixture[str]) -> object:
    capsys.readouterr()
    assert cli.main(["replay", str(script), "--json"]) == 0
    return json.loads(capsys.readouterr().out)


# --- the line format -------------------------------------------------------------


def test_every_line_ends_with_its_checksum_chained_to_the_one_before(
    tmp_path: Path, short: Path
) -> None:
    path = journaled(tmp_path, short)
    previous = ""
    lines = path.read_bytes().splitlines()
    for raw in lines:
        record = json.loads(raw)
        assert list(record)[-1] == "sum"
        body = raw[: raw.rindex(b',"sum":')] + b"}"
        assert record["sum"] == journal_check.chain(previous, body)
        previous = record["sum"]
    assert journal_check.read_head(path) == (len(lines), previous)


def test_files_and_folders_are_private(tmp_path: Path, short: Path) -> None:
    path = tmp_path / "club" / "games" / "game.jsonl"
    assert cli.main(["replay", str(short), "--journal", str(path)]) == 0
    mode = lambda p: stat.S_IMODE(p.stat().st_mode)  # noqa: E731
    assert mode(path) == 0o600
    assert mode(journal_check.lock_path(path)) == 0o600
    assert mode(path.parent) == mode(path.parent.parent) == 0o700


def test_a_folder_is_refused_as_such(
    tmp_path: Path, short: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["replay", str(short), "--journal", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"companion: {tmp_path}: это папка; укажите файл журнала, например {tmp_path}/game.jsonl\n"
    )
    assert cli.main(["resume", str(tmp_path)]) == 2
    assert "это папка" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("change", "line", "message"),
    [
        ("flip", 4, "контрольная сумма не сходится"),
        ("delete", 3, "контрольная сумма не сходится"),
        ("duplicate", 4, "это копия строки перед ней"),
        ("swap", 3, "контрольная сумма не сходится"),
        ("delete last", 8, "строки удалены с конца"),
        ("no sum", 2, "нет контрольной суммы"),
    ],
)
def test_damage_is_refused_naming_the_line(
    tmp_path: Path,
    short: Path,
    capsys: pytest.CaptureFixture[str],
    change: str,
    line: int,
    message: str,
) -> None:
    path = journaled(tmp_path, short)
    lines = path.read_bytes().splitlines(keepends=True)
    assert len(lines) == 8
    if change == "flip":
        assert b'"target":3' in lines[3]
        lines[3] = lines[3].replace(b'"target":3', b'"target":7')
    elif change == "delete":
        del lines[2]
    elif change == "duplicate":
        lines.insert(3, lines[2])
    elif change == "swap":
        lines[2], lines[3] = lines[3], lines[2]
    elif change == "delete last":
        del lines[-1]
    else:
        lines[1] = lines[1][: lines[1].rindex(b',"sum":')] + b"}\n"
    damaged = b"".join(lines)
    path.write_bytes(damaged)
    capsys.readouterr()
    assert cli.main(["resume", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"companion: {path}:{line}: ") and message in err
    assert err.endswith("продолжать игру по нему нельзя\n") and err.count("\n") == 1
    assert path.read_bytes() == damaged  # nothing written


def test_torn_tails_are_dropped_with_a_warning(
    tmp_path: Path, short: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = journaled(tmp_path, short)
    whole = path.read_bytes()
    lines = whole.splitlines(keepends=True)
    expected = expected_json(short, capsys)
    for tail in (lines[-1][:20], b"\0" * 30 + b"\n", lines[-1][:-1]):
        write_crash_state(path, b"".join(lines[:-1]))
        path.write_bytes(b"".join(lines[:-1]) + tail)
        assert cli.main(["resume", str(path), "--script", str(short), "--json"]) == 0
        out, err = capsys.readouterr()
        assert json.loads(out) == expected
        assert err.startswith(f"companion: {path}:8: оборванная последняя строка пропущена")
        assert path.read_bytes() == whole


def test_a_journal_without_its_lock_file_resumes_with_a_warning(
    tmp_path: Path, short: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = journaled(tmp_path, short)
    journal_check.lock_path(path).unlink()
    capsys.readouterr()
    assert cli.main(["resume", str(path), "--json"]) == 0
    assert capsys.readouterr().err == (
        f"companion: {path}: рядом нет файла блокировки (game.jsonl.lock): "
        "не удалены ли строки с конца, проверить нельзя\n"
    )


def test_a_line_that_points_past_the_script_is_refused(
    tmp_path: Path, short: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = journaled(tmp_path, short)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("\n".join(SHORT.splitlines()[:3]) + "\n", encoding="utf-8")
    capsys.readouterr()
    assert cli.main(["resume", str(path), "--script", str(cut)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"companion: {path}:6: ") and "не ввод сценария" in err


# --- one writer ------------------------------------------------------------------


HOLD = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from companion.runner.journal import Journal
    journal, _ = Journal.resume(Path(sys.argv[1]))
    print("holding", flush=True)
    sys.stdin.read()
    """
)


@pytest.fixture
def holder(tmp_path: Path, short: Path) -> Iterator[tuple[Path, subprocess.Popen[str]]]:
    """Another process holding the journal until its stdin closes."""
    path = journaled(tmp_path, short)
    environ = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=environ,
    )
    assert process.stdout is not None and process.stdout.readline() == "holding\n"
    yield path, process
    assert process.stdin is not None
    process.stdin.close()
    process.wait(10)


def test_a_second_writer_is_refused_naming_the_holder(
    holder: tuple[Path, subprocess.Popen[str]], short: Path
) -> None:
    path, process = holder
    before = path.read_bytes()
    with pytest.raises(JournalLocked, match=f"in use by pid {process.pid} on "):
        Journal.resume(path)
    second = companion("resume", path, "--script", short)
    assert second.returncode == 2 and second.stdout == ""
    assert second.stderr.startswith(f"companion: {path}: занят: процесс {process.pid} на машине ")
    assert second.stderr.count("\n") == 1
    assert path.read_bytes() == before


def test_the_lock_goes_with_its_holder(
    holder: tuple[Path, subprocess.Popen[str]], short: Path
) -> None:
    path, process = holder
    process.kill()
    process.wait(10)
    journal, text = Journal.resume(path)  # the kernel let go of a dead holder's lock
    journal.close()
    assert len(text.lines) == 8


# --- short writes and a full disk -----------------------------------------------------


class Dribble:
    """A file layer whose writes are short: at most ``step`` bytes each."""

    def __init__(self, step: int) -> None:
        self.step = step
        self.calls = 0

    def write(self, fd: int, data: bytes) -> int:
        self.calls += 1
        return os.write(fd, data[: self.step])

    fsync = staticmethod(os.fsync)
    ftruncate = staticmethod(os.ftruncate)


class FullDisk:
    """A file layer that fails after ``room`` bytes, part way through a line,
    until ``room`` is raised again (space freed). ``fail`` picks the call."""

    def __init__(self, room: int, fail: str = "write") -> None:
        self.room = room
        self.fail = fail
        self.used = 0

    def write(self, fd: int, data: bytes) -> int:
        left = self.room - self.used
        if left <= 0 and self.fail == "write":
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        count = os.write(fd, data[: max(1, left)] if self.fail == "write" else data)
        self.used += count
        return count

    def fsync(self, fd: int) -> None:
        if self.fail == "fsync" and self.used > self.room:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        os.fsync(fd)

    ftruncate = staticmethod(os.ftruncate)


def test_short_writes_are_completed(tmp_path: Path, short: Path) -> None:
    path = tmp_path / "game.jsonl"
    layer = Dribble(7)
    table = ScriptReplay(Journal.create(path, files=layer))
    table.run(parse_lines(SHORT.splitlines(), "short", load_ruleset))
    assert layer.calls > 8 * 10  # every line went out in many pieces
    assert read(path).lines == journaled(tmp_path / "x", short).read_text().splitlines()


@pytest.mark.parametrize("fail", ["write", "fsync"])
def test_a_full_disk_refuses_the_input_and_the_journal_resumes_cleanly(
    tmp_path: Path, short: Path, capsys: pytest.CaptureFixture[str], fail: str
) -> None:
    path = tmp_path / "game.jsonl"
    layer = FullDisk(room=600, fail=fail)
    table = ScriptReplay(Journal.create(path, files=layer), source="short")
    lines = parse_lines(SHORT.splitlines(), "short", load_ruleset)
    with pytest.raises(ScriptError) as caught:
        table.run(lines)
    message = str(caught.value)
    reason = "No space left on device" if fail == "write" else "Input/output error"
    assert f"{path}: {reason}: the input was not taken" in message
    assert "\n" not in message
    refused_at = caught.value.line
    game = table.game
    # Nothing of the refused input happened; the journal ends at its last whole line.
    text = read(path)
    assert text.torn is None and len(text.lines) == table.inputs
    # Space comes back: the same input goes in, the game goes on.
    layer.room = 10**9
    rest = [line for line in lines if line.number >= refused_at]
    table.run(rest)
    assert table.game is not game
    table.session.journal.close()  # type: ignore[union-attr]
    capsys.readouterr()
    assert cli.main(["resume", str(path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert err == "" and json.loads(out) == expected_json(short, capsys)


def test_a_full_disk_in_the_live_loop_refuses_and_retries_timers(tmp_path: Path) -> None:
    """The loop refuses a host input it cannot write, and a timer expiry it
    cannot write stays due and fires once there is room again."""
    from companion.core.events import GameSetUp
    from companion.runner.clock import FakeClock
    from companion.runner.loop import LiveLoop

    path = tmp_path / "game.jsonl"
    layer = FullDisk(room=10**9)
    clock = FakeClock()
    refused: list[str] = []
    runtime = LiveLoop(
        clock,
        lambda _now, _effects: None,
        journal=Journal.create(path, files=layer),
        on_rejected=lambda _event, why, _line: refused.append(why),
    )
    rules = load_ruleset("tournament")
    runtime.submit(GameSetUp(rules, 10, None, 3))
    runtime.run_pending()
    layer.room = layer.used  # the disk is full from here on
    runtime.submit(SeatPressed(4))
    clock.set(61)  # the agreement's timer (60 s) is due
    runtime.run_pending()
    assert len(refused) == 2 and all("No space left on device" in why for why in refused)
    assert (
        runtime.game is not None and table_state(runtime.game).night_step == 0
    )  # still the agreement
    layer.room = 10**9
    clock.set(61.5)
    runtime.run_pending()
    assert table_state(runtime.game).night_step == 0  # waits out its retry delay, no spinning
    clock.set(62.5)
    runtime.run_pending()
    assert table_state(runtime.game).night_step == 1
    runtime.submit(HostAdvanced())
    runtime.run_pending()
    assert len(read(path).lines) == 3  # setup, the agreement's expiry, next


def tiny_tmpfs(folder: Path, size: str) -> bool:
    folder.mkdir()
    try:
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(folder)],
            capture_output=True,
            timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def test_a_really_full_disk(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On a tmpfs of 12 KiB: the replay stops at the input that did not fit,
    naming the file; the journal resumes cleanly to the same state."""
    from testkit.bots import long_game

    disk = tmp_path / "disk"
    if not tiny_tmpfs(disk, "12k"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        script = tmp_path / "long.jsonl"
        script.write_text("\n".join(long_game(400)) + "\n", encoding="utf-8")
        path = disk / "game.jsonl"
        done = companion("replay", script, "--journal", path, "--json")
        assert done.returncode == 2 and done.stdout == ""
        assert "Журнал не записан (на диске нет места): ввод не принят" in done.stderr
        assert done.stderr.count("\n") == 1
        line = int(done.stderr.split(":")[2])
        resumed = companion("resume", path, "--json")
        assert resumed.returncode == 0 and resumed.stderr == ""
        # The same state as the script played up to the refused line, its
        # clock run on to the last journaled input (timers fire before a line).
        last = json.loads(read(path).lines[-1])["at"]
        cut = tmp_path / "cut.jsonl"
        kept = script.read_text().splitlines()[: line - 1]
        cut.write_text("\n".join([*kept, json.dumps({"at": last, "input": "wait"})]) + "\n")
        assert json.loads(resumed.stdout) == expected_json(cut, capsys)
    finally:
        subprocess.run(["umount", str(disk)], check=False)


# --- the realtime path -----------------------------------------------------------------


def test_the_realtime_path_journals_every_input(
    tmp_path: Path, short: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, captions, host = tmp_path / "game.jsonl", tmp_path / "captions.txt", tmp_path / "host.txt"
    done = companion(
        "replay", short, "--realtime", "--speed", "40", "--captions", "--journal", path,
        "--captions-to", captions, "--host-log", host, "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    lines = read(path).lines
    assert [json.loads(x)["input"] for x in lines if '"timer"' not in x] == [
        "setup", "nominate", "pass", "press", "offence", "next",
    ]  # fmt: skip
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert json.loads(host.read_text()) == expected_json(short, capsys)
    # A journal from the realtime path resumes like any other.
    resumed = companion("resume", path, "--json")
    assert resumed.returncode == 0 and json.loads(resumed.stdout) == json.loads(host.read_text())


def test_the_realtime_path_stops_at_a_refused_line(tmp_path: Path, short: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(SHORT + '{"at": 112, "input": "shot", "seat": 3, "target": 1}\n')
    path = tmp_path / "game.jsonl"
    done = companion(
        "replay", bad, "--realtime", "--speed", "40", "--captions", "--journal", path,
        "--captions-to", tmp_path / "c.txt", "--host-log", tmp_path / "h.txt",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.endswith(
        f'{bad}:7: {{"at": 112, "input": "shot", "seat": 3, "target": 1}}: '
        "Ночной выбор — не в эту фазу игры (речь)\n"
    )
    assert len(read(path).lines) == 8  # everything before it, journaled


# --- resuming from elsewhere --------------------------------------------------------------


def test_a_relative_ruleset_path_resolves_from_another_folder(tmp_path: Path) -> None:
    table = tmp_path / "club"
    (table / "rules").mkdir(parents=True)
    (table / "rules" / "tournament.toml").write_bytes(
        (ROOT / "rulesets" / "tournament.toml").read_bytes()
    )
    script = table / "game.jsonl"
    script.write_text(
        SHORT.replace('"ruleset": "tournament"', '"ruleset": "rules/tournament.toml"')
    )
    assert companion("replay", "game.jsonl", "--journal", "j.jsonl", cwd=table).returncode == 0
    resumed = companion("resume", table / "j.jsonl", "--json", cwd=tmp_path)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["ruleset"] == "tournament"


def test_errors_stay_one_line_for_odd_journals(tmp_path: Path) -> None:
    cases = {
        "missing": None,
        "not utf-8": b"\xff\xfe\n",
        "huge line": b"x" * 70_000 + b"\n",
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.jsonl"
        if data is not None:
            path.write_bytes(data)
            write_head(path, 0, "")
        with pytest.raises(JournalError) as caught:
            Journal.resume(path)
        assert "\n" not in str(caught.value) and str(path) in str(caught.value), name
        assert len(str(caught.value)) < 300
        if data is not None:
            assert isinstance(caught.value, JournalDamaged)


def test_write_errors_are_write_errors() -> None:
    assert issubclass(JournalWriteError, JournalError)
