"""A player's install has no torch or ultralytics: the commands that train the networks say how
to get them (``sushicam retrain`` learns by exemplars there instead: tests/teach/test_exemplars.py)."""

import sys

import pytest

from web.cli import main

EXPECTED = "install the training extra: pip install -e '.[train]'"


@pytest.mark.parametrize("argv", [["train"], ["eval-teach", "--work", "{tmp}"]])
def test_training_commands_without_the_training_stack_say_which_extra(argv, tmp_path, monkeypatch,
                                                                      capsys):
    # None in sys.modules is how Python marks a module as unimportable: what a runtime-only
    # install looks like to importlib.
    monkeypatch.setitem(sys.modules, "torch", None)
    monkeypatch.setitem(sys.modules, "ultralytics", None)
    status = main([a.replace("{tmp}", str(tmp_path)) for a in argv])
    err = capsys.readouterr().err
    assert status == 2
    assert err.count("\n") == 1 and err.rstrip().endswith(EXPECTED), err
    assert "torch and ultralytics are not installed" in err
