//! Input shared by both front ends: reading files and standard input with bounds ([`read`]) and
//! expanding paths into the files to check ([`collect`]). It knows settings and formats, nothing of
//! scoring or output.

pub mod collect;
pub mod read;
