"""The forum game's screen: its view, words, set-up part and the results to post."""
