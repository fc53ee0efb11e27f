# games.md is generated from the game modules' docstrings, whose examples run as doctests there
collect_ignore = ["games.md"]
