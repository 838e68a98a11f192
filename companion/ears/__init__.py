"""The ears: the microphone, what it hears, and the flags it proposes (issue 10)."""
