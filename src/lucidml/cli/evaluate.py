"""The metrics ``lucidml fit`` (on its hold-out part) and ``lucidml evaluate`` print.

- classification: accuracy, balanced accuracy, macro F1, ROC AUC and log loss (when the model
  gives probabilities), and the confusion matrix;
- regression: R², RMSE, MAE;
- clustering: the silhouette of the clusters, and the adjusted Rand index against a given
  column of true groups.
"""

import warnings

import numpy as np

__all__ = ["MAX_MATRIX_CLASSES", "format_metrics", "metrics"]

MAX_MATRIX_CLASSES = 30


def metrics(task, model, X, y=None, note=None):
    """{name: value} (and "confusion matrix": (labels, counts)) of ``model`` on X (against y).

    A class of y that the model never saw counts as an error in every metric; log loss and ROC AUC,
    which need a probability for it, are left out, and ``note`` (if given) says so.
    """
    from sklearn import metrics as m

    if task == "clustering":
        # A clusterer without predict (DBSCAN, agglomerative) measures the rows it was fitted on.
        labels = model.predict(X) if hasattr(model, "predict") else model[-1].labels_
        out = {}
        features = model[:-1].transform(X) if hasattr(model, "steps") else X
        if 2 <= len(np.unique(labels)) < len(labels):
            out["silhouette"] = float(m.silhouette_score(features, labels))
        if y is not None:
            out["adjusted Rand index"] = float(m.adjusted_rand_score(y, labels))
        return out
    predicted = model.predict(X)
    if task == "regression":
        return {"R²": float(m.r2_score(y, predicted)), "RMSE": float(np.sqrt(m.mean_squared_error(y, predicted))),
                "MAE": float(m.mean_absolute_error(y, predicted))}
    classes = model.classes_
    if (np.asarray(y).dtype.kind in "biuf") != (np.asarray(classes).dtype.kind in "biuf"):
        # A label column read as text ("unicorn" among 1, 2, 3) against numbered classes: compare as text.
        y, predicted, classes = (np.asarray(a).astype(str) for a in (y, predicted, classes))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (a class predicted but absent from y: balanced accuracy's warning)
        out = {"accuracy": float(m.accuracy_score(y, predicted)),
               "balanced accuracy": float(m.balanced_accuracy_score(y, predicted)),
               "macro F1": float(m.f1_score(y, predicted, average="macro"))}
    unseen = np.setdiff1d(np.unique(y), classes)
    if len(unseen) and note is not None:
        shown = ", ".join(repr(label) for label in unseen[:5].tolist())
        note(f"{int(np.isin(y, unseen).sum())} row(s) have a class the model never saw ({shown}): they count as "
             "errors; log loss and ROC AUC are left out")
    if hasattr(model, "predict_proba") and not len(unseen):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a class missing from y_true is reported by NaN
            proba = model.predict_proba(X)
            present = np.isin(classes, y)
            if present.all() and len(classes) >= 2:
                scores = proba[:, 1] if len(classes) == 2 else proba
                out["ROC AUC"] = float(m.roc_auc_score(y, scores, multi_class="ovr", labels=classes))
            out["log loss"] = float(m.log_loss(y, proba, labels=classes))
    labels = np.unique(np.concatenate([np.asarray(classes), np.unique(y)]))
    out["confusion matrix"] = (labels, m.confusion_matrix(y, predicted, labels=labels))
    return out


def format_metrics(values):
    """The metrics as aligned plain text; the confusion matrix with true labels as rows (up to
    :data:`MAX_MATRIX_CLASSES` classes: beyond, a table of that size is not read but scrolled)."""
    lines = []
    for name, value in values.items():
        if name == "confusion matrix":
            labels, counts = value
            if len(labels) > MAX_MATRIX_CLASSES:
                lines.append(f"confusion matrix     left out: {len(labels)} classes")
                continue
            names = [str(label) for label in labels]
            width = max(8, *(len(n) for n in names), len(str(counts.max())))
            lines.append("confusion matrix (rows: true, columns: predicted)")
            lines.append(" " * width + " " + " ".join(n.rjust(width) for n in names))
            for name_row, row in zip(names, counts):
                lines.append(name_row.rjust(width) + " " + " ".join(str(c).rjust(width) for c in row))
        else:
            lines.append(f"{name:<20} {value:.4f}")
    return "\n".join(lines)
