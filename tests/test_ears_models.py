"""``companion models fetch|list`` against a small archive and model list
that the test makes and serves on the loopback address (nothing comes
from the internet): the model unpacked and listed, a corrupted, cut or
missing archive refused with one line and nothing installed."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import zipfile
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from companion.cli import main
from companion.ears import models

ARCHIVE = "vosk-model-small-ru-0.22"


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # the test's output stays clean
        pass


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """(its URL, the folder it serves)."""
    root = tmp_path / "site"
    root.mkdir()
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(root)))
    # a short poll: shutdown() waits for it
    thread = threading.Thread(target=server.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", root
    server.shutdown()
    server.server_close()
    thread.join()


def model_zip(path: Path, top: str = ARCHIVE, model: bool = True) -> bytes:
    """A zip laid out like alphacephei's (one folder named as the archive)."""
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zipped:
        if model:
            zipped.writestr(f"{top}/am/final.mdl", bytes(range(256)) * 64)
        zipped.writestr(f"{top}/conf/model.conf", "--sample-frequency=16000\n")
        zipped.writestr(f"{top}/README", "a model made by the test\n")
    return path.read_bytes()


def publish(root: Path, listed: bytes, served: bytes | None = None) -> None:
    """The model list gives ``listed``'s md5 and size; the archive served is
    ``served`` (default: the same bytes)."""
    (root / f"{ARCHIVE}.zip").write_bytes(listed if served is None else served)
    entry = {"name": ARCHIVE, "md5": hashlib.md5(listed).hexdigest(), "size": len(listed)}
    other = {"name": "vosk-model-small-en-us-0.15", "md5": "0" * 32, "size": 1}
    (root / "model-list.json").write_text(json.dumps([other, {**entry, "lang": "ru"}]))


