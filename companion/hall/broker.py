"""The hall's broker, set up by the companion: Mosquitto's configuration,
its users and ACL made from ``topics.py``, its TLS certificates, and the
broker started (docs/hall.md).

A hall folder holds:

- ``hall.toml``: the event, the ports, the tables, whether TLS is on;
- ``credentials.toml`` (0600): each user's password, so ``add-table`` can
  print a table's lines again (the broker's ``passwd`` holds only hashes);
- ``passwd``: made by ``mosquitto_passwd``; ``acl``, ``acl-spectators``;
- ``mosquitto.conf``: a listener for tables, the board and the web server
  (no anonymous access), and one for spectators, read-only (anonymous only
  when the director enables it); persistence in ``data/``;
- ``tls/``: ``ca.crt`` (what a table's ``tls_ca`` names), the CA's key and
  the broker's certificate, with ``--tls``.

The texts are pure functions (``conf_text``, ``acl_text``); the rest runs
``mosquitto_passwd``, ``openssl`` and ``mosquitto``.
"""

from __future__ import annotations

import getpass
import ipaddress
import os
import secrets
import shutil
import socket
import subprocess
import time
import tomllib
from dataclasses import dataclass, replace
from pathlib import Path

from .topics import PUBLIC, BrokerAddress, all_tables, table_prefix

TABLE_PORT, SPECTATOR_PORT = 1883, 1884
BOARD, WEB, SPECTATOR = "board", "web", "spectator"
#: how long a started broker may take to listen
START_WAIT_S = 5.0


class HallError(RuntimeError):
    """One line for the director: what is wrong and where."""


@dataclass(frozen=True, slots=True)
class Hall:
    """A hall folder's ``hall.toml``."""

    folder: Path
    event: str
    tables: tuple[int, ...]
    host: str = "localhost"  # how tables reach the broker (the lines add-table prints)
    bind: str = ""  # the address the listeners bind ("": every one)
    port: int = TABLE_PORT
    spectator_port: int = SPECTATOR_PORT
    tls: bool = False
    anonymous_spectators: bool = False

    @property
    def conf(self) -> Path:
        return self.folder / "mosquitto.conf"

    @property
    def log(self) -> Path:
        return self.folder / "mosquitto.log"

    @property
    def ca(self) -> Path | None:
        return self.folder / "tls" / "ca.crt" if self.tls else None

    def address(self, user: str, host: str = "localhost") -> BrokerAddress:
        """How a client on this machine reaches the broker as ``user``."""
        return BrokerAddress(host, self.port, user, credentials(self.folder).get(user, ""), self.ca)


# --- the texts (pure) -------------------------------------------------------------------
def acl_text(event: str, tables: tuple[int, ...]) -> str:
    """Each table writes its own topics and reads nothing; the board and the
    web server read the public topics of every table, and write nothing."""
    lines = [f"# the hall {event}'s ACL, written by companion hall init (docs/hall.md)"]
    for table in tables:
        lines += [f"user table{table}", f"topic write {table_prefix(event, table)}/#", ""]
    for user in (BOARD, WEB):
        lines += [f"user {user}", *_public_reads(event), ""]
    return "\n".join(lines)


def spectator_acl_text(event: str) -> str:
    """The spectators' listener: read the public topics (anonymous clients
    take the lines before the first ``user``), write nothing."""
    return "\n".join(
        [
            f"# the hall {event}'s spectators: read-only (docs/hall.md)",
            *_public_reads(event),
            "",
            f"user {SPECTATOR}",
            *_public_reads(event),
            "",
        ]
    )


def _public_reads(event: str) -> list[str]:
    return [f"topic read {all_tables(event, sub)}" for sub in PUBLIC]


