"""Exponential families and link functions for generalized linear models.

A GLM (seeds: 000 §3.1–3.2, 003 §4, 004 §6) assumes y | x follows an exponential family
p(y; θ) = b(y) exp(θ T(y) − a(θ)) with mean μ = a′(θ) and variance φ·V(μ), and ties the mean to
the linear predictor η = w·x + b through a link: link(μ) = η, inverse_link(η) = μ. The link
with η = θ is the canonical one; for it, IRLS is Newton's method.

Families (canonical link; a(θ); variance function V(μ); unit deviance d(y, μ)):

- gaussian:  identity, η²/2,         V = 1,        d = (y − μ)²
- poisson:   log,      e^η,          V = μ,        d = 2 (y log(y/μ) − y + μ)
- bernoulli: logit,    log(1 + e^η), V = μ(1 − μ), d = 2 (y log(y/μ) + (1 − y) log((1 − y)/(1 − μ)))
- gamma:     inverse,  −log(−η),     V = μ²,       d = 2 (log(μ/y) + y/μ − 1)

The gamma's canonical parameter is θ = −1/μ, so lucidml's ``"inverse"`` link is η = −1/μ (the
spec's choice). statsmodels' ``inverse_power`` link and the textbooks' "reciprocal link" use
η = 1/μ instead: the same model with every coefficient negated.

The unit deviance is twice the log-likelihood lost against the saturated model μ = y (dispersion 1),
so d ≥ 0 with equality at μ = y, and ∂d/∂μ = −2 (y − μ)/V(μ) for every family here.

Each inverse link clips η to a range where μ, V(μ) and (dμ/dη)² stay finite (no overflow to inf
or nan deep inside a solver); the clipped values lie far outside any sensible fit.
"""

import numpy as np
from scipy.special import expit, logit, xlogy

__all__ = ["FAMILIES", "LINKS", "get_family_and_link"]


# --------------------------------------------------------------------------------------- links
class IdentityLink:
    """η = μ."""

    name = "identity"
    mu_range = (-np.inf, np.inf)

    def link(self, mu):
        return np.asarray(mu, dtype=np.float64)

    def inverse_link(self, eta):
        return np.asarray(eta, dtype=np.float64)

    def derivative(self, mu):
        """g′(μ) = dη/dμ."""
        return np.ones_like(mu, dtype=np.float64)

    def inverse_derivative(self, eta):
        """dμ/dη = 1/g′(μ)."""
        return np.ones_like(eta, dtype=np.float64)


class LogLink:
    """η = log μ, μ = e^η (η clipped to [−300, 300] so that μ² and μ⁻² stay finite)."""

    name = "log"
    mu_range = (0.0, np.inf)
    _CLIP = 300.0

    def link(self, mu):
        return np.log(mu)

    def inverse_link(self, eta):
        return np.exp(np.clip(eta, -self._CLIP, self._CLIP))

    def derivative(self, mu):
        return 1.0 / np.asarray(mu, dtype=np.float64)

    def inverse_derivative(self, eta):
        return self.inverse_link(eta)


class LogitLink:
    """η = log(μ/(1 − μ)), μ = 1/(1 + e^−η) (η clipped to ±36, where 1 − μ is still > 0 in float64).

    ⚠ 004 writes log(η/(1 − η)); the link maps the mean μ, not η.
    """

    name = "logit"
    mu_range = (0.0, 1.0)
    _CLIP = 36.0

    def link(self, mu):
        return logit(mu)

    def inverse_link(self, eta):
        return expit(np.clip(eta, -self._CLIP, self._CLIP))

    def derivative(self, mu):
        mu = np.asarray(mu, dtype=np.float64)
        return 1.0 / (mu * (1.0 - mu))

    def inverse_derivative(self, eta):
        mu = self.inverse_link(eta)
        return mu * (1.0 - mu)