def companion(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """The command as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "companion.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, **(env or {})},
    )


def test_fetch_unpacks_and_list_shows_it(site: tuple[str, Path], tmp_path: Path) -> None:
    url, root = site
    publish(root, model_zip(tmp_path / "good.zip"))
    folder = tmp_path / "models"
    done = companion("models", "fetch", "ru-small", "--dir", str(folder), "--url", url)
    assert done.returncode == 0, done.stderr
    installed = folder / ARCHIVE
    assert done.stdout.strip() == f"Модель ru-small установлена: {installed}"
    assert (installed / "am" / "final.mdl").read_bytes() == bytes(range(256)) * 64
    assert (installed / "conf" / "model.conf").is_file()
    assert os.listdir(folder) == [ARCHIVE]  # no temporary folder left behind
    assert f"{ARCHIVE}.zip [" in done.stderr and "#" * 25 in done.stderr  # the progress bar

    listed = companion("models", "list", env={"COMPANION_MODELS_DIR": str(folder)})
    assert listed.returncode == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0] == f"Установленные модели ({folder}):"
    assert lines[1].split() == ["ru-small", str(installed), "0.0", "MB"]
    assert lines[2] == "Можно скачать (companion models fetch ИМЯ):"
    assert lines[3].split()[:2] == ["ru-small", ARCHIVE] and lines[3].endswith("(установлена)")

    again = companion("models", "fetch", "ru-small", env={"COMPANION_MODELS_DIR": str(folder)})
    assert again.returncode == 0 and "уже установлена" in again.stdout


def test_a_corrupted_archive_fails_and_installs_nothing(
    site: tuple[str, Path], tmp_path: Path
) -> None:
    url, root = site
    good = model_zip(tmp_path / "good.zip")
    bad = bytearray(good)
    bad[len(bad) // 2] ^= 0xFF
    publish(root, good, bytes(bad))
    folder = tmp_path / "models"
    env = {"COMPANION_MODELS_URL": url, "COMPANION_MODELS_DIR": str(folder)}
    done = companion("models", "fetch", "ru-small", env=env)
    assert done.returncode != 0
    last = done.stderr.splitlines()[-1]
    assert last.startswith("companion: ") and "checksum mismatch" in last
    assert hashlib.md5(good).hexdigest() in last and "nothing installed" in last
    assert os.listdir(folder) == []  # neither the model nor a half of it
    listed = companion("models", "list", "--lang", "en", env=env)
    assert "Installed models" in listed.stdout and "  none" in listed.stdout
    assert "(not installed)" in listed.stdout


# --- the other failures, in process ----------------------------------------------


def _fetch(folder: Path, url: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["models", "fetch", "ru-small", "--dir", str(folder), "--url", url])
    err = capsys.readouterr().err.splitlines()
    return code, err[-1] if err else ""


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("short", "bytes arrived"),
        ("long", "more than the"),
        ("missing-archive", "HTTP 404"),
        ("no-list", "no checksum for vosk-model-small-ru-0.22: cannot read"),
        ("not-listed", "does not list vosk-model-small-ru-0.22"),
        ("bad-list", "not a JSON model list"),
        ("bad-md5", "has no valid md5 and size"),
        ("no-model-inside", "holds no vosk model"),
        ("not-a-zip", "not a zip archive"),
        ("unsafe-path", "unsafe path"),
    ],
)
def test_every_failure_is_one_line_and_installs_nothing(
    case: str, message: str, site: tuple[str, Path], tmp_path: Path, capsys: Any
) -> None:
    url, root = site
    good = model_zip(tmp_path / "good.zip")
    if case == "short":  # the connection closed early
        publish(root, good, good[:-10])
        message = f"of {len(good)} bytes arrived"
    elif case == "long":
        publish(root, good, good + b"more")
    elif case == "missing-archive":
        publish(root, good)
        (root / f"{ARCHIVE}.zip").unlink()
    elif case == "no-list":
        (root / f"{ARCHIVE}.zip").write_bytes(good)
    elif case == "not-listed":
        publish(root, good)
        (root / "model-list.json").write_text("[]")
    elif case == "bad-list":
        publish(root, good)
        (root / "model-list.json").write_text("<html>")
    elif case == "bad-md5":
        publish(root, good)
        (root / "model-list.json").write_text(
            json.dumps([{"name": ARCHIVE, "md5": "x", "size": 1}])
        )
    elif case == "no-model-inside":
        publish(root, model_zip(tmp_path / "empty.zip", model=False))
    elif case == "not-a-zip":
        publish(root, b"not a zip at all")
    elif case == "unsafe-path":
        with zipfile.ZipFile(tmp_path / "evil.zip", "w") as zipped:
            zipped.writestr(f"{ARCHIVE}/am/final.mdl", b"x")
            zipped.writestr("../escaped", b"x")
        publish(root, (tmp_path / "evil.zip").read_bytes())
    folder = tmp_path / "models"
    code, last = _fetch(folder, url, capsys)
    assert code == 2 and last.startswith("companion: ") and message in last, last
    assert not folder.exists() or os.listdir(folder) == []
    assert not (tmp_path / "escaped").exists()


def test_a_network_that_is_not_there(tmp_path: Path, capsys: Any) -> None:
    code, last = _fetch(tmp_path / "models", f"http://127.0.0.1:{_closed_port()}/", capsys)
    assert code == 2 and "cannot read http://127.0.0.1:" in last and "refused" in last.lower()


def test_an_unknown_name(tmp_path: Path, capsys: Any) -> None:
    code = main(["models", "fetch", "en-big", "--dir", str(tmp_path)])
    assert code == 2
    assert capsys.readouterr().err.strip() == "companion: unknown model 'en-big' (known: ru-small)"


def test_the_official_address_holds_to_the_pinned_checksum(
    site: tuple[str, Path], tmp_path: Path, capsys: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the official address the list must agree with the pinned md5
    and size; a list that cannot be read leaves the pinned ones."""
    url, root = site
    monkeypatch.setattr(models, "OFFICIAL_URL", url)
    good = model_zip(tmp_path / "good.zip")
    publish(root, good)  # our archive's md5: not the one the companion pins
    code, last = _fetch(tmp_path / "models", url, capsys)
    assert code == 2 and "the companion knows md5 d1759dc83eb8fd87850129afbd9f4b7b" in last
    (root / "model-list.json").unlink()  # the list unreachable: the pinned values decide
    code, last = _fetch(tmp_path / "models", url, capsys)
    assert code == 2 and f"of {46_236_750} bytes arrived" in last
    assert os.listdir(tmp_path / "models") == []


def test_the_pinned_model_is_the_official_small_russian_one() -> None:
    (ru,) = models.KNOWN
    assert (ru.name, ru.archive, ru.size) == ("ru-small", ARCHIVE, 46_236_750)
    assert models.OFFICIAL_URL + ru.archive + ".zip" == (
        "https://alphacephei.com/vosk/models/vosk-model-small-ru-0.22.zip"
    )