def conf_text(hall: Hall, run_as: str) -> str:
    folder = hall.folder
    lines = [
        "# written by companion hall init (docs/hall.md); made anew by it",
        "per_listener_settings true",
        f"user {run_as}",
        "persistence true",
        f"persistence_location {folder / 'data'}/",
        f"log_dest file {hall.log}",
        "log_type error",
        "log_type warning",
        "log_type notice",
        "max_queued_messages 10000",
        "",
        "# tables, the board and the web server: a password each",
        f"listener {hall.port}{' ' + hall.bind if hall.bind else ''}",
        "allow_anonymous false",
        f"password_file {folder / 'passwd'}",
        f"acl_file {folder / 'acl'}",
    ]
    if hall.tls:
        tls = folder / "tls"
        lines += [
            f"cafile {tls / 'ca.crt'}",
            f"certfile {tls / 'server.crt'}",
            f"keyfile {tls / 'server.key'}",
        ]
    lines += [
        "",
        "# spectators: read-only",
        f"listener {hall.spectator_port}{' ' + hall.bind if hall.bind else ''}",
        f"allow_anonymous {'true' if hall.anonymous_spectators else 'false'}",
        f"password_file {folder / 'passwd'}",
        f"acl_file {folder / 'acl-spectators'}",
        "",
    ]
    return "\n".join(lines)


def hall_toml(hall: Hall) -> str:
    return "\n".join(
        [
            "# the hall's settings, written by companion hall init (docs/hall.md)",
            f'event = "{hall.event}"',
            f"tables = {list(hall.tables)}",
            f'host = "{hall.host}"',
            f'bind = "{hall.bind}"',
            f"port = {hall.port}",
            f"spectator_port = {hall.spectator_port}",
            f"tls = {'true' if hall.tls else 'false'}",
            f"anonymous_spectators = {'true' if hall.anonymous_spectators else 'false'}",
            "",
        ]
    )


def table_lines(hall: Hall, table: int) -> str:
    """The ``[hall]`` section of table ``table``'s config."""
    password = credentials(hall.folder).get(f"table{table}", "")
    lines = [
        "[hall]",
        f'host = "{hall.host}"',
        f"port = {hall.port}",
        f'user = "table{table}"',
        f'password = "{password}"',
        f'event = "{hall.event}"',
        f"table = {table}",
    ]
    if hall.tls:
        lines.append('tls_ca = "ca.crt"  # copy the hall\'s tls/ca.crt beside the config')
    return "\n".join(lines) + "\n"


# --- the folder ---------------------------------------------------------------------------
def read_hall(folder: Path) -> Hall:
    path = folder / "hall.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        return Hall(
            folder=folder,
            event=str(data["event"]),
            tables=tuple(int(n) for n in data["tables"]),
            host=str(data.get("host", "localhost")),
            bind=str(data.get("bind", "")),
            port=int(data.get("port", TABLE_PORT)),
            spectator_port=int(data.get("spectator_port", SPECTATOR_PORT)),
            tls=bool(data.get("tls", False)),
            anonymous_spectators=bool(data.get("anonymous_spectators", False)),
        )
    except FileNotFoundError:
        raise HallError(f"{path}: no hall here") from None
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise HallError(f"{path}: cannot be read ({error})") from None


