//! Progress of long runs (loading a config's pages, training, experiments, cross-validated
//! extraction) as typed events, so each front end renders them its own way: the command line
//! draws a bar on a terminal and writes plain lines otherwise; a library user may ignore them.
//!
//! A run announces its total work in [`Event::Planned`] steps first; every [`Event::Step`] is one
//! of them done, so a watcher can show how far along a run is and estimate the time left.

/// Something a long run tells its watcher.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The run will take this many steps in all.
    Planned { steps: u64 },
    /// A stage began (in a fold, for experiments and cross-validated extraction).
    Stage { fold: Option<usize>, stage: Stage },
    /// Pages were read and their views built.
    Loaded { what: Loaded, pages: usize, blocks: usize },
    /// Pages of the pool's manifests that are labelled pages too, left out of the pool.
    LeftOutOfPool { pages: usize },
    /// A co-training round ended (round 0: the learners trained on the labelled blocks only).
    Round { fold: Option<usize>, round: usize, training_blocks: usize },
    /// The context stage has fitted `round` of its `rounds` boosting rounds (stumps or trees):
    /// its training is one step that can take an hour, so it reports how far it is within it.
    StageRound { fold: Option<usize>, round: usize, rounds: usize },
    /// One planned step is done.
    Step,
    /// A cell of a sweep finished: `done` of `total` cells are (this run's and earlier runs'),
    /// this one in `seconds`.
    Cell { done: usize, total: usize, name: String, seconds: f64 },
}

/// The stages of training and evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stage {
    LoadingLabelled,
    LoadingPool,
    ChoosingRounds,
    CoTraining,
    ContextCrossFitting,
    ContextTraining,
    /// A baseline learner, by name.
    Baseline(String),
    /// Extracting a fold's held-out pages.
    Extracting {
        pages: usize,
    },
}

/// Which pages were loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Loaded {
    Labelled,
    Pool,
}

/// A receiver of events. Closures `Fn(&Event) + Sync` are receivers; [`Quiet`] ignores every event.
pub trait Progress: Sync {
    fn event(&self, event: &Event);
}

impl<F: Fn(&Event) + Sync> Progress for F {
    fn event(&self, event: &Event) {
        self(event)
    }
}

/// A receiver that ignores every event.
#[derive(Debug, Clone, Copy, Default)]
pub struct Quiet;

impl Progress for Quiet {
    fn event(&self, _: &Event) {}
}

impl std::fmt::Display for Stage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Stage::LoadingLabelled => f.write_str("loading the labelled pages"),
            Stage::LoadingPool => f.write_str("loading the unlabelled pool"),
            Stage::ChoosingRounds => f.write_str("choosing boosting rounds"),
            Stage::CoTraining => f.write_str("co-training"),
            Stage::ContextCrossFitting => f.write_str("context stage: cross-fitting the views"),
            Stage::ContextTraining => f.write_str("context stage: training"),
            Stage::Baseline(name) => write!(f, "baseline {name}"),
            Stage::Extracting { pages } => write!(f, "extracting {pages} held-out pages"),
        }
    }
}

impl std::fmt::Display for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let fold = |fold: &Option<usize>| fold.map_or(String::new(), |n| format!("fold {n}: "));
        match self {
            Event::Planned { steps } => write!(f, "{steps} steps planned"),
            Event::Stage { fold: n, stage } => write!(f, "{}{stage}", fold(n)),
            Event::Loaded { what, pages, blocks } => {
                let what = match what {
                    Loaded::Labelled => "labelled",
                    Loaded::Pool => "pool",
                };
                write!(f, "{pages} {what} pages, {blocks} blocks")
            }
            Event::LeftOutOfPool { pages } => write!(f, "{pages} pool pages are labelled pages: left out of the pool"),
            Event::Round { fold: n, round, training_blocks } => {
                write!(f, "{}co-training round {round}: {training_blocks} training blocks", fold(n))
            }
            Event::StageRound { fold: n, round, rounds } => write!(f, "{}context stage: round {round} of {rounds}", fold(n)),
            Event::Step => f.write_str("step"),
            Event::Cell { done, total, name, seconds } => write!(f, "cell {done}/{total} done ({name}, {seconds:.1} s)"),
        }
    }
}
