//! parcels: web page block classification by stylistic and lexical co-training, after PARCELS
//! (Lee, Kan & Lai, *Stylistic and Lexical Co-training for Web Block Classification*, WIDM 2004).
//!
//! The pipeline, one module per stage:
//! [`page`] (bytes → parsed page) → [`divide`] (page → fine-grained blocks) → [`css`] (computed
//! styles) → [`stylistic`] and [`lexical`] (each view's features) → [`views`] (one [`matrix`]
//! per view) → [`boost`] (one AdaBoost.MH learner per view) → [`cotrain`] (the learners teach
//! each other) → [`experiment`] (configs, folds, baselines) → [`eval`] → [`report`].
//! [`apply`] trains models on all labelled data and classifies and extracts new pages; [`fields`]
//! fills the article's reporter and date from what a page declares.
//! [`models`] holds the model shipped with parcels; [`output`] the records the commands print.
//! [`corpus`] turns annotations into labelled blocks; [`markdown`] writes an article's main text
//! as Markdown; the command line itself lives in the `parcels` binary (src/main.rs, src/cli/).
//!
//! # Extracting an article
//!
//! Load a page (from bytes here; [`page::Page::load`] reads a file), load the model shipped with
//! parcels, and extract: the article's title and main text come with every block's label.
//!
//! ```
//! use parcels::apply::Classifier;
//! use parcels::page::{LoadOptions, Page};
//!
//! let html = r#"<html><head><title>Village fair draws record crowd - Valley Weekly</title></head><body>
//!   <div id="nav"><a href="/">Home</a> | <a href="/news">News</a> | <a href="/sport">Sport</a></div>
//!   <h1>Village fair draws record crowd</h1>
//!   <p>More than five thousand people came to the fair on Saturday, the organisers said.</p>
//!   <p>The pie contest was won by a retired teacher who has entered it every year since 1968.</p>
//!   <div id="footer">Copyright 2008 Valley Weekly</div>
//! </body></html>"#;
//! let page = Page::from_bytes("fair.html", html.as_bytes(), &LoadOptions::default())?;
//! let classifier = Classifier::new(parcels::models::default_model()?)?;
//! let parcels::apply::Extracted { article, blocks, .. } = classifier.extract(&page)?;
//! println!("{}", article.title.as_deref().unwrap_or("(no title)"));
//! println!("{}", article.main_text);
//! for b in &blocks {
//!     println!("{} {} {:.2} {}", b.id, b.label, b.confidence, b.text);
//! }
//! assert_eq!(article.title.as_deref(), Some("Village fair draws record crowd"));
//! assert!(article.main_text.contains("five thousand people"));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub mod annotate;
pub mod apply;
pub mod baselines;
pub mod boost;
pub mod config;
pub mod context;
pub mod corpus;
pub mod cotrain;
pub mod css;
pub mod dataset;
pub mod divide;
pub mod eval;
pub mod experiment;
pub mod fields;
pub mod files;
pub mod learning_curve;
pub mod lexical;
pub mod markdown;
pub mod matrix;
pub mod models;
pub mod output;
pub mod page;
pub mod progress;
#[cfg(feature = "python")]
pub mod python;
pub mod report;
pub mod stats;
pub mod stylistic;
pub mod sweep;
pub mod train;
pub mod views;
pub mod warc;
