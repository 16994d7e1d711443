//! Input shared by both front ends: reading files and standard input with bounds ([`read`]),
//! expanding paths into the files to check ([`collect`]) and reading a stream's lines with a
//! bound ([`lines`]). It knows settings and formats, nothing of scoring or output.

pub mod collect;
pub mod lines;
pub mod read;
