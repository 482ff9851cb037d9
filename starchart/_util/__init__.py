"""Small utilities every layer may use: text, files, units, configurations, directions, progress.

Nothing here imports another part of starchart except :mod:`starchart.errors`.
"""
