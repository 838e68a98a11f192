"""A third procedure of play defined only here, in the tests (issue 25
part 3's proof): the engine, the ruleset reader, the replay and the
console (its screen and set-up part, ``console.py``) take it through the
registries (``registry.py``) without a line of companion/ naming it."""
