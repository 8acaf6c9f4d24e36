"""Side-by-side timing of lucidml against scikit-learn: ``python -m benchmarks --help``."""
