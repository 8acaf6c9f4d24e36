"""Numba kernels of Conv2D: im2col and col2im with the zero padding folded in (no padded copy)."""

from ..utils import njit


@njit
def im2col(X, kh, kw, sh, sw, top, left, oh, ow, cols):
    """cols[(i, y, x), (u, v, ch)] = X[i, sh·y + u − top, sw·x + v − left, ch], 0 outside the image."""
    n, h, w, c = X.shape
    for i in range(n):
        for y in range(oh):
            for x in range(ow):
                row = (i * oh + y) * ow + x
                k = 0
                for u in range(kh):
                    r = sh * y + u - top
                    for v in range(kw):
                        s = sw * x + v - left
                        if 0 <= r < h and 0 <= s < w:
                            for ch in range(c):
                                cols[row, k + ch] = X[i, r, s, ch]
                        else:
                            for ch in range(c):
                                cols[row, k + ch] = 0.0
                        k += c


@njit
def col2im(dcols, kh, kw, sh, sw, top, left, oh, ow, dX):
    """The adjoint of im2col: add every column entry back onto its pixel (dX zero on entry)."""
    n, h, w, c = dX.shape
    for i in range(n):
        for y in range(oh):
            for x in range(ow):
                row = (i * oh + y) * ow + x
                for u in range(kh):
                    r = sh * y + u - top
                    if r < 0 or r >= h:
                        continue
                    for v in range(kw):
                        s = sw * x + v - left
                        if s < 0 or s >= w:
                            continue
                        k = (u * kw + v) * c
                        for ch in range(c):
                            dX[i, r, s, ch] += dcols[row, k + ch]
