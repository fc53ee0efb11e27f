# games.md is generated from the game modules' docstrings, whose examples run as doctests there;
# make_web_screenshots.py is a script (it needs the web extra, playwright and chromium)
collect_ignore = ["games.md", "make_web_screenshots.py"]
