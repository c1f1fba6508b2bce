"""Runs and log directories where they live: object stores (s3, gs, az, hf) and URLs.

`urls` says whether a path is a URL (light: the command line asks it for every path); the rest
imports fsspec and a store package only when a URL is read. See docs/remote.md.
"""
