"""The tournament hall: tables joined through a Mosquitto broker, the
board, the spectators' pages (issue 27; docs/hall.md)."""
