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
//! starts (a `MALLOC_ARENA_MAX` set by the user wins), and the server calls [`release_free`] once a
//! version is analysed and no other analysis runs. Measured with the soak test
//! (`server/tests/lsp_soak.rs`: three 5,000-word documents, tier 1, debug build): 3.9 MiB per
//! 1,000 edits after the warm-up before, 0.8 after, at the same latency; the arena cap alone
//! took most of it, and returning free pages lowered the level by about 10 MiB more.

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    fn glibc_accepts_the_arena_cap() {
        assert!(set_arena_max(ARENAS));
    }
}
