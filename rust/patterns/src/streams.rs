//! The call cost of iterators and async streams (seed 001): sum 1..=n through
//! each kind, `black_box` on every item so the loop cannot be folded away
//! (`sum += x; black_box(x);`, the seed's exact form).
//! The async variants are meant for a current-thread runtime, as in the seed.
//!
//! Nightly generators have no stable equivalent; [`generator_standin`] is a
//! hand-written state machine with a `resume` that yields, i.e. what the
//! compiler lowers a generator (`Coroutine`) closure to.

use std::hint::black_box;
use std::pin::Pin;

use futures::stream::{self, BoxStream, Stream, StreamExt};

/// 1..=n as a plain iterator (the seed's `SyncTest`).
pub struct Counter {
    current: u64,
    n: u64,
}

impl Counter {
    /// Yields 1, 2, …, n.
    pub fn new(n: u64) -> Counter {
        Counter { current: 0, n }
    }

    /// The same step as an `async fn` (the seed's `AsyncTest::next`).
    pub async fn next_async(&mut self) -> Option<u64> {
        self.step()
    }

    fn step(&mut self) -> Option<u64> {
        self.current += 1;
        (self.current <= self.n).then_some(self.current)
    }
}

impl Iterator for Counter {
    type Item = u64;
    fn next(&mut self) -> Option<u64> {
        self.step()
    }
}

/// Sums a stream, passing every item through `black_box`.
async fn sum_stream<S: Stream<Item = u64> + Unpin>(mut s: S) -> u64 {
    let mut sum = 0;
    while let Some(x) = s.next().await {
        sum += x;
        black_box(x);
    }
    sum
}

/// Plain `Iterator`.
pub fn iterator(n: u64) -> u64 {
    let mut sum = 0;
    for x in Counter::new(n) {
        sum += x;
        black_box(x);
    }
    sum
}

/// `async fn next` on a struct, awaited per item.
pub async fn async_next(n: u64) -> u64 {
    let mut counter = Counter::new(n);
    let mut sum = 0;
    while let Some(x) = counter.next_async().await {
        sum += x;
        black_box(x);
    }
    sum
}

fn iter_stream(n: u64) -> impl Stream<Item = u64> {
    stream::iter(Counter::new(n))
}

/// `futures::stream::iter` over the iterator.
pub async fn stream_iter(n: u64) -> u64 {
    sum_stream(std::pin::pin!(iter_stream(n))).await
}

/// `futures::stream::iter`, boxed as a `BoxStream` (dynamic dispatch per poll).
pub async fn stream_iter_boxed(n: u64) -> u64 {
    let boxed: BoxStream<'static, u64> = iter_stream(n).boxed();
    sum_stream(boxed).await
}

fn unfold_stream(n: u64) -> impl Stream<Item = u64> {
    stream::unfold(Counter::new(n), |mut counter| async move {
        counter.next_async().await.map(|x| (x, counter))
    })
}

/// `futures::stream::unfold` around the `async fn next` (a new future per item).
pub async fn unfold(n: u64) -> u64 {
    sum_stream(std::pin::pin!(unfold_stream(n))).await
}

/// `futures::stream::unfold`, boxed.
pub async fn unfold_boxed(n: u64) -> u64 {
    let boxed: BoxStream<'static, u64> = unfold_stream(n).boxed();
    sum_stream(boxed).await
}

fn yield_stream(n: u64) -> impl Stream<Item = u64> {
    async_stream::stream! {
        for i in 1..=n {
            yield i;
        }
    }
}

/// `async-stream`'s `stream!` with `yield` (items handed over through a slot
/// the macro shares between the generator body and `poll_next`).
pub async fn async_stream(n: u64) -> u64 {
    sum_stream(std::pin::pin!(yield_stream(n))).await
}

/// `async-stream`, boxed.
pub async fn async_stream_boxed(n: u64) -> u64 {
    let boxed: BoxStream<'static, u64> = yield_stream(n).boxed();
    sum_stream(boxed).await
}

