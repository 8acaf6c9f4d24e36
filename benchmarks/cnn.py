"""CNNClassifier: seconds per training epoch, on digits and on synthetic 28 × 28 images.

``python -m benchmarks.cnn [--images 60000] [--repeats 3]``. scikit-learn has no convolutional
network, so this reports lucidml alone: the median time of one epoch (``max_iter=1``, adam,
batches of 200) of the default network (two conv blocks of 16 and 32 3 × 3 filters, 2 × 2 max
pooling, softmax output), and, for digits, the test accuracy after 50 epochs. The first fit
(compilation, warm-up) is not timed.
"""

import argparse
import statistics
import time
import warnings

from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from lucidml.datasets import load
from lucidml.neural import CNNClassifier


def _epoch_seconds(X, y, repeats):
    make = lambda: CNNClassifier(max_iter=1, batch_size=200, random_state=0)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)  # one epoch never converges
        make().fit(X[:400], y[:400])  # warm-up: compiled kernels
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            make().fit(X, y)
            times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cnn", description=__doc__.splitlines()[0])
    parser.add_argument("--images", type=int, default=60_000, help="synthetic 28 × 28 training images")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    X, y = load("digits")
    X = X / 16.0
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    digits_epoch = _epoch_seconds(X_train, y_train, args.repeats)
    model = CNNClassifier(max_iter=50, learning_rate_init=0.01, alpha=0.1, random_state=0).fit(X_train, y_train)
    accuracy = model.score(X_test, y_test)

    X, y = load("images", n_samples=args.images)
    images_epoch = _epoch_seconds(X, y, args.repeats)

    print("| data | images | seconds per epoch | test accuracy after 50 epochs |")
    print("|---|---|---|---|")
    print(f"| digits 8 × 8 | {len(y_train)} | {digits_epoch:.3f} | {accuracy:.4f} |")
    print(f"| synthetic 28 × 28 | {args.images} | {images_epoch:.1f} | (not trained to the end) |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
