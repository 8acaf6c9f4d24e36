"""Numba kernels of Conv2D: im2col and col2im with the zero padding folded in (no padded copy)."""

from collections import namedtuple

from ..utils import njit

# The receptive fields of a convolution: the kernel's size (kh, kw), the strides (sh, sw), the zero
# rows and columns padded before the image (top, left), and the output's size (oh, ow).
Windows = namedtuple("Windows", ["kh", "kw", "sh", "sw", "top", "left", "oh", "ow"])


@njit
def im2col(X, windows, cols):
    """cols[(i, y, x), (u, v, ch)] = X[i, sh·y + u − top, sw·x + v − left, ch], 0 outside the image,
    for the :class:`Windows` of the convolution."""
    kh, kw, sh, sw = windows.kh, windows.kw, windows.sh, windows.sw
    top, left, oh, ow = windows.top, windows.left, windows.oh, windows.ow
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
def col2im(dcols, windows, dX):
    """The adjoint of im2col over the same :class:`Windows`: add every column entry back onto its
    pixel (dX zero on entry)."""
    kh, kw, sh, sw = windows.kh, windows.kw, windows.sh, windows.sw
    top, left, oh, ow = windows.top, windows.left, windows.oh, windows.ow
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
