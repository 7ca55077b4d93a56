//! The Python binding: the extension module `parcels._parcels` (PyO3), built by maturin with the
//! `python` feature (pyproject.toml) and wrapped by the pure-Python package under `python/`.
//!
//! Input: a page as `str` or `bytes` (or a WARC file's path), and optionally a [`Model`]. Output:
//! Python dicts and lists holding exactly the JSON records the command line prints (the same
//! fields in the same order, so `json.dumps(record, ensure_ascii=False, separators=(",", ":"))`
//! gives the CLI's line byte for byte), and for `features` the raw buffers the Python side turns
//! into a NumPy array and a SciPy CSR matrix.
//!
//! Invariants: the GIL is released while a page is parsed, divided and classified (`py.detach`),
//! so Python threads run parcels in parallel; no Rust error escapes as a panic — every failure is
//! a `parcels.ParcelsError` (a `ValueError`) carrying the Rust error's message and causes.
//!
//! A `str` is already text: it is handed to the page loader as UTF-8 behind a UTF-8 byte-order
//! mark, which outranks any `<meta charset>` inside the page (the HTML standard's order), so a
//! page is never decoded twice. `bytes` go through the loader's own detection, as files do.

use std::error::Error as StdError;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use pyo3::create_exception;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::apply::{Classifier, TrainedModel};
use crate::divide::{Divider, DividerConfig};
use crate::matrix::FeatureMatrix;
use crate::output::error_chain;
use crate::page::{LoadOptions, Page};
use crate::warc::{WarcItem, WarcPage, WarcPages};

create_exception!(_parcels, ParcelsError, PyValueError, "A page, model or file parcels could not read or process; the message is the Rust error's.");

/// The record `path` of a page handed in by the caller rather than read from a file (the CLI's
/// name for a page read from standard input).
pub const CALLER_PAGE: &str = "-";

fn py_error(e: &dyn StdError) -> PyErr {
    ParcelsError::new_err(error_chain(e))
}

/// A trained parcels model ready to apply (from `parcels train`, or the one shipped with parcels).
#[pyclass(frozen, module = "parcels._parcels", name = "Model")]
pub struct Model {
    classifier: Arc<Classifier>,
    source: String,
}

#[pymethods]
impl Model {
    /// Loads a model file written by `parcels train`.
    #[staticmethod]
    fn load(py: Python<'_>, path: PathBuf) -> PyResult<Model> {
        let classifier = py.detach(|| -> Result<Classifier, String> {
            let model = TrainedModel::load(&path).map_err(|e| error_chain(&e))?;
            Classifier::new(model).map_err(|e| format!("{}: {}", path.display(), error_chain(&e)))
        });
        Ok(Model { classifier: Arc::new(classifier.map_err(ParcelsError::new_err)?), source: path.display().to_string() })
    }

    /// The model shipped with parcels (corpora/models/default.json, compiled in).
    #[staticmethod]
    fn default(py: Python<'_>) -> PyResult<Model> {
        Ok(Model { classifier: default_classifier(py)?, source: "the built-in default model".into() })
    }

    /// The labels the model gives blocks, in its scheme's order.
    #[getter]
    fn labels(&self) -> Vec<String> {
        self.classifier.model().scheme.labels.iter().map(|l| l.name.clone()).collect()
    }

    /// The scheme's name.
    #[getter]
    fn scheme(&self) -> String {
        self.classifier.model().scheme.name.clone()
    }

    fn __repr__(&self) -> String {
        format!("<parcels.Model {} ({}, {} labels)>", self.source, self.classifier.model().scheme.name, self.classifier.model().scheme.labels.len())
    }
}

/// The built-in model's classifier, made once per process.
fn default_classifier(py: Python<'_>) -> PyResult<Arc<Classifier>> {
    static DEFAULT: OnceLock<Result<Arc<Classifier>, String>> = OnceLock::new();
    let made = py.detach(|| {
        DEFAULT.get_or_init(|| {
            let model = crate::models::default_model().map_err(|e| error_chain(&e))?;
            Classifier::new(model).map(Arc::new).map_err(|e| error_chain(&e))
        })
    });
    made.clone().map_err(ParcelsError::new_err)
}

