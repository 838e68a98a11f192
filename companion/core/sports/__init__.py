"""The sports table: its procedure, state, day, voting, night, rights and views."""
