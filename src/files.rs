//! Files: finding the pages of a batch and writing outputs atomically.
//!
//! Every file parcels writes goes through [`write_atomic`] (a temporary file in the same
//! directory, then a rename), so an interrupted run never leaves a half-written label file,
//! model or report behind.

use std::io::Write;
use std::path::{Path, PathBuf};

/// File names taken as pages when a directory is given.
const PAGE_SUFFIXES: &[&str] = &[".html", ".htm", ".xhtml", ".shtml", ".html.gz", ".htm.gz"];

/// Why the pages of a batch could not be listed. The underlying error is in the message and is
/// not an error `source`, so printing the chain (`{:#}`) says it once.
#[derive(Debug, thiserror::Error)]
#[error("{path}: {error}")]
pub struct ListError {
    pub path: PathBuf,
    pub error: std::io::Error,
}

/// Expands the paths of a batch: directories are walked recursively (iteratively, in sorted
/// order) for files with a page suffix; anything else given explicitly is kept as given, even a
/// missing or unreadable path, so that loading it fails as that page's error and the rest of the
/// batch goes on. Symbolic links met inside a directory are listed if their name is a page's but
/// never followed into directories, so a link loop cannot make the walk endless; non-regular
/// files (named pipes, sockets) are listed too and refused when loaded, naming the file.
/// An error is returned only when a directory met during the walk cannot be read.
pub fn list_pages(paths: &[PathBuf]) -> Result<Vec<PathBuf>, ListError> {
    list_pages_noting_links(paths).map(|(pages, _)| pages)
}

/// [`list_pages`], also returning the symbolic links to directories the walk met and did not
/// follow, so that a command can say it left them out rather than skip them silently.
pub fn list_pages_noting_links(paths: &[PathBuf]) -> Result<(Vec<PathBuf>, Vec<PathBuf>), ListError> {
    let mut out = Vec::new();
    let mut links = Vec::new();
    for path in paths {
        let is_dir = std::fs::metadata(path).is_ok_and(|m| m.is_dir());
        if !is_dir {
            out.push(path.clone());
            continue;
        }
        let mut dirs = vec![path.clone()];
        let mut found = Vec::new();
        while let Some(dir) = dirs.pop() {
            let entries = std::fs::read_dir(&dir).map_err(|error| ListError { path: dir.clone(), error })?;
            for entry in entries {
                let entry = entry.map_err(|error| ListError { path: dir.clone(), error })?;
                let p = entry.path();
                // `DirEntry::file_type` does not follow symbolic links: a link to a directory
                // is not walked into.
                let kind = entry.file_type().ok();
                let is_dir = kind.is_some_and(|t| t.is_dir());
                let is_link = kind.is_some_and(|t| t.is_symlink());
                if is_dir {
                    dirs.push(p);
                } else if is_link && std::fs::metadata(&p).is_ok_and(|m| m.is_dir()) {
                    links.push(p);
                } else if is_page_name(&p) {
                    found.push(p);
                }
            }
        }
        found.sort();
        out.extend(found);
    }
    links.sort();
    Ok((out, links))
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

/// Reads a whole file named by the user (a model, a configuration) as UTF-8 text, refusing
/// anything but a regular file (after following symbolic links) *before* opening it: opening a
/// named pipe blocks until something writes to it, and a device may never end. The refusal is
/// an [`std::io::ErrorKind::InvalidInput`] error saying what the file is ("not a regular file (a
/// named pipe)"), so the caller's "cannot read" message names the problem.
pub fn read_regular_to_string(path: &Path) -> std::io::Result<String> {
    use std::io::Read;
    let not_a_file = |t: std::fs::FileType| {
        let kind = crate::page::file_kind(t);
        std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("not a regular file ({kind}); parcels reads regular files only"))
    };
    let meta = std::fs::metadata(path)?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut file = std::fs::File::open(path)?;
    // Checked again on the open file: the path may have been replaced in between.
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(not_a_file(meta.file_type()));
    }
    let mut text = String::with_capacity(meta.len() as usize);
    file.read_to_string(&mut text)?;
    Ok(text)
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
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn missing_explicit_path_is_kept_for_its_own_error() {
        let dir = std::env::temp_dir().join(format!("parcels-files-missing-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write_atomic(&dir.join("ok.html"), b"<p>x").unwrap();
        let missing = PathBuf::from("/nonexistent.html");
        let pages = list_pages(&[dir.join("ok.html"), missing.clone(), dir.clone()]).unwrap();
        assert_eq!(pages, [dir.join("ok.html"), missing, dir.join("ok.html")]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn symlink_loops_and_fifos_in_a_directory_do_not_hang() {
        use crate::page::{LoadOptions, Page, PageError};
        let dir = std::env::temp_dir().join(format!("parcels-files-loop-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write_atomic(&dir.join("sub/a.html"), b"<p>a").unwrap();
        // A directory link back to the root, and a link to itself with a page's name.
        std::os::unix::fs::symlink(&dir, dir.join("sub/loop")).unwrap();
        std::os::unix::fs::symlink(dir.join("self.html"), dir.join("self.html")).unwrap();
        let fifo = dir.join("pipe.html");
        let has_fifo = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
        let (pages, links) = list_pages_noting_links(std::slice::from_ref(&dir)).unwrap();
        assert_eq!(links, [dir.join("sub/loop")], "the directory link is noted, not walked");
        let names: Vec<String> = pages.iter().map(|p| p.strip_prefix(&dir).unwrap().display().to_string()).collect();
        let expected: &[&str] = if has_fifo { &["pipe.html", "self.html", "sub/a.html"] } else { &["self.html", "sub/a.html"] };
        assert_eq!(names, expected);
        // Loading them fails per page, naming the file, without blocking.
        let err = Page::load(dir.join("self.html"), &LoadOptions::default()).unwrap_err();
        assert!(err.to_string().starts_with(&dir.join("self.html").display().to_string()), "{err}");
        if has_fifo {
            let err = Page::load(&fifo, &LoadOptions::default()).unwrap_err();
            assert!(matches!(err, PageError::NotAFile { .. }), "{err}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn fifo_model_or_config_is_refused_without_blocking() {
        let dir = std::env::temp_dir().join(format!("parcels-files-fifo-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        write_atomic(&dir.join("model.json"), b"{}").unwrap();
        assert_eq!(read_regular_to_string(&dir.join("model.json")).unwrap(), "{}");
        let fifo = dir.join("fifo.json");
        if !std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success()) {
            eprintln!("mkfifo unavailable; skipped");
            return;
        }
        let err = read_regular_to_string(&fifo).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::InvalidInput);
        assert_eq!(err.to_string(), "not a regular file (a named pipe); parcels reads regular files only");
        assert!(read_regular_to_string(&dir).unwrap_err().to_string().contains("(a directory)"));
        assert_eq!(read_regular_to_string(&dir.join("missing.json")).unwrap_err().kind(), std::io::ErrorKind::NotFound);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
