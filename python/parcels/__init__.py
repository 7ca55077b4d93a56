"""parcels: web page block classification by stylistic and lexical co-training (PARCELS).

The functions take a page as ``str`` or ``bytes`` and return the records the ``parcels``
command line prints, as dicts and lists::

    import parcels
    article = parcels.extract(open("page.html", "rb").read())
    print(article["title"], article["main_text"])

Every failure raises :class:`ParcelsError` (a ``ValueError``) with the Rust error's message.
The work runs without the GIL, so threads process pages in parallel; for many files, see
:mod:`parcels.distributed`.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from ._parcels import (
    Model,
    ParcelsError,
    WarcRecords,
    __version__,
    classify,
    divide,
    extract,
    extract_warc,
    features_raw as _features_raw,
)

__all__ = [
    "Model",
    "ParcelsError",
    "WarcRecords",
    "__version__",
    "classify",
    "divide",
    "extract",
    "extract_warc",
    "features",
    "CsrParts",
]

Html = Union[str, bytes]


class CsrParts(tuple):
    """A CSR matrix as ``(data, indices, indptr, shape)``, when SciPy is not installed.

    ``scipy.sparse.csr_matrix((data, indices, indptr), shape=shape)`` makes the matrix.
    """

    __slots__ = ()

    def __new__(cls, data: np.ndarray, indices: np.ndarray, indptr: np.ndarray, shape: Tuple[int, int]):
        return super().__new__(cls, (data, indices, indptr, shape))


def features(
    html: Html,
    model: Optional[Model] = None,
    *,
    path: Optional[str] = None,
    max_bytes: Optional[int] = None,
) -> Tuple[np.ndarray, List[str], Any, List[str]]:
    """Both views' features of every block of a page, as the model's view configuration builds
    them (the default model's unless ``model`` is given), one row per block in block order.

    Returns ``(stylistic, stylistic_names, lexical, lexical_names)``: ``stylistic`` is a dense
    ``float64`` array (``NaN`` where a feature is missing); ``lexical`` is a
    ``scipy.sparse.csr_matrix`` (numeric text features first, then one column per stem with its
    TF × IDF weight), or :class:`CsrParts` when SciPy is absent. The names are the columns'.
    """
    rows, values, s_names, (l_rows, l_cols, data, indices, indptr), l_names = _features_raw(
        html, model, path=path, max_bytes=max_bytes
    )
    stylistic = np.frombuffer(values, dtype=np.float64).reshape(rows, len(s_names)).copy()
    data = np.frombuffer(data, dtype=np.float64).copy()
    indices = np.frombuffer(indices, dtype=np.int64).copy()
    indptr = np.frombuffer(indptr, dtype=np.int64).copy()
    try:
        from scipy.sparse import csr_matrix
    except ImportError:
        lexical: Any = CsrParts(data, indices, indptr, (l_rows, l_cols))
    else:
        lexical = csr_matrix((data, indices, indptr), shape=(l_rows, l_cols))
    return stylistic, list(s_names), lexical, list(l_names)
