"""The read stage: files -> the canonical run table (`runs`), one module per input format
(`formats/`), the runs of a log directory (`logdir`) and the bytes-read meter (`meter`).
"""