fn classifier(py: Python<'_>, model: Option<&Bound<'_, Model>>) -> PyResult<Arc<Classifier>> {
    match model {
        Some(m) => Ok(m.get().classifier.clone()),
        None => default_classifier(py),
    }
}

/// A page handed in from Python: its bytes as the loader will read them.
struct Html {
    bytes: Vec<u8>,
}

/// The UTF-8 byte-order mark put in front of a `str` page (see the module docs).
const UTF8_BOM: &[u8] = b"\xef\xbb\xbf";

impl Html {
    fn from_py(html: &Bound<'_, PyAny>) -> PyResult<Html> {
        if let Ok(b) = html.cast::<PyBytes>() {
            return Ok(Html { bytes: b.as_bytes().to_vec() });
        }
        if let Ok(s) = html.cast::<PyString>() {
            let text = s.to_str()?;
            let mut bytes = Vec::with_capacity(text.len() + UTF8_BOM.len());
            bytes.extend_from_slice(UTF8_BOM);
            bytes.extend_from_slice(text.as_bytes());
            return Ok(Html { bytes });
        }
        let kind = html.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        Err(pyo3::exceptions::PyTypeError::new_err(format!("html must be str or bytes, not {kind}")))
    }

    fn page(&self, name: &Path, opts: &LoadOptions) -> Result<Page, String> {
        Page::from_bytes(name, &self.bytes, opts).map_err(|e| error_chain(&e))
    }
}

fn load_options(max_bytes: Option<usize>) -> LoadOptions {
    let mut opts = LoadOptions::default();
    if let Some(m) = max_bytes {
        opts.max_bytes = m;
    }
    opts
}

/// The extract record line of one page (`parcels extract`'s JSON), with `url` in front when
/// known.
fn extract_record(classifier: &Classifier, page: &Page, path: &Path, url: Option<&str>) -> Result<String, String> {
    let extracted = classifier.extract(page).map_err(|e| error_chain(&e))?;
    let record = crate::output::article_record(path, &extracted.article, &extracted.blocks).map_err(|e| e.to_string())?;
    Ok(crate::output::with_fields(&record.to_string(), &[("url", url)]))
}

/// A JSON value as Python objects, through the standard library's `json.loads`, so objects keep
/// the field order the CLI prints them in.
fn to_py<'py>(py: Python<'py>, v: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    let text = serde_json::to_string(v).map_err(|e| ParcelsError::new_err(e.to_string()))?;
    json_loads(py, &text)
}

fn json_loads<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    py.import("json")?.call_method1("loads", (text,))
}

/// The name a page handed in gets: `path` when given, else `-`.
fn page_name(path: Option<PathBuf>) -> PathBuf {
    path.unwrap_or_else(|| PathBuf::from(CALLER_PAGE))
}

/// What [`extract`] returns, by its `output_format` (trafilatura's argument name).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum ExtractOutput {
    /// `None`: the record as a dict.
    Record,
    /// `"json"`: the record as the CLI's JSON line (without its newline).
    Json,
    /// `"txt"` or `"text"`: the title, then the main text (`parcels extract --format text`).
    Text,
    /// `"markdown"`: `parcels extract --format markdown`.
    Markdown,
}

impl ExtractOutput {
    fn from_name(name: Option<&str>) -> PyResult<ExtractOutput> {
        Ok(match name {
            None => ExtractOutput::Record,
            Some("json") => ExtractOutput::Json,
            Some("txt" | "text") => ExtractOutput::Text,
            Some("markdown") => ExtractOutput::Markdown,
            Some(other) => return Err(ParcelsError::new_err(format!("output_format {other:?}: use None (a dict), \"json\", \"txt\" or \"markdown\""))),
        })
    }
}

