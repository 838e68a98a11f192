"""The forum game: its procedure, state, posts, dusk, night, morning, vote, outcome and rules."""
