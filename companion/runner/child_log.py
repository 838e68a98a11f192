"""Where a child process of the console writes: its log file.

The console draws on the terminal, so nothing of a child's (nor of a C
library inside it: libasound, Kaldi) may write there. Standard output and
error become the console's log file, and Python's logging goes there with
the child's name on every line.
"""

from __future__ import annotations

import logging
import os
from pathlib import Path


def log_to(log_file: Path, who: str) -> None:
    fd = os.open(log_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    os.close(fd)
    logging.basicConfig(
        filename=log_file,
        level=logging.INFO,
        format=f"%(asctime)s %(levelname)s {who} %(name)s: %(message)s",
    )
