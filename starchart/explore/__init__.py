"""Exploring a tuning space with Starchart trees: searching for the best configuration, and more."""
