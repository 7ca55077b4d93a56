//! The divider's tag inventory, read from TOML (`configs/divider.toml`).

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// Why a divider configuration was refused. Every variant names the file (or `<built-in>`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    #[error("{path}: cannot read: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Toml { path: PathBuf, message: String },
    #[error("{path}: {field}: {problem}")]
    Invalid { path: PathBuf, field: &'static str, problem: String },
}

/// The tag inventory of the PARCELS divider (paper section 4): which elements are structural
/// containers, which are content, which are never rendered, the maximum structural nesting depth
/// `d`, and what else ends a block. Changing the inventory changes the granularity of the blocks
/// without code changes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DividerConfig {
    /// `d`: structural elements listed in `nesting` that are nested deeper than this are ignored.
    pub max_depth: usize,
    /// Structural elements that count towards the nesting depth (tables, in the paper).
    pub nesting: Vec<String>,
    /// Structural elements: containers whose boundaries end a block.
    pub structural: Vec<String>,
    /// Content elements (informative: any element not structural or skipped is content).
    pub content: Vec<String>,
    /// Elements never rendered as text, with everything inside them.
    pub skip: Vec<String>,
    /// Content elements that always make a block of their own (images, in the paper).
    pub own_block: Vec<String>,
    /// This many consecutive `<br>` end a block (0: line breaks never do).
    pub br_breaks: usize,
}

/// The fine-grained inventory shipped as `configs/divider.toml`, compiled in so the divider works
/// without a configuration file.
pub const DEFAULT_DIVIDER_TOML: &str = include_str!("../../configs/divider.toml");

impl Default for DividerConfig {
    fn default() -> Self {
        // The shipped file is tested to parse (see the tests below); a failure here is a build
        // defect, not bad input.
        DividerConfig::from_toml_str(DEFAULT_DIVIDER_TOML, Path::new("<built-in divider.toml>")).expect("configs/divider.toml is valid")
    }
}

impl DividerConfig {
    /// Reads and validates a divider configuration file.
    pub fn load(path: impl AsRef<Path>) -> Result<DividerConfig, ConfigError> {
        let path = path.as_ref();
        let text = crate::files::read_regular_to_string(path).map_err(|source| ConfigError::Io { path: path.to_path_buf(), source })?;
        DividerConfig::from_toml_str(&text, path)
    }

    /// Parses and validates a configuration; `path` only names it in errors.
    pub fn from_toml_str(text: &str, path: &Path) -> Result<DividerConfig, ConfigError> {
        let config: DividerConfig = toml::from_str(text).map_err(|e| ConfigError::Toml { path: path.to_path_buf(), message: e.to_string() })?;
        config.validate(path)?;
        Ok(config)
    }

    fn validate(&self, path: &Path) -> Result<(), ConfigError> {
        let invalid = |field, problem: String| ConfigError::Invalid { path: path.to_path_buf(), field, problem };
        if self.max_depth == 0 {
            return Err(invalid("max_depth", "must be at least 1".into()));
        }
        let structural: HashSet<&str> = self.structural.iter().map(String::as_str).collect();
        let skip: HashSet<&str> = self.skip.iter().map(String::as_str).collect();
        for (field, list) in
            [("nesting", &self.nesting), ("structural", &self.structural), ("content", &self.content), ("skip", &self.skip), ("own_block", &self.own_block)]
        {
            if let Some(bad) = list.iter().find(|t| t.is_empty() || t.chars().any(|c| c.is_ascii_uppercase() || c.is_whitespace())) {
                return Err(invalid(field, format!("{bad:?} is not a lower-case tag name")));
            }
        }
        if let Some(t) = self.nesting.iter().find(|t| !structural.contains(t.as_str())) {
            return Err(invalid("nesting", format!("{t:?} is not in `structural`")));
        }
        if let Some(t) = self.content.iter().find(|t| structural.contains(t.as_str()) || skip.contains(t.as_str())) {
            return Err(invalid("content", format!("{t:?} is also structural or skipped")));
        }
        if let Some(t) = self.structural.iter().find(|t| skip.contains(t.as_str())) {
            return Err(invalid("structural", format!("{t:?} is also skipped")));
        }
        if let Some(t) = self.own_block.iter().find(|t| structural.contains(t.as_str()) || skip.contains(t.as_str())) {
            return Err(invalid("own_block", format!("{t:?} must be a content element")));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shipped_configs_parse() {
        let fine = DividerConfig::default();
        assert_eq!(fine.max_depth, 4);
        assert!(fine.structural.iter().any(|t| t == "p"));
        let coarse = DividerConfig::load(concat!(env!("CARGO_MANIFEST_DIR"), "/configs/divider-coarse.toml")).unwrap();
        assert!(coarse.content.iter().any(|t| t == "p"));
    }

    #[test]
    fn unknown_keys_and_contradictions_are_errors_naming_the_file() {
        let base = DEFAULT_DIVIDER_TOML;
        let err = DividerConfig::from_toml_str(&format!("{base}\nmax_dept = 3\n"), Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().starts_with("x.toml:") && err.to_string().contains("max_dept"), "{err}");
        let err = DividerConfig::from_toml_str(&base.replace("max_depth = 4", "max_depth = 0"), Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("max_depth"), "{err}");
        let err = DividerConfig::from_toml_str(&base.replace("\"a\", \"abbr\"", "\"p\", \"abbr\""), Path::new("x.toml")).unwrap_err();
        assert!(err.to_string().contains("\"p\" is also structural"), "{err}");
        let err = DividerConfig::load("/no/such/divider.toml").unwrap_err();
        assert!(err.to_string().starts_with("/no/such/divider.toml: cannot read"), "{err}");
    }
}
