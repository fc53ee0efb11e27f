"""The package's doctest collection (``--doctest-modules`` over ``boardzoo/``): a module that
imports an extra the dev venv cannot hold is left out. RLlib pins its own gymnasium, so
``boardzoo.rl.rllib`` is tested in its own venv (``make test-rllib``)."""

collect_ignore = ["boardzoo/rl/rllib.py"]
