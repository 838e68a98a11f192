"""The voice: phrase catalogues, numbers in words, rendering and playing cues."""
