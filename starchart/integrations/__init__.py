"""The tree-guided search inside other tuners: a Kernel Tuner strategy and an Optuna sampler."""
