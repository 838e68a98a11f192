"""The club's settings: the config file (values, reading, showing) and the ruleset files it names."""
