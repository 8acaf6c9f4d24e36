"""Test-wide settings.

SCIPY_ARRAY_API must be set before SciPy is first imported: without it scikit-learn skips its
``check_array_api_input`` estimator check instead of running it.
"""

import os

os.environ.setdefault("SCIPY_ARRAY_API", "1")
