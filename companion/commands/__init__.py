"""The command line's parts: its parsers, help, words and the commands over a past game (cli.py runs them)."""
