"""Numba solvers for the L2-regularised linear SVM."""
