"""A table without ``[hall]`` loads nothing of the hall: not paho, not one
module of companion.hall (checked in a fresh interpreter, as a table
starts); with ``[hall]`` the same start loads the table's end of the link
(so the check can fail), and still not paho: that is the publisher's
process's."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from helpers import ROOT

START = """
import json, sys
from pathlib import Path
from companion.config.load import load_config
from companion.config.rulesets import load_ruleset
from companion.live.assembly import LiveTable, Outputs, TableSpec
from companion.voice.settings import VoiceSettings
import companion.cli, companion.console.app, companion.console.table_host

config = load_config(Path(sys.argv[1]))
hall = None
if config.hall.enabled:
    from companion.hall.settings import hall_settings
    hall = hall_settings(config)
spec = TableSpec(voice=VoiceSettings(captions_only=True), seats="none", threaded=False, hall=hall)
table = LiveTable(spec, load_ruleset("tournament"), 10, outputs=Outputs(None, None))
table.start()
table.close()
print(json.dumps(sorted(m for m in sys.modules if m.startswith(("paho", "companion.hall")))))
"""


def _loaded(config: Path) -> list[str]:
    done = subprocess.run(
        [sys.executable, "-c", START, str(config)],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    return list(json.loads(done.stdout.strip().splitlines()[-1]))


def test_a_table_without_a_hall_loads_none_of_it(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(f'[paths]\njournals = "{tmp_path}/j"\n', encoding="utf-8")
    assert _loaded(config) == []


def test_a_table_of_a_hall_loads_its_end_of_the_link_only(tmp_path: Path) -> None:
    """paho and the publisher run in a process of their own (link_process.py)."""
    config = tmp_path / "config.toml"
    config.write_text(
        f'[paths]\njournals = "{tmp_path}/j"\n'
        '[hall]\nhost = "127.0.0.1"\nport = 9\nevent = "cup"\ntable = 1\n',
        encoding="utf-8",
    )
    loaded = _loaded(config)
    assert "companion.hall.table_link" in loaded
    assert not [m for m in loaded if m.startswith("paho") or m == "companion.hall.link"]
