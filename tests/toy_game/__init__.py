"""A third procedure of play defined only here, in the tests (issue 25
part 3's proof): the engine, the ruleset reader and the replay take it
through the registry without a line of companion/ naming it."""
