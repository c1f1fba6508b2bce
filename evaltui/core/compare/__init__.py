"""The compare stage: what is compared and how (`spec`, `options`), which design the runs allow
(`choose_design`) and joining two runs item by item (`pairing`). Running a spec end to end is
`analysis.pipeline`, one stage up.
"""
