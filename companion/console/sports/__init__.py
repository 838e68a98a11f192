"""The sports table's screen: seats, keys, what comes next, what an undo took back."""
