//! Memory the build has let go, given back to the system (docs/scale.md#giving-memory-back).
//!
//! glibc's allocator keeps the small blocks a program frees inside its heap, for reuse; a
//! page is returned to the kernel only when it lies at the heap's top. A large build lets go of
//! millions of small values between stages (paths, names, records' lists), interleaved with
//! values it keeps, so without a trim the process's resident memory stays near the high-water
//! mark of every earlier stage, and the next stage's transient lists are added on top of it.
//! `malloc_trim(0)` hands every free whole page back. It changes nothing the build computes:
//! it only returns pages no value occupies. The calls are the `libc` crate's declarations
//! (already in the tree through rustix and git2), not declared again here.

/// Gives back to the system the pages of memory the build has let go of (a no-op where the
/// allocator is not glibc's).
pub fn give_back() {
    // SAFETY: glibc's `malloc_trim` takes a byte count, locks its own arenas and touches
    // nothing but the allocator's free lists; no Rust value is read or moved.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Large blocks (1 MiB or more) are always taken from the system as mappings of their own and
/// returned when freed, whatever the sizes freed before (docs/scale.md#names-not-held).
pub fn large_blocks_mapped() {
    // SAFETY: glibc's `mallopt` sets one of its own tunables; no Rust value is touched.
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}
