"""Test-only servers and helpers (not shipped in the wheel): stand-ins for outside services that replay real
recorded answers (``replay.py``)."""
