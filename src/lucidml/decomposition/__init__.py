"""Matrix decompositions and latent-variable models: PCA, kernel PCA, factor analysis, ICA, SVD tools, LSI."""
