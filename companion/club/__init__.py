"""The club's data: roster, last set-up, backups, restore, update and their commands."""
