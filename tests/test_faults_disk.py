"""The journal's disk at a live table (issue 12, docs/faults.md): nearly
full, the host is told once and the voice says so; full, the journal goes
on in a fallback folder and the game goes on, a journal that resumes whole
from its old name; nowhere to go, inputs are refused and told once; a
journal in memory goes back onto a disk when one has room. The free space
is an injected probe, the full disk an injected ENOSPC (and a real one on a
tiny tmpfs where the machine lets us mount it)."""

from __future__ import annotations

import errno
import io
import json
import os
import re
import subprocess
import threading
from pathlib import Path

import pytest
from helpers import TOURNAMENT_ROLES

from companion import cli
from companion.config.rulesets import load_ruleset
from companion.core.events import Event, GameSetUp, HostAdvanced, SeatPressed, SeatReleased
from companion.core.vocabulary import TABLE_CUES
from companion.live.assembly import LiveTable, TableSpec
from companion.runner import journal_check
from companion.runner.clock import FakeClock
from companion.runner.fallback import FallbackPlaces, Place, default_places
from companion.runner.journal import Journal, JournalError, read
from companion.runner.journal_watch import EVERY_INPUTS, LOW_BYTES
from companion.runner.resume import resume_journal, unfinished_game
from companion.runner.session import GameSession
from companion.voice.catalogue_load import load_catalogue
from companion.voice.settings import VoiceSettings
from companion.voice.speaker import CaptionSpeaker

MB = 2**20
RULES = load_ruleset("tournament")
DISK_LOW = "» Внимание: на диске кончается место."
DISK_FULL = "» Диск заполнен. Журнал игры пишется в запасное место."
STOPPED = "» Внимание: журнал игры не записывается."


class Disks:
    """Free space by folder, as the test sets it: the probe the table
    looks at, and the file layer that fails with ENOSPC in a folder with
    none left."""

    def __init__(self, free: dict[Path, int]) -> None:
        self.free_of = free
        self.looked: list[Path] = []

    def free(self, path: Path) -> int:
        self.looked.append(path)
        return self._free(path)

    def _free(self, path: Path) -> int:
        path = Path(os.path.abspath(path))
        for folder in (path, *path.parents):
            if folder in self.free_of:
                return self.free_of[folder]
        return 10**12

    # the journal's file layer
    def write(self, fd: int, data: bytes) -> int:
        if self._free(Path(os.readlink(f"/proc/self/fd/{fd}")).parent) == 0:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, data)

    fsync = staticmethod(os.fsync)
    ftruncate = staticmethod(os.ftruncate)


class Table:
    """A live table as the console builds one, on a fake clock, with its
    journal in ``journals``, the notices and captions kept. ``behind``: the
    journal on its writer's thread, as a threaded table has it
    (runner/journal_writer.py): the test drives the loop and waits for the
    writer after each input, so the two ways tell the same story."""

    def __init__(
        self, tmp_path: Path, disks: Disks, places: list[Place], behind: bool = False
    ) -> None:
        self.path = tmp_path / "journals" / "game.jsonl"
        self.disks = disks
        self.notices: list[tuple[str, str]] = []
        self.told_on: set[threading.Thread] = set()
        self.refused: list[str] = []
        self.captions = io.StringIO()
        journal = Journal.create(self.path, files=disks)
        self.table = LiveTable(
            TableSpec(voice=VoiceSettings(captions_only=True), seats="none", threaded=behind),
            RULES,
            10,
            session=GameSession(journal=journal),
            clock=FakeClock(),
            speaker=CaptionSpeaker(self.captions),
            on_notice=self._notice,
            on_refused=lambda _event, why, _line: self.refused.append(why),
            fallback=FallbackPlaces(places, disks.free),
            disk_free=disks.free,
        )
        assert (self.table.loop.writer is not None) == behind
        if not behind:
            self.table.start()  # threaded, the test is the loop's thread instead
        self.submit(GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES)))

    def _notice(self, what: str, line: str) -> None:
        self.notices.append((what, line))
        # On the loop's thread (the test's), never the journal writer's.
        self.told_on.add(threading.current_thread())

    def submit(self, event: Event) -> None:
        self.table.submit(event)
        assert self.table.loop.settle()

    def advance(self, seconds: float) -> None:
        self.table.advance(seconds)
        assert self.table.loop.settle()

    def presses(self, count: int) -> None:
        """``count`` inputs that change nothing (a seat's button at night)."""
        for n in range(count):
            self.submit(SeatPressed(3) if n % 2 == 0 else SeatReleased(3))

    def said(self, line: str) -> int:
        return self.captions.getvalue().splitlines().count(line)

    def told(self, what: str) -> list[str]:
        assert self.told_on <= {threading.main_thread()}
        return [line for kind, line in self.notices if kind == what]

    @property
    def journal(self) -> Journal:
        assert self.table.session.journal is not None
        return self.table.session.journal


