"""Numba kernels of max pooling over channels-last images (one pass, no temporary windows)."""

from ..utils import njit


@njit
def maxpool_forward(X, ph, pw, out, argmax):
    """out[i,y,x,c] = max of the ph×pw window; argmax = its offset u·pw + v (the first maximum)."""
    n, oh, ow, c = out.shape
    for i in range(n):
        for y in range(oh):
            for x in range(ow):
                for ch in range(c):
                    out[i, y, x, ch] = X[i, y * ph, x * pw, ch]
                    argmax[i, y, x, ch] = 0
                for u in range(ph):
                    for v in range(pw):
                        if u == 0 and v == 0:
                            continue
                        for ch in range(c):  # channels innermost: contiguous in memory
                            value = X[i, y * ph + u, x * pw + v, ch]
                            if value > out[i, y, x, ch]:
                                out[i, y, x, ch] = value
                                argmax[i, y, x, ch] = u * pw + v


@njit
def maxpool_backward(G, argmax, ph, pw, dX):
    """Route each output gradient to its window's argmax; dX must be zero on entry."""
    n, oh, ow, c = G.shape
    for i in range(n):
        for y in range(oh):
            for x in range(ow):
                for ch in range(c):
                    k = argmax[i, y, x, ch]
                    dX[i, y * ph + k // pw, x * pw + k % pw, ch] = G[i, y, x, ch]
