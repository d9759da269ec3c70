"""Who reinforces from the TUI: the login name, from the system when the environment gives none."""

import os
import pwd

from tui.identity import current_user


def test_the_login_name_comes_from_the_system_when_no_variable_names_it(monkeypatch):
    """A container or a cron job sets no $USER: "tui" went into the durable log (qa93)."""
    for name in ("LOGNAME", "USER", "LNAME", "USERNAME"):
        monkeypatch.delenv(name, raising=False)
    assert current_user() == pwd.getpwuid(os.getuid()).pw_name
    monkeypatch.setenv("USER", "priya")
    assert current_user() == "priya"
