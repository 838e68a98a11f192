"""A refused input or a broken script, journal or file, in the host's words."""
