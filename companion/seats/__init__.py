"""The seats: one button and one light per player, on the Pi's GPIO."""
