"""One live table: its parts put together, its process and the wire to it, a script replayed live."""
