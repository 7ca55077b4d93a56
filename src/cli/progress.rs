//! Progress of long commands on stderr, rendered from the library's typed events
//! ([`parcels::progress::Event`]): a bar with the time left on a terminal; plain lines
//! otherwise (a log file, CI), at most one every few seconds, also with the time left.
//!
//! The time left counts planned steps, and one step, the context stage, can take an hour: while
//! a stage reports its rounds, its line also says how long the stage itself has left, from the
//! pace of its rounds so far.

use std::collections::HashMap;
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
    /// Per fold (`None`: the whole run's stage), when its stage's first round was reported and
    /// which round that was.
    stage_clocks: Mutex<HashMap<Option<usize>, (Instant, usize)>>,
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
        Reporter {
            name: name.to_string(),
            bar,
            total: AtomicU64::new(0),
            done: AtomicU64::new(0),
            started: Instant::now(),
            last_line: Mutex::new(None),
            stage_clocks: Mutex::new(HashMap::new()),
        }
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

    /// What an event says, with the time its context stage has left when it is a stage round.
    fn describe(&self, event: &Event) -> String {
        let Event::StageRound { fold, round, rounds } = *event else { return event.to_string() };
        let Ok(mut clocks) = self.stage_clocks.lock() else { return event.to_string() };
        // A stage starts again (another fold's, or a run reusing this reporter) from a lower round.
        let clock = clocks.entry(fold).or_insert((Instant::now(), round));
        if round < clock.1 {
            *clock = (Instant::now(), round);
        }
        match stage_left(clock.0.elapsed().as_secs_f64(), clock.1, round, rounds) {
            Some(left) => format!("{event}, about {} left in the stage", minutes(left)),
            None => event.to_string(),
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
            Some(bar) => bar.set_message(format!("{}: {}", self.name, self.describe(event))),
            None => {
                // Whole-run stages always get a line; per-fold news at most every PLAIN_EVERY.
                let whole_run = matches!(event, Event::Loaded { .. } | Event::LeftOutOfPool { .. } | Event::Stage { fold: None, .. } | Event::Cell { .. });
                let Ok(mut last) = self.last_line.lock() else { return };
                if whole_run || last.is_none_or(|t| t.elapsed() >= PLAIN_EVERY) {
                    *last = Some(Instant::now());
                    eprintln!("{}:{} {}", self.name, self.left(), self.describe(event));
                }
            }
        }
    }
}

/// Seconds a stage has left at round `round` of `rounds`, at the pace of the rounds since
/// `from` (the first round seen, `elapsed` seconds ago); `None` before a round has passed.
fn stage_left(elapsed: f64, from: usize, round: usize, rounds: usize) -> Option<f64> {
    let done = round.checked_sub(from).filter(|&d| d > 0)?;
    Some(elapsed / done as f64 * rounds.saturating_sub(round) as f64)
}

/// A duration for people: seconds under two minutes, else minutes.
fn minutes(seconds: f64) -> String {
    if seconds < 120.0 {
        format!("{seconds:.0} s")
    } else {
        format!("{:.0} min", seconds / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stage_has_left_its_remaining_rounds_at_the_pace_of_those_seen() {
        // 100 rounds in 300 s since round 16: 3 s a round, 1,484 rounds to go.
        assert_eq!(stage_left(300.0, 16, 116, 1600), Some(4452.0));
        assert_eq!(stage_left(10.0, 16, 16, 1600), None, "no pace before a round has passed");
        assert_eq!(stage_left(10.0, 16, 1600, 1600), Some(0.0));
        assert_eq!(minutes(4452.0), "74 min");
        assert_eq!(minutes(95.4), "95 s");
    }

    #[test]
    fn a_stage_round_says_how_long_the_stage_has_left_and_other_events_say_what_they_said() {
        let r = Reporter::new("run");
        let round = |round| Event::StageRound { fold: Some(4), round, rounds: 1600 };
        assert_eq!(r.describe(&round(16)), "fold 4: context stage: round 16 of 1600");
        let later = r.describe(&round(32));
        assert!(later.starts_with("fold 4: context stage: round 32 of 1600, about ") && later.ends_with(" left in the stage"), "{later}");
        // Another fold's stage keeps its own clock.
        assert_eq!(r.describe(&Event::StageRound { fold: Some(1), round: 16, rounds: 1600 }), "fold 1: context stage: round 16 of 1600");
        assert_eq!(r.describe(&Event::Step), Event::Step.to_string());
    }
}