/// The article of a page: the record `parcels extract` prints for it, as a dict; with
/// `output_format`, as a string in that format (as trafilatura's `extract` returns).
#[pyfunction]
#[pyo3(signature = (html, url=None, model=None, *, path=None, max_bytes=None, output_format=None))]
#[allow(clippy::too_many_arguments)]
fn extract<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    url: Option<String>,
    model: Option<&Bound<'py, Model>>,
    path: Option<PathBuf>,
    max_bytes: Option<usize>,
    output_format: Option<String>,
) -> PyResult<Bound<'py, PyAny>> {
    let format = ExtractOutput::from_name(output_format.as_deref())?;
    let html = Html::from_py(html)?;
    let classifier = classifier(py, model)?;
    let name = page_name(path);
    let opts = load_options(max_bytes);
    let text = py.detach(|| {
        let page = html.page(&name, &opts)?;
        match format {
            ExtractOutput::Record | ExtractOutput::Json => extract_record(&classifier, &page, &name, url.as_deref()),
            ExtractOutput::Text | ExtractOutput::Markdown => {
                let article = classifier.extract(&page).map_err(|e| error_chain(&e))?.article;
                Ok(match format {
                    ExtractOutput::Text => crate::output::article_text(&article),
                    _ => {
                        // The model's own divider, as the classifier's: the renderer reads the blocks' DOM nodes.
                        let division = Divider::new(classifier.model().divider.clone()).divide(&page);
                        crate::markdown::article_markdown(&page, &division, &article, url.as_deref())
                    }
                })
            }
        }
    });
    let text = text.map_err(ParcelsError::new_err)?;
    match format {
        ExtractOutput::Record => json_loads(py, &text),
        _ => Ok(PyString::new(py, &text).into_any()),
    }
}

/// The label of every block of a page: the `blocks` of `parcels classify`'s record.
#[pyfunction]
#[pyo3(signature = (html, model=None, *, path=None, max_bytes=None))]
fn classify<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    model: Option<&Bound<'py, Model>>,
    path: Option<PathBuf>,
    max_bytes: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let html = Html::from_py(html)?;
    let classifier = classifier(py, model)?;
    let name = page_name(path);
    let opts = load_options(max_bytes);
    let blocks = py.detach(|| -> Result<serde_json::Value, String> {
        let page = html.page(&name, &opts)?;
        let blocks = classifier.classify(&page).map_err(|e| error_chain(&e))?.blocks;
        // Through the CLI's record, so the blocks' fields come in the order it prints them.
        Ok(crate::output::classified_record(&name, &blocks)["blocks"].take())
    });
    to_py(py, &blocks.map_err(ParcelsError::new_err)?)
}

/// The blocks of a page (PARCELS section 4): the `blocks` of `parcels divide`'s record.
#[pyfunction]
#[pyo3(signature = (html, *, divider=None, path=None, max_bytes=None))]
fn divide<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    divider: Option<PathBuf>,
    path: Option<PathBuf>,
    max_bytes: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let html = Html::from_py(html)?;
    let name = page_name(path);
    let opts = load_options(max_bytes);
    let blocks = py.detach(|| {
        let divider = match &divider {
            Some(p) => Divider::new(DividerConfig::load(p).map_err(|e| error_chain(&e))?),
            None => Divider::default(),
        };
        let page = html.page(&name, &opts)?;
        serde_json::to_string(&divider.divide(&page).blocks).map_err(|e| e.to_string())
    });
    json_loads(py, &blocks.map_err(ParcelsError::new_err)?)
}

/// One view's features as flat buffers: dense row-major values with their names, or CSR parts.
struct Dense {
    rows: usize,
    values: Vec<f64>,
    names: Vec<String>,
}

struct Csr {
    rows: usize,
    columns: usize,
    data: Vec<f64>,
    indices: Vec<i64>,
    indptr: Vec<i64>,
    names: Vec<String>,
}

/// A view as one dense table: numeric columns (`NaN` = missing), then token columns (0 when
/// absent).
fn dense(m: &FeatureMatrix) -> Dense {
    let mut names = m.numeric_names().to_vec();
    names.extend_from_slice(m.token_names());
    let table = m.to_dense(f64::NAN);
    // Token columns that are absent read 0 in `to_dense`; numeric ones keep NaN for missing.
    Dense { rows: table.nrows(), values: table.iter().copied().collect(), names }
}

