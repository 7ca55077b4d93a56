//! Manifests: the pages of a corpus that a labelled set (or an annotation session) uses.
//!
//! A manifest is a text file with one `page-in-corpus<TAB>site` line per page (the site is
//! optional); blank lines and `#` comments are skipped. Pages are paths relative to the corpus
//! directory: an absolute path or one with `..` is an error naming the file and line, so a
//! manifest never reaches outside its corpus.

use std::path::{Component, Path, PathBuf};

/// Why a manifest could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ManifestError {
    #[error("{path}: cannot read manifest: {source}")]
    Io { path: String, source: std::io::Error },
    #[error("{path}:{line}: {page:?}: pages are paths inside the corpus, without '..' or a leading '/'")]
    Outside { path: String, line: usize, page: String },
}

/// One page of a manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ManifestEntry {
    /// The line (1-based) it was read from.
    pub line: usize,
    /// The page's path relative to the corpus directory (no `..`, not absolute).
    pub page: PathBuf,
    /// The page's site, when the line names one.
    pub site: Option<String>,
}

/// A parsed manifest.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifest {
    /// Where it was read from (names the file in errors).
    pub path: PathBuf,
    /// Its pages in file order.
    pub entries: Vec<ManifestEntry>,
}

impl Manifest {
    /// Reads and parses the manifest at `path`.
    pub fn load(path: &Path) -> Result<Manifest, ManifestError> {
        let text = crate::files::read_regular_to_string(path).map_err(|source| ManifestError::Io { path: path.display().to_string(), source })?;
        Manifest::parse(&text, path)
    }

    /// Parses the text of a manifest; `path` names it in errors.
    pub fn parse(text: &str, path: &Path) -> Result<Manifest, ManifestError> {
        let mut entries = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut fields = line.split('\t');
            let page = fields.next().unwrap_or_default().trim();
            let site = fields.next().map(str::trim).filter(|s| !s.is_empty()).map(str::to_string);
            let rel = Path::new(page);
            if !rel.components().all(|c| matches!(c, Component::Normal(_) | Component::CurDir)) {
                return Err(ManifestError::Outside { path: path.display().to_string(), line: n + 1, page: page.to_string() });
            }
            entries.push(ManifestEntry { line: n + 1, page: rel.to_path_buf(), site });
        }
        Ok(Manifest { path: path.to_path_buf(), entries })
    }

    /// `file:line` of an entry, for messages about it.
    pub fn location(&self, entry: &ManifestEntry) -> String {
        format!("{}:{}", self.path.display(), entry.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_blank_lines_and_sites() {
        let m = Manifest::parse("# pages\n\na/x.html\tsite.example\nb.html\n./c.html\t \n", Path::new("m.tsv")).unwrap();
        let pages: Vec<_> = m.entries.iter().map(|e| (e.line, e.page.to_str().unwrap(), e.site.as_deref())).collect();
        assert_eq!(pages, [(3, "a/x.html", Some("site.example")), (4, "b.html", None), (5, "./c.html", None)]);
        assert_eq!(m.location(&m.entries[1]), "m.tsv:4");
    }

    #[test]
    fn paths_outside_the_corpus_are_refused_with_their_line() {
        for bad in ["../x.html", "a/../../x.html", "/etc/passwd"] {
            let e = Manifest::parse(&format!("ok.html\n{bad}\tsite\n"), Path::new("m.tsv")).unwrap_err();
            assert!(e.to_string().starts_with("m.tsv:2: "), "{e}");
        }
    }
}