def credentials(folder: Path) -> dict[str, str]:
    try:
        data = tomllib.loads((folder / "credentials.toml").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {str(k): str(v) for k, v in data.items()}


def init_hall(hall: Hall) -> Hall:
    """Write the hall's folder: users, ACL, configuration, certificates."""
    folder = hall.folder
    folder.mkdir(parents=True, exist_ok=True)
    os.chmod(folder, 0o700)
    (folder / "data").mkdir(exist_ok=True)
    users = [f"table{n}" for n in hall.tables] + [BOARD, WEB, SPECTATOR]
    secret = {user: secrets.token_urlsafe(12) for user in users}
    _write(folder / "credentials.toml", "".join(f'{u} = "{p}"\n' for u, p in secret.items()))
    passwd = folder / "passwd"
    passwd.unlink(missing_ok=True)
    passwd.touch(0o600)
    for user, password in secret.items():
        _mosquitto_passwd(passwd, user, password)
    if hall.tls:
        make_certificates(folder / "tls", hall.host)
    _write_configs(hall)
    return hall


def add_table(hall: Hall, table: int) -> tuple[Hall, bool]:
    """Table ``table`` in the hall (made if new: a user, the ACL again);
    True when it was new (the broker must read its files again)."""
    if table in hall.tables:
        return hall, False
    user, password = f"table{table}", secrets.token_urlsafe(12)
    with (hall.folder / "credentials.toml").open("a", encoding="utf-8") as stream:
        stream.write(f'{user} = "{password}"\n')
    _mosquitto_passwd(hall.folder / "passwd", user, password)
    hall = replace(hall, tables=tuple(sorted((*hall.tables, table))))
    _write_configs(hall)
    return hall, True


def _write_configs(hall: Hall) -> None:
    folder = hall.folder
    _write(folder / "hall.toml", hall_toml(hall))
    _write(folder / "acl", acl_text(hall.event, hall.tables))
    _write(folder / "acl-spectators", spectator_acl_text(hall.event))
    _write(hall.conf, conf_text(hall, getpass.getuser()))


def _write(path: Path, text: str) -> None:
    part = path.with_name(path.name + ".part")
    fd = os.open(part, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as stream:
        stream.write(text)
    os.replace(part, path)


def _mosquitto_passwd(passwd: Path, user: str, password: str) -> None:
    tool = shutil.which("mosquitto_passwd")
    if tool is None:
        raise HallError("mosquitto_passwd not found: install the mosquitto package")
    done = subprocess.run(
        [tool, "-b", str(passwd), user, password], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise HallError(f"mosquitto_passwd: {done.stderr.strip() or done.returncode}")


def make_certificates(folder: Path, host: str) -> None:
    """A self-signed CA and the broker's certificate for ``host`` (and
    localhost), by openssl."""
    folder.mkdir(parents=True, exist_ok=True)
    names = {f"DNS:{name}" for name in (host, "localhost") if not _is_ip(name)}
    names |= {f"IP:{ip}" for ip in (host, "127.0.0.1") if _is_ip(ip)}
    (folder / "san.cnf").write_text(f"subjectAltName={','.join(sorted(names))}\n")
    days = "3650"
    for args in (
        ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
         "-days", days, "-subj", "/CN=companion hall CA"],
        ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr",
         "-subj", f"/CN={host}"],
        ["x509", "-req", "-in", "server.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
         "-CAcreateserial", "-out", "server.crt", "-days", days, "-extfile", "san.cnf"],
    ):  # fmt: skip
        done = subprocess.run(
            ["openssl", *args], cwd=folder, capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise HallError(f"openssl {args[0]}: {done.stderr.strip().splitlines()[-1:]}")
    for name in ("ca.key", "server.key"):
        os.chmod(folder / name, 0o600)


def _is_ip(text: str) -> bool:
    try:
        ipaddress.ip_address(text)
    except ValueError:
        return False
    return True


# --- running it ------------------------------------------------------------------------------
def listening(host: str, port: int, timeout: float = 0.3) -> bool:
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return True
    except OSError:
        return False


def start_broker(hall: Hall) -> subprocess.Popen[bytes]:
    """Mosquitto on the hall's configuration, listening when this returns."""
    tool = shutil.which("mosquitto") or (
        "/usr/sbin/mosquitto" if Path("/usr/sbin/mosquitto").exists() else None
    )
    if tool is None:
        raise HallError("mosquitto not found")
    process = subprocess.Popen(
        [tool, "-c", str(hall.conf)], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )  # fmt: skip
    deadline = time.monotonic() + START_WAIT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            break
        if listening("127.0.0.1", hall.port) and listening("127.0.0.1", hall.spectator_port):
            return process
        time.sleep(0.05)
    code = process.poll()
    if code is None:
        process.kill()
        process.wait()
    err = process.stderr.read().decode(errors="replace") if process.stderr else ""
    tail = " | ".join((_tail(hall.log) + err).strip().splitlines()[-3:])
    raise HallError(f"mosquitto did not start (exit {process.returncode}): {tail}")


def stop_broker(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def _tail(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace")[-2000:]
    except OSError:
        return ""