/// A view as CSR: numeric columns first (zeros left out, missing kept as stored `NaN`), then
/// token columns, in the order of their names.
fn csr(m: &FeatureMatrix) -> Csr {
    let p = m.n_numeric();
    let mut names = m.numeric_names().to_vec();
    names.extend_from_slice(m.token_names());
    let (mut data, mut indices, mut indptr) = (Vec::new(), Vec::new(), vec![0i64]);
    for r in 0..m.n_rows() {
        for (c, &v) in m.numeric().row(r).iter().enumerate() {
            if v != 0.0 {
                data.push(v);
                indices.push(c as i64);
            }
        }
        let (cols, ws) = m.tokens().row(r);
        for (&c, &w) in cols.iter().zip(ws) {
            data.push(w);
            indices.push((p + c) as i64);
        }
        indptr.push(data.len() as i64);
    }
    Csr { rows: m.n_rows(), columns: names.len(), data, indices, indptr, names }
}

fn f64_bytes(values: &[f64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

fn i64_bytes(values: &[i64]) -> Vec<u8> {
    values.iter().flat_map(|v| v.to_ne_bytes()).collect()
}

/// Both views' features of every block of a page, as the model's view configuration builds them:
/// `(stylistic_rows, stylistic_values, stylistic_names, (lexical_rows, lexical_columns, data,
/// indices, indptr), lexical_names)`, values as native-endian `float64`/`int64` bytes. The
/// Python wrapper `parcels.features` turns them into a NumPy array and a SciPy CSR matrix.
#[pyfunction]
#[pyo3(signature = (html, model=None, *, path=None, max_bytes=None))]
fn features_raw<'py>(
    py: Python<'py>,
    html: &Bound<'py, PyAny>,
    model: Option<&Bound<'py, Model>>,
    path: Option<PathBuf>,
    max_bytes: Option<usize>,
) -> PyResult<Bound<'py, PyAny>> {
    let html = Html::from_py(html)?;
    let classifier = classifier(py, model)?;
    let name = page_name(path);
    let opts = load_options(max_bytes);
    let views = py.detach(|| -> Result<(Dense, Csr), String> {
        let model = classifier.model();
        let builder = crate::dataset::view_builder(&model.config).map_err(|e| error_chain(&e))?;
        let page = html.page(&name, &opts)?;
        let division = Divider::new(model.divider.clone()).divide(&page);
        let views = builder.build(&page, &division).map_err(|e| format!("{}: {}", name.display(), error_chain(&e)))?;
        Ok((dense(&views.stylistic), csr(&views.lexical)))
    });
    let (s, l) = views.map_err(ParcelsError::new_err)?;
    let lexical = (l.rows, l.columns, PyBytes::new(py, &f64_bytes(&l.data)), PyBytes::new(py, &i64_bytes(&l.indices)), PyBytes::new(py, &i64_bytes(&l.indptr)));
    Ok((s.rows, PyBytes::new(py, &f64_bytes(&s.values)), s.names, lexical, l.names).into_pyobject(py)?.into_any())
}

/// The extract records of the HTML pages of a WARC file, one per `response` page, in file order.
///
/// Each record is `parcels extract`'s with `url` (`WARC-Target-URI`, left out when the record
/// has none) and `warc_record_id` in front and `path` the WARC file, as the command line writes
/// them; a damaged record or a page that cannot be read is `{"url", "warc_record_id", "error",
/// "path"}` and the iteration goes on.
#[pyclass(frozen, module = "parcels._parcels", name = "WarcRecords")]
pub struct WarcRecords {
    pages: Mutex<WarcPages>,
    classifier: Arc<Classifier>,
    opts: LoadOptions,
}

/// The record line of one item of a WARC file: the page's extract record or an error record,
/// with `url` and `warc_record_id` in front.
fn warc_record(classifier: &Classifier, opts: &LoadOptions, file: &Path, item: WarcItem) -> String {
    let (record_id, url, result) = match item {
        WarcItem::Page(page) => {
            let result = warc_page(&page, file, opts).and_then(|p| extract_record(classifier, &p, file, None));
            (Some(page.record_id), page.url, result)
        }
        WarcItem::Failed { record_id, url, offset, message } => (record_id, url, Err(format!("record at byte {offset}: {message}"))),
    };
    let line = result.unwrap_or_else(|message| crate::output::error_record(file, &message).to_string());
    crate::output::with_fields(&line, &[("url", url.as_deref()), ("warc_record_id", record_id.as_deref())])
}