@pytest.fixture(params=[False, True], ids=["inline", "behind"])
def behind(request: pytest.FixtureRequest) -> bool:
    return bool(request.param)


@pytest.fixture
def folders(tmp_path: Path) -> dict[str, Path]:
    return {name: tmp_path / name for name in ("journals", "stick", "home", "memory")}


def test_nearly_full_is_told_once_well_before_and_checked_cheaply(
    tmp_path: Path, folders: dict[str, Path], behind: bool
) -> None:
    disks = Disks({folders["journals"]: 500 * MB})
    table = Table(tmp_path, disks, [Place(folders["stick"])], behind)
    assert len(disks.looked) == 1  # at the setup
    disks.free_of[folders["journals"]] = LOW_BYTES - MB
    table.presses(EVERY_INPUTS - 1)
    assert table.notices == [] and len(disks.looked) == 1  # not on every write
    table.presses(1)
    assert table.told("disk_low") == [f"63 MB, {folders['journals']}"]
    assert table.said(DISK_LOW) == 1
    table.presses(3 * EVERY_INPUTS)
    table.advance(600)  # the night's timers: and every minute of game time
    assert len(table.told("disk_low")) == 1 and table.said(DISK_LOW) == 1
    inputs = table.table.session.inputs
    assert len(disks.looked) <= inputs // EVERY_INPUTS + 600 // 60 + 2
    # Space freed (by half as much again), then short again: told again.
    disks.free_of[folders["journals"]] = 2 * LOW_BYTES
    table.presses(EVERY_INPUTS)
    disks.free_of[folders["journals"]] = MB
    table.presses(EVERY_INPUTS)
    assert len(table.told("disk_low")) == 2
    assert table.refused == [] and table.journal.moves == []
    table.table.close()


def test_a_full_disk_moves_the_journal_and_the_game_goes_on(
    tmp_path: Path, folders: dict[str, Path], capsys: pytest.CaptureFixture[str], behind: bool
) -> None:
    disks = Disks({folders["journals"]: 500 * MB, folders["stick"]: 100 * MB})
    table = Table(tmp_path, disks, [Place(folders["stick"]), Place(folders["home"])], behind)
    table.presses(6)
    before = len(read(table.path).lines)
    disks.free_of[folders["journals"]] = 0  # the next line cannot be written there
    table.presses(1)
    moved = folders["stick"] / "game.jsonl"
    assert table.refused == []  # taken: its line went to the stick
    assert table.journal.path == moved
    assert table.told("journal_moved") == [str(moved)]
    assert table.said(DISK_FULL) == 1
    table.presses(5)
    table.advance(61)  # a timer's line too
    table.submit(HostAdvanced())
    game, inputs = table.table.game, table.table.session.inputs
    assert len(table.notices) == 1 and table.said(DISK_FULL) == 1  # once
    table.table.close()
    # The old journal stays as it was, its lock file pointing to the new one,
    # which holds every line once, in order: a journal of its own.
    assert len(journal_check.verify(table.path.read_bytes(), "old", None).lines) == before
    assert journal_check.read_moved(table.path) == moved
    whole = journal_check.verify(moved.read_bytes(), str(moved), journal_check.read_head(moved))
    assert whole.torn is None and len(whole.lines) == inputs
    assert whole.lines[:before] == read(table.path).lines[:before]
    # Everything that reads the old name finds the whole game.
    assert len(read(table.path).lines) == inputs
    resumed = resume_journal(table.path, load_ruleset)
    assert resumed.session.game == game and resumed.session.journal is not None
    assert resumed.session.journal.path == moved
    assert resumed.warnings == [
        f"{table.path}: the game went on in {moved} (docs/faults.md): that one is read"
    ]
    resumed.session.journal.close()
    found = unfinished_game(folders["journals"], load_ruleset, elsewhere=[])
    assert found is not None and found.game == game
    capsys.readouterr()
    assert cli.main(["resume", str(table.path), "--json"]) == 0
    out, err = capsys.readouterr()
    assert f"игра продолжилась в {moved}" in err  # the user's words
    assert cli.main(["replay", str(moved), "--json"]) == 0
    assert json.loads(out) == json.loads(capsys.readouterr().out)


