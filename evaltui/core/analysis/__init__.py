"""The analysis stage: a design's numbers from its runs. The pair (`pair`, with `family`,
`slices`, `categories`), a run set of three or more (`run_set`), two independent samples
(`independent`) and preferences (`preference`); `pipeline` runs a comparison spec end to end.
"""
