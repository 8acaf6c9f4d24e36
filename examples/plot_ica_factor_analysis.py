"""
Unmixing two voices with ICA, and a one-factor model
=====================================================

Seed 000 §16 sets up the cocktail-party problem: n microphones record n speakers, each
recording x = As a fixed unknown mixture of the sources s, and ICA looks for W = A⁻¹ by
maximizing the likelihood ℓ(W) = Σᵢ [Σⱼ log p(wⱼᵀxᵢ) + log|det W|] under a non-Gaussian source
density (the notes take the logistic density, the derivative of the sigmoid). The sources come
back only up to order, sign and scale, so the check is a correlation: each true source should
match one recovered source with a correlation above 0.95 in absolute value.

Seed 000 §14 then fits factor analysis, x = μ + Λz + ε with z ~ N(0, I) and a diagonal noise
covariance Ψ, by the EM steps of §14.4; its log-likelihood must never fall, and the fitted model
must be scikit-learn's.
"""

# %%
# Two "speakers" and two microphones
# ----------------------------------
# Speech is bursty: long near-silences and loud syllables, a heavier tail than a Gaussian, which
# is what the logistic prior models. The first voice is a tone switched on and off, the second
# a crackle of Laplace noise under a slower envelope.
import matplotlib.pyplot as plt
import numpy as np
import sklearn.decomposition

from lucidml.decomposition import ICA, FactorAnalysis

rng = np.random.default_rng(0)
t = np.linspace(0, 8, 2000)
voice_1 = np.sin(2 * np.pi * 3 * t) * np.maximum(np.sin(2 * np.pi * 0.4 * t), 0) ** 3
voice_2 = rng.laplace(size=t.size) * (1.2 + np.sin(2 * np.pi * 0.15 * t)) * 0.3
S = np.column_stack([voice_1, voice_2])
A = np.array([[1.0, 0.6],
              [0.5, 1.0]])  # the room: how loud each speaker is at each microphone
X = S @ A.T

ica = ICA(random_state=0).fit(X)
S_hat = ica.transform(X)
r = np.corrcoef(S.T, S_hat.T)[:2, 2:]  # r[j, k]: true source j vs recovered source k
print("correlations, true (rows) vs recovered (columns):\n", np.round(r, 3))
match = np.abs(r).argmax(axis=1)
assert sorted(match) == [0, 1]  # one recovered source per speaker
assert np.all(np.abs(r[[0, 1], match]) > 0.95)

# W·A should be a scaled permutation: one large entry per row.
WA = ica.components_ @ A
print("W A =\n", np.round(WA, 3))

# %%
# Each recovered source is rescaled and its sign flipped to face its speaker for the plot.
fig, axes = plt.subplots(3, 2, figsize=(11, 6), sharex=True)
for j in range(2):
    k = match[j]
    fitted = S_hat[:, k] * np.sign(r[j, k]) * S[:, j].std() / S_hat[:, k].std()
    axes[0, j].plot(t, S[:, j], lw=0.6)
    axes[0, j].set_title(f"speaker {j + 1}")
    axes[1, j].plot(t, X[:, j], lw=0.6, color="tab:gray")
    axes[1, j].set_title(f"microphone {j + 1}")
    axes[2, j].plot(t, fitted, lw=0.6, color="tab:green")
    axes[2, j].set_title(f"ICA source {k + 1}, |r| = {abs(r[j, k]):.3f}")
axes[2, 0].set_xlabel("time")
axes[2, 1].set_xlabel("time")
fig.tight_layout()
plt.show()

# %%
# Factor analysis by EM
# ---------------------
# Six measurements driven by one hidden factor, each with its own noise level. EM recovers the
# loadings Λ (up to sign) and the noise variances Ψ, and its fit is scikit-learn's.
n, true_loadings = 500, np.array([1.0, 0.9, 0.8, -0.7, 0.5, 0.3])
true_noise = np.array([0.1, 0.2, 0.3, 0.2, 0.5, 0.4])
z = rng.standard_normal(n)
X_fa = 2.0 + np.outer(z, true_loadings) + rng.standard_normal((n, 6)) * np.sqrt(true_noise)

fa = FactorAnalysis(n_components=1, tol=1e-8, max_iter=5000).fit(X_fa)
ref = sklearn.decomposition.FactorAnalysis(n_components=1, tol=1e-8, max_iter=5000).fit(X_fa)
loadings = fa.components_[0] * np.sign(fa.components_[0, 0])
print("loadings Λ:", np.round(loadings, 3))
print("noise variances Ψ:", np.round(fa.noise_variance_, 3))
assert np.all(np.diff(fa.loglike_) >= -1e-8)  # EM never lowers the likelihood
assert np.allclose(np.abs(fa.components_), np.abs(ref.components_), atol=1e-3)
assert np.allclose(fa.noise_variance_, ref.noise_variance_, atol=1e-3)
assert np.allclose(loadings, true_loadings, atol=0.15)

fig, axes = plt.subplots(1, 2, figsize=(11, 3.5))
axes[0].plot(fa.loglike_, marker=".")
axes[0].set_xlabel("EM iteration")
axes[0].set_ylabel("log-likelihood")
axes[0].set_title("EM for factor analysis (seed 000 §14.4)")
pos = np.arange(6)
axes[1].bar(pos - 0.2, true_loadings, 0.4, label="true Λ")
axes[1].bar(pos + 0.2, loadings, 0.4, label="fitted Λ")
axes[1].set_xlabel("measurement")
axes[1].legend()
axes[1].set_title("loadings")
fig.tight_layout()
plt.show()
