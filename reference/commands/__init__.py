"""The commands that are not recall or the hook, each a module with ``add_arguments`` and ``run``
(``reference/cli.py`` lists them)."""