class InverseLink:
    """η = −1/μ, μ = −1/η: the gamma's canonical link (η clipped to ≤ −1e−150, i.e. μ ≤ 1e150, so
    that dμ/dη = μ² stays finite; a clip at −1e−10 capped every mean at 1e10: amounts of 1e12 were
    fitted 100 times too small, without a word).

    Only η < 0 gives a valid mean; a solver step that leaves that half-line meets a huge
    deviance at the clip and is halved back.
    """

    name = "inverse"
    mu_range = (0.0, np.inf)
    _MAX_ETA = -1e-150

    def link(self, mu):
        return -1.0 / np.asarray(mu, dtype=np.float64)

    def inverse_link(self, eta):
        return -1.0 / np.minimum(eta, self._MAX_ETA)

    def derivative(self, mu):
        return 1.0 / np.asarray(mu, dtype=np.float64) ** 2

    def inverse_derivative(self, eta):
        return self.inverse_link(eta) ** 2


LINKS = {link.name: link for link in (IdentityLink(), LogLink(), LogitLink(), InverseLink())}


# ------------------------------------------------------------------------------------ families
class Gaussian:
    name = "gaussian"
    canonical_link = "identity"
    deviance_degree = 2  # d(cy, cμ) = c^k d(y, μ): the degree k of the unit deviance (None: y is not a scale)
    links = ("identity", "log")

    def check_y(self, y):
        pass  # any real number

    def variance(self, mu):
        return np.ones_like(mu, dtype=np.float64)

    def unit_deviance(self, y, mu):
        return (y - mu) ** 2


class Poisson:
    name = "poisson"
    canonical_link = "log"
    deviance_degree = 1
    links = ("log",)

    def check_y(self, y):
        if np.any(y < 0):
            raise ValueError("The poisson family needs y ≥ 0 (counts or rates); y has negative values.")

    def variance(self, mu):
        return np.asarray(mu, dtype=np.float64)

    def unit_deviance(self, y, mu):
        return 2.0 * (xlogy(y, y / mu) - y + mu)  # y log y = 0 at y = 0


class Bernoulli:
    name = "bernoulli"
    canonical_link = "logit"
    deviance_degree = None
    links = ("logit",)

    def check_y(self, y):
        if np.any((y < 0) | (y > 1)):
            raise ValueError("The bernoulli family needs 0 ≤ y ≤ 1 (labels or proportions); y is outside [0, 1].")

    def variance(self, mu):
        return mu * (1.0 - mu)

    def unit_deviance(self, y, mu):
        return 2.0 * (xlogy(y, y / mu) + xlogy(1.0 - y, (1.0 - y) / (1.0 - mu)))


class Gamma:
    name = "gamma"
    canonical_link = "inverse"
    deviance_degree = 0
    links = ("inverse", "log")

    def check_y(self, y):
        if np.any(y <= 0):
            raise ValueError("The gamma family needs y > 0; y has zero or negative values.")

    def variance(self, mu):
        return np.asarray(mu, dtype=np.float64) ** 2

    def unit_deviance(self, y, mu):
        ratio = y / mu
        return 2.0 * (ratio - np.log(ratio) - 1.0)


FAMILIES = {family.name: family for family in (Gaussian(), Poisson(), Bernoulli(), Gamma())}


def get_family_and_link(family, link):
    """The (family, link) objects for the names given; ``link="canonical"`` picks the family's own.

    Raises
    ------
    ValueError
        For an unknown family, or a link the family does not allow.
    """
    if family not in FAMILIES:
        raise ValueError(f"Unknown family {family!r}; choose one of {sorted(FAMILIES)}.")
    fam = FAMILIES[family]
    name = fam.canonical_link if link == "canonical" else link
    if name not in fam.links:
        allowed = ", ".join(repr(n) for n in ("canonical", *fam.links))
        raise ValueError(f"The {family} family does not take link={link!r}; it allows {allowed}.")
    return fam, LINKS[name]
