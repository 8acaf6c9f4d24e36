"""Support vector machines: SVC and SVR by SMO, LinearSVC by dual coordinate descent."""

from .linear_svc import LinearSVC
from .svc import SVC
from .svr import SVR

__all__ = ["LinearSVC", "SVC", "SVR"]