def test_with_nowhere_to_go_inputs_are_refused_and_told_once(
    tmp_path: Path, folders: dict[str, Path], behind: bool
) -> None:
    disks = Disks({folders["journals"]: 500 * MB, folders["stick"]: 0})
    table = Table(tmp_path, disks, [Place(folders["stick"])], behind)
    game = table.table.game
    disks.free_of[folders["journals"]] = 0
    table.presses(3)
    assert len(table.refused) == 3 and "No space left on device" in table.refused[0]
    assert table.table.game is game  # nothing of them happened
    assert table.told("journal_failed") == [f"{table.path}: No space left on device"]
    assert table.said(STOPPED) == 1
    disks.free_of[folders["journals"]] = 500 * MB  # the host freed some space
    table.presses(2)
    assert table.told("journal_ok") == [str(table.path)]
    assert len(table.notices) == 2 and table.journal.path == table.path
    table.table.close()
    assert len(read(table.path).lines) == table.table.session.inputs


def test_a_journal_in_memory_goes_back_onto_a_disk(
    tmp_path: Path, folders: dict[str, Path], behind: bool
) -> None:
    disks = Disks({folders["journals"]: 500 * MB, folders["stick"]: 0, folders["memory"]: 900 * MB})
    places = [Place(folders["stick"]), Place(folders["memory"], volatile=True)]
    table = Table(tmp_path, disks, places, behind)
    disks.free_of[folders["journals"]] = 0
    table.presses(1)
    in_memory = folders["memory"] / "game.jsonl"
    assert table.told("journal_in_memory") == [str(in_memory)]
    assert table.said(DISK_FULL) == 1
    table.presses(EVERY_INPUTS)
    assert table.journal.path == in_memory  # no disk has room yet
    disks.free_of[folders["stick"]] = 100 * MB  # a stick plugged in
    table.presses(EVERY_INPUTS)
    on_stick = folders["stick"] / "game.jsonl"
    assert table.journal.path == on_stick
    assert table.told("journal_moved") == [str(on_stick)]
    assert table.said(DISK_FULL) == 1  # the voice said it once, at the full disk
    table.advance(61)
    game, inputs = table.table.game, table.table.session.inputs
    table.table.close()
    # Two moves; each place left behind points straight to the last one.
    for name in (table.path, in_memory):
        assert journal_check.read_moved(name) == on_stick
        assert len(read(name).lines) == inputs
    resumed = resume_journal(table.path, load_ruleset)
    assert resumed.session.game == game and len(resumed.warnings) == 1
    assert resumed.session.journal is not None
    resumed.session.journal.close()


def test_a_move_the_old_lock_file_did_not_record_is_found_in_the_fallback_folders(
    tmp_path: Path, folders: dict[str, Path], behind: bool
) -> None:
    disks = Disks({folders["journals"]: 500 * MB})
    table = Table(tmp_path, disks, [Place(folders["stick"])], behind)
    disks.free_of[folders["journals"]] = 0
    table.presses(3)
    table.advance(61)  # the night goes on: its lines on the stick only
    game = table.table.game
    table.table.close()
    # As on a file system that could not write the moved line in place.
    lock = journal_check.lock_path(table.path)
    lines = lock.read_bytes().splitlines(keepends=True)
    lock.write_bytes(b"".join(lines[:2]) + journal_check.moved_line(None))
    os.utime(table.path, (1, 1))
    left_behind = unfinished_game(folders["journals"], load_ruleset, elsewhere=[])
    assert left_behind is not None and left_behind.game != game
    found = unfinished_game(folders["journals"], load_ruleset, elsewhere=[folders["stick"]])
    assert found is not None and found.game == game
    assert found.path == folders["stick"] / "game.jsonl"


