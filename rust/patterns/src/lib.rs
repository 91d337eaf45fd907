//! The concurrency patterns of seeds 000 (directory walk, task collections),
//! 001 (stream call cost) and 003 (order-preserving fan-out), as reusable code.
