"""The spectators' pages: a page per table for a TV, an OBS overlay per table and the standings, pushed live by server-sent events (Starlette + uvicorn over HallModel)."""
