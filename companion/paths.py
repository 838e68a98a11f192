"""Where the project's own folders are: the checkout (or installed release)
this package runs from, whatever folder a module sits in."""

from __future__ import annotations

from pathlib import Path

#: the folder holding companion/, rulesets/, voices/, hardware/
PROJECT = Path(__file__).resolve().parent.parent
