"""The machine the table runs on: the systemd service (unit, plans, status) and the doctor's checks."""
