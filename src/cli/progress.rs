//! Progress of long commands on stderr, rendered from the library's typed events
//! ([`parcels::progress::Event`]): a bar with the time left on a terminal; plain lines
//! otherwise (a log file, CI), at most one every few seconds, also with the time left.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use parcels::progress::{Event, Progress};

/// Plain lines are written at most this often (besides stage changes of the whole run).
const PLAIN_EVERY: Duration = Duration::from_secs(5);

/// Renders a run's events on stderr.
pub struct Reporter {
    name: String,
    bar: Option<indicatif::ProgressBar>,
    total: AtomicU64,
    done: AtomicU64,
    started: Instant,
    last_line: Mutex<Option<Instant>>,
}

impl Reporter {
    /// A reporter for the run called `name`: a bar when stderr is a terminal.
    pub fn new(name: &str) -> Reporter {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = indicatif::ProgressBar::new(0);
            if let Ok(style) = indicatif::ProgressStyle::with_template("{msg:50!} {bar:30} {pos}/{len} [{elapsed}, about {eta} left]") {
                bar.set_style(style);
            }
            bar
        });
        Reporter { name: name.to_string(), bar, total: AtomicU64::new(0), done: AtomicU64::new(0), started: Instant::now(), last_line: Mutex::new(None) }
    }

    /// Clears the bar (call before printing results). Without a bar, says how long the run
    /// took: "done", or "stopped" when it failed (`ok` false), so that the error printed next
    /// does not follow a line claiming success.
    pub fn finish(&self, ok: bool) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        } else if ok {
            eprintln!("{}: done in {:.1} s", self.name, self.started.elapsed().as_secs_f64());
        } else {
            eprintln!("{}: stopped after {:.1} s", self.name, self.started.elapsed().as_secs_f64());
        }
    }

    fn left(&self) -> String {
        let (done, total) = (self.done.load(Ordering::Relaxed), self.total.load(Ordering::Relaxed));
        if done == 0 || total == 0 {
            return String::new();
        }
        let elapsed = self.started.elapsed().as_secs_f64();
        let left = elapsed / done as f64 * total.saturating_sub(done) as f64;
        format!(" {done}/{total} steps, {elapsed:.0} s elapsed, about {left:.0} s left;")
    }
}

impl Progress for Reporter {
    fn event(&self, event: &Event) {
        match event {
            Event::Planned { steps } => {
                self.total.store(*steps, Ordering::Relaxed);
                if let Some(bar) = &self.bar {
                    bar.set_length(*steps);
                }
            }
            // A bar's message is overwritten by the next event; this one must stay on screen.
            Event::LeftOutOfPool { .. } => {
                if let Some(bar) = &self.bar {
                    bar.println(format!("{}: {event}", self.name));
                }
            }
            Event::Step => {
                self.done.fetch_add(1, Ordering::Relaxed);
                if let Some(bar) = &self.bar {
                    bar.inc(1);
                }
            }
            _ => {}
        }
        if matches!(event, Event::Step | Event::Planned { .. }) {
            return;
        }
        match &self.bar {
            Some(bar) => bar.set_message(format!("{}: {event}", self.name)),
            None => {
                // Whole-run stages always get a line; per-fold news at most every PLAIN_EVERY.
                let whole_run = matches!(event, Event::Loaded { .. } | Event::LeftOutOfPool { .. } | Event::Stage { fold: None, .. } | Event::Cell { .. });
                let Ok(mut last) = self.last_line.lock() else { return };
                if whole_run || last.is_none_or(|t| t.elapsed() >= PLAIN_EVERY) {
                    *last = Some(Instant::now());
                    eprintln!("{}:{} {event}", self.name, self.left());
                }
            }
        }
    }
}
