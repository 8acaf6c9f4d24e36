"""``lucidml compare --report``: one self-contained HTML file (charts embedded as PNG).

It holds the score-versus-time chart of every model (lucidml and scikit-learn), the best
lucidml model's confusion matrix (classification) or residuals (regression) on the first
split, and the table.
"""

import base64
import html
import io

import numpy as np

__all__ = ["write_report"]


def write_report(path, result, data, models, seed):
    """Write the report of a ``compare`` ``result`` to ``path``."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ValueError("--report needs matplotlib: pip install matplotlib (or lucidml[plot])") from None
    charts = [_score_time_chart(plt, result)]
    best = _best_model(result, models)
    if best is not None:
        charts.append(_best_model_chart(plt, result, data, best, seed))
    with open(path, "w", encoding="utf-8") as handle:
        handle.write(_page(result, charts))


def _png(plt, figure):
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    return base64.b64encode(buffer.getvalue()).decode("ascii")


def _score_time_chart(plt, result):
    figure, axes = plt.subplots(figsize=(7, 4.5))
    label = "accuracy %" if result["metric"] == "accuracy" else "R²"
    for side, marker, colour in (("lucidml", "o", "tab:blue"), ("scikit-learn", "s", "tab:orange")):
        points = []
        for row in result["models"]:
            figures = row if side == "lucidml" else row["sklearn_result"]
            if figures and not figures["error"]:
                points.append((figures["seconds_per_run"], figures["mean"], row["model"]))
        if points:
            seconds, scores, names = zip(*points)
            axes.scatter(seconds, scores, marker=marker, color=colour, label=side, alpha=0.8)
            if side == "lucidml":
                for x, y, name in points:
                    axes.annotate(name, (x, y), fontsize=7, xytext=(3, 3), textcoords="offset points")
    axes.set_xscale("log")
    axes.set_xlabel("seconds per split (fit + predict)")
    axes.set_ylabel(label)
    axes.set_title(f"{result['dataset']}: score against time")
    axes.legend()
    return "score against time", _png(plt, figure)


def _best_model(result, models):
    scored = [row for row in result["models"] if not row["error"]]
    if not scored:
        return None
    best = max(scored, key=lambda row: row["mean"])
    return next(entry for entry in models if entry.name == best["model"])


def _best_model_chart(plt, result, data, entry, seed):
    """The best model refitted on one split: its confusion matrix, or its residuals."""
    from sklearn.model_selection import train_test_split
    from sklearn.pipeline import Pipeline

    from ._pipeline import SCALE_FREE, preprocessor
    from .compare import _as_frame

    frame = _as_frame(data.X, data.feature_names)
    y = np.asarray(data.y)
    classification = data.task == "classification"
    train, test = train_test_split(np.arange(len(y)), train_size=0.7, random_state=seed,
                                   stratify=y if classification else None)
    model = Pipeline([("prepare", preprocessor(frame, entry.name not in SCALE_FREE)), ("model", entry.make())])
    model.fit(frame.iloc[train], y[train])
    predicted = model.predict(frame.iloc[test])
    figure, axes = plt.subplots(figsize=(5.5, 4.5))
    if classification:
        from sklearn.metrics import ConfusionMatrixDisplay

        ConfusionMatrixDisplay.from_predictions(y[test], predicted, ax=axes, colorbar=False)
        title = f"{entry.name}: confusion matrix (one split)"
    else:
        axes.scatter(predicted, y[test] - predicted, s=12, alpha=0.7)
        axes.axhline(0.0, color="grey", linewidth=1)
        axes.set_xlabel("predicted")
        axes.set_ylabel("residual (true − predicted)")
        title = f"{entry.name}: residuals (one split)"
    axes.set_title(title)
    return title, _png(plt, figure)


def _page(result, charts):
    from . import format_table

    images = "\n".join(f'<h2>{html.escape(title)}</h2>\n<img alt="{html.escape(title)}" src="data:image/png;base64,{png}">'
                       for title, png in charts)
    table = html.escape(format_table(result, markdown=False))
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>lucidml compare: {html.escape(result['dataset'])}</title>
<style>body {{ font-family: sans-serif; margin: 2em; }} pre {{ font-size: 12px; }} img {{ max-width: 100%; }}</style>
</head><body>
<h1>lucidml compare: {html.escape(result['dataset'])}</h1>
{images}
<h2>The table</h2>
<pre>{table}</pre>
</body></html>
"""
