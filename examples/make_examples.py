"""Write the tables of the README's command-line tour (run from the repository root:
``python examples/make_examples.py``): scikit-learn's wine data, with a text column, gaps and
text labels, as a real table would have them."""

from pathlib import Path

import numpy as np
from sklearn.datasets import load_wine

HERE = Path(__file__).parent


def main():
    frame = load_wine(as_frame=True).frame
    rng = np.random.default_rng(2024)
    frame.insert(0, "vineyard", rng.choice(["north slope", "river bank", "hilltop"], len(frame)))
    for column in ("alcohol", "magnesium", "color_intensity", "vineyard"):
        frame.loc[rng.random(len(frame)) < 0.06, column] = np.nan
    frame["cultivar"] = np.array(["barolo", "grignolino", "barbera"])[frame.pop("target")]
    frame = frame.sample(frac=1.0, random_state=0).round(3)
    frame.iloc[:150].to_csv(HERE / "wine.csv", index=False)
    frame.iloc[150:].drop(columns=["cultivar"]).to_csv(HERE / "new_wines.csv", index=False)
    frame.iloc[150:].to_csv(HERE / "wine_test.csv", index=False)


if __name__ == "__main__":
    main()
