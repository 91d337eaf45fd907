//! Collecting many spawned tasks (seed 000, part 2): the same N tasks gathered
//! by different collections. All but one-by-one let the tasks run at once;
//! they differ in the order results come back and in bookkeeping cost.
//!
//! `work(id)` builds each task; the benches use [`sleep_then_id`], the tests
//! use sleeps that finish in reverse order so an ordering mistake shows.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::{FuturesOrdered, FuturesUnordered};
use tokio::task::{JoinError, JoinSet};

/// The seed's task: sleep, then return the id.
pub async fn sleep_then_id(id: u64, d: Duration) -> u64 {
    tokio::time::sleep(d).await;
    id
}

/// `futures::future::join_all` over the spawned handles: results in spawn order.
pub async fn join_all<F, Fut>(n: u64, work: F) -> Result<Vec<u64>, JoinError>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = u64> + Send + 'static,
{
    let handles: Vec<_> = (0..n).map(|id| tokio::spawn(work(id))).collect();
    futures::future::join_all(handles)
        .await
        .into_iter()
        .collect()
}

/// A `Vec` of handles awaited in turn: results in spawn order, and the
/// tasks still run concurrently because all were spawned first.
pub async fn vec_of_handles<F, Fut>(n: u64, work: F) -> Result<Vec<u64>, JoinError>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = u64> + Send + 'static,
{
    let handles: Vec<_> = (0..n).map(|id| tokio::spawn(work(id))).collect();
    let mut out = Vec::with_capacity(handles.len());
    for handle in handles {
        out.push(handle.await?);
    }
    Ok(out)
}

/// `FuturesUnordered` of handles: results in completion order.
pub async fn futures_unordered<F, Fut>(n: u64, work: F) -> Result<Vec<u64>, JoinError>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = u64> + Send + 'static,
{
    let mut pending: FuturesUnordered<_> = (0..n).map(|id| tokio::spawn(work(id))).collect();
    let mut out = Vec::with_capacity(pending.len());
    while let Some(done) = pending.next().await {
        out.push(done?);
    }
    Ok(out)
}

/// `FuturesOrdered` of handles: results in spawn order.
pub async fn futures_ordered<F, Fut>(n: u64, work: F) -> Result<Vec<u64>, JoinError>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = u64> + Send + 'static,
{
    let mut pending: FuturesOrdered<_> = (0..n).map(|id| tokio::spawn(work(id))).collect();
    let mut out = Vec::with_capacity(pending.len());
    while let Some(done) = pending.next().await {
        out.push(done?);
    }
    Ok(out)
}

/// tokio's `JoinSet`: results in completion order.
pub async fn joinset<F, Fut>(n: u64, work: F) -> Result<Vec<u64>, JoinError>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = u64> + Send + 'static,
{
    let mut set = JoinSet::new();
    for id in 0..n {
        set.spawn(work(id));
    }
    let mut out = Vec::with_capacity(set.len());
    while let Some(done) = set.join_next().await {
        out.push(done?);
    }
    Ok(out)
}

/// Spawn one task and await it before spawning the next: no overlap, so N
/// tasks take N times as long (the seed's 4 tasks in 20 s).
pub async fn one_by_one<F, Fut>(n: u64, work: F) -> Result<Vec<u64>, JoinError>
where
    F: Fn(u64) -> Fut,
    Fut: Future<Output = u64> + Send + 'static,
{
    let mut out = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    for id in 0..n {
        out.push(tokio::spawn(work(id)).await?);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const N: u64 = 40;

    /// Later ids sleep less, so completion order is the reverse of spawn order.
    fn reversed(id: u64) -> impl Future<Output = u64> + Send + 'static {
        sleep_then_id(id, Duration::from_millis(2 * (N - id)))
    }

    fn rt() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap()
    }

    fn in_order() -> Vec<u64> {
        (0..N).collect()
    }

    fn sorted(mut ids: Vec<u64>) -> Vec<u64> {
        ids.sort_unstable();
        ids
    }

    #[test]
    fn ordered_collections_keep_spawn_order() {
        let rt = rt();
        assert_eq!(rt.block_on(join_all(N, reversed)).unwrap(), in_order());
        assert_eq!(
            rt.block_on(vec_of_handles(N, reversed)).unwrap(),
            in_order()
        );
        assert_eq!(
            rt.block_on(futures_ordered(N, reversed)).unwrap(),
            in_order()
        );
        assert_eq!(rt.block_on(one_by_one(N, reversed)).unwrap(), in_order());
    }

    #[test]
    fn unordered_collections_return_every_id_in_completion_order() {
        let rt = rt();
        for ids in [
            rt.block_on(futures_unordered(N, reversed)).unwrap(),
            rt.block_on(joinset(N, reversed)).unwrap(),
        ] {
            assert_eq!(ids.len(), N as usize);
            assert_eq!(sorted(ids.clone()), in_order());
            // The 80 ms sleeper (id 0) cannot finish before the 2 ms one (id N-1).
            let pos = |x| ids.iter().position(|&i| i == x).unwrap();
            assert!(pos(N - 1) < pos(0), "{ids:?}");
        }
    }
}
