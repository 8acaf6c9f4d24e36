"""Validation of a Gaussian's parameters, shared by the functions of lucidml.stats."""

import numpy as np


def check_mean_cov(mean, cov):
    """(mean, cov) as float64 arrays of shapes (d,) and (d, d), finite, symmetric and positive semidefinite."""
    mean = np.asarray(mean, dtype=np.float64)
    cov = np.asarray(cov, dtype=np.float64)
    if mean.ndim != 1 or mean.size == 0:
        raise ValueError(f"mean must be a non-empty 1-D array; got shape {mean.shape}.")
    d = mean.size
    if cov.shape != (d, d):
        raise ValueError(f"cov must have shape ({d}, {d}) to match mean; got {cov.shape}.")
    if not (np.all(np.isfinite(mean)) and np.all(np.isfinite(cov))):
        raise ValueError("mean and cov must not contain NaN or infinity.")
    scale = max(np.abs(cov).max(), np.finfo(np.float64).tiny)
    if not np.allclose(cov, cov.T, rtol=0.0, atol=1e-10 * scale):
        raise ValueError("cov must be symmetric.")
    cov = 0.5 * cov + 0.5 * cov.T  # (cov + covᵀ overflows for entries near 1e308)
    smallest = np.linalg.eigvalsh(cov)[0]
    if smallest < -1e-10 * scale:
        raise ValueError(f"cov must be positive semidefinite; it has the eigenvalue {smallest:.3g}.")
    return mean, cov


def check_indices(indices, d, name):
    """Distinct integer indices into range(d), as an int array in the order given."""
    indices = np.asarray(indices)
    if indices.ndim != 1 or indices.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D list of indices.")
    if indices.dtype.kind not in "iu":
        raise TypeError(f"{name} must hold integers; got dtype {indices.dtype}.")
    if indices.min() < 0 or indices.max() >= d:
        raise ValueError(f"{name} must lie in [0, {d}); got {indices.tolist()}.")
    if np.unique(indices).size != indices.size:
        raise ValueError(f"{name} contains repeated indices.")
    return indices.astype(np.intp)