/// A stream-like trait with an `async fn`, made object-safe by `async-trait`:
/// every call boxes its future.
#[async_trait::async_trait]
pub trait AsyncSource: Send {
    /// The next item, or `None` at the end.
    async fn next(&mut self) -> Option<u64>;
}

#[async_trait::async_trait]
impl AsyncSource for Counter {
    async fn next(&mut self) -> Option<u64> {
        self.step()
    }
}

/// `async-trait` through a `Box<dyn AsyncSource>`.
pub async fn async_trait(n: u64) -> u64 {
    let mut source: Box<dyn AsyncSource> = Box::new(Counter::new(n));
    let mut sum = 0;
    while let Some(x) = source.next().await {
        sum += x;
        black_box(x);
    }
    sum
}

/// What `resume` returns (mirrors the nightly `CoroutineState`).
pub enum GenState {
    /// The generator yielded a value and can be resumed.
    Yielded(u64),
    /// The generator returned.
    Complete,
}

/// The state machine a `|| for i in 1..=n { yield i }` generator becomes:
/// the suspended locals live in the variant for each suspension point.
pub enum RangeGen {
    /// Not started yet.
    Start { n: u64 },
    /// Suspended at the `yield`, with the loop's locals.
    Suspended { i: u64, n: u64 },
    /// Returned.
    Done,
}

impl RangeGen {
    /// Resumes until the next `yield` or the end (pinned like a real generator).
    pub fn resume(mut self: Pin<&mut Self>) -> GenState {
        let (next, n) = match *self {
            RangeGen::Start { n } => (1, n),
            RangeGen::Suspended { i, n } => (i + 1, n),
            RangeGen::Done => panic!("resumed a completed generator"),
        };
        if next <= n {
            *self = RangeGen::Suspended { i: next, n };
            GenState::Yielded(next)
        } else {
            *self = RangeGen::Done;
            GenState::Complete
        }
    }
}

/// Stable stand-in for the seed's nightly generator: a resumable state machine.
pub fn generator_standin(n: u64) -> u64 {
    let mut generator = RangeGen::Start { n };
    let mut sum = 0;
    while let GenState::Yielded(x) = Pin::new(&mut generator).resume() {
        sum += x;
        black_box(x);
    }
    sum
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap()
    }

    #[test]
    fn every_variant_sums_to_n_n_plus_1_over_2() {
        let rt = rt();
        for n in [0, 1, 2, 1000, 100_001] {
            let want = n * (n + 1) / 2;
            assert_eq!(iterator(n), want, "iterator n={n}");
            assert_eq!(generator_standin(n), want, "generator_standin n={n}");
            assert_eq!(rt.block_on(async_next(n)), want, "async_next n={n}");
            assert_eq!(rt.block_on(stream_iter(n)), want, "stream_iter n={n}");
            assert_eq!(rt.block_on(stream_iter_boxed(n)), want, "stream_iter_boxed");
            assert_eq!(rt.block_on(unfold(n)), want, "unfold n={n}");
            assert_eq!(rt.block_on(unfold_boxed(n)), want, "unfold_boxed n={n}");
            assert_eq!(rt.block_on(async_stream(n)), want, "async_stream n={n}");
            assert_eq!(
                rt.block_on(async_stream_boxed(n)),
                want,
                "async_stream_boxed"
            );
            assert_eq!(rt.block_on(async_trait(n)), want, "async_trait n={n}");
        }
    }

    #[test]
    fn the_generator_stand_in_completes_once() {
        let mut generator = RangeGen::Start { n: 2 };
        let mut pinned = Pin::new(&mut generator);
        assert!(matches!(pinned.as_mut().resume(), GenState::Yielded(1)));
        assert!(matches!(pinned.as_mut().resume(), GenState::Yielded(2)));
        assert!(matches!(pinned.as_mut().resume(), GenState::Complete));
        assert!(matches!(*pinned, RangeGen::Done));
    }
}