/// A WARC page as a parcels page, named by the WARC file, decoded with the HTTP charset where it
/// decides (after a byte-order mark, before `<meta>`: [`Page::from_served_bytes`]), as the
/// command line does.
fn warc_page(page: &WarcPage, file: &Path, opts: &LoadOptions) -> Result<Page, String> {
    Page::from_served_bytes(file, &page.body, page.charset, opts).map_err(|e| error_chain(&e))
}

#[pymethods]
impl WarcRecords {
    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyAny>>> {
        let record = py.detach(|| {
            let mut pages = self.pages.lock().unwrap_or_else(|e| e.into_inner());
            let file = pages.path().to_path_buf();
            pages.next().map(|item| warc_record(&self.classifier, &self.opts, &file, item))
        });
        record.map(|r| json_loads(py, &r)).transpose()
    }
}

/// Opens a WARC file (`.warc`, `.warc.gz`) and iterates over the extract records of its pages.
#[pyfunction]
#[pyo3(signature = (path, model=None, *, max_bytes=None))]
fn extract_warc(py: Python<'_>, path: PathBuf, model: Option<&Bound<'_, Model>>, max_bytes: Option<usize>) -> PyResult<WarcRecords> {
    let classifier = classifier(py, model)?;
    let opts = load_options(max_bytes);
    let pages = py.detach(|| WarcPages::open(&path, opts.max_bytes)).map_err(|e| py_error(&e))?;
    Ok(WarcRecords { pages: Mutex::new(pages), classifier, opts })
}

/// The extension module `parcels._parcels`.
#[pymodule]
fn _parcels(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("ParcelsError", m.py().get_type::<ParcelsError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<Model>()?;
    m.add_class::<WarcRecords>()?;
    m.add_function(wrap_pyfunction!(extract, m)?)?;
    m.add_function(wrap_pyfunction!(classify, m)?)?;
    m.add_function(wrap_pyfunction!(divide, m)?)?;
    m.add_function(wrap_pyfunction!(features_raw, m)?)?;
    m.add_function(wrap_pyfunction!(extract_warc, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_chain_names_each_cause_once() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "no such file");
        let e = crate::warc::WarcError::Io { path: "x.warc".into(), source: io };
        // The cause's text is already in the message: it is not repeated.
        assert_eq!(error_chain(&e), "x.warc: cannot read: no such file");
    }

    #[test]
    fn csr_puts_numeric_columns_before_tokens_and_leaves_zeros_out() {
        let numeric = ndarray::array![[0.0, 2.0], [f64::NAN, 0.0]];
        let tokens = crate::matrix::SparseRows::from_rows(3, vec![vec![(1, 0.5)], vec![(0, 1.0), (2, 3.0)]]).expect("valid rows");
        let m = FeatureMatrix::new(numeric, vec!["a".into(), "b".into()], tokens, vec!["x".into(), "y".into(), "z".into()]).expect("valid matrix");
        let c = csr(&m);
        assert_eq!((c.rows, c.columns), (2, 5));
        assert_eq!(c.indptr, vec![0, 2, 5]);
        assert_eq!(c.indices, vec![1, 3, 0, 2, 4]);
        assert_eq!(c.data[0], 2.0);
        assert!(c.data[2].is_nan());
        assert_eq!(&c.data[3..], &[1.0, 3.0]);
        assert_eq!(c.names, ["a", "b", "x", "y", "z"]);
        let d = dense(&m);
        assert_eq!(d.rows, 2);
        assert_eq!(d.values.len(), 10);
        assert_eq!(d.values[1], 2.0);
        assert!(d.values[5].is_nan());
        assert_eq!(d.values[6..], [0.0, 1.0, 0.0, 3.0]);
        assert_eq!(d.values[2..5], [0.0, 0.5, 0.0]);
    }
}
