//! Files: finding the pages of a batch and writing outputs atomically.
//!
//! Every file parcels writes goes through [`write_atomic`] (a temporary file in the same
//! directory, then a rename), so an interrupted run never leaves a half-written label file,
//! model or report behind.

use std::io::Write;
use std::path::{Path, PathBuf};

/// File names taken as pages when a directory is given.
const PAGE_SUFFIXES: &[&str] = &[".html", ".htm", ".xhtml", ".shtml", ".html.gz", ".htm.gz"];

/// Why the pages of a batch could not be listed.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {source}")]
pub struct ListError {
    pub path: PathBuf,
    pub source: std::io::Error,
}

/// Expands the paths of a batch: files are kept as given, directories are walked recursively
/// (iteratively, in sorted order) for files with a page suffix. Missing paths are errors.
pub fn list_pages(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ListError> {
    let mut out = Vec::new();
    for path in paths {
        let meta = std::fs::metadata(path).map_err(|source| ListError { path: path.clone(), source })?;
        if !meta.is_dir() {
            out.push(path.clone());
            continue;
        }
        let mut dirs = vec![path.clone()];
        let mut found = Vec::new();
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|source| ListError { path: dir.clone(), source })?;
            for entry in entries {
                let entry = entry.map_err(|source| ListError { path: dir.clone(), source })?;
                let p = entry.path();
                let is_dir = entry.file_type().map(|t| t.is_dir()).unwrap_or(false);
                if is_dir {
                    dirs.push(p);
                } else if is_page_name(&p) {
                    found.push(p);
                }
            }
        }
        found.sort();
        out.extend(found);
    }
    Ok(out)
}

fn is_page_name(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("").to_ascii_lowercase();
    PAGE_SUFFIXES.iter().any(|s| name.ends_with(s))
}

/// Writes `bytes` to `path` atomically: a temporary file beside it, flushed, then renamed over
/// the target. Parent directories are created.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    std::fs::create_dir_all(&dir)?;
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("out");
    let tmp = dir.join(format!(".{name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_pages_recursively_in_order_and_writes_atomically() {
        let dir = std::env::temp_dir().join(format!("parcels-files-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write_atomic(&dir.join("b/2.html"), b"x").unwrap();
        write_atomic(&dir.join("a.htm"), b"x").unwrap();
        write_atomic(&dir.join("c.html.gz"), b"x").unwrap();
        write_atomic(&dir.join("notes.txt"), b"x").unwrap();
        let pages = list_pages(std::slice::from_ref(&dir)).unwrap();
        let names: Vec<String> = pages.iter().map(|p| p.strip_prefix(&dir).unwrap().display().to_string()).collect();
        assert_eq!(names, ["a.htm", "b/2.html", "c.html.gz"]);
        // No temporary file is left behind.
        assert_eq!(std::fs::read_dir(dir.join("b")).unwrap().count(), 1);
        let err = list_pages(&[dir.join("missing")]).unwrap_err();
        assert!(err.to_string().contains("missing"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
