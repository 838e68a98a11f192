"""The hall board: every table of an event at once, and the standings (a Textual app over HallModel)."""
