"""The decide stage: everything known folded into one status and one first line per design;
what tags mean (`tags`), what was noticed (`notices`), the policy's gates and margin.
"""
