//! Stopping model inference early: for good when the process is about to exit ([`abandon`]), or
//! for one job when a newer edit supersedes it ([`CancelToken`], installed with [`scope`]).
//!
//! Every model checks [`check`] before each inference batch, so a stopped run ends after the batch
//! in progress, with [`ModelError::Abandoned`] or [`ModelError::Cancelled`]. A token reaches the
//! models through the thread that runs the job: [`scope`] installs it for the closure it runs, and
//! code that moves work to other threads (the engine's `rayon::join`) passes [`current`] on with
//! [`scope`] there. Scorers take a stopped run's error as any other model error (they fall back to
//! tier 0) but do not warn about it ([`stopped`]); the caller discards the result.

use super::ModelError;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

static ABANDONED: AtomicBool = AtomicBool::new(false);

/// Stops all model inference in this process, for a process about to exit (`segue serve` after
/// `shutdown`, `exit` or the end of its input): a run in progress ends before its next batch with
/// [`ModelError::Abandoned`], and later runs fail at once. There is no undoing it.
pub fn abandon() {
    ABANDONED.store(true, Ordering::SeqCst);
}

/// Whether [`abandon`] was called.
pub fn abandoned() -> bool {
    ABANDONED.load(Ordering::SeqCst)
}

/// Whether model inference on this thread is stopped: [`abandon`] was called, or the job's
/// [`CancelToken`] says it was superseded. Scorers fall back without warning when it is.
pub fn stopped() -> bool {
    abandoned() || current().is_some_and(|t| t.is_cancelled())
}

/// Says whether the job running on this thread was superseded (a newer edit of the same
/// document). Cheap to clone.
#[derive(Clone)]
pub struct CancelToken(Arc<dyn Fn() -> bool + Send + Sync>);

impl std::fmt::Debug for CancelToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("CancelToken").finish_non_exhaustive()
    }
}

impl CancelToken {
    /// A token that asks `cancelled` (polled before every inference batch).
    pub fn new(cancelled: impl Fn() -> bool + Send + Sync + 'static) -> Self {
        CancelToken(Arc::new(cancelled))
    }

    /// Whether the job was superseded.
    pub fn is_cancelled(&self) -> bool {
        (self.0)()
    }
}

thread_local! {
    static CURRENT: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// The token installed on this thread by [`scope`], if any.
pub fn current() -> Option<CancelToken> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Runs `f` with `token` installed on this thread (none: no token), restoring the previous one
/// afterwards, also when `f` panics.
pub fn scope<R>(token: Option<CancelToken>, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<CancelToken>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            CURRENT.with(|c| *c.borrow_mut() = previous);
        }
    }
    let previous = CURRENT.with(|c| std::mem::replace(&mut *c.borrow_mut(), token));
    let _restore = Restore(previous);
    f()
}

/// `Err` once [`abandon`] was called or the job on this thread was superseded; checked before
/// every inference batch.
pub(super) fn check() -> Result<(), ModelError> {
    if abandoned() {
        Err(ModelError::Abandoned)
    } else if current().is_some_and(|t| t.is_cancelled()) {
        Err(ModelError::Cancelled)
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicU32;

    #[test]
    fn a_token_applies_inside_its_scope_only() {
        let flag = Arc::new(AtomicBool::new(false));
        let f = flag.clone();
        let token = CancelToken::new(move || f.load(Ordering::SeqCst));
        assert!(check().is_ok());
        scope(Some(token.clone()), || {
            assert!(check().is_ok());
            flag.store(true, Ordering::SeqCst);
            assert!(matches!(check(), Err(ModelError::Cancelled)));
            assert!(stopped());
            // A nested scope without a token lifts it, and the outer one comes back after.
            scope(None, || assert!(check().is_ok()));
            assert!(check().is_err());
        });
        assert!(check().is_ok() && !stopped());
    }

    #[test]
    fn the_token_is_polled_at_each_check() {
        let polls = Arc::new(AtomicU32::new(0));
        let p = polls.clone();
        let token = CancelToken::new(move || p.fetch_add(1, Ordering::SeqCst) >= 2);
        let passed = scope(Some(token), || {
            (0..5).take_while(|_| check().is_ok()).count()
        });
        assert_eq!(passed, 2);
        assert_eq!(polls.load(Ordering::SeqCst), 3);
    }
}
