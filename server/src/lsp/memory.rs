//! How the server's memory allocator is set up: a long-lived process that runs analyses on many
//! threads must not fragment its heap.
//!
//! glibc's `malloc` gives each thread that contends for the heap an arena of its own, up to eight
//! per core. The server allocates on tokio's workers, on the blocking threads that run analyses
//! (a new one whenever the pool grows), on rayon's workers and on ONNX Runtime's threads, so an
//! editing session spreads its short-lived allocations over many arenas, each of which keeps its
//! free pages: resident memory then grows for as long as the user types, while the live heap
//! stays small (under heaptrack, a tier-0 session of 900 edits keeps 2 to 6 MiB of heap; its
//! resident set grew from 28 to 37 MiB). So [`limit_arenas`] caps the arenas when the server
//! starts (a `MALLOC_ARENA_MAX` set by the user wins), and the server calls [`release_free`] when
//! [`Trimmer`] says so: once no analysis has started for [`Trimmer::IDLE`] after one ends, or right
//! after one ends when [`Trimmer::EVERY`] has passed since the last release while edits keep
//! coming. (Releasing after every analysis walks the whole heap while the next keystroke's
//! analysis starts: on a 100,000-word document that put about 10 ms on the p95 keystroke.) Measured with the soak test
//! (`server/tests/lsp_soak.rs`: three 5,000-word documents, tier 1, debug build): 3.9 MiB per
//! 1,000 edits after the warm-up before, 0.8 after, at the same latency; the arena cap alone
//! took most of it, and returning free pages lowered the level by about 10 MiB more.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Most malloc arenas the server uses (glibc's default is eight per core).
pub const ARENAS: i32 = 2;

/// Caps glibc's malloc arenas at [`ARENAS`] unless `MALLOC_ARENA_MAX` is set. Call it first, before
/// the server starts its threads. Whether the cap was set (never on other C libraries).
pub fn limit_arenas() -> bool {
    if std::env::var_os("MALLOC_ARENA_MAX").is_some() {
        return false;
    }
    set_arena_max(ARENAS)
}

#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn set_arena_max(arenas: i32) -> bool {
    // SAFETY: `mallopt` only changes a parameter of the allocator; it has no preconditions and
    // is thread-safe (glibc takes its own lock).
    unsafe { libc::mallopt(libc::M_ARENA_MAX, arenas) == 1 }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn set_arena_max(_arenas: i32) -> bool {
    false
}

/// Returns the heap's free pages to the system (glibc's `malloc_trim`), after a document's
/// analysis is complete. Whether any memory was released (never on other C libraries).
pub fn release_free() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` has no preconditions and is thread-safe (it locks each arena).
    unsafe {
        libc::malloc_trim(0) == 1
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    false
}

/// Decides when the server hands free heap pages back ([`release_free`]): when it has been idle
/// for [`Trimmer::IDLE`] after an analysis, or, while edits keep coming, after the first analysis
/// that ends once [`Trimmer::EVERY`] has passed since the last release.
#[derive(Debug)]
pub struct Trimmer {
    /// Analyses started so far.
    started: AtomicU64,
    /// When free pages were last released.
    last: Mutex<Instant>,
}

/// What to do once an analysis ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AfterAnalysis {
    /// Release free pages now: the last release is [`Trimmer::EVERY`] old.
    ReleaseNow,
    /// Wait [`Trimmer::IDLE`], then release if [`Trimmer::idle_since`] this mark.
    ReleaseIfIdle(u64),
}

impl Default for Trimmer {
    fn default() -> Self {
        Trimmer {
            started: AtomicU64::new(0),
            last: Mutex::new(Instant::now()),
        }
    }
}

impl Trimmer {
    /// How long no analysis may start before free pages are released.
    pub const IDLE: Duration = Duration::from_millis(500);
    /// The longest time between releases while edits keep coming.
    pub const EVERY: Duration = Duration::from_secs(10);

    /// Counts an analysis that starts.
    pub fn started(&self) {
        self.started.fetch_add(1, Ordering::SeqCst);
    }

    /// What to do now that an analysis has ended.
    pub fn after_analysis(&self) -> AfterAnalysis {
        let overdue = self
            .last
            .lock()
            .map(|last| last.elapsed() >= Self::EVERY)
            .unwrap_or(true);
        if overdue {
            AfterAnalysis::ReleaseNow
        } else {
            AfterAnalysis::ReleaseIfIdle(self.started.load(Ordering::SeqCst))
        }
    }

    /// Whether no analysis has started since `mark` ([`AfterAnalysis::ReleaseIfIdle`]).
    pub fn idle_since(&self, mark: u64) -> bool {
        self.started.load(Ordering::SeqCst) == mark
    }

    /// Records a release of free pages now.
    pub fn released(&self) {
        if let Ok(mut last) = self.last.lock() {
            *last = Instant::now();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_waits_for_idle_unless_the_last_one_is_old() {
        let t = Trimmer::default();
        let AfterAnalysis::ReleaseIfIdle(mark) = t.after_analysis() else {
            panic!("a fresh trimmer waits for idle");
        };
        assert!(t.idle_since(mark));
        t.started();
        assert!(!t.idle_since(mark), "an analysis started since the mark");
        let Some(old) = Instant::now().checked_sub(Trimmer::EVERY) else {
            return; // a clock that started under 10 s ago cannot show an old release
        };
        if let Ok(mut last) = t.last.lock() {
            *last = old;
        }
        assert_eq!(t.after_analysis(), AfterAnalysis::ReleaseNow);
        t.released();
        assert!(matches!(
            t.after_analysis(),
            AfterAnalysis::ReleaseIfIdle(_)
        ));
    }

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_accepts_the_arena_cap() {
        assert!(set_arena_max(ARENAS));
    }
}
