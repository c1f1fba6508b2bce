"""Pure data and statistics: files -> runs -> pairing -> stats -> review/sign-off.

Never imports textual or rich (a test checks it), so headless use and scripts stay light.
"""
