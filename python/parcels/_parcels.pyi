"""Type stubs of the extension module ``parcels._parcels`` (src/python.rs)."""

from os import PathLike
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

Html = Union[str, bytes]
StrPath = Union[str, "PathLike[str]"]
Record = Dict[str, Any]

__version__: str

class ParcelsError(ValueError):
    """A page, model or file parcels could not read or process; the message is the Rust error's."""

class Model:
    """A trained parcels model ready to apply."""

    @staticmethod
    def load(path: StrPath) -> "Model":
        """Loads a model file written by ``parcels train``."""
    @staticmethod
    def default() -> "Model":
        """The model shipped with parcels."""
    @property
    def labels(self) -> List[str]:
        """The labels the model gives blocks, in its scheme's order."""
    @property
    def scheme(self) -> str:
        """The label scheme's name."""

class WarcRecords(Iterator[Record]):
    """The extract records of a WARC file's HTML pages, in file order."""

    def __iter__(self) -> "WarcRecords": ...
    def __next__(self) -> Record: ...

def extract(
    html: Html,
    url: Optional[str] = None,
    model: Optional[Model] = None,
    *,
    path: Optional[StrPath] = None,
    max_bytes: Optional[int] = None,
    output_format: Optional[str] = None,
) -> Union[Record, str]:
    """The article of a page: the record ``parcels extract`` prints (``title``, ``main_text``,
    ``date``, ``reporter``, ``source``, ``location``, ``subheaders``, ``path``, ``blocks``), with
    ``url`` when given. ``path`` names the page (default ``-``, as for standard input); ``url`` comes first.

    ``output_format`` (trafilatura's argument) returns a string instead of the dict:
    ``"markdown"`` (the title as a heading, then the main text with its headings, lists, links
    and tables, links made absolute against ``url``), ``"txt"``/``"text"`` (the title, then the
    main text) or ``"json"`` (the record's JSON line): each exactly what ``parcels extract
    --format markdown|text|json`` prints for the page. Any other value raises ParcelsError."""

def classify(
    html: Html,
    model: Optional[Model] = None,
    *,
    path: Optional[StrPath] = None,
    max_bytes: Optional[int] = None,
) -> List[Record]:
    """Every block with its label: ``id``, ``locator``, ``label``, ``confidence``, ``view``,
    ``views``, ``text`` (the ``blocks`` of ``parcels classify``'s record)."""

def divide(
    html: Html,
    *,
    divider: Optional[StrPath] = None,
    path: Optional[StrPath] = None,
    max_bytes: Optional[int] = None,
) -> List[Record]:
    """The blocks of a page (the ``blocks`` of ``parcels divide``'s record); ``divider`` is a
    divider configuration (TOML), default the built-in one."""

def features_raw(
    html: Html,
    model: Optional[Model] = None,
    *,
    path: Optional[StrPath] = None,
    max_bytes: Optional[int] = None,
) -> Tuple[int, bytes, List[str], Tuple[int, int, bytes, bytes, bytes], List[str]]:
    """The buffers behind :func:`parcels.features`."""

def extract_warc(
    path: StrPath,
    model: Optional[Model] = None,
    *,
    max_bytes: Optional[int] = None,
) -> WarcRecords:
    """The extract records of the HTML ``response`` pages of a WARC file (``.warc``,
    ``.warc.gz``), each with ``url`` and ``warc_record_id``; ``url`` and ``warc_record_id`` come first, as
    in the CLI's records of web-archive pages; a damaged record or unreadable page is
    ``{"url", "warc_record_id", "error", "path"}``."""
