//! Generator → W workers → printer over crossbeam channels (seed 003).
//!
//! [`unordered`] hands results to the printer in completion order.
//! [`chanchan`] keeps input order with a channel of channels: for each item
//! the generator makes a rendezvous channel, sends `(item, tx)` to the workers
//! and `rx` to the printer, and the printer receives from those `rx` in turn.
//! The generator→printer capacity bounds how far the generator can run ahead
//! of the printer, and so how many workers can be busy: with capacity 0 a slow
//! item at the head stalls everyone, with capacity ≈ W it no longer does.
//! The printer is the calling thread; it collects instead of printing.

use std::ops::Range;
use std::thread;
use std::time::Duration;

use crossbeam_channel::{Receiver, Sender, bounded};

/// Results in completion order. All channels are rendezvous (capacity 0), as
/// in the seed's "normal" version.
pub fn unordered<T, U, F>(items: Vec<T>, workers: usize, work: F) -> Vec<U>
where
    T: Send,
    U: Send,
    F: Fn(T) -> U + Sync,
{
    assert!(workers >= 1, "fan-out needs at least one worker");
    let (job_tx, job_rx) = bounded::<T>(0);
    let (out_tx, out_rx) = bounded::<U>(0);
    thread::scope(|s| {
        s.spawn(move || {
            for item in items {
                job_tx.send(item).expect("every worker quit");
            }
        });
        for _ in 0..workers {
            let (job_rx, out_tx, work) = (job_rx.clone(), out_tx.clone(), &work);
            s.spawn(move || {
                for item in job_rx {
                    out_tx.send(work(item)).expect("printer quit");
                }
            });
        }
        // Only the workers may hold these, so the printer's loop ends with them.
        drop((job_rx, out_tx));
        out_rx.iter().collect()
    })
}

/// Results in input order, through a channel of channels. `capacity` is the
/// generator→printer channel's; the others are rendezvous, as in the seed
/// (so a worker also waits until the printer takes its result).
pub fn chanchan<T, U, F>(items: Vec<T>, workers: usize, capacity: usize, work: F) -> Vec<U>
where
    T: Send,
    U: Send,
    F: Fn(T) -> U + Sync,
{
    assert!(workers >= 1, "fan-out needs at least one worker");
    let (job_tx, job_rx) = bounded::<(T, Sender<U>)>(0);
    let (order_tx, order_rx) = bounded::<Receiver<U>>(capacity);
    thread::scope(|s| {
        s.spawn(move || {
            for item in items {
                let (tx, rx) = bounded::<U>(0);
                job_tx.send((item, tx)).expect("every worker quit");
                order_tx.send(rx).expect("printer quit");
            }
        });
        for _ in 0..workers {
            let (job_rx, work) = (job_rx.clone(), &work);
            s.spawn(move || {
                for (item, tx) in job_rx {
                    tx.send(work(item)).expect("printer quit");
                }
            });
        }
        drop(job_rx);
        order_rx
            .iter()
            .map(|rx| rx.recv().expect("a worker dropped its result"))
            .collect()
    })
}

/// The seed's workload: sleep, then turn the item into text (`i * 10`).
/// Items for which `slow(i)` holds sleep `slow_sleep`, the others `sleep`.
pub fn sleep_work(
    sleep: Duration,
    slow_sleep: Duration,
    slow: impl Fn(u64) -> bool + Sync,
) -> impl Fn(u64) -> String + Sync {
    move |i| {
        thread::sleep(if slow(i) { slow_sleep } else { sleep });
        (i * 10).to_string()
    }
}

/// Quotes one line for a POSIX shell: `it's` becomes `'it'\''s'` (the seed's
/// xquo tool quotes lines for a Bash command line).
pub fn quote_line(line: &str, out: &mut String) {
    out.push('\'');
    for c in line.chars() {
        if c == '\'' {
            out.push_str("'\\''");
        } else {
            out.push(c);
        }
    }
    out.push('\'');
    out.push('\n');
}

