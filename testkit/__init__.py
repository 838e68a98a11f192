"""What the tests and the benches share: the console in a pseudo-terminal,
companion run as a user runs it, bot games, the crash benches' game, and the
simulated sound of a club's room (docs/architecture.md, "Tests and benches").
Not part of the installed package."""
