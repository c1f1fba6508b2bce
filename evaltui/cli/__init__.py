"""The command line: `evaltui [RUNS...]` opens the app; `report`, `signoff`, `verify`, `plan`
and `prefer` run headless. `main` is the console script's entry point.
"""