/// Quotes a bulk of lines into one buffer: one message per bulk, so bigger
/// bulks spread the per-message channel cost over more lines.
pub fn quote_bulk(lines: &[String]) -> String {
    let mut out = String::with_capacity(lines.iter().map(|l| l.len() + 8).sum());
    for line in lines {
        quote_line(line, &mut out);
    }
    out
}

/// `count` deterministic text lines, some with quotes to escape.
pub fn sample_lines(count: usize) -> Vec<String> {
    (0..count)
        .map(|i| match i % 4 {
            0 => format!("line {i}: plain words and numbers {}", i * 7),
            1 => format!("line {i}: it's a 'quoted' value"),
            2 => format!("line {i}: path/to/file_{i}.txt with spaces"),
            _ => format!("line {i}: $HOME and `cmd` stay literal"),
        })
        .collect()
}

/// The index ranges that split `len` lines into bulks of `bulk` lines.
pub fn bulks(len: usize, bulk: usize) -> Vec<Range<usize>> {
    assert!(bulk >= 1, "a bulk holds at least one line");
    (0..len)
        .step_by(bulk)
        .map(|start| start..(start + bulk).min(len))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ITEMS: u64 = 20;
    const WORKERS: usize = 5;

    fn input() -> Vec<u64> {
        (0..ITEMS).collect()
    }

    fn expected() -> Vec<String> {
        input().iter().map(|i| (i * 10).to_string()).collect()
    }

    /// Every other item much slower, so completion order differs from input order.
    fn mixed() -> impl Fn(u64) -> String + Sync {
        sleep_work(Duration::from_millis(1), Duration::from_millis(15), |i| {
            i % 2 == 0
        })
    }

    #[test]
    fn chanchan_keeps_input_order_for_every_capacity() {
        for capacity in [0, 1, 2, 3, WORKERS, 2 * WORKERS] {
            assert_eq!(
                chanchan(input(), WORKERS, capacity, mixed()),
                expected(),
                "capacity {capacity}"
            );
        }
        assert_eq!(chanchan(input(), 1, 0, mixed()), expected(), "one worker");
    }

    #[test]
    fn unordered_returns_the_same_multiset_in_completion_order() {
        // The slow items take 300 ms here, not 15: a busy machine can start a worker thread
        // 15 ms late, never 300.
        let far = sleep_work(Duration::from_millis(1), Duration::from_millis(300), |i| {
            i % 2 == 0
        });
        let got = unordered(input(), WORKERS, far);
        let mut sorted = got.clone();
        sorted.sort_by_key(|s| s.parse::<u64>().unwrap());
        assert_eq!(sorted, expected());
        // Item 1 (1 ms) finishes long before item 0 (300 ms) on another worker.
        let pos = |s: &str| got.iter().position(|g| g == s).unwrap();
        assert!(pos("10") < pos("0"), "{got:?}");
    }

    #[test]
    fn quoting_escapes_single_quotes() {
        let mut out = String::new();
        quote_line("it's", &mut out);
        assert_eq!(out, "'it'\\''s'\n");
        assert_eq!(quote_bulk(&["a".into(), "b c".into()]), "'a'\n'b c'\n");
    }

    #[test]
    fn bulks_cover_every_line_once() {
        assert_eq!(bulks(5, 2), vec![0..2, 2..4, 4..5]);
        assert_eq!(bulks(4, 100), vec![0..4]);
        assert!(bulks(0, 3).is_empty());
    }

    #[test]
    fn cpu_workload_through_chanchan_equals_sequential_quoting() {
        let lines = sample_lines(1000);
        let sequential = quote_bulk(&lines);
        for bulk in [1, 7, 100] {
            let parts = chanchan(bulks(lines.len(), bulk), 3, 3, |r| quote_bulk(&lines[r]));
            assert_eq!(parts.concat(), sequential, "bulk {bulk}");
            let mut unordered_parts =
                unordered(bulks(lines.len(), bulk), 3, |r| quote_bulk(&lines[r]));
            let mut in_order = chanchan(bulks(lines.len(), bulk), 3, 0, |r| quote_bulk(&lines[r]));
            unordered_parts.sort();
            in_order.sort();
            assert_eq!(unordered_parts, in_order, "bulk {bulk}");
        }
    }
}
