//! The concurrency patterns of seeds 000 (directory walk, task collections),
//! 001 (stream call cost) and 003 (order-preserving fan-out), as reusable code.
//!
//! Each module is one pattern; the criterion benches in `benches/` only size
//! and time them, so what is measured is exactly what the tests check.

pub mod env;
pub mod fanout;
pub mod streams;
pub mod tasks;
pub mod tree;
pub mod walk;