def test_a_moved_journal_whose_new_place_is_missing_is_refused(
    tmp_path: Path, folders: dict[str, Path], behind: bool
) -> None:
    disks = Disks({folders["journals"]: 500 * MB})
    table = Table(tmp_path, disks, [Place(folders["stick"])], behind)
    disks.free_of[folders["journals"]] = 0
    table.presses(1)
    table.table.close()
    moved = folders["stick"] / "game.jsonl"
    moved.rename(tmp_path / "elsewhere.jsonl")  # the stick not plugged in
    before = table.path.read_bytes()
    for reading in (lambda: Journal.resume(table.path), lambda: read(table.path)):
        with pytest.raises(
            JournalError, match=re.escape(f"went on in {moved}, which is not there")
        ):
            reading()
    assert table.path.read_bytes() == before  # the part left behind is never resumed


def test_the_fallback_order(tmp_path: Path) -> None:
    mounts = tmp_path / "mounts"
    (tmp_path / "ram").mkdir()  # a mount point, as the table below says
    mounts.write_text(f"tmpfs {tmp_path / 'ram'} tmpfs rw 0 0\n/dev/sda1 / ext4 rw 0 0\n")
    places = default_places(
        {"COMPANION_FALLBACK_JOURNALS": f"{tmp_path / 'second'}:{tmp_path / 'ram' / 'j'}"}, mounts
    )
    assert places == (Place(tmp_path / "second"), Place(tmp_path / "ram" / "j", volatile=True))
    uid = os.getuid()
    automatic = default_places({}, mounts)
    assert automatic[-3:] == (
        Place(Path.home() / "companion-journals"),
        Place(Path(f"/var/tmp/companion-journals-{uid}")),
        Place(Path(f"/dev/shm/companion-journals-{uid}"), volatile=True),
    )
    # A place without room, or the journal's own folder, is not tried.
    disks = Disks({tmp_path / "a": 0})
    fallback = FallbackPlaces([Place(tmp_path / "a"), Place(tmp_path / "b")], disks.free)
    assert list(fallback.folders(tmp_path / "b" / "game.jsonl")) == []
    assert list(fallback.folders(tmp_path / "c" / "game.jsonl")) == [tmp_path / "b"]


@pytest.mark.parametrize("lang", ["ru", "en"])
def test_the_table_s_own_cues_are_in_every_catalogue(lang: str) -> None:
    catalogue = load_catalogue(lang)
    for cue in TABLE_CUES:
        assert catalogue.text(cue, {}) and catalogue.entries[cue].args == (), cue


def test_the_console_has_words_for_every_notice() -> None:
    """The kind of a notice is its key in the console's words
    (console/words.py); the notice's line goes in as the reason."""
    from companion.console.words import EN, PART_NOTICES, RU
    from companion.runner import journal_watch
    from companion.voice import recovery

    assert set(PART_NOTICES) == {*journal_watch.NOTICES, *recovery.NOTICES}
    for kind in PART_NOTICES:
        for words in (RU, EN):
            assert "{reason}" in words[kind], kind


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


def test_a_really_full_disk_at_a_live_table(tmp_path: Path) -> None:
    """The journal on a 16 KiB tmpfs: the real ENOSPC, the moved line written
    over the lock file's own bytes on the full file system."""
    disk = tmp_path / "disk"
    if not tiny_tmpfs(disk, "16k"):
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        stick = tmp_path / "stick"
        path = disk / "game.jsonl"
        notices: list[tuple[str, str]] = []
        table = LiveTable(
            TableSpec(
                voice=VoiceSettings(captions_only=True), seats="none", threaded=False, journal=path
            ),
            RULES,
            10,
            clock=FakeClock(),
            speaker=CaptionSpeaker(io.StringIO()),
            on_notice=lambda what, line: notices.append((what, line)),
            on_refused=lambda _e, why, _l: pytest.fail(why),
            fallback=FallbackPlaces([Place(stick)], lambda _p: 100 * MB),
        )
        table.start()
        table.submit(GameSetUp(RULES, 10, tuple(TOURNAMENT_ROLES)))
        for n in range(400):
            table.submit(SeatPressed(3) if n % 2 == 0 else SeatReleased(3))
        game, inputs = table.game, table.session.inputs
        table.close()
        assert [what for what, _ in notices if what != "disk_low"] == ["journal_moved"]
        assert journal_check.read_moved(path) == stick / "game.jsonl"
        assert len(read(path).lines) == inputs
        resumed = resume_journal(path, load_ruleset)
        assert resumed.session.game == game
        assert resumed.session.journal is not None
        resumed.session.journal.close()
    finally:
        subprocess.run(["umount", str(disk)], check=False)
