"""What a run produced, apart from how it is drawn: the comparison of a result with the
reference consumer's (``compare.py``), and the groupings and baselines to come.

This module imports nothing: the modules of ``results/`` sit at different layers, and importing
one of them must not bring the others.
"""
