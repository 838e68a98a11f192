"""The host's console: a Textual app that runs a whole live table."""
